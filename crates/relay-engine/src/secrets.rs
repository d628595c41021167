//! Resolving secret references (`relay_core::secret`) to their values, for
//! the engine (an endpoint's client is built from them) and the API (a
//! reference is checked at registration).
//!
//! - `secret:NAME`: the secret of the endpoint's tenant and environment
//!   (`relay_store::secrets`), opened with the master key;
//! - `env:NAME`: the process's environment variable, if the operator
//!   granted the object's tenant its prefix and it is set;
//! - `file:/path`: the file's content (at most [`MAX_FILE_BYTES`], one
//!   trailing newline removed), if the operator granted the object's
//!   tenant its directory, both as written and once symbolic links are
//!   followed, and it is none of Relay's protected paths (its configuration
//!   file, master key file, data directory), compared as written, once
//!   links are followed and by file identity (a hard link is the same file).
//!
//! Every reference is judged for the tenant of the scope it is resolved
//! in, at registration and at every resolve: a grant withdrawn later makes
//! the endpoint's attempts fail as `secret_unresolved`.
//!
//! Errors name the reference, never a value.

use std::sync::Arc;

use relay_core::sealed::MasterKey;
use relay_core::secret::{SecretPolicy, SecretRef, SecretValue, Secrets};
use relay_store::{ExecutorExt as _, Scope, Store};

/// The largest secret file read.
pub const MAX_FILE_BYTES: u64 = relay_core::secret::MAX_VALUE_BYTES as u64;

/// Why a reference did not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reference}: {message}")]
pub struct ResolveError {
    pub reference: SecretRef,
    /// The stable code of the API's `422`.
    pub code: &'static str,
    pub message: String,
    /// Whose doing it is, which decides what the engine does about it.
    pub failure: Failure,
}

/// Whose doing a failed resolution is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The reference does not resolve as it stands (refused by the
    /// operator's policy, no such secret, variable or readable file): the
    /// tenant's to fix; the endpoint's attempt fails on it.
    Refused,
    /// The store could not be read, or its value not opened, now: Relay's
    /// side, not the tenant's; the attempt is given back and tried again.
    Unavailable,
}

/// Where `secret:NAME` references are read: the store's tenant secrets,
/// opened with the master key.
#[derive(Clone)]
struct TenantSecrets {
    store: Arc<dyn Store>,
    master: MasterKey,
}

/// Resolves references under the operator's policy. Without a store
/// ([`Resolver::new`] alone) a `secret:` reference does not resolve.
#[derive(Clone, Default)]
pub struct Resolver {
    pub policy: SecretPolicy,
    tenant: Option<TenantSecrets>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("policy", &self.policy)
            .field("tenant_secrets", &self.tenant.is_some())
            .finish()
    }
}

impl Resolver {
    pub fn new(policy: SecretPolicy) -> Self {
        Resolver {
            policy,
            tenant: None,
        }
    }

    /// Resolves `secret:NAME` from `store`'s tenant secrets too.
    pub fn with_tenant_secrets(mut self, store: Arc<dyn Store>, master: MasterKey) -> Self {
        self.tenant = Some(TenantSecrets { store, master });
        self
    }

    /// The values of every reference of `refs` for an object of `scope`,
    /// or the first that fails.
    pub async fn resolve(
        &self,
        scope: &Scope,
        refs: &[SecretRef],
    ) -> Result<Secrets, ResolveError> {
        let mut out = Secrets::new();
        for r in refs {
            if out.get(r).is_none() {
                let value = self.resolve_one(scope, r).await?;
                out.insert(r.clone(), value);
            }
        }
        Ok(out)
    }

