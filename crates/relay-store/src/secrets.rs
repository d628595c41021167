//! Tenant secrets: credentials a destination or an inbound source names by
//! a `secret:NAME` reference (`relay_core::secret`), written through
//! `PUT /v1/secrets/{name}` and never read back by the API.
//!
//! A secret belongs to one tenant and environment (like every object a
//! tenant key reaches: a test key neither reads nor replaces a live
//! secret). Its value is sealed under the master key with
//! `relay_core::sealed`, the associated data naming its (tenant,
//! environment, name): a sealed value copied to another row does not open.
//! What the API lists is [`SecretInfo`] (name and times), never the value.
//! Changes are audited in their own transaction; the entry carries the
//! name, never the value.

use relay_core::model::Page;
use relay_core::sealed::{MasterKey, SealError};
use relay_core::secret::SecretValue;
use relay_core::time::Timestamp;

use crate::exec::{Exec, fetch_optional};
use crate::rows::RowExt;
use crate::sql::SqlBuilder;
use crate::{AuditEntry, PageRequest, Result, Scope, StoreError, audit};

/// The most secrets one tenant keeps in one environment.
pub const MAX_PER_SCOPE: i64 = 1000;

/// A tenant secret as the API shows it: its name and times, never its value.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct SecretInfo {
    /// What a reference names it by: `secret:<name>`.
    pub name: String,
    /// When it was first written.
    pub created_at: Timestamp,
    /// When its value was last replaced.
    pub updated_at: Timestamp,
}

/// A secret to write: its name, its sealed value ([`seal`]) and when.
#[derive(Clone)]
pub struct PutSecret {
    pub name: String,
    pub sealed_value: String,
    pub now: Timestamp,
}

impl std::fmt::Debug for PutSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PutSecret")
            .field("name", &self.name)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

/// Whether a put created the secret or replaced its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PutOutcome {
    Created,
    Replaced,
}

impl PutOutcome {
    /// The audit action: `secret.created` or `secret.updated`.
    pub const fn action(self) -> &'static str {
        match self {
            PutOutcome::Created => "secret.created",
            PutOutcome::Replaced => "secret.updated",
        }
    }
}

fn binding(scope: &Scope, name: &str) -> Vec<u8> {
    binding_text(&scope.tenant_id, scope.environment.as_str(), name)
}

/// The associated data of a secret's sealed value, from its row's columns.
pub(crate) fn binding_text(tenant_id: &str, environment: &str, name: &str) -> Vec<u8> {
    format!("tenant-secret\0{tenant_id}\0{environment}\0{name}").into_bytes()
}

fn random<const N: usize>() -> [u8; N] {
    let mut b = [0u8; N];
    getrandom::fill(&mut b).expect("the operating system's random source is unavailable");
    b
}

/// Seals `value` for the secret `name` of `scope`.
pub fn seal(master: &MasterKey, scope: &Scope, name: &str, value: &SecretValue) -> String {
    master.seal(random(), value.expose(), &binding(scope, name))
}

/// Opens the sealed value of the secret `name` of `scope`.
pub fn open(
    master: &MasterKey,
    scope: &Scope,
    name: &str,
    sealed: &str,
) -> Result<SecretValue, SealError> {
    master
        .open(sealed, &binding(scope, name))
        .map(SecretValue::new)
}

fn info(r: &impl RowExt) -> Result<SecretInfo> {
    Ok(SecretInfo {
        name: r.text("name")?,
        created_at: r.ts("created_at")?,
        updated_at: r.ts("updated_at")?,
    })
}

const BY_NAME: &str = "SELECT name, sealed_value, created_at, updated_at FROM tenant_secrets \
    WHERE tenant_id = $1 AND environment = $2 AND name = $3";

fn by_name(scope: &Scope, name: &str, lock: &str) -> SqlBuilder {
    SqlBuilder::of(
        &format!("{BY_NAME}{lock}"),
        [
            scope.tenant_id.as_str().into(),
            scope.environment.as_str().into(),
            name.into(),
        ],
    )
}

