//! The plans SQLite's planner makes for the API's reads on a migrated
//! database: a read that a migration gave an index must use it, not the
//! scope's index with a filter over every message of the tenant.

use super::SqliteStore;
use crate::Operator as _;

async fn plan(store: &SqliteStore, sql: &str) -> String {
    let rows: Vec<(i64, i64, i64, String)> =
        sqlx::query_as(sqlx::AssertSqlSafe(format!("EXPLAIN QUERY PLAN {sql}")))
            .fetch_all(&store.read)
            .await
            .unwrap();
    rows.into_iter().map(|r| r.3).collect::<Vec<_>>().join("; ")
}

/// `GET /v1/events/{id}` and `GET /v1/messages?event_id=` read one event's
/// messages in id order from one range of `messages_event` (migration
/// 0024); with the event's index alone the planner took `messages_scope`
/// for the order and read every message of the tenant (1.3 s with five
/// million stored, `relay bench scale`).
#[tokio::test]
async fn an_events_messages_are_read_from_the_events_index_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("p.db").display());
    let store = SqliteStore::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    let sql = "SELECT * FROM messages WHERE tenant_id = 't' AND environment = 'live' \
               AND event_id = 'evt_1' AND id > 'msg_0' ORDER BY id LIMIT 51";
    let got = plan(&store, sql).await;
    assert!(
        got.contains(
            "USING INDEX messages_event (tenant_id=? AND environment=? AND event_id=? AND id>?)"
        ),
        "{got}"
    );
    assert!(!got.contains("TEMP B-TREE"), "{got}");
}
