//! `[secrets]`: what a tenant's secret references may name.

use super::*;

/// `[secrets]`: what each tenant's secret references may name besides its
/// own tenant secrets (`docs/security.md`). `env:` and `file:` reach the
/// process's variables and the machine's files: the operator grants them
/// tenant by tenant (`[[secrets.grants]]`); without a grant a tenant can
/// name neither.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Secrets {
    /// What each tenant may name (`[[secrets.grants]]`, in the file only).
    pub grants: Vec<SecretGrant>,
    /// How often an endpoint's references are resolved again (a changed
    /// value rebuilds its client); a tenant secret replaced through this
    /// node's API is noticed at once.
    #[serde(deserialize_with = "number")]
    pub refresh_seconds: u64,
}

/// `[[secrets.grants]]`: what one tenant may reference.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct SecretGrant {
    /// The tenant's id (`ten_…`).
    pub tenant: String,
    /// `env:NAME` is allowed when NAME starts with one of these prefixes.
    #[serde(default, deserialize_with = "strings")]
    pub env_prefixes: Vec<String>,
    /// `file:/path` is allowed when the path is inside one of these
    /// absolute directories (checked again once links are followed).
    #[serde(default, deserialize_with = "strings")]
    pub file_dirs: Vec<String>,
}

impl Default for Secrets {
    fn default() -> Self {
        Secrets {
            grants: Vec::new(),
            refresh_seconds: 30,
        }
    }
}

impl Secrets {
    /// The grants, and the paths no reference may read (`protected`:
    /// [`Config::protected_paths`]).
    pub fn policy(&self, protected: Vec<String>) -> relay_core::secret::SecretPolicy {
        let mut policy = relay_core::secret::SecretPolicy {
            protected_paths: protected,
            ..Default::default()
        };
        for g in &self.grants {
            policy = policy.grant(
                g.tenant.clone(),
                relay_core::secret::SecretGrant {
                    env_prefixes: g.env_prefixes.clone(),
                    file_dirs: g.file_dirs.clone(),
                },
            );
        }
        policy
    }

    /// Refuses what would let a tenant read Relay's own configuration or
    /// another tenant's grant: a grant without a tenant id, an empty prefix or one
    /// matching `RELAY_…` variables (the master key, the database URL), a
    /// relative directory, or one holding a `protected` path (the
    /// configuration file, the master key file, the data directory), as
    /// written or once symbolic links are followed.
    pub(super) fn validate(&self, protected: &[String]) -> anyhow::Result<()> {
        let canonical = |p: &str| {
            std::fs::canonicalize(p)
                .ok()
                .and_then(|p| p.to_str().map(str::to_owned))
        };
        let protected: Vec<String> = protected
            .iter()
            .cloned()
            .chain(protected.iter().filter_map(|p| canonical(p)))
            .collect();
        for g in &self.grants {
            if !relay_core::id::is_id_of(relay_core::id::IdKind::Tenant, &g.tenant) {
                bail!(
                    "secrets.grants: {:?} is not a tenant id (ten_…); a grant names the one tenant it is for",
                    g.tenant
                );
            }
            let t = &g.tenant;
            for p in &g.env_prefixes {
                if p.is_empty() || "RELAY_".starts_with(p.as_str()) || p.starts_with("RELAY_") {
                    bail!(
                        "secrets.grants ({t}): env prefix {p:?} would let the tenant read Relay's own RELAY_ variables; use a prefix of your own (ACME_)"
                    );
                }
            }
            for d in &g.file_dirs {
                let trimmed = d.trim_end_matches('/');
                let plain = trimmed
                    .strip_prefix('/')
                    .is_none_or(|rest| rest.split('/').all(|c| !matches!(c, "" | "." | "..")));
                if !d.starts_with('/') || !plain {
                    bail!(
                        "secrets.grants ({t}): file dir {d:?} is not an absolute directory without `.` or `..`"
                    );
                }
                let holds = |dir: &str| {
                    protected.iter().any(|p| {
                        p.trim_end_matches('/') == dir.trim_end_matches('/')
                            || relay_core::secret::path_inside(p, dir)
                    })
                };
                if holds(d) || canonical(d).is_some_and(|c| holds(&c)) {
                    bail!(
                        "secrets.grants ({t}): file dir {d:?} holds Relay's configuration file, master key file or data directory"
                    );
                }
            }
        }
        if self.refresh_seconds == 0 {
            bail!("secrets.refresh_seconds must be at least 1");
        }
        Ok(())
    }
}
