//! Migration 0009 rewrites the attempt rows written before it: HTTPS's
//! status code and response prefix move into `detail`, and `error_code` is
//! filled the way the message's `last_error_code` was. Checked on both
//! backends from rows written with the 0008 schema.

use relay_store::migrate::MIGRATIONS;
use sqlx::Row;

const INSERT: &str = "INSERT INTO attempts (id, message_id, tenant_id, environment, endpoint_id, \
    number, trigger, started_at, duration_ms, destination_ip, status_code, error_kind, \
    body_sha256, signature, response_body, outcome) VALUES \
    ('att_1', 'msg_1', 't', 'live', 'ep', 1, 'scheduled', 1, 5, '127.0.0.1', 200, NULL, 'ab', 's', 'ok', 'delivered'), \
    ('att_2', 'msg_1', 't', 'live', 'ep', 2, 'scheduled', 2, 5, '127.0.0.1', 503, NULL, 'ab', 's', 'down', 'retry'), \
    ('att_3', 'msg_1', 't', 'live', 'ep', 3, 'scheduled', 3, 5, '127.0.0.1', 999, NULL, 'ab', 's', '', 'retry'), \
    ('att_4', 'msg_1', 't', 'live', 'ep', 4, 'scheduled', 4, 5, '127.0.0.1', NULL, 'http', 'ab', 's', NULL, 'retry'), \
    ('att_5', 'msg_1', 't', 'live', 'ep', 5, 'scheduled', 5, 5, NULL, NULL, 'timeout', 'ab', 's', NULL, 'retry'), \
    ('att_6', 'msg_1', 't', 'live', 'ep', 6, 'scheduled', 6, 5, NULL, NULL, 'invalid_url', 'ab', 's', NULL, 'dead_lettered')";

/// (id, error_code, detail) expected after 0009.
fn expected() -> Vec<(&'static str, Option<&'static str>, serde_json::Value)> {
    use serde_json::json;
    vec![
        (
            "att_1",
            None,
            json!({"status_code": 200, "response_body": "ok"}),
        ),
        (
            "att_2",
            Some("http_503"),
            json!({"status_code": 503, "response_body": "down"}),
        ),
        (
            "att_3",
            Some("invalid_status"),
            json!({"status_code": 999, "response_body": ""}),
        ),
        ("att_4", Some("protocol"), json!({})),
        ("att_5", Some("timeout"), json!({})),
        ("att_6", None, json!({})),
    ]
}

fn check(rows: Vec<(String, Option<String>, String)>) {
    let got: Vec<(String, Option<String>, serde_json::Value)> = rows
        .into_iter()
        .map(|(id, code, detail)| {
            (
                id,
                code,
                serde_json::from_str(&detail).expect("JSON detail"),
            )
        })
        .collect();
    let want: Vec<(String, Option<String>, serde_json::Value)> = expected()
        .into_iter()
        .map(|(id, code, d)| (id.to_string(), code.map(str::to_string), d))
        .collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn sqlite_rows_before_0009_are_rewritten() {
    let pool = sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .connect("sqlite::memory:")
        .await
        .unwrap();
    sqlx::raw_sql("PRAGMA foreign_keys = OFF")
        .execute(&pool)
        .await
        .unwrap();
    for m in MIGRATIONS.iter().filter(|m| m.version < 9) {
        sqlx::raw_sql(m.sqlite).execute(&pool).await.unwrap();
    }
    sqlx::raw_sql(INSERT).execute(&pool).await.unwrap();
    let m9 = MIGRATIONS.iter().find(|m| m.version == 9).unwrap();
    sqlx::raw_sql(m9.sqlite).execute(&pool).await.unwrap();
    let rows = sqlx::query("SELECT id, error_code, detail FROM attempts ORDER BY id")
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("id"), r.get("error_code"), r.get("detail")))
        .collect();
    check(rows);
    let columns: Vec<String> = sqlx::query("SELECT name FROM pragma_table_info('attempts')")
        .fetch_all(&pool)
        .await
        .unwrap()
        .iter()
        .map(|r| r.get("name"))
        .collect();
    assert!(
        !columns
            .iter()
            .any(|c| c == "status_code" || c == "response_body")
    );
}

#[tokio::test]
async fn postgres_rows_before_0009_are_rewritten() {
    let Some(url) = relay_store::testenv::postgres_url("postgres_rows_before_0009_are_rewritten")
    else {
        return;
    };
    let schema = format!(
        "m9_{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    );
    let pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .unwrap();
    let mut c = pool.acquire().await.unwrap();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "CREATE SCHEMA {schema}; SET search_path TO {schema}"
    )))
    .execute(&mut *c)
    .await
    .unwrap();
    for m in MIGRATIONS.iter().filter(|m| m.version < 9) {
        sqlx::raw_sql(m.postgres).execute(&mut *c).await.unwrap();
    }
    // The rows refer to no message: foreign keys are not what is tested.
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "SET session_replication_role = replica; {INSERT}; SET session_replication_role = DEFAULT"
    )))
    .execute(&mut *c)
    .await
    .unwrap();
    let m9 = MIGRATIONS.iter().find(|m| m.version == 9).unwrap();
    sqlx::raw_sql(m9.postgres).execute(&mut *c).await.unwrap();
    let rows = sqlx::query("SELECT id, error_code, detail FROM attempts ORDER BY id")
        .fetch_all(&mut *c)
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("id"), r.get("error_code"), r.get("detail")))
        .collect();
    check(rows);
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("DROP SCHEMA {schema} CASCADE")))
        .execute(&mut *c)
        .await
        .unwrap();
}
