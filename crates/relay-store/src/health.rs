//! Endpoint health: the failure clock moved by each attempt (warning,
//! automatic disable), its warnings, and the facts the health view is
//! computed from.

use relay_core::time::Timestamp;

use crate::exec::Exec;
use crate::operational::emit_operational;
use crate::rows::{self, RowExt};
use crate::sql::{Bind, HOUR_MILLIS, SqlBuilder};
use crate::{EndpointWarning, HealthFacts, Result};

pub(crate) async fn insert_warning<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    kind: &relay_core::model::WarningKind,
    detail: &str,
    at: Timestamp,
) -> Result<()> {
    x.execute(&SqlBuilder::numbered(
        "INSERT INTO endpoint_warnings (endpoint_id, kind, detail, at) VALUES ($1, $2, $3, $4)",
        [
            Bind::Text(endpoint_id.into()),
            Bind::Text(kind.as_str().into()),
            Bind::Text(detail.into()),
            Bind::Int(at.millis()),
        ],
    ))
    .await?;
    Ok(())
}

/// Moves the endpoint's automatic-disable clock with one attempt's signal
/// (`relay_core::autodisable`): warns at hour 72, disables at 5 days unless
/// the tenant turned automatic disabling off. Returns whether the clock is
/// clear (no row) afterwards.
pub(crate) async fn observe_health<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    signal: relay_core::circuit::Signal,
    now: Timestamp,
) -> Result<bool> {
    use relay_core::autodisable::FailureClock;
    use relay_core::circuit::Signal;
    let found = x
        .fetch(&SqlBuilder::numbered(
            "SELECT * FROM endpoint_health WHERE endpoint_id = $1",
            [Bind::Text(endpoint_id.into())],
        ))
        .await?;
    let row = found.first();
    let clock = match row {
        Some(r) => FailureClock {
            window_first: r.opt_ts("window_first")?,
            last_failure: r.opt_ts("last_failure")?,
            started_at: r.opt_ts("started_at")?,
            warned: r.int("warned")? != 0,
        },
        None => FailureClock::default(),
    };
    let o = match signal {
        Signal::Success => {
            if row.is_none() {
                return Ok(true);
            }
            clock.success()
        }
        Signal::Failure | Signal::Rejected => clock.failure(now),
        Signal::Neutral => return Ok(row.is_none()),
    };
    let clean = o.clock == FailureClock::default();
    if clean {
        x.execute(&SqlBuilder::numbered(
            "DELETE FROM endpoint_health WHERE endpoint_id = $1",
            [Bind::Text(endpoint_id.into())],
        ))
        .await?;
    } else {
        x.execute(&SqlBuilder::numbered(
            "INSERT INTO endpoint_health (endpoint_id, window_first, last_failure, started_at, warned) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (endpoint_id) DO UPDATE SET \
             window_first = $2, last_failure = $3, started_at = $4, warned = $5",
            [
                Bind::Text(endpoint_id.into()),
                Bind::OptInt(o.clock.window_first.map(Timestamp::millis)),
                Bind::OptInt(o.clock.last_failure.map(Timestamp::millis)),
                Bind::OptInt(o.clock.started_at.map(Timestamp::millis)),
                Bind::Int(i64::from(o.clock.warned)),
            ],
        ))
        .await?;
    }
    if o.warn {
        emit_operational(
            x,
            endpoint_id,
            relay_core::operational::ENDPOINT_FAILURE_WARNED,
            serde_json::json!({ "endpoint_id": endpoint_id }),
            now,
        )
        .await?;
        insert_warning(
            x,
            endpoint_id,
            &relay_core::model::WarningKind::FailingFor72Hours,
            "every attempt has failed for 72 hours; the endpoint is disabled at 5 days unless it recovers",
            now,
        )
        .await?;
    }
    if o.disable {
        crate::lifecycle::apply_automatic(
            x,
            endpoint_id,
            relay_core::lifecycle::EndpointAction::FailingForFiveDays,
            now,
        )
        .await?;
    }
    Ok(clean)
}

/// (attempts, delivered) of the endpoint since `since`.
async fn counts<X: Exec>(x: &mut X, endpoint_id: &str, since: Timestamp) -> Result<(i64, i64)> {
    let r = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT COUNT(*) AS total, \
             COALESCE(SUM(CASE WHEN outcome = 'delivered' THEN 1 ELSE 0 END), 0) AS delivered \
             FROM attempts WHERE endpoint_id = $1 AND started_at >= $2",
            [endpoint_id.into(), since.into()],
        ),
    )
    .await?;
    Ok((r.int("total")?, r.int("delivered")?))
}

/// The raw facts of an endpoint's health at `now`.
pub async fn facts<X: Exec>(x: &mut X, endpoint_id: &str, now: Timestamp) -> Result<HealthFacts> {
    let last_hour = counts(x, endpoint_id, now.plus_seconds(-3600)).await?;
    let last_day = counts(x, endpoint_id, now.plus_seconds(-86_400)).await?;
    let mut latency = relay_core::histogram::Histogram::default();
    let since_hour = now.plus_seconds(-86_400).millis().div_euclid(HOUR_MILLIS);
    for r in x
        .fetch(&SqlBuilder::of(
            "SELECT bucket, CAST(SUM(count) AS BIGINT) AS n, MAX(max_ms) AS max_ms FROM endpoint_latency \
             WHERE endpoint_id = $1 AND hour >= $2 GROUP BY bucket",
            [endpoint_id.into(), since_hour.into()],
        ))
        .await?
    {
        let bucket = usize::try_from(r.int("bucket")?).unwrap_or(usize::MAX);
        latency.add(bucket, u64::try_from(r.int("n")?).unwrap_or(0));
        latency.max_ms = latency.max_ms.max(r.int("max_ms")?);
    }
    let last_success_at = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT MAX(started_at) AS at FROM attempts WHERE endpoint_id = $1 AND outcome = 'delivered'",
            [endpoint_id.into()],
        ),
    )
    .await?
    .opt_ts("at")?;
    let backlog = crate::exec::fetch_one(
        x,
        &SqlBuilder::of(
            "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM messages \
             WHERE endpoint_id = $1 AND state IN ('scheduled', 'in_flight', 'held', 'blocked')",
            [endpoint_id.into()],
        ),
    )
    .await?;
    let recent_errors = x
        .fetch(&SqlBuilder::of(
            "SELECT * FROM attempts WHERE endpoint_id = $1 AND outcome <> 'delivered' \
             ORDER BY started_at DESC, id DESC LIMIT 20",
            [endpoint_id.into()],
        ))
        .await?
        .iter()
        .map(rows::attempt)
        .collect::<Result<Vec<_>>>()?;
    Ok(HealthFacts {
        last_hour,
        last_day,
        latency,
        last_success_at,
        backlog: backlog.int("n")?,
        oldest_pending_at: backlog.opt_ts("oldest")?,
        recent_errors,
    })
}

/// The endpoint's most recent health warnings, newest first.
pub async fn warnings<X: Exec>(
    x: &mut X,
    endpoint_id: &str,
    limit: u32,
) -> Result<Vec<EndpointWarning>> {
    x.fetch(&SqlBuilder::of(
        "SELECT * FROM endpoint_warnings WHERE endpoint_id = $1 ORDER BY at DESC LIMIT $2",
        [endpoint_id.into(), i64::from(limit).into()],
    ))
    .await?
    .iter()
    .map(rows::endpoint_warning)
    .collect()
}
