use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::PgConnectOptions;

use crate::{Store, within};

/// A lease transaction commits without waiting for the WAL flush; a
/// durable one waits (the server's default).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lease_transactions_alone_skip_the_wal_flush() {
    let Some(db) = TestDb::postgres("lease_transactions_alone_skip_the_wal_flush").await else {
        return;
    };
    let (pg, _) = db.pg.clone().expect("a PostgreSQL store");
    let setting = |commit| {
        pg.txns.run(commit, |c| {
            Box::pin(async move {
                Ok(sqlx::query_scalar::<_, String>("SHOW synchronous_commit")
                    .fetch_one(&mut *c)
                    .await?)
            })
        })
    };
    assert_eq!(setting(crate::exec::Commit::Lease).await.unwrap(), "off");
    assert_eq!(setting(crate::exec::Commit::Durable).await.unwrap(), "on");
    // A lease transaction's setting ends with it.
    assert_eq!(setting(crate::exec::Commit::Durable).await.unwrap(), "on");
    db.cleanup().await;
}

/// The wake-up listener wakes its `Notify` for a notification, and
/// ends once its stop signal turns true, or once that signal's sender
/// is dropped.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wakeup_listener_ends_when_stopped() {
    let Some(db) = TestDb::postgres("the_wakeup_listener_ends_when_stopped").await else {
        return;
    };
    let (pg, _) = db.pg.clone().expect("a PostgreSQL store");
    let notify = std::sync::Arc::new(tokio::sync::Notify::new());
    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let (endpoints, mut notices) = tokio::sync::mpsc::unbounded_channel();
    let listener =
        super::dialect::listen_for_wakeups(&pg.write, notify.clone(), endpoints, stop_rx)
            .await
            .unwrap()
            .expect("PostgreSQL listens in a task");
    sqlx::query("SELECT pg_notify('relay_wake', '')")
        .execute(&pg.write)
        .await
        .unwrap();
    // Woken by the notification.
    within(notify.notified()).await;
    // An endpoint's change is told as such.
    sqlx::query(super::dialect::ENDPOINT_NOTIFY.unwrap())
        .bind("paused:ep_told")
        .execute(&pg.write)
        .await
        .unwrap();
    assert_eq!(
        within(notices.recv()).await,
        Some(crate::EndpointNotice::Changed {
            endpoint_id: "ep_told".into(),
            state: relay_core::model::EndpointState::Paused,
        })
    );
    stop.send(true).unwrap();
    // The listener ends once stopped, and drops its sender.
    within(listener).await.unwrap();
    assert_eq!(within(notices.recv()).await, None);

    let (stop, stop_rx) = tokio::sync::watch::channel(false);
    let (endpoints, _notices) = tokio::sync::mpsc::unbounded_channel();
    let listener = super::dialect::listen_for_wakeups(&pg.write, notify, endpoints, stop_rx)
        .await
        .unwrap()
        .expect("PostgreSQL listens in a task");
    drop(stop);
    // And once its stop signal is gone.
    within(listener).await.unwrap();
    db.cleanup().await;
}

