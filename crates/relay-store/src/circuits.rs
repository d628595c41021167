//! Endpoints' circuit breakers for the whole cluster (PostgreSQL's nodes;
//! docs/endpoint-health.md "Several nodes"): one row per failing endpoint
//! in `endpoint_circuits`, moved by every node's signals with
//! [`Circuit::record`]'s rules, on the database's clock.
//!
//! A node runs [`sync`] in one write transaction every tick: it pushes the
//! signals it saw since its last sync (per endpoint, in the order they
//! came), gives back the probe permits it did not use, asks for permits
//! where the circuit is half-open, and reads back every circuit that is not
//! closed. Rows are locked in the order of their endpoint ids, so two
//! nodes' syncs never wait on each other in a cycle.
//!
//! - Closed: consecutive failures count across nodes; a success (from any
//!   node) resets the count; the threshold opens the circuit until
//!   `now + cool_down` (database time).
//! - Open: failures of attempts that started before it opened change
//!   nothing; once `open_until` passed, it is half-open.
//! - Half-open: a node may start a probe only with a permit taken from the
//!   row (`probes_granted < half_open_probes`). A probe's success closes it,
//!   its failure opens it again, a probe that said nothing of the
//!   endpoint's health gives its permit back. Permits are good until
//!   `probes_expire_at` (the last grant plus the caller's permit lifetime,
//!   longer than any attempt): after it, permits out (a dead node's) count
//!   no more.
//!
//! A row closed with no failures is deleted: the table holds the endpoints
//! that are failing, and the read of those not closed is an index scan.

use relay_core::circuit::{BreakerConfig, Circuit, Signal};
use relay_core::time::Timestamp;

use crate::Result;
use crate::exec::{Exec, fetch_one};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};

/// What one node tells the cluster about one endpoint at a [`sync`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Push {
    pub endpoint_id: String,
    /// The signals of its attempts since its last sync, in their order.
    pub signals: Vec<Signal>,
    /// Probe permits it was granted and gives back unused.
    pub returned: u32,
    /// Probe permits it asks for (granted only while half-open).
    pub wanted: u32,
}

/// What a [`sync`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Synced {
    /// The database's clock when the sync ran.
    pub now: Timestamp,
    /// Probe permits granted to the caller, per endpoint (only those > 0).
    pub granted: Vec<(String, u32)>,
    /// Every circuit that is not closed, as it stands at `now`: an open
    /// one's `until` is on the database's clock; a half-open one's
    /// `probes_in_flight` counts the permits out across the cluster.
    pub not_closed: Vec<(String, Circuit)>,
}

/// Rows per `IN (…)` list of the read of pushed endpoints.
const CHUNK: usize = 256;

/// The database's clock, in milliseconds.
pub async fn db_now<X: Exec>(x: &mut X) -> Result<Timestamp> {
    let sql = match x.dialect().backend {
        "postgres" => {
            "SELECT CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT) AS now"
        }
        _ => "SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) AS now",
    };
    fetch_one(x, &SqlBuilder::new(sql)).await?.ts("now")
}

/// A row's circuit, and when its permits expire.
struct Stored {
    circuit: Circuit,
    probes_expire_at: Option<i64>,
}

fn stored<R: RowExt>(r: &R) -> Result<Stored> {
    let count =
        |col: &str| -> Result<u32> { Ok(u32::try_from(r.int(col)?.max(0)).unwrap_or(u32::MAX)) };
    let circuit = match r.text("state")?.as_str() {
        "closed" => Circuit::Closed {
            consecutive_failures: count("consecutive_failures")?,
        },
        "open" => Circuit::Open {
            until: r.opt_ts("open_until")?.unwrap_or(Timestamp(0)),
        },
        "half_open" => Circuit::HalfOpen {
            probes_in_flight: count("probes_granted")?,
        },
        other => {
            return Err(crate::StoreError::Corrupt(format!(
                "endpoint_circuits.state: {other}"
            )));
        }
    };
    Ok(Stored {
        circuit,
        probes_expire_at: r.opt_int("probes_expire_at")?,
    })
}

impl Stored {
    /// The circuit at `now`: an open one past its cool-down is half-open
    /// with no permits out; expired permits count no more.
    fn at(&self, now: Timestamp) -> Circuit {
        match (self.circuit, self.circuit.at(now)) {
            (Circuit::HalfOpen { .. }, Circuit::HalfOpen { .. })
                if self.probes_expire_at.is_some_and(|t| t <= now.millis()) =>
            {
                Circuit::HalfOpen {
                    probes_in_flight: 0,
                }
            }
            (_, c) => c,
        }
    }
}

/// Folds `push` into the endpoint's circuit `before` at `now`; the circuit
/// after, the permits granted, and when the permits out expire.
fn fold(
    before: &Stored,
    push: &Push,
    now: Timestamp,
    config: BreakerConfig,
    permit_millis: i64,
) -> (Circuit, u32, Option<i64>) {
    let mut c = before.at(now);
    let mut expire = before.probes_expire_at;
    if let Circuit::HalfOpen { probes_in_flight } = c {
        c = Circuit::HalfOpen {
            probes_in_flight: probes_in_flight.saturating_sub(push.returned),
        };
    }
    for signal in &push.signals {
        c = c.record(*signal, now, config);
    }
    // A cool-down of nothing is over at once.
    c = c.at(now);
    let mut granted = 0;
    if let Circuit::HalfOpen { probes_in_flight } = c {
        let room = config
            .half_open_probes
            .max(1)
            .saturating_sub(probes_in_flight);
        granted = push.wanted.min(room);
        if granted > 0 {
            c = Circuit::HalfOpen {
                probes_in_flight: probes_in_flight + granted,
            };
            expire = Some(now.millis().saturating_add(permit_millis));
        }
    }
    if !matches!(c, Circuit::HalfOpen { probes_in_flight } if probes_in_flight > 0) {
        expire = None;
    }
    (c, granted, expire)
}

