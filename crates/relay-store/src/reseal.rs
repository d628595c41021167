//! Rotating the master key: every sealed value moved to the current key, a
//! batch at a time, with a cursor that survives an interruption.
//!
//! While a rotation runs, Relay holds both keys ([`MasterKey::with_previous`])
//! and opens a value under either, so nothing stops being readable. Each
//! [`batch`] is one transaction: it reads the cursor (the setting
//! [`CURSOR_SETTING`]), re-seals up to `limit` values after it under the
//! current key ([`MasterKey::reseal`]: one already under it is left alone),
//! each written as a compare-and-set on the value read (a value replaced
//! meanwhile, by the API under the current key, is not overwritten), and
//! writes the cursor on. The cursor carries a check sealed under the key it
//! was made with: a cursor of another rotation (another current key) is not
//! trusted, and the scan starts again from the first value. The last step
//! re-seals the master key's own check (`master_key_check`), then removes
//! the cursor.
//!
//! The sealed columns, in the order they are scanned ([`COLUMNS`]): signing
//! keys, tenant secrets, inbound sources' secrets (current and previous;
//! references are not sealed and are skipped), the master key's check.

use relay_core::sealed::MasterKey;

use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::{Bind, SqlBuilder};
use crate::{Result, StoreError};

/// The setting that holds a rotation's cursor while one is under way.
pub const CURSOR_SETTING: &str = "master_key_rotation";
/// The setting whose sealed value checks the master key at start.
pub const CHECK_SETTING: &str = "master_key_check";

/// One sealed column: its table, the columns that key a row (the scan's
/// order), and the associated data a row's value was sealed with.
pub struct Column {
    pub table: &'static str,
    pub keys: &'static [&'static str],
    pub sealed: &'static str,
    /// Further condition on the rows (the one setting that is sealed).
    pub only: &'static str,
    aad: fn(&[String]) -> Vec<u8>,
}

fn first_key(k: &[String]) -> Vec<u8> {
    k[0].as_bytes().to_vec()
}

fn tenant_secret(k: &[String]) -> Vec<u8> {
    crate::secrets::binding_text(&k[0], &k[1], &k[2])
}

/// Every sealed column, in the order a rotation scans them.
pub const COLUMNS: &[Column] = &[
    Column {
        table: "endpoint_keys",
        keys: &["id"],
        sealed: "sealed_secret",
        only: "",
        aad: first_key,
    },
    Column {
        table: "tenant_secrets",
        keys: &["tenant_id", "environment", "name"],
        sealed: "sealed_value",
        only: "",
        aad: tenant_secret,
    },
    Column {
        table: "inbound_sources",
        keys: &["id"],
        sealed: "secret_sealed",
        only: " AND secret_sealed LIKE 'rk1:%'",
        aad: first_key,
    },
    Column {
        table: "inbound_sources",
        keys: &["id"],
        sealed: "previous_secret_sealed",
        only: " AND previous_secret_sealed LIKE 'rk1:%'",
        aad: first_key,
    },
    Column {
        table: "relay_settings",
        keys: &["key"],
        sealed: "value",
        only: " AND key = 'master_key_check'",
        aad: first_key,
    },
];

/// What one batch did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Values read in this batch.
    pub scanned: u64,
    /// Of those, the ones sealed again under the current key.
    pub resealed: u64,
    /// Every sealed value is now under the current key (the cursor is gone).
    pub done: bool,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Cursor {
    /// A constant sealed under the current key of the rotation that wrote it.
    check: String,
    /// Index into [`COLUMNS`].
    column: usize,
    /// The key of the last row done in that column.
    after: Option<Vec<String>>,
}

const CURSOR_CHECK: &[u8] = b"relay master key rotation";

fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is unavailable");
    b
}

/// Where the rotation under `master`'s current key stands: its cursor, or
/// the start when there is none or it belongs to another rotation.
async fn cursor<X: Exec>(x: &mut X, master: &MasterKey) -> Result<(usize, Option<Vec<String>>)> {
    let Some(text) = crate::settings::get(x, CURSOR_SETTING).await? else {
        return Ok((0, None));
    };
    let Ok(cursor) = serde_json::from_str::<Cursor>(&text) else {
        return Ok((0, None));
    };
    let ours = matches!(
        master.reseal([0; 24], &cursor.check, CURSOR_SETTING.as_bytes()),
        Ok(None)
    );
    if ours && cursor.column < COLUMNS.len() {
        Ok((cursor.column, cursor.after))
    } else {
        Ok((0, None))
    }
}

