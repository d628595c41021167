//! Cluster shares (migration 0019): each node's share of an endpoint's
//! limits, so the nodes on one PostgreSQL hold one `max_concurrency` and one
//! `rate_limit_per_second` between them (the engine's share keeper;
//! `relay_core::share` is the rule).
//!
//! - [`renew`]: one node's renewal of every share it is interested in, in
//!   one write transaction: per key (sorted, each under a transaction-level
//!   advisory lock on PostgreSQL so two nodes never decide one endpoint at
//!   once, and never deadlock), expired rows deleted, the wanting set read,
//!   this node's holding decided and written with `expires_at` = the
//!   database's clock + the ttl; or its row deleted when it no longer wants
//!   the key and has nothing in flight.
//! - [`list`]: the unexpired shares of a key (tests, diagnostics).
//!
//! Times are the database's clock (`clock_timestamp()` on PostgreSQL),
//! never a node's, so the nodes' clocks need not agree. SQLite never
//! writes here in service (one process owns the database); the operations
//! still run there, for the conformance suite.

use relay_core::share::{allowed, holding, target};

use crate::Result;
use crate::exec::Exec;
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};

/// The reserved key of recovery traffic's limits (`max_recovery_in_flight`
/// as slots, `recovery_per_second` as rate): not an endpoint id.
pub const RECOVERY: &str = "recovery:";

/// Keys per statement.
const CHUNK: usize = 128;

/// What a node asks of one key in a renewal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Want {
    /// An endpoint's id, or [`RECOVERY`].
    pub key: String,
    /// The key's limits: its `max_concurrency` and its rate (tokens per
    /// second; 0 = not rate-limited, nothing to split).
    pub slots: u32,
    pub rate: u32,
    /// Attempts this node has in flight for it now: its holding of slots
    /// never goes below.
    pub in_flight: u32,
    /// Whether it wants a share (it has demand, or attempts in flight); a
    /// node that does not, with nothing in flight, gives its share back.
    pub wants: bool,
}

/// What a renewal gave a node for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub key: String,
    /// Slots it holds now, as its row says (at least what it has in
    /// flight; 0 when released).
    pub slots: u32,
    /// Slots it may fill (its lane's limit): at most `slots`; below it
    /// while attempts over its part drain.
    pub allowed: u32,
    /// Tokens per second it holds now (0 when released).
    pub rate: u32,
    /// Its row was deleted: it holds nothing and wants nothing.
    pub released: bool,
}

/// One node's unexpired share of a key, as [`list`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Share {
    pub node: String,
    pub slots: u32,
    pub rate: u32,
    pub wants: bool,
}

/// The database's clock, in unix milliseconds, as SQL.
fn db_now<X: Exec>(x: &X) -> &'static str {
    if x.dialect().backend == "postgres" {
        "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT"
    } else {
        "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)"
    }
}

fn count(v: i64) -> u32 {
    u32::try_from(v.max(0)).unwrap_or(u32::MAX)
}