/// One node's sync (see the module's documentation), in the caller's write
/// transaction: `pushes` folded into the cluster's rows (locked in the
/// order of their endpoint ids), permits granted, the circuits not closed
/// read back. `permit_millis`: how long a granted permit is good for.
pub async fn sync<X: Exec>(
    x: &mut X,
    mut pushes: Vec<Push>,
    config: BreakerConfig,
    permit_millis: i64,
) -> Result<Synced> {
    let now = db_now(x).await?;
    pushes.sort_by(|a, b| a.endpoint_id.cmp(&b.endpoint_id));
    // Signals that can only matter to a row already there (successes, and
    // what says nothing to the breaker) are folded only where there is one.
    let maybe: Vec<&str> = pushes
        .iter()
        .filter(|p| !p.signals.contains(&Signal::Failure))
        .map(|p| p.endpoint_id.as_str())
        .collect();
    let mut present = std::collections::HashSet::new();
    for chunk in maybe.chunks(CHUNK) {
        let mut q =
            SqlBuilder::new("SELECT endpoint_id FROM endpoint_circuits WHERE endpoint_id IN (");
        q.bind_list_padded(chunk.iter().map(|id| Bind::Text((*id).into())))
            .push(")");
        for r in x.fetch(&q).await? {
            present.insert(r.text("endpoint_id")?);
        }
    }
    let mut granted = Vec::new();
    for push in &pushes {
        if !push.signals.contains(&Signal::Failure) && !present.contains(&push.endpoint_id) {
            continue;
        }
        // Creates the row or locks it, and reads it, in one statement.
        let row = fetch_one(
            x,
            &SqlBuilder::of(
                "INSERT INTO endpoint_circuits (endpoint_id, state, updated_at) \
                 VALUES ($1, 'closed', $2) ON CONFLICT (endpoint_id) \
                 DO UPDATE SET updated_at = endpoint_circuits.updated_at \
                 RETURNING state, consecutive_failures, open_until, probes_granted, probes_expire_at",
                [Bind::Text(push.endpoint_id.clone()), Bind::Int(now.millis())],
            ),
        )
        .await?;
        let before = stored(&row)?;
        let (after, n, expire) = fold(&before, push, now, config, permit_millis);
        if n > 0 {
            granted.push((push.endpoint_id.clone(), n));
        }
        if after == Circuit::default() {
            x.execute(&SqlBuilder::of(
                "DELETE FROM endpoint_circuits WHERE endpoint_id = $1",
                [Bind::Text(push.endpoint_id.clone())],
            ))
            .await?;
            continue;
        }
        let (failures, until, probes) = match after {
            Circuit::Closed {
                consecutive_failures,
            } => (consecutive_failures, None, 0),
            Circuit::Open { until } => (0, Some(until.millis()), 0),
            Circuit::HalfOpen { probes_in_flight } => (0, None, probes_in_flight),
        };
        x.execute(&SqlBuilder::of(
            "UPDATE endpoint_circuits SET state = $2, consecutive_failures = $3, open_until = $4, \
             probes_granted = $5, probes_expire_at = $6, updated_at = $7 WHERE endpoint_id = $1",
            [
                Bind::Text(push.endpoint_id.clone()),
                Bind::Text(after.name().into()),
                Bind::Int(i64::from(failures)),
                Bind::OptInt(until),
                Bind::Int(i64::from(probes)),
                Bind::OptInt(expire),
                Bind::Int(now.millis()),
            ],
        ))
        .await?;
    }
    let mut not_closed = Vec::new();
    for r in x
        .fetch(&SqlBuilder::new(
            "SELECT endpoint_id, state, consecutive_failures, open_until, probes_granted, \
             probes_expire_at FROM endpoint_circuits WHERE state <> 'closed' ORDER BY endpoint_id",
        ))
        .await?
    {
        not_closed.push((r.text("endpoint_id")?, stored(&r)?.at(now)));
    }
    Ok(Synced {
        now,
        granted,
        not_closed,
    })
}

/// The endpoint's circuit for the cluster as it stands now (the database's
/// clock), closed when it has no row.
pub async fn get<X: Exec>(x: &mut X, endpoint_id: &str) -> Result<(Circuit, Timestamp)> {
    let now = db_now(x).await?;
    let found = x
        .fetch(&SqlBuilder::of(
            "SELECT state, consecutive_failures, open_until, probes_granted, probes_expire_at \
             FROM endpoint_circuits WHERE endpoint_id = $1",
            [Bind::Text(endpoint_id.into())],
        ))
        .await?;
    let circuit = match found.first() {
        Some(r) => stored(r)?.at(now),
        None => Circuit::default(),
    };
    Ok((circuit, now))
}
