//! Bulk data for measurement runs (`relay bench`): many events and their
//! messages written in a few statements that generate their rows, and
//! scratch PostgreSQL databases a run creates and drops.
//!
//! Nothing of the product uses these: a million messages through the API
//! would take longer than the measurement they set up. The rows are the
//! ones a publish would write for an endpoint (an event and one message
//! each), without the publish's checks: the caller names a tenant and an
//! endpoint that exist.

use relay_core::model::MessageState;
use relay_core::time::Timestamp;

use crate::exec::Exec;
use crate::sql::{Bind, SqlBuilder};
use crate::{Result, Scope, StoreError};

/// Events `<prefix><i>`, each with one message
/// `msg_<prefix><i>` for one endpoint.
#[derive(Debug, Clone)]
pub struct Messages<'a> {
    pub scope: &'a Scope,
    pub endpoint_id: &'a str,
    pub prefix: &'a str,
    pub event_type: &'a str,
    /// `scheduled` (due at `due`), or a terminal state (`due` = `None`,
    /// every attempt used).
    pub state: MessageState,
    pub due: Option<Timestamp>,
    /// Attempts used so far.
    pub attempts_used: u32,
    /// The events' and messages' creation time.
    pub now: Timestamp,
}

/// The W3C trace context every seeded event carries.
const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

/// Writes the events and messages of `seed` numbered `first..=last`, in
/// two statements whose rows come from a count (SQLite: a recursive CTE;
/// PostgreSQL: `generate_series`, which it runs faster); returns the
/// messages written.
pub async fn messages<X: Exec>(
    x: &mut X,
    seed: &Messages<'_>,
    first: u64,
    last: u64,
) -> Result<u64> {
    let (with, from) = match x.dialect().backend {
        "postgres" => ("", "generate_series($1::bigint, $2::bigint) AS n(i)"),
        _ => (
            "WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) ",
            "n",
        ),
    };
    let (first, last) = (first as i64, last as i64);
    x.execute(&SqlBuilder::numbered(
        &format!(
            "{with}INSERT INTO events (tenant_id, environment, id, event_type, type_version, data, \
             traceparent, created_at) SELECT $3, $4, $5 || i, $6, 1, '{{}}', $7, $8 FROM {from}"
        ),
        [
            Bind::Int(first),
            Bind::Int(last),
            Bind::Text(seed.scope.tenant_id.clone()),
            Bind::Text(seed.scope.environment.as_str().into()),
            Bind::Text(seed.prefix.into()),
            Bind::Text(seed.event_type.into()),
            Bind::Text(TRACEPARENT.into()),
            Bind::Int(seed.now.millis()),
        ],
    ))
    .await?;
    x.execute(&SqlBuilder::numbered(
        &format!(
            "{with}INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, \
             state, attempts_used, next_attempt_at, created_at, updated_at, endpoint_version) \
             SELECT 'msg_' || $5 || i, $3, $4, $5 || i, $6, $7, $8, $9, $10, $11, $11, \
             (SELECT version FROM endpoints WHERE id = $6) FROM {from}"
        ),
        [
            Bind::Int(first),
            Bind::Int(last),
            Bind::Text(seed.scope.tenant_id.clone()),
            Bind::Text(seed.scope.environment.as_str().into()),
            Bind::Text(seed.prefix.into()),
            Bind::Text(seed.endpoint_id.into()),
            Bind::Text(seed.event_type.into()),
            Bind::Text(seed.state.as_str().into()),
            Bind::Int(i64::from(seed.attempts_used)),
            Bind::OptInt(seed.due.map(Timestamp::millis)),
            Bind::Int(seed.now.millis()),
        ],
    ))
    .await
}

/// Creates the database `name` (lower-case letters, digits and `_`) on the
/// PostgreSQL server `server_url` names; returns the new database's URL
/// (`server_url` with its database replaced).
pub async fn create_database(server_url: &str, name: &str) -> Result<String> {
    use sqlx::Connection as _;
    let url = with_database(server_url, name)?;
    let mut conn = sqlx::PgConnection::connect(server_url).await?;
    let created = sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut conn)
        .await;
    let _ = conn.close().await;
    created?;
    Ok(url)
}

/// Drops the database `name` that [`create_database`] made, closing the
/// connections still open to it.
pub async fn drop_database(server_url: &str, name: &str) -> Result<()> {
    use sqlx::Connection as _;
    with_database(server_url, name)?;
    let mut conn = sqlx::PgConnection::connect(server_url).await?;
    let dropped = sqlx::query(sqlx::AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
    )))
    .execute(&mut conn)
    .await;
    let _ = conn.close().await;
    dropped?;
    Ok(())
}

/// `url` with its database name replaced by `name`; the name must be safe
/// to write into a statement as it is.
fn with_database(url: &str, name: &str) -> Result<String> {
    let plain = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !plain {
        return Err(StoreError::InvalidUrl(
            "a database name is lower-case letters, digits and _".into(),
        ));
    }
    if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
        return Err(StoreError::InvalidUrl("not a PostgreSQL URL".into()));
    }
    let scheme_end = url.find("://").map_or(0, |i| i + 3);
    let (path_start, query) = match url[scheme_end..].find('/') {
        Some(i) => {
            let start = scheme_end + i;
            (start, url[start..].find('?').map(|q| &url[start + q..]))
        }
        None => (url.len(), None),
    };
    let base = &url[..path_start];
    Ok(format!("{base}/{name}{}", query.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::with_database;

    #[test]
    fn the_database_of_a_url_is_replaced_and_its_name_checked() {
        let cases = [
            (
                "postgres://u@h/db",
                "relay_x1",
                Some("postgres://u@h/relay_x1"),
            ),
            (
                "postgres://u@h:5432/db?sslmode=disable",
                "n",
                Some("postgres://u@h:5432/n?sslmode=disable"),
            ),
            ("postgresql://u@h", "n", Some("postgresql://u@h/n")),
            ("postgres://u@h/db", "x; DROP TABLE y", None),
            ("postgres://u@h/db", "Upper", None),
            ("postgres://u@h/db", "", None),
            ("sqlite://relay.db", "n", None),
        ];
        for (url, name, want) in cases {
            assert_eq!(
                with_database(url, name).ok().as_deref(),
                want,
                "{url} {name}"
            );
        }
    }
}