/// Renews `node`'s shares of the keys of `wants` (see the module's
/// documentation) for `ttl_millis` from the database's now. `settle` sees
/// the grants before they are written, while the keys are still locked, and
/// may raise a holding up to what is in flight at that moment (the engine
/// applies a lower allowance locally before the commit, and the row must
/// cover what it still has in flight). Returns the grants as written, in
/// key order.
pub async fn renew<X: Exec>(
    x: &mut X,
    node: &str,
    wants: &[Want],
    ttl_millis: i64,
    settle: impl FnOnce(&mut [Grant]),
) -> Result<Vec<Grant>> {
    let mut wants: Vec<&Want> = wants.iter().collect();
    wants.sort_by(|a, b| a.key.cmp(&b.key));
    wants.dedup_by(|a, b| a.key == b.key);
    if wants.is_empty() {
        return Ok(Vec::new());
    }
    let now = db_now(x);
    let postgres = x.dialect().backend == "postgres";
    let mut others: std::collections::HashMap<String, Vec<Share>> = Default::default();
    for chunk in wants.chunks(CHUNK) {
        let keys = || chunk.iter().map(|w| Bind::Text(w.key.clone()));
        if postgres {
            // In the order of the locks' own keys (after the sort, volatile
            // functions run row by row): two nodes lock their common keys in
            // one order, so they wait for each other but never deadlock.
            let mut q = SqlBuilder::new(
                "SELECT pg_advisory_xact_lock(42, h) FROM \
                 (SELECT DISTINCT hashtext(k) AS h FROM unnest(",
            );
            q.bind(Bind::Texts(
                chunk.iter().map(|w| Some(w.key.clone())).collect(),
            ))
            .push("::text[]) AS k) AS l ORDER BY h");
            x.fetch(&q).await?;
        }
        let mut q = SqlBuilder::new("DELETE FROM endpoint_shares WHERE endpoint_id IN (");
        q.bind_list_padded(keys())
            .push(&format!(") AND expires_at <= {now}"));
        x.execute(&q).await?;
        let mut q = SqlBuilder::new(
            "SELECT endpoint_id, node, slots, rate, wants FROM endpoint_shares \
             WHERE endpoint_id IN (",
        );
        q.bind_list_padded(keys()).push(") AND node <> ");
        q.bind(Bind::Text(node.to_string()));
        for row in x.fetch(&q).await? {
            others
                .entry(row.text("endpoint_id")?)
                .or_default()
                .push(Share {
                    node: row.text("node")?,
                    slots: count(row.int("slots")?),
                    rate: count(row.int("rate")?),
                    wants: row.int("wants")? != 0,
                });
        }
    }
    let mut grants: Vec<Grant> = wants
        .iter()
        .map(|w| {
            let rows = others.get(&w.key).map(Vec::as_slice).unwrap_or_default();
            decide(node, w, rows)
        })
        .collect();
    settle(&mut grants);
    let (released, kept): (Vec<&Grant>, Vec<&Grant>) = grants.iter().partition(|g| g.released);
    for chunk in released.chunks(CHUNK) {
        let mut q = SqlBuilder::new("DELETE FROM endpoint_shares WHERE node = ");
        q.bind(Bind::Text(node.to_string()))
            .push(" AND endpoint_id IN (")
            .bind_list_padded(chunk.iter().map(|g| Bind::Text(g.key.clone())))
            .push(")");
        x.execute(&q).await?;
    }
    for chunk in kept.chunks(CHUNK) {
        let mut q = SqlBuilder::new(
            "INSERT INTO endpoint_shares (endpoint_id, node, slots, rate, wants, expires_at) VALUES ",
        );
        let node_p = q.param(Bind::Text(node.to_string()));
        let ttl_p = q.param(Bind::Int(ttl_millis));
        for (i, g) in chunk.iter().enumerate() {
            let wanted = wants
                .iter()
                .find(|w| w.key == g.key)
                .is_some_and(|w| w.wants);
            q.push(if i == 0 { "(" } else { ", (" })
                .bind(Bind::Text(g.key.clone()))
                .push(&format!(", {node_p}, "))
                .bind_list([
                    Bind::Int(i64::from(g.slots)),
                    Bind::Int(i64::from(g.rate)),
                    Bind::Int(i64::from(wanted)),
                ])
                .push(&format!(", {now} + {ttl_p})"));
        }
        q.push(
            " ON CONFLICT (endpoint_id, node) DO UPDATE SET slots = excluded.slots, \
             rate = excluded.rate, wants = excluded.wants, expires_at = excluded.expires_at",
        );
        x.execute(&q).await?;
    }
    Ok(grants)
}

/// `node`'s grant for `w`, given the other nodes' unexpired rows.
fn decide(node: &str, w: &Want, others: &[Share]) -> Grant {
    if !w.wants && w.in_flight == 0 {
        return Grant {
            key: w.key.clone(),
            slots: 0,
            allowed: 0,
            rate: 0,
            released: true,
        };
    }
    let mut wanting: Vec<&str> = others
        .iter()
        .filter(|s| s.wants)
        .map(|s| s.node.as_str())
        .collect();
    if w.wants {
        wanting.push(node);
    }
    wanting.sort_unstable();
    wanting.dedup();
    let taken_slots: u32 = others.iter().map(|s| s.slots).sum();
    let taken_rate: u32 = others.iter().map(|s| s.rate).sum();
    let slot_target = target(w.slots, &wanting, node, &w.key);
    let rate = allowed(w.rate, target(w.rate, &wanting, node, &w.key), taken_rate);
    Grant {
        key: w.key.clone(),
        slots: holding(w.slots, slot_target, taken_slots, w.in_flight),
        allowed: allowed(w.slots, slot_target, taken_slots),
        rate,
        released: false,
    }
}

/// Deletes every expired row, whichever node wrote it: a node that crashed
/// leaves rows of endpoints no node renews any more (a renewal deletes only
/// the expired rows of the keys it decides). Every read ignores an expired
/// row, so this changes no decision; the table keeps to the live shares.
/// Returns how many rows went. Run by the retention purge.
pub async fn purge_expired<X: Exec>(x: &mut X) -> Result<u64> {
    let mut q = SqlBuilder::new("DELETE FROM endpoint_shares WHERE expires_at <= ");
    q.push(db_now(x));
    x.execute(&q).await
}

/// The unexpired shares of `key`, by node name.
pub async fn list<X: Exec>(x: &mut X, key: &str) -> Result<Vec<Share>> {
    let now = db_now(x);
    let q = SqlBuilder::numbered(
        &format!(
            "SELECT node, slots, rate, wants FROM endpoint_shares \
             WHERE endpoint_id = $1 AND expires_at > {now} ORDER BY node"
        ),
        [Bind::Text(key.to_string())],
    );
    x.fetch(&q)
        .await?
        .into_iter()
        .map(|row| {
            Ok(Share {
                node: row.text("node")?,
                slots: count(row.int("slots")?),
                rate: count(row.int("rate")?),
                wants: row.int("wants")? != 0,
            })
        })
        .collect()
}
