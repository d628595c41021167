//! Bulk data for measurement runs (`relay bench`): many events and their
//! messages (and a delivered message's attempt) written in a few statements
//! that generate their rows, and scratch PostgreSQL databases a run creates
//! and drops.
//!
//! Nothing of the product uses these: a million messages through the API
//! would take longer than the measurement they set up. The rows are the
//! ones a publish would write for an endpoint (an event and one message
//! each), without the publish's checks: the caller names a tenant and an
//! endpoint that exist.

use relay_core::model::{AttemptTrigger, MessageState};
use relay_core::outcome::AttemptOutcome;
use relay_core::time::Timestamp;

use crate::exec::Exec;
use crate::sql::{Bind, SqlBuilder};
use crate::{Result, Scope, StoreError};

/// Events `<prefix><i>`, each with one message `msg_<prefix><i>` for one
/// endpoint (or an id as [`Shape::time_ids`] says).
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

/// The attempt row of a delivered message, as an HTTPS delivery to a
/// receiver that answers `200` with no body records it: the body's hex
/// SHA-256 and a `v1a` signature are of their real length.
const ATTEMPT_BODY_SHA256: &str =
    "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
const ATTEMPT_SIGNATURE: &str =
    "v1a,AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==";
const ATTEMPT_DETAIL: &str = r#"{"status_code":200,"response_body":""}"#;
/// How long after its message's creation the seeded attempt starts, and
/// how long it takes (milliseconds).
const ATTEMPT_AFTER_MS: i64 = 5;
const ATTEMPT_DURATION_MS: i64 = 3;

/// How the rows of [`messages_shaped`] look beyond [`Messages`]: what
/// [`messages`] writes by default (`{}` as every event's data, every row
/// created at `now`, the number in the ids as it is).
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    /// Every event's `data` (JSON text).
    pub data: &'a str,
    /// Row `i` is created `i * spacing_ms` after the seed's `now`.
    pub spacing_ms: i64,
    /// The number in the ids zero-padded to ten digits, so that the ids
    /// sort as they are numbered (as generated ids sort by time): each
    /// chunk's rows then go to the end of the id indexes, as live traffic's
    /// do, instead of all over them.
    pub padded: bool,
    /// `Some(tag)`: each message's id is the one `crate::new_id` could have
    /// generated at the message's creation time ([`time_id`]: the time,
    /// then `tag` and the row's number as the random part) rather than
    /// `msg_<prefix><i>`, so that the history sorts among live traffic's
    /// ids, by time, as a real one does (a list from a time on starts at
    /// that time's ids: `crate::messages::list`). Seeds beside each other
    /// take different tags.
    pub time_ids: Option<u32>,
}

/// The id [`messages_shaped`] gives message `i` created at `created`
/// when [`Shape::time_ids`] is `Some(tag)`: a message id of that
/// millisecond whose 80 random bits are `tag` (30 bits) then `i` (50).
pub fn time_id(tag: u32, created: Timestamp, i: u64) -> String {
    let random = (u128::from(tag & ((1 << 30) - 1)) << 50) | u128::from(i & ((1 << 50) - 1));
    relay_core::id::new_id(relay_core::id::IdKind::Message, created.millis(), random)
}

/// SQL for [`time_id`] of the row whose creation time (milliseconds) is
/// `created` and number `i` (two SQL expressions), `tag` given: the
/// Crockford base-32 digits of the time (10) and of the number (the last
/// 10 of the random part), five bits each, as `relay_core::id::new_id`
/// writes them, around the prefix and the tag's digits, which are the
/// same for every row and so taken from [`time_id`] itself.
fn time_id_sql(tag: u32, created: &str, i: &str) -> String {
    let base32 = |value: &str| {
        (0..10)
            .rev()
            .map(|k| {
                format!(
                    "substr('{digits}', CAST((({value}) >> {}) & 31 AS INTEGER) + 1, 1)",
                    5 * k,
                    digits = relay_core::id::CROCKFORD,
                )
            })
            .collect::<Vec<_>>()
            .join(" || ")
    };
    // `<prefix>_`, 10 digits of time, 6 of the tag, 10 of the number.
    let zero = time_id(tag, Timestamp::from_millis(0), 0);
    let prefix = &zero[..zero.len() - 26];
    let tag = &zero[zero.len() - 16..zero.len() - 10];
    format!(
        "'{prefix}' || {time} || '{tag}' || {number}",
        time = base32(created),
        number = base32(i),
    )
}

impl Default for Shape<'_> {
    fn default() -> Self {
        Shape {
            data: "{}",
            spacing_ms: 0,
            padded: false,
            time_ids: None,
        }
    }
}

/// Writes the events and messages of `seed` numbered `first..=last`, in
/// statements whose rows come from a count (SQLite: a recursive CTE;
/// PostgreSQL: `generate_series`, which it runs faster); a `delivered`
/// message also gets the one attempt that delivered it. Returns the
/// messages written.
pub async fn messages<X: Exec>(
    x: &mut X,
    seed: &Messages<'_>,
    first: u64,
    last: u64,
) -> Result<u64> {
    messages_shaped(x, seed, &Shape::default(), first, last).await
}

