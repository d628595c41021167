//! Secret references and secret values.
//!
//! A destination's credential (a password, a token, a private key) is never
//! stored in its configuration: the configuration holds a [`SecretRef`], one of
//!
//! - `secret:NAME`: a tenant secret, stored write-only and sealed under the
//!   master key (`PUT /v1/secrets/{name}`);
//! - `env:NAME`: an environment variable of the Relay process, where the
//!   operator allows its prefix;
//! - `file:/absolute/path`: a file's content, where the operator allows its
//!   directory.
//!
//! The reference is not the secret: it may be shown (`Debug`, API answers).
//! The resolved value is a [`SecretValue`], whose `Debug` and `Display`
//! never show it and whose bytes are zeroed when it is dropped. Resolving is
//! IO and lives with the callers (the engine, the API); what an operator
//! permits is the pure [`SecretPolicy`].
//!
//! A destination kind's client is built from its configuration and the
//! resolved [`Secrets`] of its references (`relay_destinations::build`).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use zeroize::Zeroize;

/// The longest tenant secret name.
pub const MAX_NAME: usize = 64;
/// The longest environment variable name of an `env:` reference.
pub const MAX_ENV_NAME: usize = 128;
/// The longest path of a `file:` reference.
pub const MAX_PATH: usize = 1024;
/// The largest secret value: a tenant secret's, a secret file's.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;

/// Where a secret's value comes from. Written `secret:NAME`, `env:NAME` or
/// `file:/absolute/path`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SecretRef {
    /// A tenant secret by name: 1 to 64 of `A-Z a-z 0-9 _ . -`, starting
    /// with a letter or digit.
    Secret(String),
    /// An environment variable: `[A-Za-z_][A-Za-z0-9_]*`, at most 128.
    Env(String),
    /// An absolute path without `.`, `..` or empty components, at most 1024 bytes.
    File(String),
}

/// Why a text is not a secret reference. The message never repeats the
/// text: a plain password typed where a reference belongs must not be echoed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    #[error(
        "a secret reference is `secret:NAME`, `env:NAME` or `file:/absolute/path` (a credential itself is never accepted here)"
    )]
    Scheme,
    #[error(
        "a secret name is 1 to 64 of A-Z, a-z, 0-9, `_`, `.`, `-`, starting with a letter or digit"
    )]
    Name,
    #[error(
        "an environment variable name is 1 to 128 of A-Z, a-z, 0-9, `_`, not starting with a digit"
    )]
    EnvName,
    #[error(
        "a file reference is an absolute path (at most 1024 bytes) without `.`, `..` or empty components"
    )]
    Path,
}

impl RefError {
    /// The stable code of the API's `422`.
    pub const fn code(self) -> &'static str {
        "invalid_secret_reference"
    }
}

/// Whether `name` is a valid tenant secret name.
pub fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= MAX_NAME
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

fn valid_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= MAX_ENV_NAME
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn valid_path(path: &str) -> bool {
    path.len() <= MAX_PATH
        && path.len() > 1
        && !path.contains('\0')
        && path
            .strip_prefix('/')
            .is_some_and(|rest| rest.split('/').all(|c| !matches!(c, "" | "." | "..")))
}

impl SecretRef {
    pub fn parse(s: &str) -> Result<Self, RefError> {
        if let Some(name) = s.strip_prefix("secret:") {
            valid_name(name)
                .then(|| SecretRef::Secret(name.to_string()))
                .ok_or(RefError::Name)
        } else if let Some(name) = s.strip_prefix("env:") {
            valid_env_name(name)
                .then(|| SecretRef::Env(name.to_string()))
                .ok_or(RefError::EnvName)
        } else if let Some(path) = s.strip_prefix("file:") {
            valid_path(path)
                .then(|| SecretRef::File(path.to_string()))
                .ok_or(RefError::Path)
        } else {
            Err(RefError::Scheme)
        }
    }