/// Creates the secret or replaces its value, with `audit` (if any) in the
/// same transaction, its action set to what happened
/// ([`PutOutcome::action`]). At most [`MAX_PER_SCOPE`] per tenant and environment
/// (`LimitReached("secrets_per_tenant")`).
pub async fn put<X: Exec>(
    x: &mut X,
    scope: &Scope,
    put: &PutSecret,
    audit: Option<&AuditEntry>,
) -> Result<(SecretInfo, PutOutcome)> {
    let lock = x.dialect().for_update;
    let existing = fetch_optional(x, &by_name(scope, &put.name, lock)).await?;
    let (created_at, outcome) = match existing {
        Some(r) => {
            let created_at = r.ts("created_at")?;
            x.execute(&SqlBuilder::of(
                "UPDATE tenant_secrets SET sealed_value = $4, updated_at = $5 \
                 WHERE tenant_id = $1 AND environment = $2 AND name = $3",
                [
                    scope.tenant_id.as_str().into(),
                    scope.environment.as_str().into(),
                    put.name.as_str().into(),
                    put.sealed_value.as_str().into(),
                    put.now.into(),
                ],
            ))
            .await?;
            (created_at, PutOutcome::Replaced)
        }
        None => {
            let count = fetch_optional(
                x,
                &SqlBuilder::of(
                    "SELECT COUNT(*) AS n FROM tenant_secrets WHERE tenant_id = $1 \
                     AND environment = $2",
                    [
                        scope.tenant_id.as_str().into(),
                        scope.environment.as_str().into(),
                    ],
                ),
            )
            .await?
            .map(|r| r.int("n"))
            .transpose()?
            .unwrap_or(0);
            if count >= MAX_PER_SCOPE {
                return Err(StoreError::LimitReached("secrets_per_tenant"));
            }
            x.execute(&SqlBuilder::of(
                "INSERT INTO tenant_secrets (tenant_id, environment, name, sealed_value, \
                 created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)",
                [
                    scope.tenant_id.as_str().into(),
                    scope.environment.as_str().into(),
                    put.name.as_str().into(),
                    put.sealed_value.as_str().into(),
                    put.now.into(),
                ],
            ))
            .await
            .map_err(|e| e.unique_as("tenant_secret"))?;
            (put.now, PutOutcome::Created)
        }
    };
    if let Some(a) = audit {
        let a = AuditEntry {
            action: outcome.action().to_string(),
            ..a.clone()
        };
        audit::insert(x, scope, &a).await?;
    }
    Ok((
        SecretInfo {
            name: put.name.clone(),
            created_at,
            updated_at: put.now,
        },
        outcome,
    ))
}

/// The secret's name and times, if `scope` has it.
pub async fn get<X: Exec>(x: &mut X, scope: &Scope, name: &str) -> Result<Option<SecretInfo>> {
    fetch_optional(x, &by_name(scope, name, ""))
        .await?
        .map(|r| info(&r))
        .transpose()
}

/// The secret with its sealed value (for the resolver, never the API).
pub async fn get_sealed<X: Exec>(
    x: &mut X,
    scope: &Scope,
    name: &str,
) -> Result<Option<(SecretInfo, String)>> {
    fetch_optional(x, &by_name(scope, name, ""))
        .await?
        .map(|r| Ok((info(&r)?, r.text("sealed_value")?)))
        .transpose()
}

/// One page of the scope's secrets by name.
pub async fn list<X: Exec>(
    x: &mut X,
    scope: &Scope,
    page: &PageRequest,
) -> Result<Page<SecretInfo>> {
    let mut q = SqlBuilder::new(
        "SELECT name, created_at, updated_at FROM tenant_secrets WHERE tenant_id = ",
    );
    q.bind(scope.tenant_id.as_str().into())
        .push(" AND environment = ")
        .bind(scope.environment.as_str().into());
    q.paginate("name", page);
    let items = x
        .fetch(&q)
        .await?
        .iter()
        .map(info)
        .collect::<Result<Vec<_>>>()?;
    Ok(crate::sql::to_page(items, page.limit, |s| &s.name))
}

/// Deletes the secret (`NotFound` when `scope` has none of that name),
/// with `audit` (if any) in the same transaction.
pub async fn delete<X: Exec>(
    x: &mut X,
    scope: &Scope,
    name: &str,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let done = x
        .execute(&SqlBuilder::of(
            "DELETE FROM tenant_secrets WHERE tenant_id = $1 AND environment = $2 AND name = $3",
            [
                scope.tenant_id.as_str().into(),
                scope.environment.as_str().into(),
                name.into(),
            ],
        ))
        .await?;
    if done == 0 {
        return Err(StoreError::NotFound);
    }
    audit::insert_opt(x, scope, audit).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use relay_core::model::Environment;

    #[test]
    fn a_sealed_value_opens_only_for_its_own_secret() {
        let master = MasterKey::from_bytes([9; 32]);
        let live = Scope {
            tenant_id: "ten_1".into(),
            environment: Environment::Live,
        };
        let sealed = seal(&master, &live, "redis-pw", &SecretValue::from("hunter2"));
        assert!(!sealed.contains("hunter2"));
        let opened = open(&master, &live, "redis-pw", &sealed).unwrap();
        assert_eq!(opened.expose(), b"hunter2");
        assert!(open(&master, &live, "other", &sealed).is_err());
        let test = Scope {
            environment: Environment::Test,
            ..live.clone()
        };
        assert!(open(&master, &test, "redis-pw", &sealed).is_err());
        let other_tenant = Scope {
            tenant_id: "ten_2".into(),
            ..live.clone()
        };
        assert!(open(&master, &other_tenant, "redis-pw", &sealed).is_err());
        assert!(open(&MasterKey::from_bytes([8; 32]), &live, "redis-pw", &sealed).is_err());
        let put = PutSecret {
            name: "redis-pw".into(),
            sealed_value: sealed,
            now: Timestamp(1),
        };
        assert!(!format!("{put:?}").contains("rk1:"));
    }
}
