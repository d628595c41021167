//! The database's clock: what nodes sharing one database measure their own
//! clocks against (`relay_engine::clock_sync`), so every lease is stamped
//! and judged on one time base.

use relay_core::time::Timestamp;

use crate::Result;
use crate::exec::{Exec, fetch_one};
use crate::rows::RowExt;
use crate::sql::SqlBuilder;

/// The database server's clock now, in unix milliseconds (PostgreSQL's
/// `clock_timestamp()`: the time of the statement's execution, not of its
/// transaction's start). `None` on SQLite: its database lives in this one
/// process, whose clock is the only one there is, so nothing is read.
pub async fn database_now<X: Exec>(x: &mut X) -> Result<Option<Timestamp>> {
    let Some(sql) = x.dialect().database_now else {
        return Ok(None);
    };
    let row = fetch_one(x, &SqlBuilder::of(sql, [])).await?;
    Ok(Some(Timestamp::from_millis(row.int("now_ms")?)))
}