    /// `secret`, `env` or `file`.
    pub const fn scheme(&self) -> &'static str {
        match self {
            SecretRef::Secret(_) => "secret",
            SecretRef::Env(_) => "env",
            SecretRef::File(_) => "file",
        }
    }

    /// The name or path after the scheme.
    pub fn target(&self) -> &str {
        match self {
            SecretRef::Secret(s) | SecretRef::Env(s) | SecretRef::File(s) => s,
        }
    }
}

impl fmt::Display for SecretRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.scheme(), self.target())
    }
}

impl FromStr for SecretRef {
    type Err = RefError;
    fn from_str(s: &str) -> Result<Self, RefError> {
        SecretRef::parse(s)
    }
}

impl Serialize for SecretRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SecretRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // Through `String`, not `&str`: a JSON string with escapes is not borrowable.
        let s = String::deserialize(d)?;
        SecretRef::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A resolved secret. `Debug` and `Display` never show it; its bytes are
/// zeroed on drop. Compare two with [`SecretValue::same`] (constant time).
#[derive(Clone, Default)]
pub struct SecretValue(Vec<u8>);

impl SecretValue {
    pub fn new(bytes: Vec<u8>) -> Self {
        SecretValue(bytes)
    }

    /// The value, to hand to the peer that needs it. Never log it.
    pub fn expose(&self) -> &[u8] {
        &self.0
    }

    /// The value as text, when it is UTF-8.
    pub fn expose_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether both hold the same bytes, in time independent of where they differ.
    pub fn same(&self, other: &SecretValue) -> bool {
        use subtle::ConstantTimeEq;
        self.0.len() == other.0.len() && bool::from(self.0.ct_eq(&other.0))
    }
}

impl From<String> for SecretValue {
    fn from(s: String) -> Self {
        SecretValue(s.into_bytes())
    }
}

impl From<&str> for SecretValue {
    fn from(s: &str) -> Self {
        SecretValue(s.as_bytes().to_vec())
    }
}

impl Drop for SecretValue {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretValue(<redacted>)")
    }
}

impl fmt::Display for SecretValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

/// The resolved values of a destination's references, by reference.
/// `Debug` lists the references only.
#[derive(Clone, Default)]
pub struct Secrets(HashMap<SecretRef, SecretValue>);

/// A reference that was not resolved before a client was built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the secret reference {0} is not resolved")]
pub struct Unresolved(pub SecretRef);

impl Secrets {
    pub fn new() -> Self {
        Secrets::default()
    }

    pub fn insert(&mut self, reference: SecretRef, value: SecretValue) {
        self.0.insert(reference, value);
    }

    pub fn get(&self, reference: &SecretRef) -> Option<&SecretValue> {
        self.0.get(reference)
    }

    /// The value of `reference`, or [`Unresolved`].
    pub fn require(&self, reference: &SecretRef) -> Result<&SecretValue, Unresolved> {
        self.get(reference)
            .ok_or_else(|| Unresolved(reference.clone()))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether both resolve the same references to the same values.
    pub fn same(&self, other: &Secrets) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .all(|(r, v)| other.0.get(r).is_some_and(|o| o.same(v)))
    }
}

impl fmt::Debug for Secrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut refs: Vec<&SecretRef> = self.0.keys().collect();
        refs.sort();
        f.debug_tuple("Secrets").field(&refs).finish()
    }
}

/// What the operator grants one tenant to reference besides its own
/// secrets (`[[secrets.grants]]` in the configuration).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretGrant {
    /// `env:NAME` is allowed when NAME starts with one of these (non-empty).
    pub env_prefixes: Vec<String>,
    /// `file:/path` is allowed when the path is inside one of these
    /// absolute directories.
    pub file_dirs: Vec<String>,
}

