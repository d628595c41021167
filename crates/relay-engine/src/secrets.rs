//! Resolving secret references (`relay_core::secret`) to their values, for
//! the engine (an endpoint's client is built from them) and the API (a
//! reference is checked at registration).
//!
//! - `secret:NAME`: the tenant's secret, opened with the master key;
//! - `env:NAME`: the process's environment variable, if the operator's
//!   policy allows its prefix and it is set;
//! - `file:/path`: the file's content (at most [`MAX_FILE_BYTES`], one
//!   trailing newline removed), if the policy allows its directory both as
//!   written and once symbolic links are followed.
//!
//! Errors name the reference, never a value.

use relay_core::secret::{SecretPolicy, SecretRef, SecretValue, Secrets};

/// The largest secret file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;

/// Why a reference did not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reference}: {message}")]
pub struct ResolveError {
    pub reference: SecretRef,
    /// The stable code of the API's `422`.
    pub code: &'static str,
    pub message: String,
}

/// Resolves references under the operator's policy.
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    pub policy: SecretPolicy,
}

impl Resolver {
    pub fn new(policy: SecretPolicy) -> Self {
        Resolver { policy }
    }

    /// The values of every reference of `refs`, or the first that fails.
    pub async fn resolve(
        &self,
        tenant_id: &str,
        refs: &[SecretRef],
    ) -> Result<Secrets, ResolveError> {
        let mut out = Secrets::new();
        for r in refs {
            if out.get(r).is_none() {
                let value = self.resolve_one(tenant_id, r).await?;
                out.insert(r.clone(), value);
            }
        }
        Ok(out)
    }

    /// The value of one reference.
    pub async fn resolve_one(
        &self,
        _tenant_id: &str,
        r: &SecretRef,
    ) -> Result<SecretValue, ResolveError> {
        let err = |code: &'static str, message: &str| ResolveError {
            reference: r.clone(),
            code,
            message: message.to_string(),
        };
        self.policy
            .permits(r)
            .map_err(|e| err(e.code(), &e.to_string()))?;
        match r {
            SecretRef::Secret(_) => Err(err(
                "secret_not_found",
                "tenant secrets are not available yet",
            )),
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
                // The allowed directories with their links followed too
                // (`/run/secrets` may itself be a link).
                let mut real_dirs = Vec::with_capacity(self.policy.allow_file_dirs.len());
                for d in &self.policy.allow_file_dirs {
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
                        "the file leads outside the allowed directories",
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

#[cfg(test)]
mod tests;