/// Whether a rotation's cursor is stored (a rotation was started and has
/// not finished).
pub async fn under_way<X: Exec>(x: &mut X) -> Result<bool> {
    Ok(crate::settings::get(x, CURSOR_SETTING).await?.is_some())
}

/// Re-seals up to `limit` values after the cursor under `master`'s current
/// key and moves the cursor on (see the module's documentation).
pub async fn batch<X: Exec>(x: &mut X, master: &MasterKey, limit: u32) -> Result<Progress> {
    let limit = u64::from(limit.max(1));
    let (mut column, mut after) = cursor(x, master).await?;
    let mut progress = Progress::default();
    while column < COLUMNS.len() && progress.scanned < limit {
        let c = &COLUMNS[column];
        let keys = c.keys.join(", ");
        let mut q = SqlBuilder::new(&format!(
            "SELECT {keys}, {sealed} AS sealed FROM {table} WHERE {sealed} IS NOT NULL{only}",
            sealed = c.sealed,
            table = c.table,
            only = c.only,
        ));
        if let Some(after) = &after {
            let params: Vec<String> = after.iter().map(|k| q.param(k.as_str().into())).collect();
            q.push(&format!(" AND ({keys}) > ({})", params.join(", ")));
        }
        let want = limit - progress.scanned;
        q.push(&format!(" ORDER BY {keys} LIMIT {want}"));
        let rows = x.fetch(&q).await?;
        let got = rows.len() as u64;
        for r in &rows {
            let key = c
                .keys
                .iter()
                .map(|k| r.text(k))
                .collect::<Result<Vec<String>>>()?;
            let sealed = r.text("sealed")?;
            progress.scanned += 1;
            let moved = master
                .reseal(random(), &sealed, &(c.aad)(&key))
                .map_err(|e| {
                    StoreError::Corrupt(format!(
                        "{}.{} of {}: {e} (nor with the previous master key: is the right one configured?)",
                        c.table,
                        c.sealed,
                        key.join("/")
                    ))
                })?;
            if let Some(moved) = moved {
                let mut u = SqlBuilder::new(&format!("UPDATE {} SET {} = ", c.table, c.sealed));
                u.bind(moved.into());
                for (i, (column, value)) in c.keys.iter().zip(&key).enumerate() {
                    u.push(if i == 0 { " WHERE " } else { " AND " });
                    u.push(&format!("{column} = "));
                    u.bind(value.as_str().into());
                }
                u.push(&format!(" AND {} = ", c.sealed));
                u.bind(Bind::Text(sealed));
                progress.resealed += x.execute(&u).await?;
            }
            after = Some(key);
        }
        if got < want {
            column += 1;
            after = None;
        }
    }
    if column >= COLUMNS.len() {
        x.execute(&SqlBuilder::of(
            "DELETE FROM relay_settings WHERE key = $1",
            [CURSOR_SETTING.into()],
        ))
        .await?;
        progress.done = true;
    } else {
        let text = serde_json::to_string(&Cursor {
            check: master.seal(random(), CURSOR_CHECK, CURSOR_SETTING.as_bytes()),
            column,
            after,
        })
        .map_err(|e| StoreError::Corrupt(e.to_string()))?;
        put(x, CURSOR_SETTING, &text).await?;
    }
    Ok(progress)
}

async fn put<X: Exec>(x: &mut X, key: &str, value: &str) -> Result<()> {
    let exists = fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT key FROM relay_settings WHERE key = $1",
            [key.into()],
        ),
    )
    .await?
    .is_some();
    let q = if exists {
        "UPDATE relay_settings SET value = $2 WHERE key = $1"
    } else {
        "INSERT INTO relay_settings (key, value) VALUES ($1, $2)"
    };
    x.execute(&SqlBuilder::of(q, [key.into(), value.into()]))
        .await?;
    Ok(())
}
