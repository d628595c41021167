//! Installation settings (`relay_settings`): values written once, such as
//! the sealed master key's check and the operator token's digest.

use crate::Result;
use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::SqlBuilder;

pub async fn get<X: Exec>(x: &mut X, key: &str) -> Result<Option<String>> {
    fetch_optional(
        x,
        &SqlBuilder::of(
            "SELECT value FROM relay_settings WHERE key = $1",
            [key.into()],
        ),
    )
    .await?
    .map(|r| r.text("value"))
    .transpose()
}

/// Stores `value` under `key` unless a value exists; returns the value now
/// stored.
pub async fn put_if_absent<X: Exec>(x: &mut X, key: &str, value: &str) -> Result<String> {
    x.execute(&SqlBuilder::of(
        "INSERT INTO relay_settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        [key.into(), value.into()],
    ))
    .await?;
    get(x, key)
        .await?
        .ok_or_else(|| crate::StoreError::Corrupt(format!("setting `{key}` vanished")))
}
