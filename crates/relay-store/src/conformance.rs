//! The conformance suite: storage behaviours both backends must show.
//!
//! Each `pub async fn` is one case taking a fresh, migrated store.
//! `tests/conformance.rs` runs every case on SQLite always, and on PostgreSQL
//! when the tests have one ([`crate::testenv`]: `RELAY_TEST_POSTGRES_URL`, or
//! the local server when it answers; each test in its own schema). A new
//! storage behaviour gets a case here first.

use std::sync::Arc;

mod calls;
pub(crate) use calls::*;
mod catalog_calls;
pub use calls::{
    cancel_message, create_job, create_tenant, endpoint_warnings, get_event, get_job, get_message,
    list_attempts, list_messages,
};
pub(crate) use catalog_calls::*;
pub use catalog_calls::{
    change_endpoint_state, create_consumer, create_endpoint, delete_endpoint, get_endpoint,
    put_event_type, update_endpoint,
};

mod dispatch_calls;
pub(crate) use dispatch_calls::*;
pub use dispatch_calls::{claim, release_leases};

mod terminal;
pub use terminal::*;

use relay_core::id::IdKind;
use relay_core::lifecycle::EndpointAction;
use relay_core::model::{
    Consumer, Endpoint, EndpointState, Environment, MessageState, SignatureScheme, Tenant, fixture,
};
use relay_core::time::Timestamp;
use serde_json::json;
use serde_json::value::RawValue;

use relay_core::model::{Attempt, AttemptErrorKind, AttemptTrigger, ErrorKind, WarningKind};
use relay_core::outcome::{AttemptOutcome, FailureCode};
use relay_core::transition::Progress;

mod lifecycle;
mod retention;
pub use lifecycle::*;
pub use retention::*;
mod tenant_side;
pub use tenant_side::*;
mod transactions;
pub use transactions::*;
mod setup;
pub use setup::*;
mod publishing;
pub use publishing::*;
mod versions;
pub use versions::*;
mod delivery;
pub use delivery::*;
mod recovery;
pub use recovery::*;
mod bulk;
pub use bulk::*;
mod chunks;
pub use chunks::*;
mod one_attempt;
pub use one_attempt::*;
mod seeding;
pub use seeding::*;
mod claiming;
pub use claiming::*;
mod fairness;
pub use fairness::*;
mod portal;
pub use portal::*;
mod inbound;
pub use inbound::*;
mod inbound_calls;
mod inbound_ledger;
pub use inbound_ledger::*;
mod pages;
pub use pages::*;
mod secrets;
pub use secrets::*;
mod rotation;
pub use rotation::*;
mod schema;
pub use schema::*;
mod clock;
pub use clock::*;
mod batches;
pub use batches::*;
mod shares;
pub use shares::*;
mod endpoint_changes;
pub use endpoint_changes::*;
mod audience;
pub use audience::*;
mod records;
pub use records::*;
mod circuits;
pub use circuits::*;
mod ordering;
pub use ordering::*;
mod ownership;
pub use ownership::*;
mod workflow;
pub use workflow::*;

use crate::{
    Completion, ConsumerPatch, EndpointKeyRecord, EndpointLimits, EndpointWarning, MessageFilter,
    NewApiKey, NewEvent, Operator, PageRequest, PutEventType, PutEventTypeOutcome, Scope, ShapeKey,
    Store, StoreError, new_id, progress_of,
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

    /// Another node's store on the same PostgreSQL schema (its own pools
    /// and listener, as another `relay serve` would have); `None` on SQLite.
    pub async fn another_node(&self, test: &str) -> Option<Arc<dyn Store>> {
        let (_, schema) = self.pg.as_ref()?;
        let url = crate::testenv::postgres_url(test)?;
        let store = crate::postgres::PgStore::connect_in_schema(&url, schema)
            .await
            .expect("connect another node to the test's schema");
        Some(Arc::new(store))
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
    try_create_tenant(s, &t).await.expect("create tenant");
    t
}

pub(crate) fn scope(t: &Tenant, environment: Environment) -> Scope {
    Scope {
        tenant_id: t.id.clone(),
        environment,
    }
}

/// A consumer: the scope's first is the tenant's own (kind `tenant`), so
/// the suite's events, published for no consumer ([`new_event`]), reach it
/// (`relay_core::audience`); the others are customers.
pub(crate) async fn consumer(s: &dyn Store, sc: &Scope, external_id: &str) -> Consumer {
    let mut c = Consumer {
        id: new_id(IdKind::Consumer, T0),
        external_id: external_id.into(),
        kind: relay_core::model::ConsumerKind::Tenant,
        name: None,
        source: format!("/consumers/{external_id}"),
        environment: sc.environment,
        created_at: T0,
        updated_at: T0,
    };
    match create_consumer(s, sc, &c).await {
        Ok(()) => {}
        Err(StoreError::Conflict("tenant_consumer_exists")) => {
            c.kind = relay_core::model::ConsumerKind::Customer;
            create_consumer(s, sc, &c).await.expect("create consumer");
        }
        Err(e) => panic!("create consumer: {e}"),
    }
    c
}

/// One of the tenant's customers (kind `customer`).
pub(crate) async fn customer(s: &dyn Store, sc: &Scope, external_id: &str) -> Consumer {
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
    create_consumer(s, sc, &c).await.expect("create consumer");
    c
}

pub(crate) fn endpoint_value(sc: &Scope, consumer_id: &str, types: &[&str]) -> Endpoint {
    fixture::endpoint(new_id(IdKind::Endpoint, T0), consumer_id, T0)
        .environment(sc.environment)
        .event_types(types)
        .build()
}

pub(crate) async fn endpoint(
    s: &dyn Store,
    sc: &Scope,
    consumer_id: &str,
    types: &[&str],
) -> Endpoint {
    let e = endpoint_value(sc, consumer_id, types);
    create_endpoint(s, sc, &e, &[], LIMITS, None)
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
