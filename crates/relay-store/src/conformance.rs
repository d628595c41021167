//! The conformance suite: storage behaviours both backends must show.
//!
//! Each `pub async fn` is one case taking a fresh, migrated store.
//! `tests/conformance.rs` runs every case on SQLite always, and on PostgreSQL
//! when the tests have one ([`crate::testenv`]: `RELAY_TEST_POSTGRES_URL`, or
//! the local server when it answers; each test in its own schema). A new
//! storage behaviour gets a case here first.

use std::sync::Arc;

mod terminal;
pub use terminal::*;

use relay_core::id::IdKind;
use relay_core::lifecycle::EndpointAction;
use relay_core::model::{
    Consumer, Destination, Endpoint, EndpointState, Environment, HttpsDestination, MessageState,
    SignatureScheme, Tenant,
};
use relay_core::time::Timestamp;
use serde_json::json;
use serde_json::value::RawValue;

use relay_core::model::{Attempt, AttemptTrigger};
use relay_core::transition::Progress;

mod lifecycle;
mod retention;
pub use lifecycle::*;
pub use retention::*;
mod tenant_side;
pub use tenant_side::*;
mod transactions;
pub use transactions::*;

use crate::{
    Completion, ConsumerPatch, EndpointKeyRecord, EndpointLimits, EndpointWarning, MessageFilter,
    NewApiKey, NewEvent, Operator, PageRequest, PutEventType, PutEventTypeOutcome, Scope, Store,
    StoreError, new_id, progress_of,
};

/// A store made for one test, removed when dropped (SQLite) or by `cleanup` (PostgreSQL).
pub struct TestDb {
    pub store: Arc<dyn Store>,
    sqlite_path: Option<std::path::PathBuf>,
    pub(crate) pg: Option<(Arc<crate::postgres::PgStore>, String)>,
}

impl TestDb {
    /// A fresh SQLite database in the system's temporary directory.
    pub async fn sqlite() -> TestDb {
        let path = std::env::temp_dir().join(format!(
            "relay-test-{}.db",
            new_id(IdKind::Job, Timestamp(0)).to_lowercase()
        ));
        let url = format!("sqlite://{}", path.display());
        let store = crate::sqlite::SqliteStore::connect(&url)
            .await
            .expect("open a temporary SQLite database");
        store.migrate().await.expect("migrate SQLite");
        TestDb {
            store: Arc::new(store),
            sqlite_path: Some(path),
            pg: None,
        }
    }

    /// A fresh schema in the tests' PostgreSQL ([`crate::testenv::postgres_url`]),
    /// or `None` (after a `SKIPPED` line) when there is none.
    pub async fn postgres(test: &str) -> Option<TestDb> {
        let url = crate::testenv::postgres_url(test)?;
        let schema = format!("t_{}", new_id(IdKind::Job, Timestamp(0)).to_lowercase());
        let store = crate::postgres::PgStore::connect_in_schema(&url, &schema)
            .await
            .unwrap_or_else(|e| {
                panic!("the tests' PostgreSQL is named or answers, but cannot be used: {e}")
            });
        store.migrate().await.expect("migrate PostgreSQL");
        let store = Arc::new(store);
        Some(TestDb {
            store: store.clone(),
            sqlite_path: None,
            pg: Some((store, schema)),
        })
    }

    /// Drops the PostgreSQL schema; SQLite files go on drop.
    pub async fn cleanup(self) {
        if let Some((pg, schema)) = &self.pg {
            let _ = pg.drop_schema(schema).await;
        }
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some(path) = &self.sqlite_path {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
        }
    }
}

pub(crate) const T0: Timestamp = Timestamp(1_800_000_000_000);
pub(crate) const LIMITS: EndpointLimits = EndpointLimits {
    per_tenant: 100,
    per_consumer: 50,
};

pub(crate) async fn tenant(s: &dyn Store, name: &str) -> Tenant {
    let t = Tenant {
        id: new_id(IdKind::Tenant, T0),
        name: name.into(),
        parent_id: None,
        created_at: T0,
    };
    s.create_tenant(&t).await.expect("create tenant");
    t
}

pub(crate) fn scope(t: &Tenant, environment: Environment) -> Scope {
    Scope {
        tenant_id: t.id.clone(),
        environment,
    }
}

pub(crate) async fn consumer(s: &dyn Store, sc: &Scope, external_id: &str) -> Consumer {
    let c = Consumer {
        id: new_id(IdKind::Consumer, T0),
        external_id: external_id.into(),
        kind: relay_core::model::ConsumerKind::Customer,
        name: None,
        source: format!("/consumers/{external_id}"),
        environment: sc.environment,
        created_at: T0,
        updated_at: T0,
    };
    s.create_consumer(sc, &c).await.expect("create consumer");
    c
}

pub(crate) fn endpoint_value(sc: &Scope, consumer_id: &str, types: &[&str]) -> Endpoint {
    Endpoint {
        id: new_id(IdKind::Endpoint, T0),
        consumer_id: consumer_id.into(),
        environment: sc.environment,
        description: None,
        destination: Destination::Https(HttpsDestination {
            url: "https://hooks.example.com/relay".into(),
            auth: None,
        }),
        event_types: types.iter().map(|t| t.to_string()).collect(),
        signature_scheme: SignatureScheme::V1a,
        retry_schedule_seconds: None,
        max_concurrency: 10,
        rate_limit_per_second: None,
        snapshot_fields: vec![],
        version: 1,
        state: EndpointState::Active,
        disabled_reason: None,
        auto_disable: true,
        created_at: T0,
        updated_at: T0,
    }
}

pub(crate) async fn endpoint(
    s: &dyn Store,
    sc: &Scope,
    consumer_id: &str,
    types: &[&str],
) -> Endpoint {
    let e = endpoint_value(sc, consumer_id, types);
    s.create_endpoint(sc, &e, &[], LIMITS, None)
        .await
        .expect("create endpoint");
    e
}

