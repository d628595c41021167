//! Conformance cases for what a tenant and the operator set up: migrations, settings, tenants
//! and API keys, event types, consumers, endpoints.

use super::*;

pub async fn migrations_are_idempotent(s: &dyn Store) {
    s.migrate().await.expect("second migrate");
    s.migrate().await.expect("third migrate");
}

pub async fn settings_keep_the_first_value(s: &dyn Store) {
    assert_eq!(get_setting(s, "k").await.unwrap(), None);
    assert_eq!(put_setting_if_absent(s, "k", "one").await.unwrap(), "one");
    assert_eq!(put_setting_if_absent(s, "k", "two").await.unwrap(), "one");
    assert_eq!(get_setting(s, "k").await.unwrap().as_deref(), Some("one"));
}

pub async fn tenants_and_sub_tenants(s: &dyn Store) {
    let parent = tenant(s, "acme").await;
    let child = Tenant {
        id: new_id(IdKind::Tenant, T0),
        name: "acme-eu".into(),
        parent_id: Some(parent.id.clone()),
        created_at: T0,
    };
    try_create_tenant(s, &child).await.unwrap();
    assert_eq!(get_tenant(s, &child.id).await.unwrap(), Some(child.clone()));
    let orphan = Tenant {
        id: new_id(IdKind::Tenant, T0),
        parent_id: Some("ten_missing".into()),
        ..child.clone()
    };
    assert!(matches!(
        try_create_tenant(s, &orphan).await,
        Err(StoreError::MissingReference("parent_id"))
    ));
    assert!(matches!(
        try_create_tenant(s, &child).await,
        Err(StoreError::Conflict(_))
    ));
    let first = list_tenants(s, &page(1)).await.unwrap();
    assert_eq!(first.data.len(), 1);
    let after = first.next_after.clone().expect("a second page");
    let second = list_tenants(
        s,
        &PageRequest {
            after: Some(after),
            limit: 10,
        },
    )
    .await
    .unwrap();
    assert_eq!(second.data.len(), 1);
    assert_eq!(second.next_after, None);
    assert_ne!(first.data[0].id, second.data[0].id);
}