/// [`messages`], the rows shaped by `shape`: a history of deliveries
/// (`relay bench scale`) has payloads, creation times spread over a period
/// and ids that sort by time.
pub async fn messages_shaped<X: Exec>(
    x: &mut X,
    seed: &Messages<'_>,
    shape: &Shape<'_>,
    first: u64,
    last: u64,
) -> Result<u64> {
    let postgres = x.dialect().backend == "postgres";
    let (with, from) = if postgres {
        ("", "generate_series($1::bigint, $2::bigint) AS n(i)")
    } else {
        (
            "WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) ",
            "n",
        )
    };
    // The number as the ids carry it.
    let num = match (shape.padded, postgres) {
        (false, _) => "i",
        (true, true) => "lpad(i::text, 10, '0')",
        (true, false) => "printf('%010d', i)",
    };
    let (first, last) = (first as i64, last as i64);
    let scope = [
        Bind::Int(first),
        Bind::Int(last),
        Bind::Text(seed.scope.tenant_id.clone()),
        Bind::Text(seed.scope.environment.as_str().into()),
        Bind::Text(seed.prefix.into()),
    ];
    // $6: the creation time of row 0; $7: the spacing.
    let created = "($6 + i * $7)";
    let message_id = match shape.time_ids {
        Some(tag) => time_id_sql(tag, created, "i"),
        None => format!("'msg_' || $5 || {num}"),
    };
    let times = [Bind::Int(seed.now.millis()), Bind::Int(shape.spacing_ms)];
    x.execute(&SqlBuilder::numbered(
        &format!(
            "{with}INSERT INTO events (tenant_id, environment, id, event_type, type_version, data, \
             traceparent, created_at) SELECT $3, $4, $5 || {num}, $8, 1, $9, $10, {created} FROM {from}"
        ),
        scope.iter().cloned().chain(times.clone()).chain([
            Bind::Text(seed.event_type.into()),
            Bind::Text(shape.data.into()),
            Bind::Text(TRACEPARENT.into()),
        ]),
    ))
    .await?;
    let written = x
        .execute(&SqlBuilder::numbered(
            &format!(
                "{with}INSERT INTO messages (id, tenant_id, environment, event_id, endpoint_id, event_type, \
                 state, attempts_used, next_attempt_at, created_at, updated_at, endpoint_version) \
                 SELECT {message_id}, $3, $4, $5 || {num}, $8, $9, $10, $11, $12, {created}, \
                 {created}, (SELECT version FROM endpoints WHERE id = $8) FROM {from}"
            ),
            scope.iter().cloned().chain(times.clone()).chain([
                Bind::Text(seed.endpoint_id.into()),
                Bind::Text(seed.event_type.into()),
                Bind::Text(seed.state.as_str().into()),
                Bind::Int(i64::from(seed.attempts_used)),
                Bind::OptInt(seed.due.map(Timestamp::millis)),
            ]),
        ))
        .await?;
    if seed.state == MessageState::Delivered {
        // The one attempt that delivered it: number 1, on schedule.
        x.execute(&SqlBuilder::numbered(
            &format!(
                "{with}INSERT INTO attempts (id, message_id, tenant_id, environment, endpoint_id, \
                 number, trigger, started_at, duration_ms, destination_ip, error_kind, error_code, \
                 body_sha256, signature, detail, outcome) \
                 SELECT 'atm_' || $5 || {num}, {message_id}, $3, $4, $8, 1, $9, \
                 {created} + $10, $11, '127.0.0.1', NULL, NULL, $12, $13, $14, $15 FROM {from}"
            ),
            scope.into_iter().chain(times).chain([
                Bind::Text(seed.endpoint_id.into()),
                Bind::Text(AttemptTrigger::Scheduled.as_str().into()),
                Bind::Int(ATTEMPT_AFTER_MS),
                Bind::Int(ATTEMPT_DURATION_MS),
                Bind::Text(ATTEMPT_BODY_SHA256.into()),
                Bind::Text(ATTEMPT_SIGNATURE.into()),
                Bind::Text(ATTEMPT_DETAIL.into()),
                Bind::Text(AttemptOutcome::Delivered.as_str().into()),
            ]),
        ))
        .await?;
    }
    Ok(written)
}

/// `VACUUM (ANALYZE)` of the history tables (events, messages, attempts)
/// of the database `name` on the PostgreSQL server `server_url` names (a
/// database [`create_database`] made): what autovacuum would have done by
/// the time a history that large was written, done before a measurement
/// rather than during it; then a `CHECKPOINT` (the role must be allowed
/// it: a superuser or `pg_checkpoint`). `VACUUM` runs outside a
/// transaction, so on a connection of its own.
pub async fn vacuum_history(server_url: &str, name: &str) -> Result<()> {
    use sqlx::Connection as _;
    let url = with_database(server_url, name)?;
    let mut conn = sqlx::PgConnection::connect(&url).await?;
    let mut done = sqlx::query("VACUUM (ANALYZE) events, messages, attempts")
        .execute(&mut conn)
        .await;
    if done.is_ok() {
        // And the pages it all dirtied written out now, by a checkpoint,
        // rather than by the checkpointer during the measurement.
        done = sqlx::query("CHECKPOINT").execute(&mut conn).await;
    }
    let _ = conn.close().await;
    done?;
    Ok(())
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