/// A pooled connection the server closed while it sat idle past the
/// threshold (zero here) is pinged and replaced before a statement uses
/// it. (One taken within the threshold is used as it is: whether its
/// first statement fails then depends on whether the client has read
/// the server's goodbye yet, so that case is not asserted.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_closed_while_idle_is_replaced_before_use() {
    let Some(url) =
        crate::testenv::postgres_url("a_connection_closed_while_idle_is_replaced_before_use")
    else {
        return;
    };
    let admin = sqlx::PgPool::connect(&url).await.expect("PostgreSQL");
    let app = format!(
        "relay_ping_{}",
        crate::new_id(relay_core::id::IdKind::Job, relay_core::time::Timestamp(0)).to_lowercase()
    );
    let options = PgConnectOptions::from_str(&url)
        .expect("url")
        .application_name(&app);
    let store =
        super::PgStore::connect_pinging(options, Duration::ZERO, &super::StoreSettings::default())
            .await
            .expect("connect");
    let one = || sqlx::query_scalar::<_, i32>("SELECT 1").fetch_one(&store.write);
    let backends = || {
        sqlx::query_scalar::<_, i64>(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = $1",
        )
        .bind(&app)
        .fetch_one(&admin)
    };
    assert_eq!(one().await.expect("a first statement"), 1);
    let killed: Vec<bool> = sqlx::query_scalar(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
    )
    .bind(&app)
    .fetch_all(&admin)
    .await
    .expect("terminate");
    assert!(
        !killed.is_empty() && killed.iter().all(|k| *k),
        "{killed:?}"
    );
    // The backends are gone once the server no longer lists them.
    for _ in 0..10_000 {
        if backends().await.expect("count") == 0 {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(backends().await.expect("count"), 0, "the backends ended");
    let after = one().await;
    assert!(after.is_ok(), "{after:?}");
    assert!(
        backends().await.expect("count") >= 1,
        "a new connection served it"
    );
    store.write.close().await;
    admin.close().await;
}
use crate::conformance::{T0, TestDb, consumer, endpoint, new_event, scope, tenant};

/// A new database has no planner statistics; the store refreshes them
/// itself once its first 1,000 messages are written (`reltuples` is -1
/// until a table is first analyzed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hot_tables_are_analyzed_after_the_first_thousand_messages() {
    let Some(db) =
        TestDb::postgres("the_hot_tables_are_analyzed_after_the_first_thousand_messages").await
    else {
        return;
    };
    let (pg, schema) = db.pg.clone().expect("a PostgreSQL store");
    let s: &dyn Store = &*pg;
    let t = tenant(s, "a").await;
    let live = scope(&t, relay_core::model::Environment::Live);
    let c = consumer(s, &live, "c").await;
    endpoint(s, &live, &c.id, &["order.shipped"]).await;
    let reltuples = || async {
        sqlx::query_scalar::<_, f32>(
            "SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = $1 AND c.relname = 'messages'",
        )
        .bind(&schema)
        .fetch_one(&pg.write)
        .await
        .unwrap()
    };
    let publish = |from: usize, to: usize| {
        futures_util::future::join_all((from..to).map(|i| {
            let mut ev = new_event(&format!("evt_{i}"), "order.shipped", None);
            ev.now = T0.plus_millis(i as i64);
            s.publish(&live, ev)
        }))
    };
    for r in publish(0, 999).await {
        r.unwrap();
    }
    assert!(pg.txns.last_refresh().is_none(), "not before 1,000");
    assert_eq!(reltuples().await, -1.0, "never analyzed");
    for r in publish(999, 1_000).await {
        r.unwrap();
    }
    pg.txns
        .last_refresh()
        .expect("a refresh at 1,000 messages")
        .await
        .unwrap();
    assert_eq!(reltuples().await, 1_000.0);
    db.cleanup().await;
}

/// `[store]`'s settings reach every connection: the pool's size, and the
/// statement timeout, which the server applies.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_settings_reach_every_connection() {
    let Some(url) = crate::testenv::postgres_url("the_store_settings_reach_every_connection")
    else {
        return;
    };
    let settings = super::StoreSettings {
        pool_size: 3,
        connect_timeout: Duration::from_secs(10),
        statement_timeout: Some(Duration::from_millis(200)),
    };
    let store = super::PgStore::connect_with_settings(&url, &settings)
        .await
        .expect("connect");
    assert_eq!(store.write.options().get_max_connections(), 3);
    let shown: String = sqlx::query_scalar("SHOW statement_timeout")
        .fetch_one(&store.write)
        .await
        .unwrap();
    assert_eq!(shown, "200ms");
    let cancelled = sqlx::query("SELECT pg_sleep(10)")
        .execute(&store.write)
        .await
        .expect_err("cancelled by the statement timeout");
    let code = cancelled
        .as_database_error()
        .and_then(|d| d.code().map(|c| c.to_string()));
    assert_eq!(code.as_deref(), Some("57014"), "{cancelled}");
    store.write.close().await;
}

/// A server that accepts connections but never answers holds the store's
/// start for the connect timeout, then fails it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_connect_timeout_ends_the_wait_for_a_silent_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let silent = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((conn, _)) = listener.accept().await {
            held.push(conn);
        }
    });
    let settings = super::StoreSettings {
        connect_timeout: Duration::from_secs(1),
        ..super::StoreSettings::default()
    };
    let started = std::time::Instant::now();
    let url = format!("postgres://relay:pw@127.0.0.1:{port}/relay?sslmode=require");
    let failed = super::PgStore::connect_with_settings(&url, &settings).await;
    let took = started.elapsed();
    silent.abort();
    assert!(
        matches!(
            failed,
            Err(crate::StoreError::Database(sqlx::Error::PoolTimedOut))
        ),
        "{:?}",
        failed.err()
    );
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(10),
        "{took:?}"
    );
}