pub async fn api_keys_are_found_by_hash_until_revoked(s: &dyn Store) {
    let a = tenant(s, "a").await;
    let b = tenant(s, "b").await;
    let key = NewApiKey {
        id: new_id(IdKind::ApiKey, T0),
        tenant_id: a.id.clone(),
        environment: Environment::Test,
        name: Some("ci".into()),
        prefix: "rk_test_abcd".into(),
        key_hash: "h1".into(),
        created_at: T0,
    };
    let created = create_api_key(s, &key).await.unwrap();
    assert_eq!(find_api_key(s, "h1").await.unwrap(), Some(created.clone()));
    assert_eq!(find_api_key(s, "h2").await.unwrap(), None);
    assert_eq!(
        list_api_keys(s, &a.id, &PageRequest::first(250))
            .await
            .unwrap()
            .data
            .len(),
        1
    );
    assert!(
        list_api_keys(s, &b.id, &PageRequest::first(250))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    // Another tenant cannot revoke it.
    assert!(!revoke_api_key(s, &b.id, &key.id, T0).await.unwrap());
    assert!(revoke_api_key(s, &a.id, &key.id, T0).await.unwrap());
    assert!(!revoke_api_key(s, &a.id, &key.id, T0).await.unwrap());
    assert_eq!(find_api_key(s, "h1").await.unwrap(), None);
    let missing_tenant = NewApiKey {
        id: new_id(IdKind::ApiKey, T0),
        tenant_id: "ten_missing".into(),
        key_hash: "h3".into(),
        ..key
    };
    assert!(matches!(
        create_api_key(s, &missing_tenant).await,
        Err(StoreError::MissingReference(_))
    ));
}

pub async fn event_types_version_on_schema_change(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let mut put = PutEventType {
        name: "order.shipped".into(),
        description: "An order left the warehouse".into(),
        schema: json!({"type": "object", "required": ["order_id"]}),
        sample: Some(json!({"order_id": 1})),
        thin_fields: vec![],
        personal_data_fields: vec![],
        audience: relay_core::audience::Audience::Addressed,
        now: T0,
    };
    let (et, outcome) = put_event_type(s, &live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::Created);
    assert_eq!(et.current_version, 1);
    assert_eq!(et.audience, relay_core::audience::Audience::Addressed);
    put.description = "changed".into();
    put.personal_data_fields = vec!["/email".into()];
    let (et, outcome) = put_event_type(s, &live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::Updated);
    assert_eq!((et.current_version, et.versions.len()), (1, 1));
    assert_eq!(et.description, "changed");
    assert_eq!(
        et.versions[0].personal_data_fields,
        vec!["/email".to_string()]
    );
    put.schema = json!({"type": "object", "required": ["order_id", "carrier"]});
    let (et, outcome) = put_event_type(s, &live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::NewVersion);
    assert_eq!((et.current_version, et.versions.len()), (2, 2));
    assert_eq!(et.current().unwrap().schema, put.schema);
    // Changed thin fields change what thin endpoints receive: a new version,
    // and the earlier ones keep theirs.
    put.thin_fields = vec!["/order_id".into()];
    let (et, outcome) = put_event_type(s, &live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::NewVersion);
    assert_eq!((et.current_version, et.versions.len()), (3, 3));
    assert_eq!(et.versions[2].thin_fields, vec!["/order_id".to_string()]);
    assert!(et.versions[1].thin_fields.is_empty());
    assert_eq!(et.versions[2].schema, et.versions[1].schema);
    // The audience is the type's, not a version's: set in place.
    put.audience = relay_core::audience::Audience::AllConsumers;
    let (et, outcome) = put_event_type(s, &live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::Updated);
    assert_eq!(et.current_version, 3);
    assert_eq!(et.audience, relay_core::audience::Audience::AllConsumers);
    // Environments are separate catalogs.
    let test = scope(&t, Environment::Test);
    assert_eq!(
        get_event_type(s, &test, "order.shipped").await.unwrap(),
        None
    );
    assert!(
        list_event_types(s, &test, &PageRequest::first(250))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    let listed = list_event_types(s, &live, &PageRequest::first(250))
        .await
        .unwrap()
        .data;
    assert_eq!(listed, vec![et]);
}

pub async fn consumers_are_unique_per_tenant_and_environment(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = customer(s, &live, "merchant-1").await;
    let dup = Consumer {
        id: new_id(IdKind::Consumer, T0),
        ..c.clone()
    };
    assert!(matches!(
        create_consumer(s, &live, &dup).await,
        Err(StoreError::Conflict("external_id"))
    ));
    let test = scope(&t, Environment::Test);
    create_consumer(
        s,
        &test,
        &Consumer {
            environment: Environment::Test,
            ..dup
        },
    )
    .await
    .expect("the same external id in another environment");
    let patched = update_consumer(
        s,
        &live,
        &c.id,
        &ConsumerPatch {
            name: Some(Some("Merchant One".into())),
            source: Some("https://merchant.example".into()),
        },
        T0.plus_seconds(1),
    )
    .await
    .unwrap();
    assert_eq!(patched.name.as_deref(), Some("Merchant One"));
    assert_eq!(get_consumer(s, &live, &c.id).await.unwrap(), Some(patched));
    assert!(matches!(
        update_consumer(s, &test, &c.id, &ConsumerPatch::default(), T0).await,
        Err(StoreError::NotFound)
    ));
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    assert!(matches!(
        delete_consumer(s, &live, &c.id).await,
        Err(StoreError::Conflict("consumer_has_endpoints"))
    ));
    // Another scope learns nothing: not even that the consumer has endpoints.
    let other = tenant(s, "b").await;
    assert!(matches!(
        delete_consumer(s, &scope(&other, Environment::Live), &c.id).await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        delete_consumer(s, &test, &c.id).await,
        Err(StoreError::NotFound)
    ));
    delete_endpoint(s, &live, &e.id, T0, None).await.unwrap();
    delete_consumer(s, &live, &c.id).await.unwrap();
    assert_eq!(get_consumer(s, &live, &c.id).await.unwrap(), None);
    assert!(matches!(
        delete_consumer(s, &live, &c.id).await,
        Err(StoreError::NotFound)
    ));
}

pub async fn endpoints_enforce_limits_and_scope(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c1 = consumer(s, &live, "c1").await;
    let c2 = consumer(s, &live, "c2").await;
    let limits = EndpointLimits {
        per_tenant: 3,
        per_consumer: 2,
    };
    for _ in 0..2 {
        create_endpoint(
            s,
            &live,
            &endpoint_value(&live, &c1.id, &["order.shipped"]),
            &[],
            limits,
            None,
        )
        .await
        .unwrap();
    }
    assert!(matches!(
        create_endpoint(
            s,
            &live,
            &endpoint_value(&live, &c1.id, &[]),
            &[],
            limits,
            None
        )
        .await,
        Err(StoreError::LimitReached("endpoints_per_consumer"))
    ));
    create_endpoint(
        s,
        &live,
        &endpoint_value(&live, &c2.id, &[]),
        &[],
        limits,
        None,
    )
    .await
    .unwrap();
    assert!(matches!(
        create_endpoint(
            s,
            &live,
            &endpoint_value(&live, &c2.id, &[]),
            &[],
            limits,
            None
        )
        .await,
        Err(StoreError::LimitReached("endpoints_per_tenant"))
    ));
    assert!(matches!(
        create_endpoint(
            s,
            &live,
            &endpoint_value(&live, "con_missing", &[]),
            &[],
            LIMITS,
            None
        )
        .await,
        Err(StoreError::MissingReference("consumer_id"))
    ));
    let test = scope(&t, Environment::Test);
    // A consumer of another environment cannot own a test endpoint.
    assert!(matches!(
        create_endpoint(
            s,
            &test,
            &endpoint_value(&test, &c1.id, &[]),
            &[],
            LIMITS,
            None
        )
        .await,
        Err(StoreError::MissingReference("consumer_id"))
    ));
    let listed = list_endpoints(s, &live, None, &page(10)).await.unwrap();
    assert_eq!(listed.data.len(), 3);
    let by_consumer = list_endpoints(s, &live, Some(&c2.id), &page(10))
        .await
        .unwrap();
    assert_eq!(by_consumer.data.len(), 1);
    let one = &listed.data[0];
    assert_eq!(
        get_endpoint(s, &live, &one.id).await.unwrap().as_ref(),
        Some(one)
    );
    assert_eq!(get_endpoint(s, &test, &one.id).await.unwrap(), None);
    let other = tenant(s, "b").await;
    assert_eq!(
        get_endpoint(s, &scope(&other, Environment::Live), &one.id)
            .await
            .unwrap(),
        None
    );
    let mut changed = one.clone();
    changed.description = Some("renamed".into());
    changed.updated_at = T0.plus_seconds(5);
    // The state is not a setting: an update never writes it.
    let mut with_state = changed.clone();
    with_state.state = EndpointState::Paused;
    update_endpoint(s, &live, &with_state, &[]).await.unwrap();
    changed.revision += 1;
    assert_eq!(
        get_endpoint(s, &live, &one.id).await.unwrap(),
        Some(changed.clone())
    );
    assert!(matches!(
        update_endpoint(s, &scope(&other, Environment::Live), &changed, &[]).await,
        Err(StoreError::NotFound)
    ));
}
