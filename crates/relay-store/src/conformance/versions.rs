//! Conformance cases for endpoint versions (thin events and snapshots): the
//! versions are kept, every message records the version it was produced
//! for, and the shape source of a version is what was written.

use super::*;

pub async fn endpoint_versions_are_kept_and_messages_record_theirs(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    put_event_type(
        s,
        &live,
        &PutEventType {
            name: "order.shipped".into(),
            description: String::new(),
            schema: json!({"type": "object", "properties": {"order_id": {}, "note": {}}}),
            sample: None,
            thin_fields: vec!["/order_id".into()],
            personal_data_fields: vec!["/note".into()],
            audience: relay_core::audience::Audience::Addressed,
            now: T0,
        },
    )
    .await
    .unwrap();
    let c = consumer(s, &live, "c").await;
    let mut e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let first = endpoint_versions(s, &live, &e.id, &PageRequest::first(250))
        .await
        .unwrap()
        .unwrap()
        .data;
    assert_eq!(first, vec![e.current_version()]);

    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    // A new allow list: version 2; the first stays as it was.
    let t1 = T0.plus_millis(1_000);
    e.snapshot_fields = vec!["/order_id".into()];
    e.allow_personal_data = false;
    e.event_type_versions = [("order.shipped".to_string(), 1)].into();
    e.version = 2;
    e.version_started_at = t1;
    e.updated_at = t1;
    update_endpoint(s, &live, &e, &[]).await.unwrap();
    e.revision += 1;
    // An update that keeps the version writes no version.
    e.description = Some("orders".into());
    update_endpoint(s, &live, &e, &[]).await.unwrap();
    e.revision += 1;
    let versions = endpoint_versions(s, &live, &e.id, &PageRequest::first(250))
        .await
        .unwrap()
        .unwrap()
        .data;
    assert_eq!(versions.len(), 2);
    assert_eq!(versions[0], first[0]);
    assert_eq!(versions[1], e.current_version());
    assert_eq!(
        get_endpoint(s, &live, &e.id).await.unwrap().unwrap(),
        e,
        "the endpoint reads back with its payload settings"
    );
    s.publish(&live, new_event("evt_2", "order.shipped", None))
        .await
        .unwrap();
    let msgs = list_messages(s, &live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    let version_of = |event: &str| {
        msgs.data
            .iter()
            .find(|m| m.event_id == event)
            .and_then(|m| m.endpoint_version)
    };
    assert_eq!(
        (version_of("evt_1"), version_of("evt_2")),
        (Some(1), Some(2))
    );

    // The shape source of each version is what was written.
    let key = |version: i64| ShapeKey {
        tenant_id: t.id.clone(),
        environment: Environment::Live,
        endpoint_id: e.id.clone(),
        endpoint_version: version,
        event_type: "order.shipped".into(),
    };
    let v1 = shape_source(s, &key(1)).await.unwrap().unwrap();
    assert_eq!(v1.endpoint, first[0]);
    assert_eq!(v1.type_versions.len(), 1);
    assert_eq!(
        v1.type_versions[0].thin_fields,
        vec!["/order_id".to_string()]
    );
    assert_eq!(
        v1.type_versions[0].personal_data_fields,
        vec!["/note".to_string()]
    );
    assert_eq!(v1.type_versions[0].created_at, T0);
    let v2 = shape_source(s, &key(2)).await.unwrap().unwrap();
    assert_eq!(v2.endpoint, versions[1]);
    assert_eq!(shape_source(s, &key(3)).await.unwrap(), None);

    // Another tenant or environment sees no versions.
    let test = scope(&t, Environment::Test);
    assert_eq!(
        endpoint_versions(s, &test, &e.id, &PageRequest::first(250))
            .await
            .unwrap(),
        None
    );
    let other = tenant(s, "b").await;
    let other = scope(&other, Environment::Live);
    assert_eq!(
        endpoint_versions(s, &other, &e.id, &PageRequest::first(250))
            .await
            .unwrap(),
        None
    );
}