pub(crate) fn new_event(id: &str, event_type: &str, subject: Option<&str>) -> NewEvent {
    NewEvent {
        id: id.into(),
        event_type: event_type.into(),
        type_version: 1,
        subject: subject.map(Into::into),
        data: RawValue::from_string(r#"{"order_id": 42,  "note":"kept as sent"}"#.into())
            .expect("valid json"),
        consumer_id: None,
        ordering_key: None,
        traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
        expires_at: None,
        time: T0,
        now: T0,
    }
}

pub(crate) fn page(limit: u32) -> PageRequest {
    PageRequest { after: None, limit }
}

pub async fn migrations_are_idempotent(s: &dyn Store) {
    s.migrate().await.expect("second migrate");
    s.migrate().await.expect("third migrate");
}

pub async fn settings_keep_the_first_value(s: &dyn Store) {
    assert_eq!(s.get_setting("k").await.unwrap(), None);
    assert_eq!(s.put_setting_if_absent("k", "one").await.unwrap(), "one");
    assert_eq!(s.put_setting_if_absent("k", "two").await.unwrap(), "one");
    assert_eq!(s.get_setting("k").await.unwrap().as_deref(), Some("one"));
}

pub async fn tenants_and_sub_tenants(s: &dyn Store) {
    let parent = tenant(s, "acme").await;
    let child = Tenant {
        id: new_id(IdKind::Tenant, T0),
        name: "acme-eu".into(),
        parent_id: Some(parent.id.clone()),
        created_at: T0,
    };
    s.create_tenant(&child).await.unwrap();
    assert_eq!(s.get_tenant(&child.id).await.unwrap(), Some(child.clone()));
    let orphan = Tenant {
        id: new_id(IdKind::Tenant, T0),
        parent_id: Some("ten_missing".into()),
        ..child.clone()
    };
    assert!(matches!(
        s.create_tenant(&orphan).await,
        Err(StoreError::MissingReference("parent_id"))
    ));
    assert!(matches!(
        s.create_tenant(&child).await,
        Err(StoreError::Conflict(_))
    ));
    let first = s.list_tenants(&page(1)).await.unwrap();
    assert_eq!(first.data.len(), 1);
    let after = first.next_after.clone().expect("a second page");
    let second = s
        .list_tenants(&PageRequest {
            after: Some(after),
            limit: 10,
        })
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
    let created = s.create_api_key(&key).await.unwrap();
    assert_eq!(s.find_api_key("h1").await.unwrap(), Some(created.clone()));
    assert_eq!(s.find_api_key("h2").await.unwrap(), None);
    assert_eq!(s.list_api_keys(&a.id).await.unwrap().len(), 1);
    assert!(s.list_api_keys(&b.id).await.unwrap().is_empty());
    // Another tenant cannot revoke it.
    assert!(!s.revoke_api_key(&b.id, &key.id, T0).await.unwrap());
    assert!(s.revoke_api_key(&a.id, &key.id, T0).await.unwrap());
    assert!(!s.revoke_api_key(&a.id, &key.id, T0).await.unwrap());
    assert_eq!(s.find_api_key("h1").await.unwrap(), None);
    let missing_tenant = NewApiKey {
        id: new_id(IdKind::ApiKey, T0),
        tenant_id: "ten_missing".into(),
        key_hash: "h3".into(),
        ..key
    };
    assert!(matches!(
        s.create_api_key(&missing_tenant).await,
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
        personal_data_fields: vec![],
        now: T0,
    };
    let (et, outcome) = s.put_event_type(&live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::Created);
    assert_eq!(et.current_version, 1);
    put.description = "changed".into();
    put.personal_data_fields = vec!["/email".into()];
    let (et, outcome) = s.put_event_type(&live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::Updated);
    assert_eq!((et.current_version, et.versions.len()), (1, 1));
    assert_eq!(et.description, "changed");
    assert_eq!(
        et.versions[0].personal_data_fields,
        vec!["/email".to_string()]
    );
    put.schema = json!({"type": "object", "required": ["order_id", "carrier"]});
    let (et, outcome) = s.put_event_type(&live, &put).await.unwrap();
    assert_eq!(outcome, PutEventTypeOutcome::NewVersion);
    assert_eq!((et.current_version, et.versions.len()), (2, 2));
    assert_eq!(et.current().unwrap().schema, put.schema);
    // Environments are separate catalogs.
    let test = scope(&t, Environment::Test);
    assert_eq!(
        s.get_event_type(&test, "order.shipped").await.unwrap(),
        None
    );
    assert!(s.list_event_types(&test).await.unwrap().is_empty());
    let listed = s.list_event_types(&live).await.unwrap();
    assert_eq!(listed, vec![et]);
}

pub async fn consumers_are_unique_per_tenant_and_environment(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "merchant-1").await;
    let dup = Consumer {
        id: new_id(IdKind::Consumer, T0),
        ..c.clone()
    };
    assert!(matches!(
        s.create_consumer(&live, &dup).await,
        Err(StoreError::Conflict("external_id"))
    ));
    let test = scope(&t, Environment::Test);
    s.create_consumer(
        &test,
        &Consumer {
            environment: Environment::Test,
            ..dup
        },
    )
    .await
    .expect("the same external id in another environment");
    let patched = s
        .update_consumer(
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
    assert_eq!(s.get_consumer(&live, &c.id).await.unwrap(), Some(patched));
    assert!(matches!(
        s.update_consumer(&test, &c.id, &ConsumerPatch::default(), T0)
            .await,
        Err(StoreError::NotFound)
    ));
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    assert!(matches!(
        s.delete_consumer(&live, &c.id).await,
        Err(StoreError::Conflict("consumer_has_endpoints"))
    ));
    // Another scope learns nothing: not even that the consumer has endpoints.
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.delete_consumer(&scope(&other, Environment::Live), &c.id)
            .await,
        Err(StoreError::NotFound)
    ));
    assert!(matches!(
        s.delete_consumer(&test, &c.id).await,
        Err(StoreError::NotFound)
    ));
    s.delete_endpoint(&live, &e.id, T0, None).await.unwrap();
    s.delete_consumer(&live, &c.id).await.unwrap();
    assert_eq!(s.get_consumer(&live, &c.id).await.unwrap(), None);
    assert!(matches!(
        s.delete_consumer(&live, &c.id).await,
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
        s.create_endpoint(
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
        s.create_endpoint(
            &live,
            &endpoint_value(&live, &c1.id, &[]),
            &[],
            limits,
            None
        )
        .await,
        Err(StoreError::LimitReached("endpoints_per_consumer"))
    ));
    s.create_endpoint(
        &live,
        &endpoint_value(&live, &c2.id, &[]),
        &[],
        limits,
        None,
    )
    .await
    .unwrap();
    assert!(matches!(
        s.create_endpoint(
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
        s.create_endpoint(
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
        s.create_endpoint(
            &test,
            &endpoint_value(&test, &c1.id, &[]),
            &[],
            LIMITS,
            None
        )
        .await,
        Err(StoreError::MissingReference("consumer_id"))
    ));
    let listed = s.list_endpoints(&live, None, &page(10)).await.unwrap();
    assert_eq!(listed.data.len(), 3);
    let by_consumer = s
        .list_endpoints(&live, Some(&c2.id), &page(10))
        .await
        .unwrap();
    assert_eq!(by_consumer.data.len(), 1);
    let one = &listed.data[0];
    assert_eq!(
        s.get_endpoint(&live, &one.id).await.unwrap().as_ref(),
        Some(one)
    );
    assert_eq!(s.get_endpoint(&test, &one.id).await.unwrap(), None);
    let other = tenant(s, "b").await;
    assert_eq!(
        s.get_endpoint(&scope(&other, Environment::Live), &one.id)
            .await
            .unwrap(),
        None
    );
    let mut changed = one.clone();
    changed.description = Some("renamed".into());
    changed.state = EndpointState::Paused;
    changed.updated_at = T0.plus_seconds(5);
    s.update_endpoint(&live, &changed, None).await.unwrap();
    assert_eq!(
        s.get_endpoint(&live, &one.id).await.unwrap(),
        Some(changed.clone())
    );
    assert!(matches!(
        s.update_endpoint(&scope(&other, Environment::Live), &changed, None)
            .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn publish_fans_out_to_matching_endpoints_only(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let other_c = consumer(s, &live, "other").await;
    let exact = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let wildcard = endpoint(s, &live, &other_c.id, &["*"]).await;
    let both = endpoint(s, &live, &c.id, &["order.shipped", "*"]).await;
    let _none = endpoint(s, &live, &c.id, &[]).await;
    let _other_type = endpoint(s, &live, &c.id, &["order.created"]).await;
    // Same tenant, other environment; other tenant: never targeted.
    let test = scope(&t, Environment::Test);
    let tc = consumer(s, &test, "c").await;
    endpoint(s, &test, &tc.id, &["*"]).await;
    let other = tenant(s, "b").await;
    let ob = scope(&other, Environment::Live);
    let oc = consumer(s, &ob, "c").await;
    endpoint(s, &ob, &oc.id, &["*"]).await;

    let out = s
        .publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    assert!(!out.duplicate);
    assert_eq!(out.messages_created, 3);
    assert_eq!(
        out.event.data.get(),
        r#"{"order_id": 42,  "note":"kept as sent"}"#
    );
    let msgs = s
        .list_messages(
            &live,
            &MessageFilter {
                event_id: Some("evt_1".into()),
                ..Default::default()
            },
            &page(50),
        )
        .await
        .unwrap();
    let mut targets: Vec<_> = msgs.data.iter().map(|m| m.endpoint_id.clone()).collect();
    targets.sort();
    let mut expected = vec![exact.id.clone(), wildcard.id.clone(), both.id.clone()];
    expected.sort();
    assert_eq!(targets, expected);
    for m in &msgs.data {
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.next_attempt_at, Some(T0));
        assert_eq!(m.attempts_used, 0);
    }
    // consumer_id narrows the fan-out to that consumer's endpoints.
    let mut targeted = new_event("evt_2", "order.shipped", None);
    targeted.consumer_id = Some(other_c.id.clone());
    let out = s.publish(&live, targeted).await.unwrap();
    assert_eq!(out.messages_created, 1);
    let stored = s.get_event(&live, "evt_1").await.unwrap().expect("stored");
    assert_eq!(
        stored.data.get(),
        r#"{"order_id": 42,  "note":"kept as sent"}"#
    );
    assert_eq!(stored.event_type, "order.shipped");
    assert_eq!(
        s.get_event(&test, "evt_1").await.unwrap().map(|e| e.id),
        None
    );
}

pub async fn publishing_the_same_id_is_idempotent(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    for _ in 0..3 {
        endpoint(s, &live, &c.id, &["order.shipped"]).await;
    }
    let first = s
        .publish(&live, new_event("evt_x", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(first.messages_created, 3);
    let mut again = new_event("evt_x", "order.shipped", None);
    again.data = RawValue::from_string("{}".into()).unwrap();
    let second = s.publish(&live, again).await.unwrap();
    assert!(second.duplicate);
    assert_eq!(second.messages_created, 0);
    assert_eq!(second.event.data.get(), first.event.data.get());
    let all = s
        .list_messages(&live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert_eq!(all.data.len(), 3);
    // The same id in another tenant is another event.
    let other = tenant(s, "b").await;
    let out = s
        .publish(
            &scope(&other, Environment::Live),
            new_event("evt_x", "order.shipped", None),
        )
        .await
        .unwrap();
    assert!(!out.duplicate);
}

/// An event keeps when it happened (`time`, the CloudEvents `time`) apart
/// from when it was accepted (`created_at`), through publish, reads and claims.
pub async fn events_keep_the_time_they_happened(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let happened = T0.plus_millis(-86_400_123);
    let out = s
        .publish(
            &live,
            NewEvent {
                time: happened,
                ..new_event("evt_t", "order.shipped", Some("s"))
            },
        )
        .await
        .unwrap();
    assert_eq!((out.event.time, out.event.created_at), (happened, T0));
    let read = s.get_event(&live, "evt_t").await.unwrap().unwrap();
    assert_eq!((read.time, read.created_at), (happened, T0));
    // A duplicate publish answers the stored time, not its own.
    let again = s
        .publish(&live, new_event("evt_t", "order.shipped", Some("s")))
        .await
        .unwrap();
    assert!(again.duplicate);
    assert_eq!(again.event.time, happened);
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].event.time, happened);
    assert_eq!(claimed[0].event.created_at, T0);
}

pub async fn concurrent_publishes_of_one_id_create_one_event(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    for _ in 0..2 {
        endpoint(s, &live, &c.id, &["order.shipped"]).await;
    }
    let results = futures_util::future::join_all(
        (0..8).map(|_| s.publish(&live, new_event("evt_race", "order.shipped", None))),
    )
    .await;
    let created: Vec<_> = results
        .into_iter()
        .map(|r| r.expect("publish"))
        .filter(|o| !o.duplicate)
        .collect();
    assert_eq!(created.len(), 1, "exactly one publish creates the event");
    assert_eq!(created[0].messages_created, 2);
    let all = s
        .list_messages(&live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert_eq!(all.data.len(), 2);
}

/// Concurrent publishes share commits (group commit): every one is
/// answered, in order per subject, and one that fails (its tenant does not
/// exist) fails alone.
pub async fn concurrent_publishes_commit_together_and_fail_alone(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let ghost = Scope {
        tenant_id: "ten_does_not_exist".into(),
        environment: Environment::Live,
    };
    let good = (0..40).map(|i| {
        s.publish(
            &live,
            new_event(
                &format!("evt_group_{i:02}"),
                "order.shipped",
                Some("order/group"),
            ),
        )
    });
    let (results, bad) = futures_util::future::join(
        futures_util::future::join_all(good),
        s.publish(&ghost, new_event("evt_ghost", "order.shipped", None)),
    )
    .await;
    assert!(bad.is_err(), "a publish for a missing tenant fails");
    let mut seqs = Vec::new();
    for r in results {
        let out = r.expect("the others are committed");
        assert!(!out.duplicate);
        assert_eq!(out.messages_created, 1);
        seqs.push(out.event.seq.expect("subject given"));
    }
    seqs.sort_unstable();
    assert_eq!(
        seqs,
        (1..=40).collect::<Vec<i64>>(),
        "one seq each, no gaps"
    );
    for i in 0..40 {
        let id = format!("evt_group_{i:02}");
        assert!(
            s.get_event(&live, &id).await.unwrap().is_some(),
            "{id} stored"
        );
    }
    assert!(s.get_event(&ghost, "evt_ghost").await.unwrap().is_none());
}

pub async fn seq_is_monotonic_per_subject(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let mut seqs = Vec::new();
    for i in 0..3 {
        let out = s
            .publish(
                &live,
                new_event(&format!("evt_a{i}"), "order.shipped", Some("order/1")),
            )
            .await
            .unwrap();
        seqs.push(out.event.seq);
    }
    assert_eq!(seqs, vec![Some(1), Some(2), Some(3)]);
    let other_subject = s
        .publish(&live, new_event("evt_b", "order.shipped", Some("order/2")))
        .await
        .unwrap();
    assert_eq!(other_subject.event.seq, Some(1));
    let no_subject = s
        .publish(&live, new_event("evt_c", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(no_subject.event.seq, None);
    let test_env = s
        .publish(
            &scope(&t, Environment::Test),
            new_event("evt_d", "order.shipped", Some("order/1")),
        )
        .await
        .unwrap();
    assert_eq!(test_env.event.seq, Some(1));
}

pub async fn paused_and_disabled_endpoints_get_held_messages(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut paused = endpoint_value(&live, &c.id, &["order.shipped"]);
    paused.state = EndpointState::Paused;
    s.create_endpoint(&live, &paused, &[], LIMITS, None)
        .await
        .unwrap();
    let mut disabled = endpoint_value(&live, &c.id, &["order.shipped"]);
    disabled.state = EndpointState::Disabled;
    disabled.disabled_reason = Some("manual".into());
    s.create_endpoint(&live, &disabled, &[], LIMITS, None)
        .await
        .unwrap();
    s.publish(&live, new_event("evt_h", "order.shipped", None))
        .await
        .unwrap();
    let all = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert_eq!(all.data.len(), 2);
    for m in all.data {
        assert_eq!(m.state, MessageState::Held);
        assert_eq!(m.next_attempt_at, None);
    }
}

pub async fn deleting_an_endpoint_dead_letters_its_pending_messages(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    s.publish(&live, new_event("evt_d1", "order.shipped", None))
        .await
        .unwrap();
    s.delete_endpoint(&live, &e.id, T0.plus_seconds(1), None)
        .await
        .unwrap();
    assert_eq!(s.get_endpoint(&live, &e.id).await.unwrap(), None);
    assert!(matches!(
        s.delete_endpoint(&live, &e.id, T0, None).await,
        Err(StoreError::NotFound)
    ));
    let msgs = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert_eq!(msgs.data.len(), 1);
    assert_eq!(msgs.data[0].state, MessageState::DeadLettered);
    assert_eq!(
        msgs.data[0].terminal_reason.as_deref(),
        Some("endpoint_removed")
    );
    // A removed endpoint receives nothing new.
    let out = s
        .publish(&live, new_event("evt_d2", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(out.messages_created, 0);
}

pub async fn updating_subscriptions_changes_the_fan_out(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut e = endpoint(s, &live, &c.id, &["order.created"]).await;
    let out = s
        .publish(&live, new_event("evt_u1", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(out.messages_created, 0);
    e.event_types = vec!["order.shipped".into(), "order.shipped".into()];
    s.update_endpoint(&live, &e, None).await.unwrap();
    let out = s
        .publish(&live, new_event("evt_u2", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!(out.messages_created, 1);
}

pub async fn messages_filter_and_paginate_by_keyset(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e1 = endpoint(s, &live, &c.id, &["order.shipped", "order.created"]).await;
    let e2 = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for i in 0..5 {
        let mut ev = new_event(&format!("evt_p{i}"), "order.shipped", None);
        ev.now = T0.plus_seconds(i);
        s.publish(&live, ev).await.unwrap();
    }
    let mut created = new_event("evt_c", "order.created", None);
    created.now = T0.plus_seconds(10);
    s.publish(&live, created).await.unwrap();

    let mut seen = Vec::new();
    let mut req = page(4);
    loop {
        let p = s
            .list_messages(&live, &MessageFilter::default(), &req)
            .await
            .unwrap();
        assert!(p.data.len() <= 4);
        seen.extend(p.data.iter().map(|m| m.id.clone()));
        match p.next_after {
            Some(after) => req.after = Some(after),
            None => break,
        }
    }
    assert_eq!(seen.len(), 11);
    let mut sorted = seen.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, seen, "pages are ordered and never repeat an item");

    let live_ref = &live;
    let count = |f: MessageFilter| async move {
        s.list_messages(live_ref, &f, &page(100))
            .await
            .unwrap()
            .data
            .len()
    };
    assert_eq!(
        count(MessageFilter {
            endpoint_id: Some(e2.id.clone()),
            ..Default::default()
        })
        .await,
        5
    );
    assert_eq!(
        count(MessageFilter {
            endpoint_id: Some(e1.id.clone()),
            ..Default::default()
        })
        .await,
        6
    );
    assert_eq!(
        count(MessageFilter {
            event_type: Some("order.created".into()),
            ..Default::default()
        })
        .await,
        1
    );
    assert_eq!(
        count(MessageFilter {
            state: Some(MessageState::Scheduled),
            ..Default::default()
        })
        .await,
        11
    );
    assert_eq!(
        count(MessageFilter {
            state: Some(MessageState::Delivered),
            ..Default::default()
        })
        .await,
        0
    );
    assert_eq!(
        count(MessageFilter {
            since: Some(T0.plus_seconds(1)),
            until: Some(T0.plus_seconds(3)),
            ..Default::default()
        })
        .await,
        4
    );
    assert_eq!(
        count(MessageFilter {
            error_code: Some("timeout".into()),
            ..Default::default()
        })
        .await,
        0
    );
    let other = tenant(s, "b").await;
    let theirs = s
        .list_messages(
            &scope(&other, Environment::Live),
            &MessageFilter::default(),
            &page(100),
        )
        .await
        .unwrap();
    assert!(theirs.data.is_empty());
    let one = &seen[0];
    assert!(s.get_message(&live, one).await.unwrap().is_some());
    assert!(
        s.get_message(&scope(&other, Environment::Live), one)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        s.get_message(&scope(&t, Environment::Test), one)
            .await
            .unwrap()
            .is_none()
    );
    assert!(s.list_attempts(&live, one).await.unwrap().is_empty());
}

/// A tenant, consumer and `n` endpoints subscribed to `order.shipped`, and
/// one published event (so one scheduled message per endpoint, due at T0).
pub(crate) async fn delivery_fixture(s: &dyn Store, n: usize) -> (Scope, Vec<Endpoint>) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let mut endpoints = Vec::new();
    for _ in 0..n {
        endpoints.push(endpoint(s, &live, &c.id, &["order.shipped"]).await);
    }
    s.publish(&live, new_event("evt_d", "order.shipped", Some("order/1")))
        .await
        .unwrap();
    (live, endpoints)
}

pub(crate) fn attempt_for(c: &crate::Claimed, outcome: &str) -> Attempt {
    Attempt {
        id: new_id(IdKind::Attempt, T0),
        message_id: c.message.id.clone(),
        endpoint_id: c.endpoint.id.clone(),
        number: 0,
        trigger: AttemptTrigger::Scheduled,
        started_at: T0,
        duration_ms: 12,
        destination_ip: Some("127.0.0.1".into()),
        status_code: Some(200),
        error_kind: None,
        body_sha256: "ab".repeat(32),
        signature: "v1a,sig".into(),
        response_body: Some("ok".into()),
        outcome: outcome.into(),
    }
}

pub(crate) fn completion(c: &crate::Claimed, owner: &str, progress: Progress) -> Completion {
    Completion {
        message_id: c.message.id.clone(),
        tenant_id: c.tenant_id.clone(),
        environment: c.message.environment,
        lease_owner: owner.into(),
        lease_version: c.lease_version,
        progress,
        attempt: Some(attempt_for(c, "delivered")),
        disable_endpoint: false,
        manual: false,
        health: relay_core::circuit::Signal::Neutral,
        warning: None,
        now: T0.plus_seconds(1),
    }
}

pub(crate) fn delivered(c: &crate::Claimed) -> Progress {
    Progress {
        state: MessageState::Delivered,
        attempts_used: 1,
        next_attempt_at: None,
        ..c.progress()
    }
}

pub async fn claims_lease_due_messages_with_their_delivery_context(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 3).await;
    assert_eq!(s.next_due_at().await.unwrap(), Some(T0));
    // Nothing is due before T0.
    let early = s
        .claim_due("w1", T0.plus_millis(-1), T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert!(early.is_empty());
    let claimed = s
        .claim_due("w1", T0, T0.plus_seconds(30), 2, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 2, "the limit holds");
    let c = &claimed[0];
    assert_eq!(c.message.state, MessageState::InFlight);
    assert_eq!(c.event.id, "evt_d");
    assert_eq!(
        c.event.data.get(),
        r#"{"order_id": 42,  "note":"kept as sent"}"#
    );
    assert_eq!(c.event.seq, Some(1));
    assert_eq!(c.source, "/consumers/c");
    assert!(endpoints.iter().any(|e| e.id == c.endpoint.id));
    assert_eq!(c.tenant_id, live.tenant_id);
    // The leased ones are not claimed again; the third one is.
    let rest = s
        .claim_due("w2", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(rest.len(), 1);
    assert!(claimed.iter().all(|c| c.message.id != rest[0].message.id));
    assert!(
        s.claim_due("w3", T0, T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(s.next_due_at().await.unwrap(), None);
    let m = s.get_message(&live, &c.message.id).await.unwrap().unwrap();
    assert_eq!(m.state, MessageState::InFlight);
}

/// An [`crate::Intake`] with room for the endpoints listed, that keeps what
/// it is handed and counts its reservations still alive.
struct TestIntake {
    room_for: Vec<String>,
    /// Every reservation is behind a backlog.
    behind: bool,
    taken: std::sync::Mutex<Vec<crate::Claimed>>,
    alive: Arc<std::sync::atomic::AtomicUsize>,
}

/// A [`TestIntake`] reservation: alive until dropped.
struct TestReservation(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for TestReservation {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl TestIntake {
    /// An intake with room for `room_for` (each reservation `behind` or
    /// not), set on `s`.
    fn set_on(s: &dyn Store, room_for: &str, behind: bool) -> Arc<TestIntake> {
        let intake = Arc::new(TestIntake {
            room_for: vec![room_for.to_string()],
            behind,
            taken: Default::default(),
            alive: Default::default(),
        });
        s.set_intake(Some(intake.clone()));
        intake
    }

    /// What was handed over since the last call.
    fn take_all(&self) -> Vec<crate::Claimed> {
        std::mem::take(&mut *self.taken.lock().unwrap())
    }

    /// Reservations neither dropped nor taken.
    fn alive(&self) -> usize {
        self.alive.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl crate::Intake for TestIntake {
    fn owner(&self) -> &str {
        "intake"
    }
    fn lease_millis(&self) -> i64 {
        30_000
    }
    fn reserve(&self, e: &crate::IntakeEndpoint<'_>, _now: Timestamp) -> Option<crate::Reserved> {
        assert_eq!(e.max_concurrency, 10);
        assert!(!e.rate_limited);
        self.room_for.iter().any(|id| id == e.id).then(|| {
            self.alive.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            crate::Reserved {
                behind: self.behind,
                hold: Box::new(TestReservation(self.alive.clone())),
            }
        })
    }
    fn take(&self, leased: Vec<(crate::Reserved, crate::Claimed)>) {
        let mut taken = self.taken.lock().unwrap();
        taken.extend(leased.into_iter().map(|(_, c)| c));
    }
}

pub async fn publishes_lease_what_the_intake_has_room_for(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let roomy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let full = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let intake = TestIntake::set_on(s, &roomy.id, false);
    let out = s
        .publish(&live, new_event("evt_1", "order.shipped", Some("order/1")))
        .await
        .unwrap();
    assert_eq!((out.messages_created, out.messages_leased), (2, 1));
    let taken = intake.take_all();
    assert_eq!(taken.len(), 1, "handed over once committed");
    assert_eq!(intake.alive(), 0, "every reservation is released");
    let leased = &taken[0];
    // What a claim would have read for it.
    assert_eq!(leased.endpoint, roomy);
    assert_eq!(leased.source, "/consumers/c");
    assert_eq!(leased.tenant_id, live.tenant_id);
    assert_eq!(leased.event, out.event);
    assert_eq!(leased.event.seq, Some(1));
    assert_eq!(leased.lease_version, 1);
    assert!(!leased.recovery);
    let stored = s
        .get_message(&live, &leased.message.id)
        .await
        .unwrap()
        .expect("stored");
    assert_eq!(stored, leased.message);
    assert_eq!(stored.state, MessageState::InFlight);
    // The endpoint without room got a scheduled message: the only one a
    // claim finds.
    let claimed = s
        .claim_due("w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].endpoint.id, full.id);
    // The lease taken at publish completes like a claimed one.
    let applied = s
        .complete(&[completion(leased, "intake", delivered(leased))])
        .await
        .unwrap()
        .applied;
    assert_eq!(applied, vec![true]);
    // Publishes that share a transaction each get theirs.
    let outs = futures_util::future::join_all(
        (2..6).map(|i| s.publish(&live, new_event(&format!("evt_{i}"), "order.shipped", None))),
    )
    .await;
    for out in outs {
        assert_eq!(out.unwrap().messages_leased, 1);
    }
    let taken = intake.take_all();
    assert_eq!(taken.len(), 4);
    assert!(taken.iter().all(|c| c.endpoint.id == roomy.id));
    // A lease taken at publish that is never completed expires and is
    // rescued, like any other (these four and w1's claim).
    assert_eq!(
        s.rescue_expired_leases(T0.plus_seconds(31)).await.unwrap(),
        5
    );
    // Without an intake, everything is scheduled.
    s.set_intake(None);
    let out = s
        .publish(&live, new_event("evt_9", "order.shipped", None))
        .await
        .unwrap();
    assert_eq!((out.messages_created, out.messages_leased), (2, 0));
    assert!(intake.take_all().is_empty());
}

pub async fn publishes_behind_a_backlog_lease_its_oldest_messages_in_order(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let ep = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    // A backlog of three, published a second apart.
    for i in 0..3 {
        let mut ev = new_event(&format!("evt_old_{i}"), "order.shipped", None);
        ev.now = T0.plus_seconds(i);
        s.publish(&live, ev).await.unwrap();
    }
    let intake = TestIntake::set_on(s, &ep.id, true);
    let publish = |id: &str, at: i64| {
        let mut ev = new_event(id, "order.shipped", None);
        ev.now = T0.plus_seconds(at);
        s.publish(&live, ev)
    };
    // Room for one: the oldest goes, the new one waits behind the rest.
    let out = publish("evt_new_0", 10).await.unwrap();
    assert_eq!((out.messages_created, out.messages_leased), (1, 0));
    let taken = intake.take_all();
    let events: Vec<&str> = taken.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(events, ["evt_old_0"]);
    let c0 = &taken[0];
    assert_eq!(c0.message.state, MessageState::InFlight);
    assert_eq!(c0.lease_version, 1);
    let applied = s
        .complete(&[completion(c0, "intake", delivered(c0))])
        .await
        .unwrap()
        .applied;
    assert_eq!(applied, vec![true], "the lease is the intake's");
    // The next publish's room takes the next oldest; a publish's own new
    // message goes once the older ones are gone, in due order.
    publish("evt_new_1", 11).await.unwrap();
    publish("evt_new_2", 12).await.unwrap();
    publish("evt_new_3", 13).await.unwrap();
    publish("evt_new_4", 14).await.unwrap();
    let taken = intake.take_all();
    let events: Vec<&str> = taken.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(
        events,
        ["evt_old_1", "evt_old_2", "evt_new_0", "evt_new_1"],
        "oldest first"
    );
    assert_eq!(intake.alive(), 0, "every reservation is released");
    // What is left is scheduled, for claims.
    let claimed = s
        .claim_due("w1", T0.plus_seconds(20), T0.plus_seconds(50), 10, &[])
        .await
        .unwrap();
    let events: Vec<&str> = claimed.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(events, ["evt_new_2", "evt_new_3", "evt_new_4"]);
    s.set_intake(None);
}

pub async fn concurrent_claimers_never_share_a_message(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for i in 0..40 {
        s.publish(&live, new_event(&format!("evt_{i}"), "order.shipped", None))
            .await
            .unwrap();
    }
    let owners: Vec<String> = (0..6).map(|i| format!("w{i}")).collect();
    let results = futures_util::future::join_all(
        owners
            .iter()
            .map(|o| s.claim_due(o, T0, T0.plus_seconds(30), 9, &[])),
    )
    .await;
    let mut ids: Vec<String> = results
        .into_iter()
        .flat_map(|r| r.expect("claim"))
        .map(|c| c.message.id)
        .collect();
    let total = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), total, "no message was claimed twice");
    assert_eq!(total, 40);
}

pub async fn completion_applies_only_while_the_lease_holds(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = s
        .claim_due("w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let (a, b) = (&claimed[0], &claimed[1]);
    // The right owner and version: applied.
    let applied = s
        .complete(&[completion(a, "w1", delivered(a))])
        .await
        .unwrap()
        .applied;
    assert_eq!(applied, vec![true]);
    let m = s.get_message(&live, &a.message.id).await.unwrap().unwrap();
    assert_eq!(m.state, MessageState::Delivered);
    assert_eq!(m.attempts_used, 1);
    // Completing again (a duplicate) changes nothing.
    assert_eq!(
        s.complete(&[completion(a, "w1", delivered(a))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    let m2 = s.get_message(&live, &a.message.id).await.unwrap().unwrap();
    assert_eq!(m2.state, MessageState::Delivered);
    // Another owner, or a rescued lease: not applied, but the attempt is recorded.
    assert_eq!(
        s.complete(&[completion(b, "intruder", delivered(b))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    assert_eq!(
        s.rescue_expired_leases(T0.plus_seconds(31)).await.unwrap(),
        1
    );
    let rescued = s.get_message(&live, &b.message.id).await.unwrap().unwrap();
    assert_eq!(rescued.state, MessageState::Scheduled);
    assert_eq!(rescued.next_attempt_at, Some(T0.plus_seconds(31)));
    assert_eq!(
        rescued.attempts_used, 0,
        "a lost lease does not use an attempt"
    );
    assert_eq!(
        s.complete(&[completion(b, "w1", delivered(b))])
            .await
            .unwrap()
            .applied,
        vec![false],
        "a late completion never overwrites a rescued message"
    );
    let still = s.get_message(&live, &b.message.id).await.unwrap().unwrap();
    assert_eq!(still.state, MessageState::Scheduled);
    let attempts = s.list_attempts(&live, &b.message.id).await.unwrap();
    assert_eq!(attempts.len(), 2, "attempts that happened are recorded");
    assert_eq!(
        attempts.iter().map(|a| a.number).collect::<Vec<_>>(),
        vec![1, 2]
    );
    // A completion after cancellation-like removal: deleting the endpoint bumps the lease.
    let again = s
        .claim_due("w2", T0.plus_seconds(31), T0.plus_seconds(60), 10, &[])
        .await
        .unwrap();
    assert_eq!(again.len(), 1);
    s.delete_endpoint(&live, &again[0].endpoint.id, T0.plus_seconds(32), None)
        .await
        .unwrap();
    assert_eq!(
        s.complete(&[completion(&again[0], "w2", delivered(&again[0]))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    let gone = s.get_message(&live, &b.message.id).await.unwrap().unwrap();
    assert_eq!(gone.state, MessageState::DeadLettered);
}

pub async fn completions_batch_in_one_call_and_keep_retry_state(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 3).await;
    let claimed = s
        .claim_due("w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let retry_at = T0.plus_seconds(5);
    let batch: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut comp = completion(
                c,
                "w1",
                Progress {
                    state: MessageState::Scheduled,
                    attempts_used: 1,
                    next_attempt_at: Some(retry_at),
                    last_error_code: Some("http_503".into()),
                    ..c.progress()
                },
            );
            if let Some(a) = comp.attempt.as_mut() {
                a.status_code = Some(503);
                a.outcome = "retry".into();
            }
            comp
        })
        .collect();
    assert_eq!(
        s.complete(&batch).await.unwrap().applied,
        vec![true, true, true]
    );
    assert_eq!(s.next_due_at().await.unwrap(), Some(retry_at));
    let failed = s
        .list_messages(
            &live,
            &MessageFilter {
                error_code: Some("http_503".into()),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap();
    assert_eq!(failed.data.len(), 3);
    for m in &failed.data {
        let p = progress_of(m);
        assert_eq!((p.state, p.attempts_used), (MessageState::Scheduled, 1));
    }
    assert!(
        s.claim_due("w1", T0.plus_seconds(4), T0.plus_seconds(40), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        s.claim_due("w1", retry_at, T0.plus_seconds(40), 10, &[])
            .await
            .unwrap()
            .len(),
        3
    );
}

pub async fn a_410_disables_the_endpoint_and_holds_its_other_messages(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    s.publish(&live, new_event("evt_2", "order.shipped", None))
        .await
        .unwrap();
    let claimed = s
        .claim_due("w1", T0, T0.plus_seconds(30), 1, &[])
        .await
        .unwrap();
    let mut comp = completion(
        &claimed[0],
        "w1",
        Progress {
            state: MessageState::FailedPermanent,
            attempts_used: 1,
            next_attempt_at: None,
            terminal_reason: Some("endpoint_gone".into()),
            last_error_code: Some("http_410".into()),
            ..claimed[0].progress()
        },
    );
    comp.disable_endpoint = true;
    comp.warning = Some(EndpointWarning {
        endpoint_id: e.id.clone(),
        kind: "gone".into(),
        detail: "the endpoint answered 410 Gone".into(),
        at: T0,
    });
    assert_eq!(s.complete(&[comp]).await.unwrap().applied, vec![true]);
    let disabled = s.get_endpoint(&live, &e.id).await.unwrap().unwrap();
    assert_eq!(disabled.state, EndpointState::Disabled);
    assert_eq!(
        disabled.disabled_reason.as_deref(),
        Some("endpoint_returned_410")
    );
    let other = s
        .list_messages(
            &live,
            &MessageFilter {
                event_id: Some("evt_2".into()),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap();
    assert_eq!(other.data[0].state, MessageState::Held);
    assert!(
        s.claim_due("w1", T0.plus_seconds(100), T0.plus_seconds(130), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    let warnings = s.endpoint_warnings(&e.id, 20).await.unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0].kind, "gone");
}

pub async fn released_leases_are_due_again_at_once(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = s
        .claim_due("w1", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(s.release_leases("someone-else", T0).await.unwrap(), 0);
    assert_eq!(s.release_leases("w1", T0.plus_seconds(1)).await.unwrap(), 2);
    for c in &claimed {
        let m = s.get_message(&live, &c.message.id).await.unwrap().unwrap();
        assert_eq!(m.state, MessageState::Scheduled);
        assert_eq!(m.attempts_used, 0);
    }
    assert_eq!(
        s.claim_due("w2", T0.plus_seconds(1), T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .len(),
        2
    );
}

pub async fn signing_keys_are_stored_with_the_endpoint(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint_value(&live, &c.id, &["order.shipped"]);
    let key = |id: &str, at: Timestamp, retires: Option<Timestamp>| EndpointKeyRecord {
        id: id.into(),
        endpoint_id: e.id.clone(),
        scheme: SignatureScheme::V1a,
        public_key: Some(format!("whpk_{id}")),
        sealed_secret: format!("rk1:{id}"),
        created_at: at,
        retires_at: retires,
    };
    let old = key("whk_old", T0, Some(T0.plus_seconds(3600)));
    let new = key("whk_new", T0.plus_seconds(1), None);
    s.create_endpoint(&live, &e, &[old.clone(), new.clone()], LIMITS, None)
        .await
        .unwrap();
    assert_eq!(s.endpoint_keys(&e.id).await.unwrap(), vec![new, old]);
    assert!(s.endpoint_keys("ep_other").await.unwrap().is_empty());
}

/// Applies a tenant's action to an endpoint (`Store::change_endpoint_state`).
pub(crate) async fn act(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
    action: EndpointAction,
    at: Timestamp,
) -> crate::Result<Endpoint> {
    let from = match s.get_endpoint(scope, endpoint_id).await? {
        Some(e) => e.state,
        None => EndpointState::Active,
    };
    let change = relay_core::lifecycle::decide(from, action)
        .map_err(|_| crate::StoreError::Conflict("illegal_transition"))?;
    s.change_endpoint_state(
        scope,
        endpoint_id,
        &change,
        &audit(action.as_str(), endpoint_id, at),
    )
    .await
}

pub(crate) fn audit(action: &str, target: &str, at: Timestamp) -> crate::AuditEntry {
    crate::AuditEntry {
        id: new_id(IdKind::Audit, at),
        actor: "key_1".into(),
        action: action.into(),
        target: target.into(),
        parameters: json!({"overlap_hours": 24}),
        at,
    }
}

pub async fn key_rotation_retires_old_keys_and_is_audited(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint_value(&live, &c.id, &["order.shipped"]);
    let rec = |id: &str, scheme, at: Timestamp| EndpointKeyRecord {
        id: id.into(),
        endpoint_id: e.id.clone(),
        scheme,
        public_key: None,
        sealed_secret: format!("rk1:{id}"),
        created_at: at,
        retires_at: None,
    };
    s.create_endpoint(
        &live,
        &e,
        &[rec("whk_1", SignatureScheme::V1a, T0)],
        LIMITS,
        None,
    )
    .await
    .unwrap();
    let t1 = T0.plus_seconds(10);
    let keys = s
        .rotate_endpoint_key(
            &live,
            &e.id,
            &rec("whk_2", SignatureScheme::V1, t1),
            t1.plus_seconds(3600),
            &audit("endpoint.key_rotated", &e.id, t1),
        )
        .await
        .unwrap();
    assert_eq!(
        keys.iter()
            .map(|k| (k.id.as_str(), k.retires_at))
            .collect::<Vec<_>>(),
        vec![("whk_2", None), ("whk_1", Some(t1.plus_seconds(3600)))]
    );
    let ep = s.get_endpoint(&live, &e.id).await.unwrap().unwrap();
    assert_eq!(
        ep.signature_scheme,
        SignatureScheme::V1,
        "switching schemes goes through rotation"
    );
    assert_eq!(ep.updated_at, t1);
    // A second rotation inside the overlap never extends an earlier retirement.
    let t2 = t1.plus_seconds(60);
    let keys = s
        .rotate_endpoint_key(
            &live,
            &e.id,
            &rec("whk_3", SignatureScheme::V1, t2),
            t2.plus_seconds(7200),
            &audit("endpoint.key_rotated", &e.id, t2),
        )
        .await
        .unwrap();
    assert_eq!(
        keys.iter()
            .map(|k| (k.id.as_str(), k.retires_at))
            .collect::<Vec<_>>(),
        vec![
            ("whk_3", None),
            ("whk_2", Some(t2.plus_seconds(7200))),
            ("whk_1", Some(t1.plus_seconds(3600)))
        ]
    );
    // Another scope cannot rotate it.
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.rotate_endpoint_key(
            &scope(&other, Environment::Live),
            &e.id,
            &rec("whk_4", SignatureScheme::V1, t2),
            t2,
            &audit("endpoint.key_rotated", &e.id, t2),
        )
        .await,
        Err(StoreError::NotFound)
    ));
    assert_eq!(s.endpoint_keys(&e.id).await.unwrap().len(), 3);
    let log = s.list_audit(&live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 2);
    assert_eq!(log.data[0].action, "endpoint.key_rotated");
    assert_eq!(log.data[0].parameters, json!({"overlap_hours": 24}));
    assert!(
        s.list_audit(&scope(&other, Environment::Live), &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    s.delete_endpoint(
        &live,
        &e.id,
        t2,
        Some(&audit("endpoint.deleted", &e.id, t2)),
    )
    .await
    .unwrap();
    let first = s.list_audit(&live, &page(2)).await.unwrap();
    let rest = s
        .list_audit(
            &live,
            &PageRequest {
                after: first.next_after.clone(),
                limit: 2,
            },
        )
        .await
        .unwrap();
    assert_eq!((first.data.len(), rest.data.len()), (2, 1));
}

pub async fn pausing_holds_and_resuming_releases_in_due_order(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let later = new_event("evt_later", "order.shipped", None);
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(5),
            ..later
        },
    )
    .await
    .unwrap();
    let paused = act(s, &live, &e.id, EndpointAction::Pause, T0)
        .await
        .unwrap();
    assert_eq!(paused.state, EndpointState::Paused);
    let msgs = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    assert!(msgs.data.iter().all(|m| m.state == MessageState::Held));
    assert!(
        s.claim_due("w", T0.plus_seconds(60), T0.plus_seconds(90), 10, &[])
            .await
            .unwrap()
            .is_empty()
    );
    // Publishing while paused accumulates, nothing is discarded.
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(6),
            ..new_event("evt_paused", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    let resumed = act(s, &live, &e.id, EndpointAction::Resume, T0.plus_seconds(60))
        .await
        .unwrap();
    assert_eq!(resumed.state, EndpointState::Active);
    let claimed = s
        .claim_due("w", T0.plus_seconds(60), T0.plus_seconds(90), 10, &[])
        .await
        .unwrap();
    let order: Vec<&str> = claimed.iter().map(|c| c.event.id.as_str()).collect();
    assert_eq!(
        order,
        vec!["evt_d", "evt_later", "evt_paused"],
        "drained in order of due time"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        act(
            s,
            &scope(&other, Environment::Live),
            &e.id,
            EndpointAction::Pause,
            T0
        )
        .await,
        Err(StoreError::NotFound)
    ));
    let log = s.list_audit(&live, &page(10)).await.unwrap();
    assert_eq!(log.data.len(), 2);
}

pub async fn cancelling_ends_pending_attempts_and_beats_a_late_completion(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let msgs = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    let (a, b) = (&msgs.data[0], &msgs.data[1]);
    let cancelled = s.cancel_message(&live, &a.id, T0, None).await.unwrap();
    assert_eq!(cancelled.state, MessageState::Cancelled);
    assert_eq!(cancelled.terminal_reason.as_deref(), Some("cancelled"));
    assert!(matches!(
        s.cancel_message(&live, &a.id, T0, None).await,
        Err(StoreError::Conflict(_))
    ));
    // In flight: the attempt's completion can no longer change it.
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].message.id, b.id);
    s.cancel_message(&live, &b.id, T0, None).await.unwrap();
    assert_eq!(
        s.complete(&[completion(&claimed[0], "w", delivered(&claimed[0]))])
            .await
            .unwrap()
            .applied,
        vec![false]
    );
    assert_eq!(
        s.get_message(&live, &b.id).await.unwrap().unwrap().state,
        MessageState::Cancelled
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.cancel_message(&scope(&other, Environment::Live), &b.id, T0, None)
            .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn recover_restarts_failed_and_unattempted_messages_in_range(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let mut failed = completion(
        &claimed[0],
        "w",
        Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            next_attempt_at: None,
            terminal_reason: Some("attempts_exhausted".into()),
            ..claimed[0].progress()
        },
    );
    failed.attempt = None;
    s.complete(&[failed]).await.unwrap();
    act(s, &live, &e.id, EndpointAction::Disable, T0)
        .await
        .unwrap();
    // Produced while disabled: recorded (held), not attempted.
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(10),
            ..new_event("evt_off", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    s.publish(
        &live,
        NewEvent {
            now: T0.plus_seconds(500),
            ..new_event("evt_late", "order.shipped", None)
        },
    )
    .await
    .unwrap();
    let missed = s
        .list_messages(
            &live,
            &MessageFilter {
                endpoint_id: Some(e.id.clone()),
                states: Some(vec![MessageState::Exhausted, MessageState::Held]),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap();
    assert_eq!(missed.data.len(), 3);
    assert!(matches!(
        s.recover(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(100),
            &audit("endpoint.recovered", &e.id, T0)
        )
        .await,
        Err(StoreError::Conflict("endpoint_not_active"))
    ));
    act(
        s,
        &live,
        &e.id,
        EndpointAction::Enable,
        T0.plus_seconds(600),
    )
    .await
    .unwrap();
    // Enabling releases nothing (no flood): what was held stays held, missed.
    let held = s
        .list_messages(
            &live,
            &MessageFilter {
                states: Some(vec![MessageState::Held]),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap();
    assert_eq!(held.data.len(), 2, "held until recovered");
    // Recover restarts the exhausted and the held one in range, as recovery traffic.
    let n = s
        .recover(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(100),
            &audit("endpoint.recovered", &e.id, T0.plus_seconds(700)),
        )
        .await
        .unwrap();
    assert_eq!(n, 2);
    let all = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap();
    for m in &all.data {
        let want = if m.event_id == "evt_late" {
            MessageState::Held
        } else {
            MessageState::Scheduled
        };
        assert_eq!(m.state, want, "{m:?}");
    }
    let restarted = all.data.iter().find(|m| m.event_id == "evt_d").unwrap();
    assert_eq!(
        (restarted.attempts_used, restarted.terminal_reason.clone()),
        (0, None)
    );
    assert_eq!(restarted.next_attempt_at, Some(T0.plus_seconds(700)));
}

pub async fn a_manual_lease_excludes_automatic_attempts_and_vice_versa(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 1).await;
    let id = s
        .list_messages(&live, &MessageFilter::default(), &page(10))
        .await
        .unwrap()
        .data[0]
        .id
        .clone();
    let manual = s
        .lease_for_manual_attempt(&live, &id, "api", T0, T0.plus_seconds(30))
        .await
        .unwrap()
        .expect("free to lease");
    assert_eq!(
        manual.message.state,
        MessageState::Scheduled,
        "a manual lease keeps the state"
    );
    assert!(
        s.claim_due("w", T0, T0.plus_seconds(30), 10, &[])
            .await
            .unwrap()
            .is_empty(),
        "automatic claims skip it"
    );
    assert!(
        s.lease_for_manual_attempt(&live, &id, "api2", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none()
    );
    // A failed manual attempt leaves the schedule as it was and frees the message.
    let mut done = completion(&manual, "api", manual.progress());
    done.manual = true;
    assert_eq!(s.complete(&[done]).await.unwrap().applied, vec![true]);
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(
        s.lease_for_manual_attempt(&live, &id, "api", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none(),
        "not while in flight"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.lease_for_manual_attempt(&scope(&other, Environment::Live), &id, "api", T0, T0)
            .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn replay_delivers_retained_events_to_an_endpoint_once(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let other_c = consumer(s, &live, "other").await;
    for (i, (ty, at)) in [
        ("order.shipped", 0),
        ("order.created", 1),
        ("order.shipped", 2),
        ("order.shipped", 100),
    ]
    .into_iter()
    .enumerate()
    {
        let ev = NewEvent {
            now: T0.plus_seconds(at),
            ..new_event(&format!("evt_{i}"), ty, None)
        };
        s.publish(&live, ev).await.unwrap();
    }
    // An event meant for another consumer is never replayed to this one.
    let mut theirs = new_event("evt_theirs", "order.shipped", None);
    theirs.consumer_id = Some(other_c.id.clone());
    s.publish(&live, theirs).await.unwrap();
    // A new endpoint, added later.
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let n = s
        .replay(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(50),
            None,
            &audit("endpoint.replayed", &e.id, T0.plus_seconds(200)),
        )
        .await
        .unwrap();
    assert_eq!(n, 2, "order.shipped within the range: evt_0 and evt_2");
    let mut ids: Vec<String> = s
        .list_messages(
            &live,
            &MessageFilter {
                endpoint_id: Some(e.id.clone()),
                ..Default::default()
            },
            &page(10),
        )
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|m| m.event_id)
        .collect();
    ids.sort();
    assert_eq!(ids, vec!["evt_0", "evt_2"], "each event keeps its id");
    // Replaying again creates nothing: (endpoint_id, event_id) is unique.
    let again = s
        .replay(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(500),
            None,
            &audit("endpoint.replayed", &e.id, T0.plus_seconds(201)),
        )
        .await
        .unwrap();
    assert_eq!(again, 1, "only evt_3 was still missing");
    let types = ["order.created".to_string()];
    let none = s
        .replay(
            &live,
            &e.id,
            T0,
            T0.plus_seconds(500),
            Some(&types),
            &audit("endpoint.replayed", &e.id, T0.plus_seconds(202)),
        )
        .await
        .unwrap();
    assert_eq!(
        none, 0,
        "types the endpoint does not subscribe to are not replayed"
    );
    let other = tenant(s, "b").await;
    assert!(matches!(
        s.replay(
            &scope(&other, Environment::Live),
            &e.id,
            T0,
            T0.plus_seconds(500),
            None,
            &audit("x", &e.id, T0)
        )
        .await,
        Err(StoreError::NotFound)
    ));
}

pub async fn purge_removes_old_events_with_their_messages_in_batches(s: &dyn Store) {
    let (live, _) = delivery_fixture(s, 2).await;
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    s.complete(
        &claimed
            .iter()
            .map(|c| completion(c, "w", delivered(c)))
            .collect::<Vec<_>>(),
    )
    .await
    .unwrap();
    for i in 0..3 {
        let ev = NewEvent {
            now: T0.plus_seconds(10 + i),
            ..new_event(&format!("evt_old{i}"), "order.shipped", None)
        };
        s.publish(&live, ev).await.unwrap();
        // Ended: the purge keeps an event while a message of it is live.
        let messages = s
            .list_messages(
                &live,
                &MessageFilter {
                    event_id: Some(format!("evt_old{i}")),
                    ..Default::default()
                },
                &page(10),
            )
            .await
            .unwrap();
        for m in messages.data {
            s.cancel_message(&live, &m.id, T0, None).await.unwrap();
        }
    }
    let fresh = NewEvent {
        now: T0.plus_seconds(1000),
        ..new_event("evt_fresh", "order.shipped", None)
    };
    s.publish(&live, fresh).await.unwrap();
    let cutoff = T0.plus_seconds(500);
    assert_eq!(s.purge_before(cutoff, 2).await.unwrap(), 2);
    assert_eq!(s.purge_before(cutoff, 2).await.unwrap(), 2);
    assert_eq!(s.purge_before(cutoff, 2).await.unwrap(), 0);
    assert!(s.get_event(&live, "evt_d").await.unwrap().is_none());
    assert!(s.get_event(&live, "evt_fresh").await.unwrap().is_some());
    let left = s
        .list_messages(&live, &MessageFilter::default(), &page(50))
        .await
        .unwrap();
    assert!(
        left.data.iter().all(|m| m.event_id == "evt_fresh"),
        "{:?}",
        left.data
    );
    assert!(
        s.list_attempts(&live, &claimed[0].message.id)
            .await
            .unwrap()
            .is_empty()
    );
}

pub async fn bulk_retry_jobs_advance_by_cursor_and_resume_after_a_lost_worker(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 3).await;
    for i in 0..4 {
        s.publish(
            &live,
            new_event(&format!("evt_more{i}"), "order.shipped", None),
        )
        .await
        .unwrap();
    }
    // Exhaust everything, then delete one endpoint: its messages must not come back.
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 100, &[])
        .await
        .unwrap();
    assert_eq!(claimed.len(), 15);
    let failed: Vec<Completion> = claimed
        .iter()
        .map(|c| {
            let mut done = completion(
                c,
                "w",
                Progress {
                    state: MessageState::Exhausted,
                    attempts_used: 10,
                    next_attempt_at: None,
                    last_error_code: Some("http_503".into()),
                    terminal_reason: Some("attempts_exhausted".into()),
                    ..c.progress()
                },
            );
            done.attempt = None;
            done
        })
        .collect();
    s.complete(&failed).await.unwrap();
    s.delete_endpoint(&live, &endpoints[2].id, T0, None)
        .await
        .unwrap();
    let job = crate::Job {
        id: new_id(IdKind::Job, T0),
        kind: "bulk_retry".into(),
        parameters: json!({"error_code": "http_503"}),
        state: "queued".into(),
        processed: 0,
        affected: 0,
        created_at: T0,
        updated_at: T0,
        finished_at: None,
    };
    s.create_job(&live, &job, &audit("messages.bulk_retry", &job.id, T0))
        .await
        .unwrap();
    let filter = MessageFilter {
        error_code: Some("http_503".into()),
        ..Default::default()
    };
    let leased = s
        .lease_job("w1", T0, T0.plus_seconds(30))
        .await
        .unwrap()
        .expect("queued job");
    assert!(
        s.lease_job("w2", T0, T0.plus_seconds(30))
            .await
            .unwrap()
            .is_none(),
        "one worker at a time"
    );
    let after_one = s
        .advance_bulk_retry(&leased, &filter, "w1", 4, T0, T0.plus_seconds(30))
        .await
        .unwrap();
    assert_eq!(
        (after_one.state.as_str(), after_one.processed),
        ("running", 4)
    );
    // The worker dies; after its lease another one resumes from the cursor.
    let resumed = s
        .lease_job("w2", T0.plus_seconds(31), T0.plus_seconds(60))
        .await
        .unwrap()
        .expect("abandoned job");
    assert!(matches!(
        s.advance_bulk_retry(&leased, &filter, "w1", 4, T0, T0.plus_seconds(30))
            .await,
        Err(StoreError::Conflict(_))
    ));
    let mut last = after_one;
    while last.state != "done" {
        last = s
            .advance_bulk_retry(
                &resumed,
                &filter,
                "w2",
                4,
                T0.plus_seconds(32),
                T0.plus_seconds(60),
            )
            .await
            .unwrap();
    }
    assert_eq!(last.processed, 15, "every matching message examined once");
    assert_eq!(
        last.affected, 10,
        "the removed endpoint's 5 stay dead-lettered"
    );
    assert!(last.finished_at.is_some());
    let scheduled = s
        .list_messages(
            &live,
            &MessageFilter {
                state: Some(MessageState::Scheduled),
                ..Default::default()
            },
            &page(50),
        )
        .await
        .unwrap();
    assert_eq!(scheduled.data.len(), 10);
    assert!(scheduled.data.iter().all(|m| m.attempts_used == 0));
    assert_eq!(s.get_job(&live, &job.id).await.unwrap().unwrap(), last);
    let other = tenant(s, "b").await;
    assert!(
        s.get_job(&scope(&other, Environment::Live), &job.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        s.lease_job("w3", T0.plus_seconds(100), T0.plus_seconds(130))
            .await
            .unwrap()
            .is_none()
    );
}

pub async fn claims_skip_full_lanes_and_released_claims_are_due_again(s: &dyn Store) {
    let (_live, endpoints) = delivery_fixture(s, 3).await;
    let full = vec![(endpoints[0].id.clone(), 0), (endpoints[1].id.clone(), 0)];
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &full)
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].endpoint.id, endpoints[2].id);
    let more = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(more.len(), 2);
    let ids: Vec<String> = more.iter().map(|c| c.message.id.clone()).collect();
    assert_eq!(s.release_claims("someone-else", &ids, T0).await.unwrap(), 0);
    assert_eq!(s.release_claims("w", &ids, T0).await.unwrap(), 2);
    let again = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    assert_eq!(again.len(), 2);
    assert!(
        again
            .iter()
            .all(|c| c.message.attempts_used == 0 && c.message.next_attempt_at == Some(T0))
    );
}

pub async fn claims_take_at_most_each_endpoints_room(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let roomy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let mut narrow = endpoint_value(&live, &c.id, &["order.shipped"]);
    narrow.max_concurrency = 3;
    s.create_endpoint(&live, &narrow, &[], LIMITS, None)
        .await
        .unwrap();
    for i in 0..6 {
        let mut ev = new_event(&format!("evt_room_{i}"), "order.shipped", None);
        ev.now = T0.plus_millis(i);
        s.publish(&live, ev).await.unwrap();
    }
    let count = |claimed: &[crate::Claimed], e: &Endpoint| {
        claimed.iter().filter(|c| c.endpoint.id == e.id).count()
    };
    // The lane of `roomy` has 2 free slots; `narrow` is unknown to the lanes,
    // so its max_concurrency (3) caps it.
    let first = s
        .claim_due(
            "w",
            T0.plus_seconds(1),
            T0.plus_seconds(30),
            100,
            &[(roomy.id.clone(), 2)],
        )
        .await
        .unwrap();
    assert_eq!((count(&first, &roomy), count(&first, &narrow)), (2, 3));
    // The oldest due of each endpoint go first.
    let oldest: Vec<&str> = first
        .iter()
        .filter(|c| c.endpoint.id == roomy.id)
        .map(|c| c.event.id.as_str())
        .collect();
    assert_eq!(oldest, ["evt_room_0", "evt_room_1"]);
    // Room 0 skips an endpoint; the limit still applies across endpoints.
    let second = s
        .claim_due(
            "w",
            T0.plus_seconds(1),
            T0.plus_seconds(30),
            2,
            &[(narrow.id.clone(), 0)],
        )
        .await
        .unwrap();
    assert_eq!((count(&second, &roomy), count(&second, &narrow)), (2, 0));
    let rest = s
        .claim_due("w", T0.plus_seconds(1), T0.plus_seconds(30), 100, &[])
        .await
        .unwrap();
    assert_eq!((count(&rest, &roomy), count(&rest, &narrow)), (2, 3));
}

pub async fn claims_look_past_full_and_capped_endpoints_backlogs(s: &dyn Store) {
    // Due first: a hanging endpoint's backlog (its lane is full), then the
    // backlog of an endpoint whose lane has room for 2, then one capped by
    // its max_concurrency (2; the lanes do not know it), then a healthy
    // endpoint's few messages. Each backlog is longer than a claim's window,
    // so a claim that only looks at the next due messages finds nothing it
    // may take beyond the capped endpoints' room.
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let hanging = endpoint(s, &live, &c.id, &["hang.queued"]).await;
    let roomy = endpoint(s, &live, &c.id, &["room.queued"]).await;
    let mut narrow = endpoint_value(&live, &c.id, &["narrow.queued"]);
    narrow.max_concurrency = 2;
    s.create_endpoint(&live, &narrow, &[], LIMITS, None)
        .await
        .unwrap();
    let healthy = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    for (kind, event_type, first_due, n) in [
        ("hang", "hang.queued", 0, 40),
        ("room", "room.queued", 100, 40),
        ("narrow", "narrow.queued", 200, 40),
        ("ok", "order.shipped", 300, 5),
    ] {
        for i in 0..n {
            let mut ev = new_event(&format!("evt_{kind}_{i:02}"), event_type, None);
            ev.now = T0.plus_millis(first_due + i);
            s.publish(&live, ev).await.unwrap();
        }
    }
    let now = T0.plus_seconds(10);
    let claim = async |limit: u32, room: &[(String, u32)]| {
        s.claim_due("w", now, now.plus_seconds(30), limit, room)
            .await
            .unwrap()
    };
    let events = |claimed: &[crate::Claimed]| -> Vec<String> {
        claimed.iter().map(|c| c.event.id.clone()).collect()
    };
    let release = async |claimed: &[crate::Claimed]| {
        let ids: Vec<String> = claimed.iter().map(|c| c.message.id.clone()).collect();
        assert_eq!(
            s.release_claims("w", &ids, now).await.unwrap(),
            ids.len() as u64
        );
    };
    // The lanes: `hanging` full, `roomy` with 2 free slots.
    let lanes = vec![(hanging.id.clone(), 0), (roomy.id.clone(), 2)];
    let first = [
        "evt_room_00",
        "evt_room_01",
        "evt_narrow_00",
        "evt_narrow_01",
        "evt_ok_00",
        "evt_ok_01",
    ];
    // Of 9 messages the rooms allow, the 6 due first, in due order.
    let claimed = claim(6, &lanes).await;
    assert_eq!(events(&claimed), first);
    release(&claimed).await;
    // The same with more endpoints in flight than a claim spells out (a
    // longer window): lanes nobody has messages for, with more room.
    let mut many = lanes.clone();
    many.extend((0..70).map(|i| (format!("ep_elsewhere_{i:02}"), 5)));
    let claimed = claim(6, &many).await;
    assert_eq!(events(&claimed), first);
    release(&claimed).await;
    // `roomy` full too: the capped endpoint still gets its 2, the healthy
    // one all of its messages, the full ones nothing.
    let lanes = vec![(hanging.id.clone(), 0), (roomy.id.clone(), 0)];
    let claimed = claim(10, &lanes).await;
    assert_eq!(
        events(&claimed),
        [
            "evt_narrow_00",
            "evt_narrow_01",
            "evt_ok_00",
            "evt_ok_01",
            "evt_ok_02",
            "evt_ok_03",
            "evt_ok_04",
        ]
    );
    assert!(
        claimed
            .iter()
            .all(|c| c.endpoint.id == narrow.id || c.endpoint.id == healthy.id)
    );
    // With every lane free again, the oldest due go first.
    release(&claimed).await;
    let claimed = claim(3, &[]).await;
    assert_eq!(
        events(&claimed),
        ["evt_hang_00", "evt_hang_01", "evt_hang_02"]
    );
}

pub async fn health_facts_summarise_attempts_and_backlog(s: &dyn Store) {
    let (_live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    let empty = s.health_facts(&e.id, T0).await.unwrap();
    assert_eq!((empty.last_hour, empty.backlog), ((0, 0), 1));
    assert_eq!(empty.oldest_pending_at, Some(T0));
    for i in 0..4 {
        let claimed = s
            .claim_due(
                "w",
                T0.plus_seconds(i * 10),
                T0.plus_seconds(i * 10 + 30),
                1,
                &[],
            )
            .await
            .unwrap();
        let c = &claimed[0];
        let delivered_now = i == 3;
        let mut comp = completion(
            c,
            "w",
            if delivered_now {
                delivered(c)
            } else {
                Progress {
                    state: MessageState::Scheduled,
                    attempts_used: c.progress().attempts_used + 1,
                    next_attempt_at: Some(T0.plus_seconds(i * 10 + 10)),
                    ..c.progress()
                }
            },
        );
        if let Some(a) = comp.attempt.as_mut() {
            a.id = new_id(IdKind::Attempt, T0);
            a.started_at = T0.plus_seconds(i * 10);
            a.duration_ms = 100 * (i + 1);
            a.outcome = if delivered_now {
                "delivered".into()
            } else {
                "retry".into()
            };
            a.status_code = Some(if delivered_now { 200 } else { 503 });
        }
        s.complete(&[comp]).await.unwrap();
    }
    let f = s.health_facts(&e.id, T0.plus_seconds(60)).await.unwrap();
    assert_eq!(f.last_hour, (4, 1));
    assert_eq!(f.last_day, (4, 1));
    // 100, 200, 300 and 400 ms: buckets (75, 100], (150, 200], (200, 300], (300, 500].
    assert_eq!(f.latency.total(), 4);
    assert_eq!(f.latency.max_ms, 400);
    assert_eq!(f.latency.percentile(25), Some(100));
    assert_eq!(f.latency.percentile(50), Some(200));
    assert_eq!(f.latency.percentile(75), Some(300));
    assert_eq!(
        f.latency.percentile(99),
        Some(400),
        "bounded by the largest seen"
    );
    assert_eq!(f.last_success_at, Some(T0.plus_seconds(30)));
    assert_eq!((f.backlog, f.oldest_pending_at), (0, None));
    assert_eq!(f.recent_errors.len(), 3);
    assert!(
        f.recent_errors[0].started_at >= f.recent_errors[2].started_at,
        "newest first"
    );
    let later = s
        .health_facts(&e.id, T0.plus_seconds(2 * 3600))
        .await
        .unwrap();
    assert_eq!(later.last_hour, (0, 0));
    assert_eq!(later.last_day, (4, 1));
    assert_eq!(later.latency.total(), 4, "the histogram keeps 24 hours");
    let next_day = s
        .health_facts(&e.id, T0.plus_seconds(26 * 3600))
        .await
        .unwrap();
    assert_eq!(next_day.latency.total(), 0, "hours older than 24 drop out");
    // Purging removes the hours before the cutoff, and only those.
    assert_eq!(s.purge_latency_before(T0).await.unwrap(), 0);
    assert!(s.purge_latency_before(T0.plus_seconds(3600)).await.unwrap() > 0);
    let purged = s.health_facts(&e.id, T0.plus_seconds(60)).await.unwrap();
    assert_eq!(purged.latency.total(), 0);
}

pub async fn latency_histogram_rows_merge_within_and_across_batches(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 2).await;
    s.publish(&live, new_event("evt_d2", "order.shipped", None))
        .await
        .unwrap();
    // Two batches of one attempt per endpoint: the first writes two rows in
    // one statement, the second adds to them (110 and 140 ms share a bucket).
    for (round, ms) in [(0, 110), (1, 140)] {
        let now = T0.plus_seconds(round * 10);
        let claimed = s
            .claim_due("w", now, now.plus_seconds(30), 2, &[])
            .await
            .unwrap();
        let mut seen: Vec<&str> = claimed.iter().map(|c| c.endpoint.id.as_str()).collect();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), 2, "one message of each endpoint");
        let batch: Vec<Completion> = claimed
            .iter()
            .map(|c| {
                let mut comp = completion(c, "w", delivered(c));
                if let Some(a) = comp.attempt.as_mut() {
                    a.id = new_id(IdKind::Attempt, now);
                    a.started_at = now;
                    a.duration_ms = ms;
                }
                comp
            })
            .collect();
        s.complete(&batch).await.unwrap();
    }
    for e in &endpoints {
        let f = s.health_facts(&e.id, T0.plus_seconds(60)).await.unwrap();
        assert_eq!(f.latency.total(), 2, "both attempts counted");
        assert_eq!(f.latency.max_ms, 140, "the larger maximum kept");
        assert_eq!(
            f.latency.percentile(50),
            f.latency.percentile(99),
            "one bucket"
        );
    }
}

pub async fn a_claim_reports_when_the_next_message_is_due(s: &dyn Store) {
    let (live, _endpoints) = delivery_fixture(s, 1).await;
    let mut later = new_event("evt_later", "order.shipped", None);
    later.now = T0.plus_seconds(50);
    s.publish(&live, later).await.unwrap();
    let now = T0.plus_seconds(1);
    let batch = s
        .claim(&crate::ClaimRequest {
            owner: "w",
            now,
            lease_until: now.plus_seconds(30),
            limit: 10,
            recovery_limit: 10,
            room: &[],
            recovery_after: None,
        })
        .await
        .unwrap();
    assert_eq!(batch.claimed.len(), 1, "only the message due now");
    assert_eq!(
        batch.next_due,
        Some(T0.plus_seconds(50)),
        "the later message, not the one just leased"
    );
    assert_eq!(s.next_due_at().await.unwrap(), batch.next_due);
}

pub async fn live_messages_are_claimed_before_recovery_traffic(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    // The first message fails for good, then is recovered: due at T0 + 10.
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 1, &[])
        .await
        .unwrap();
    let mut failed = completion(
        &claimed[0],
        "w",
        Progress {
            state: MessageState::FailedPermanent,
            attempts_used: 1,
            next_attempt_at: None,
            terminal_reason: Some("rejected_by_endpoint".into()),
            ..claimed[0].progress()
        },
    );
    failed.attempt = None;
    s.complete(&[failed]).await.unwrap();
    s.recover(
        &live,
        &e.id,
        T0,
        T0.plus_seconds(1),
        &audit("endpoint.recovered", &e.id, T0.plus_seconds(10)),
    )
    .await
    .unwrap();
    // A live message published later, due later.
    let later = NewEvent {
        now: T0.plus_seconds(20),
        ..new_event("evt_live", "order.shipped", None)
    };
    s.publish(&live, later).await.unwrap();
    let first = s
        .claim_due("w", T0.plus_seconds(30), T0.plus_seconds(60), 1, &[])
        .await
        .unwrap();
    assert_eq!(first[0].event.id, "evt_live", "live traffic goes first");
    let second = s
        .claim_due("w", T0.plus_seconds(30), T0.plus_seconds(60), 1, &[])
        .await
        .unwrap();
    assert_eq!(second[0].event.id, "evt_d", "recovery traffic follows");
}

/// Recovery messages (by replay, due at `at`) for `n` events of a new tenant
/// published before its endpoint existed; returns the scope and endpoint.
async fn tenant_with_recovery_backlog(
    s: &dyn Store,
    name: &str,
    n: usize,
    at: Timestamp,
) -> (Scope, Endpoint) {
    let t = tenant(s, name).await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    for i in 0..n {
        s.publish(
            &live,
            new_event(&format!("evt_{name}_{i}"), "order.shipped", None),
        )
        .await
        .unwrap();
    }
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let replayed = s
        .replay(
            &live,
            &e.id,
            T0,
            at,
            None,
            &audit("endpoint.replayed", &e.id, at),
        )
        .await
        .unwrap();
    assert_eq!(replayed, n as u64);
    (live, e)
}

pub async fn recovery_traffic_is_shared_fairly_across_tenants(s: &dyn Store) {
    // Tenant A's backlog is four times B's and due earlier: oldest-due-first
    // alone would give A every claim until its backlog is gone.
    let (a, a_endpoint) = tenant_with_recovery_backlog(s, "a", 40, T0.plus_seconds(10)).await;
    let (b, b_endpoint) = tenant_with_recovery_backlog(s, "b", 10, T0.plus_seconds(20)).await;
    // A live message of tenant A, due after every recovery message.
    let live_event = NewEvent {
        now: T0.plus_seconds(25),
        ..new_event("evt_a_live", "order.shipped", None)
    };
    s.publish(&a, live_event).await.unwrap();
    let now = T0.plus_seconds(30);
    let mut cursor: Option<String> = None;
    let mut claim = async |limit: u32, recovery_limit: u32, skip: &[String]| {
        let room: Vec<(String, u32)> = skip.iter().map(|e| (e.clone(), 0)).collect();
        let batch = s
            .claim(&crate::ClaimRequest {
                owner: "w",
                now,
                lease_until: now.plus_seconds(30),
                limit,
                recovery_limit,
                room: &room,
                recovery_after: cursor.as_deref(),
            })
            .await
            .unwrap();
        if batch.recovery_first.is_some() {
            cursor = batch.recovery_first.clone();
        }
        batch.claimed
    };
    let count = |claimed: &[crate::Claimed], tenant: &Scope| {
        claimed
            .iter()
            .filter(|c| c.recovery && c.tenant_id == tenant.tenant_id)
            .count()
    };

    // Live first, whatever is due before it; then the room left is split.
    let first = claim(5, 5, &[]).await;
    assert_eq!(first.len(), 5);
    let live: Vec<_> = first.iter().filter(|c| !c.recovery).collect();
    assert_eq!(live.len(), 1, "the live message is claimed");
    assert_eq!(live[0].event.id, "evt_a_live");
    assert_eq!(
        (count(&first, &a), count(&first, &b)),
        (2, 2),
        "the recovery room is split equally between the two tenants"
    );
    // The recovery limit caps recovery traffic, even with nothing live due.
    assert!(claim(4, 0, &[]).await.is_empty());
    // One slot at a time, the tenants take turns.
    let mut turns = Vec::new();
    for _ in 0..4 {
        let one = claim(1, 1, &[]).await;
        assert_eq!(one.len(), 1);
        turns.push(one[0].tenant_id.clone());
    }
    assert!(
        turns.windows(2).all(|w| w[0] != w[1]),
        "single slots alternate between tenants: {turns:?}"
    );
    let (mut got_a, mut got_b) = (4, 4);
    // A tenant whose lane is full leaves its share to the others.
    let skipped = claim(4, 4, std::slice::from_ref(&b_endpoint.id)).await;
    assert_eq!(
        count(&skipped, &a),
        4,
        "B's endpoint is skipped, A fills the room"
    );
    got_a += 4;
    // Odd-sized claims: the odd slot rotates, so neither tenant gets ahead
    // by more than one message while both have some due.
    let (mut since_a, mut since_b) = (0usize, 0usize);
    while got_b < 10 {
        let claimed = claim(3, 3, &[]).await;
        assert_eq!(claimed.len(), 3, "three recovery messages are due");
        let (na, nb) = (count(&claimed, &a), count(&claimed, &b));
        assert!(nb >= 1, "B gets a share of every claim: A {na}, B {nb}");
        since_a += na;
        since_b += nb;
        got_a += na;
        got_b += nb;
        if got_b < 10 {
            assert!(
                since_a.abs_diff(since_b) <= 1,
                "turns even out: A {since_a}, B {since_b}"
            );
        }
    }
    assert!(got_a < 40, "B finished while A still had a backlog");
    // With B done, A has every slot, up to its endpoint's max_concurrency
    // (10) per claim.
    let mut rest = Vec::new();
    loop {
        let more = claim(100, 100, &[]).await;
        if more.is_empty() {
            break;
        }
        assert!(more.len() <= 10, "at most the endpoint's room per claim");
        rest.extend(more);
    }
    assert_eq!(count(&rest, &a), 40 - got_a);
    assert_eq!(count(&rest, &b), 0);
    assert!(rest.iter().all(|c| c.endpoint.id == a_endpoint.id));
}

/// Fails the endpoint's only message at each of `hours` (from T0), through
/// claims and completions carrying a failure signal; returns the endpoint.
async fn fail_at_hours(s: &dyn Store, live: &Scope, endpoint: &Endpoint, hours: &[i64]) {
    let _ = live;
    for h in hours {
        let at = T0.plus_seconds(h * 3600);
        let claimed = s
            .claim_due("w", at, at.plus_seconds(30), 10, &[])
            .await
            .unwrap();
        let c = claimed
            .iter()
            .find(|c| c.endpoint.id == endpoint.id)
            .expect("the message is due");
        let mut comp = completion(
            c,
            "w",
            Progress {
                state: MessageState::Scheduled,
                attempts_used: 1,
                next_attempt_at: Some(at.plus_seconds(3600)),
                ..c.progress()
            },
        );
        comp.health = relay_core::circuit::Signal::Failure;
        comp.now = at;
        if let Some(a) = comp.attempt.as_mut() {
            a.id = new_id(IdKind::Attempt, at);
            a.outcome = "retry".into();
        }
        s.complete(&[comp]).await.unwrap();
        // Due again at the next hour asked for.
        for other in claimed.iter().filter(|o| o.endpoint.id != endpoint.id) {
            s.release_claims("w", std::slice::from_ref(&other.message.id), at)
                .await
                .unwrap();
        }
    }
}

pub async fn the_failure_clock_warns_at_72_hours_and_disables_at_5_days(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let mut keep = endpoint_value(&live, &c.id, &["order.created"]);
    keep.auto_disable = false;
    s.create_endpoint(&live, &keep, &[], LIMITS, None)
        .await
        .unwrap();
    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    s.publish(&live, new_event("evt_2", "order.created", None))
        .await
        .unwrap();
    fail_at_hours(s, &live, &e, &[0, 12, 71]).await;
    assert!(s.endpoint_warnings(&e.id, 10).await.unwrap().is_empty());
    fail_at_hours(s, &live, &e, &[72]).await;
    let w = s.endpoint_warnings(&e.id, 10).await.unwrap();
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].kind, "failing_for_72_hours");
    fail_at_hours(s, &live, &e, &[119]).await;
    assert_eq!(
        s.get_endpoint(&live, &e.id).await.unwrap().unwrap().state,
        EndpointState::Active
    );
    fail_at_hours(s, &live, &e, &[120]).await;
    let disabled = s.get_endpoint(&live, &e.id).await.unwrap().unwrap();
    assert_eq!(disabled.state, EndpointState::Disabled);
    assert_eq!(
        disabled.disabled_reason.as_deref(),
        Some("failing_for_5_days")
    );
    // The opted-out endpoint fails just as long and stays active.
    fail_at_hours(s, &live, &keep, &[0, 12, 72, 120, 130]).await;
    assert_eq!(
        s.get_endpoint(&live, &keep.id)
            .await
            .unwrap()
            .unwrap()
            .state,
        EndpointState::Active
    );
}

pub async fn one_success_resets_the_failure_clock(s: &dyn Store) {
    let (live, endpoints) = delivery_fixture(s, 1).await;
    let e = &endpoints[0];
    fail_at_hours(s, &live, e, &[0, 12, 80]).await;
    // A success at hour 81.
    let at = T0.plus_seconds(81 * 3600);
    let claimed = s
        .claim_due("w", at, at.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let mut ok = completion(
        &claimed[0],
        "w",
        Progress {
            state: MessageState::Scheduled,
            next_attempt_at: Some(at.plus_seconds(3600)),
            ..claimed[0].progress()
        },
    );
    ok.health = relay_core::circuit::Signal::Success;
    s.complete(&[ok]).await.unwrap();
    // Five more days of failure from hour 82 would be needed now.
    fail_at_hours(s, &live, e, &[82, 94, 200]).await;
    assert_eq!(
        s.get_endpoint(&live, &e.id).await.unwrap().unwrap().state,
        EndpointState::Active
    );
    fail_at_hours(s, &live, e, &[202]).await;
    assert_eq!(
        s.get_endpoint(&live, &e.id).await.unwrap().unwrap().state,
        EndpointState::Disabled,
        "120 hours after the clock restarted at hour 82"
    );
}

/// The first 50 messages `filter` lists, in the store's order.
pub(crate) async fn listed(
    s: &dyn Store,
    scope: &Scope,
    filter: MessageFilter,
) -> Vec<relay_core::model::Message> {
    s.list_messages(scope, &filter, &page(50))
        .await
        .unwrap()
        .data
}

/// The first 50 messages of one endpoint.
pub(crate) async fn messages_of(
    s: &dyn Store,
    scope: &Scope,
    endpoint_id: &str,
) -> Vec<relay_core::model::Message> {
    let filter = MessageFilter {
        endpoint_id: Some(endpoint_id.to_string()),
        ..Default::default()
    };
    listed(s, scope, filter).await
}

pub async fn operational_events_reach_subscribers_without_cascading(s: &dyn Store) {
    use relay_core::operational::{ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED};
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let own = tenant_side::tenant_consumer(s, &live).await;
    let failing = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let ops = endpoint(
        s,
        &live,
        &own.id,
        &[ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED],
    )
    .await;
    let _all = endpoint(s, &live, &c.id, &["*"]).await;
    // A customer's endpoint that names them (as one could before consumers
    // had a kind; the API refuses it now) receives none of them.
    let customer = endpoint(
        s,
        &live,
        &c.id,
        &[ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED],
    )
    .await;
    s.publish(&live, new_event("evt_1", "order.shipped", None))
        .await
        .unwrap();
    // Exhaust the failing endpoint's message.
    let claimed = s
        .claim_due("w", T0, T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let mine = claimed
        .iter()
        .find(|c| c.endpoint.id == failing.id)
        .unwrap();
    let mut exhausted = completion(
        mine,
        "w",
        Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            next_attempt_at: None,
            last_error_code: Some("http_503".into()),
            terminal_reason: Some("attempts_exhausted".into()),
            ..mine.progress()
        },
    );
    exhausted.attempt = None;
    s.complete(&[exhausted]).await.unwrap();
    let others: Vec<String> = claimed
        .iter()
        .filter(|c| c.endpoint.id != failing.id)
        .map(|c| c.message.id.clone())
        .collect();
    s.release_claims("w", &others, T0).await.unwrap();
    let got = messages_of(s, &live, &ops.id).await;
    assert_eq!(
        got.len(),
        1,
        "only the endpoint that names the type receives it (not `*`)"
    );
    assert_eq!(got[0].event_type, ATTEMPT_EXHAUSTED);
    let event = s.get_event(&live, &got[0].event_id).await.unwrap().unwrap();
    let data: serde_json::Value = serde_json::from_str(event.data.get()).unwrap();
    assert_eq!(data["message_id"], mine.message.id.as_str());
    assert_eq!(data["last_error_code"], "http_503");
    // That operational message exhausting produces nothing more.
    let claimed = s
        .claim_due("w", T0.plus_seconds(1), T0.plus_seconds(30), 10, &[])
        .await
        .unwrap();
    let op = claimed
        .iter()
        .find(|c| c.endpoint.id == ops.id)
        .expect("the operational message is due");
    let mut op_exhausted = completion(
        op,
        "w",
        Progress {
            state: MessageState::Exhausted,
            attempts_used: 10,
            next_attempt_at: None,
            terminal_reason: Some("attempts_exhausted".into()),
            ..op.progress()
        },
    );
    op_exhausted.attempt = None;
    s.complete(&[op_exhausted]).await.unwrap();
    assert_eq!(messages_of(s, &live, &ops.id).await.len(), 1, "no cascade");
    // Disabling and enabling an endpoint: one event each.
    act(s, &live, &failing.id, EndpointAction::Disable, T0)
        .await
        .unwrap();
    assert!(matches!(
        act(s, &live, &failing.id, EndpointAction::Disable, T0).await,
        Err(StoreError::Conflict("illegal_transition"))
    ));
    act(s, &live, &failing.id, EndpointAction::Enable, T0)
        .await
        .unwrap();
    let types: Vec<String> = messages_of(s, &live, &ops.id)
        .await
        .into_iter()
        .map(|m| m.event_type)
        .collect();
    assert_eq!(
        types,
        vec![ATTEMPT_EXHAUSTED, ENDPOINT_DISABLED, ENDPOINT_RECOVERED]
    );
    let leaked: Vec<String> = messages_of(s, &live, &customer.id)
        .await
        .into_iter()
        .map(|m| m.event_type)
        .filter(|t| relay_core::operational::is_operational(t))
        .collect();
    assert!(leaked.is_empty(), "a customer learnt: {leaked:?}");
}