    /// The value of one reference for an object of `scope` (a tenant
    /// secret is `scope`'s own: another tenant's or environment's is not
    /// found).
    pub async fn resolve_one(
        &self,
        scope: &Scope,
        r: &SecretRef,
    ) -> Result<SecretValue, ResolveError> {
        let failed = |failure: Failure, code: &'static str, message: &str| ResolveError {
            reference: r.clone(),
            code,
            message: message.to_string(),
            failure,
        };
        let err = |code: &'static str, message: &str| failed(Failure::Refused, code, message);
        let unavailable =
            |message: &str| failed(Failure::Unavailable, "secret_unavailable", message);
        self.policy
            .permits(&scope.tenant_id, r)
            .map_err(|e| err(e.code(), &e.to_string()))?;
        match r {
            SecretRef::Secret(name) => {
                let not_found = || {
                    err(
                        "secret_not_found",
                        "no tenant secret of this name (PUT /v1/secrets/{name} creates it)",
                    )
                };
                let tenant = self.tenant.as_ref().ok_or_else(not_found)?;
                let (sc, wanted) = (scope.clone(), name.clone());
                let (_, sealed) = tenant
                    .store
                    .read(move |mut x| {
                        Box::pin(async move {
                            relay_store::secrets::get_sealed(&mut x, &sc, &wanted).await
                        })
                    })
                    .await
                    .map_err(|_| unavailable("the store cannot be read now"))?
                    .ok_or_else(not_found)?;
                relay_store::secrets::open(&tenant.master, scope, name, &sealed).map_err(|_| {
                    unavailable("the stored secret does not open with this master key")
                })
            }
            SecretRef::Env(name) => match std::env::var_os(name) {
                Some(v) if !v.is_empty() => {
                    use std::os::unix::ffi::OsStringExt;
                    Ok(SecretValue::new(v.into_vec()))
                }
                _ => Err(err(
                    "secret_env_unset",
                    "the environment variable is not set or empty",
                )),
            },
            SecretRef::File(path) => {
                let unreadable = |m: &str| err("secret_file_unreadable", m);
                let real = tokio::fs::canonicalize(path)
                    .await
                    .map_err(|_| unreadable("the file cannot be opened"))?;
                let real_text = real.to_str().unwrap_or_default();
                if self.protected(&real).await {
                    let refused = relay_core::secret::Refused::Protected;
                    return Err(err(refused.code(), &refused.to_string()));
                }
                // The granted directories with their links followed too
                // (`/run/secrets` may itself be a link).
                let granted = self.policy.file_dirs(&scope.tenant_id);
                let mut real_dirs = Vec::with_capacity(granted.len());
                for d in granted {
                    if let Ok(p) = tokio::fs::canonicalize(d).await
                        && let Some(p) = p.to_str()
                    {
                        real_dirs.push(p.to_string());
                    }
                }
                if !real_dirs
                    .iter()
                    .any(|d| relay_core::secret::path_inside(real_text, d))
                {
                    return Err(err(
                        "secret_file_not_allowed",
                        "the file leads outside the directories granted to this tenant",
                    ));
                }
                let meta = tokio::fs::metadata(&real)
                    .await
                    .map_err(|_| unreadable("the file cannot be opened"))?;
                if !meta.is_file() {
                    return Err(unreadable("not a regular file"));
                }
                if meta.len() > MAX_FILE_BYTES {
                    return Err(unreadable("the file is larger than 64 KiB"));
                }
                let mut bytes = tokio::fs::read(&real)
                    .await
                    .map_err(|_| unreadable("the file cannot be read"))?;
                if bytes.last() == Some(&b'\n') {
                    bytes.pop();
                    if bytes.last() == Some(&b'\r') {
                        bytes.pop();
                    }
                }
                if bytes.is_empty() {
                    return Err(unreadable("the file is empty"));
                }
                Ok(SecretValue::new(bytes))
            }
        }
    }
}

impl Resolver {
    /// Whether `real` (a canonical path) is one of the policy's protected
    /// paths or inside one, once their links are followed too, or is the
    /// same file as a protected file (a hard link to the master key).
    async fn protected(&self, real: &std::path::Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        let Some(text) = real.to_str() else {
            return true;
        };
        if self.policy.is_protected(text) {
            return true;
        }
        let target = tokio::fs::metadata(real).await.ok();
        for p in &self.policy.protected_paths {
            let Ok(canonical) = tokio::fs::canonicalize(p).await else {
                continue;
            };
            if let Some(c) = canonical.to_str()
                && (c == text || relay_core::secret::path_inside(text, c))
            {
                return true;
            }
            if let (Some(t), Ok(m)) = (&target, tokio::fs::metadata(&canonical).await)
                && m.is_file()
                && t.dev() == m.dev()
                && t.ino() == m.ino()
            {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests;