/// What the operator lets each tenant reference besides its own secrets.
/// `env:` and `file:` name the process's variables and the machine's files:
/// they are the operator's, granted tenant by tenant. A tenant without a
/// grant (every tenant, by default) can name neither.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SecretPolicy {
    /// The grants, by tenant id (a grant is the tenant's alone: neither its
    /// sub-tenants nor its parent share it).
    pub grants: BTreeMap<String, SecretGrant>,
    /// Paths never read through a reference, whatever a grant says:
    /// Relay's configuration file, its master key file, its data directory
    /// (a file, or everything inside a directory). The resolver compares
    /// them once symbolic links are followed, and by file identity.
    pub protected_paths: Vec<String>,
}

/// Why the operator's policy refuses a reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error(
        "the operator has not granted this tenant environment variables of this name ([[secrets.grants]] env_prefixes)"
    )]
    Env,
    #[error(
        "the operator has not granted this tenant secret files in this directory ([[secrets.grants]] file_dirs)"
    )]
    File,
    #[error(
        "Relay's own configuration file, master key file and data directory are never read through a reference"
    )]
    Protected,
}

impl Refused {
    /// The stable code of the API's `422` (and of the attempt's
    /// `secret_unresolved` detail).
    pub const fn code(self) -> &'static str {
        match self {
            Refused::Env => "secret_env_not_allowed",
            Refused::File | Refused::Protected => "secret_file_not_allowed",
        }
    }
}

impl SecretPolicy {
    /// Adds `grant` to what `tenant_id` may reference (a second grant of
    /// the same tenant adds to the first).
    pub fn grant(mut self, tenant_id: impl Into<String>, grant: SecretGrant) -> Self {
        let g = self.grants.entry(tenant_id.into()).or_default();
        g.env_prefixes.extend(grant.env_prefixes);
        g.file_dirs.extend(grant.file_dirs);
        self
    }

    /// The directories `tenant_id` may read secret files in.
    pub fn file_dirs(&self, tenant_id: &str) -> &[String] {
        self.grants
            .get(tenant_id)
            .map_or(&[], |g| g.file_dirs.as_slice())
    }

    /// Whether the policy permits `tenant_id` to use `reference` (its own
    /// tenant secrets always). For a file, this is the check of its path as
    /// written; the resolver checks the canonical path again, so a symbolic
    /// link cannot lead out of a granted directory or to a protected path.
    pub fn permits(&self, tenant_id: &str, reference: &SecretRef) -> Result<(), Refused> {
        let grant = self.grants.get(tenant_id);
        match reference {
            SecretRef::Secret(_) => Ok(()),
            SecretRef::Env(name) => grant
                .is_some_and(|g| {
                    g.env_prefixes
                        .iter()
                        .any(|p| !p.is_empty() && name.starts_with(p.as_str()))
                })
                .then_some(())
                .ok_or(Refused::Env),
            SecretRef::File(path) => {
                if self.is_protected(path) {
                    return Err(Refused::Protected);
                }
                grant
                    .is_some_and(|g| g.file_dirs.iter().any(|d| path_inside(path, d)))
                    .then_some(())
                    .ok_or(Refused::File)
            }
        }
    }

    /// Whether `path` (absolute, as written or canonical) is, or is inside,
    /// one of [`SecretPolicy::protected_paths`].
    pub fn is_protected(&self, path: &str) -> bool {
        self.protected_paths.iter().any(|p| {
            let p = p.trim_end_matches('/');
            !p.is_empty() && (path.trim_end_matches('/') == p || path_inside(path, p))
        })
    }
}

/// Whether `path` is strictly inside the directory `dir`, component by
/// component (`/etc/relay` holds `/etc/relay/x`, not `/etc/relayx`).
pub fn path_inside(path: &str, dir: &str) -> bool {
    if !dir.starts_with('/') {
        return false;
    }
    let dir = dir.trim_end_matches('/');
    path.strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|rest| {
            !rest.is_empty() && rest.split('/').all(|c| !matches!(c, "" | "." | ".."))
        })
}

#[cfg(test)]
mod tests;
