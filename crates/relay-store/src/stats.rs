//! Sizes on disk and row counts of the delivery history's tables (events,
//! messages, attempts), for `relay bench scale`'s bytes per delivery. Not
//! used by the product.
//!
//! SQLite: the database's size is `page_count * page_size` (the pages of
//! the current snapshot, the write-ahead log's included, so no checkpoint
//! is needed); each table's and index's share comes from the `dbstat`
//! virtual table when the SQLite library has it (`by_object` is empty
//! otherwise). PostgreSQL: `pg_table_size` of each table (its TOAST
//! included) and `pg_relation_size` of each of its indexes; the database's
//! size is `pg_database_size`.

use crate::Result;
use crate::exec::Exec;
use crate::rows::RowExt;
use crate::sql::SqlBuilder;

/// The tables that hold the delivery history.
pub const HISTORY_TABLES: [&str; 3] = ["events", "messages", "attempts"];

/// A table or an index and its bytes on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectSize {
    pub name: String,
    /// The table it belongs to (its own name for a table).
    pub table: String,
    pub index: bool,
    pub bytes: i64,
}

/// The sizes [`sizes`] reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sizes {
    /// The whole database.
    pub database_bytes: i64,
    /// SQLite: pages on the free list (space deleted rows left, reused by
    /// later writes), in bytes; 0 on PostgreSQL.
    pub free_bytes: i64,
    /// The history tables and their indexes, largest first (empty when
    /// SQLite has no `dbstat`).
    pub by_object: Vec<ObjectSize>,
}

/// The sizes of the database and of the history tables and their indexes.
pub async fn sizes<X: Exec>(x: &mut X) -> Result<Sizes> {
    let tables = HISTORY_TABLES
        .iter()
        .map(|t| format!("'{t}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut sizes = if x.dialect().backend == "postgres" {
        let total = x
            .fetch(&SqlBuilder::of(
                "SELECT pg_database_size(current_database()) AS bytes",
                [],
            ))
            .await?;
        let rows = x
            .fetch(&SqlBuilder::of(
                &format!(
                    "SELECT t.relname AS name, t.relname AS tbl, 0::bigint AS is_index, \
                     pg_table_size(t.oid) AS bytes FROM pg_class t \
                     WHERE t.relkind = 'r' AND t.relname IN ({tables}) AND pg_table_is_visible(t.oid) \
                     UNION ALL SELECT i.relname, t.relname, 1::bigint, pg_relation_size(i.oid) \
                     FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid \
                     JOIN pg_class i ON i.oid = x.indexrelid \
                     WHERE t.relname IN ({tables}) AND pg_table_is_visible(t.oid)"
                ),
                [],
            ))
            .await?;
        Sizes {
            database_bytes: total.first().map_or(Ok(0), |r| r.int("bytes"))?,
            free_bytes: 0,
            by_object: objects(&rows)?,
        }
    } else {
        let total = x
            .fetch(&SqlBuilder::of(
                "SELECT c.page_count * s.page_size AS bytes, f.freelist_count * s.page_size AS free \
                 FROM pragma_page_count() c, pragma_page_size() s, pragma_freelist_count() f",
                [],
            ))
            .await?;
        // `dbstat` is a compile-time option of the SQLite library: without
        // it, the statement fails and only the totals are known.
        let rows = x
            .fetch(&SqlBuilder::of(
                &format!(
                    "SELECT d.name AS name, m.tbl_name AS tbl, m.type = 'index' AS is_index, \
                     d.pgsize AS bytes FROM dbstat d JOIN sqlite_schema m ON m.name = d.name \
                     WHERE d.aggregate = TRUE AND m.tbl_name IN ({tables})"
                ),
                [],
            ))
            .await
            .unwrap_or_default();
        let first = total.first();
        Sizes {
            database_bytes: first.map_or(Ok(0), |r| r.int("bytes"))?,
            free_bytes: first.map_or(Ok(0), |r| r.int("free"))?,
            by_object: objects(&rows)?,
        }
    };
    sizes
        .by_object
        .sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.name.cmp(&b.name)));
    Ok(sizes)
}

fn objects<R: RowExt>(rows: &[R]) -> Result<Vec<ObjectSize>> {
    rows.iter()
        .map(|r| {
            Ok(ObjectSize {
                name: r.text("name")?,
                table: r.text("tbl")?,
                index: r.int("is_index")? != 0,
                bytes: r.int("bytes")?,
            })
        })
        .collect()
}

/// The bytes each column of `table` (one of [`HISTORY_TABLES`]) holds over
/// all its rows, largest first: one scan of the table. PostgreSQL:
/// `pg_column_size` (the stored datum, compressed or not); SQLite: a
/// text's or blob's length, 8 for an integer (its largest record
/// encoding), 0 for a null.
pub async fn column_bytes<X: Exec>(x: &mut X, table: &str) -> Result<Vec<(String, i64)>> {
    let table =
        HISTORY_TABLES
            .into_iter()
            .find(|t| *t == table)
            .ok_or(crate::StoreError::Internal(
                "column_bytes: not a history table",
            ))?;
    let postgres = x.dialect().backend == "postgres";
    let columns: Vec<String> = if postgres {
        x.fetch(&SqlBuilder::of(
            "SELECT column_name::text AS name FROM information_schema.columns \
             WHERE table_name = $1 AND table_schema = current_schema() ORDER BY ordinal_position",
            [table.into()],
        ))
        .await?
        .iter()
        .map(|r| r.text("name"))
        .collect::<Result<_>>()?
    } else {
        x.fetch(&SqlBuilder::of(
            "SELECT name FROM pragma_table_info($1) ORDER BY cid",
            [table.into()],
        ))
        .await?
        .iter()
        .map(|r| r.text("name"))
        .collect::<Result<_>>()?
    };
    if columns.is_empty() {
        return Ok(Vec::new());
    }
    let sum = |i: usize, c: &str| {
        if postgres {
            format!("COALESCE(SUM(pg_column_size(\"{c}\")), 0)::bigint AS c{i}")
        } else {
            format!(
                "COALESCE(SUM(CASE typeof(\"{c}\") WHEN 'null' THEN 0 WHEN 'integer' THEN 8 \
                 WHEN 'real' THEN 8 ELSE length(CAST(\"{c}\" AS BLOB)) END), 0) AS c{i}"
            )
        }
    };
    let select = columns
        .iter()
        .enumerate()
        .map(|(i, c)| sum(i, c))
        .collect::<Vec<_>>()
        .join(", ");
    let row = x
        .fetch(&SqlBuilder::of(
            &format!("SELECT {select} FROM {table}"),
            [],
        ))
        .await?;
    let Some(row) = row.first() else {
        return Ok(Vec::new());
    };
    let mut out = columns
        .into_iter()
        .enumerate()
        .map(|(i, c)| Ok((c, row.int(&format!("c{i}"))?)))
        .collect::<Result<Vec<_>>>()?;
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(out)
}

/// How many events were created before `cutoff` (the history a purge with
/// that cutoff would remove, when none of their messages is live): the
/// `events_created` index's range.
pub async fn events_before<X: Exec>(x: &mut X, cutoff: relay_core::time::Timestamp) -> Result<u64> {
    let rows = x
        .fetch(&SqlBuilder::of(
            "SELECT COUNT(*) AS n FROM events WHERE created_at < $1",
            [cutoff.into()],
        ))
        .await?;
    Ok(rows.first().map_or(Ok(0), |r| r.int("n"))?.max(0) as u64)
}

/// What PostgreSQL has written to its write-ahead log since its statistics
/// were last reset (`pg_stat_wal`): bytes, and full page images (the
/// whole page a change writes after a checkpoint, the first time it
/// touches that page). `None` on SQLite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WalWritten {
    pub bytes: i64,
    pub full_pages: i64,
}

/// [`WalWritten`] now (PostgreSQL; `None` on SQLite).
pub async fn wal_written<X: Exec>(x: &mut X) -> Result<Option<WalWritten>> {
    if x.dialect().backend != "postgres" {
        return Ok(None);
    }
    let rows = x
        .fetch(&SqlBuilder::new(
            "SELECT wal_bytes::bigint AS bytes, wal_fpi AS full_pages FROM pg_stat_wal",
        ))
        .await?;
    rows.first()
        .map(|r| {
            Ok(WalWritten {
                bytes: r.int("bytes")?,
                full_pages: r.int("full_pages")?,
            })
        })
        .transpose()
}
