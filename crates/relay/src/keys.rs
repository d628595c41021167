//! The master key: where it comes from, how it is checked against the
//! database at start, and `relay keys rotate-master`.
//!
//! - It is `master_key` (`RELAY_MASTER_KEY`): 32 bytes as hex or base64, or
//!   a reference to a file holding them, `file:/path` (a mounted Kubernetes
//!   Secret); or `master_key_file`. Such a file is one of the paths no
//!   tenant's secret reference may read ([`Config::protected_paths`]). An
//!   `env:` reference is refused: a variable of another name could be within
//!   a tenant's grant of `env:` prefixes; name it `RELAY_MASTER_KEY` instead.
//! - On SQLite, with neither, zero configuration generates
//!   `<data_dir>/master.key` on first start. On PostgreSQL (a cluster,
//!   whose nodes' data directories are disposable) a node without a
//!   configured key refuses to start: a key generated into one node's data
//!   directory would be lost with it, and the other nodes could not read
//!   what it sealed.
//! - A value sealed with the key is kept in the database: a node started
//!   with another key is refused.
//! - During a rotation `master_key_previous` (or `_file`) holds the key
//!   values were sealed with before; both open everything, new values are
//!   sealed with `master_key`, and `relay keys rotate-master` moves the
//!   stored ones ([`relay_store::reseal`]).

use anyhow::{Context, bail};
use relay_core::sealed::MasterKey;
use relay_store::{Commit, ExecutorExt as _, Store, settings};

use crate::config::{Config, Secret, parse_master_key};

const CHECK: &[u8] = b"relay master key check";

/// Checks the key settings' shape (a literal key parses; a reference is
/// well formed) without reading a reference.
pub fn validate(config: &Config) -> anyhow::Result<()> {
    for (name, value, file) in [
        ("master_key", &config.master_key, &config.master_key_file),
        (
            "master_key_previous",
            &config.master_key_previous,
            &config.master_key_previous_file,
        ),
    ] {
        if value.is_some() && file.is_some() {
            bail!("set {name} or {name}_file, not both");
        }
        if let Some(v) = value {
            match reference(v) {
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e).context(name),
                None => {
                    parse_master_key(v.expose()).context(name)?;
                }
            }
        }
    }
    let previous =
        config.master_key_previous.is_some() || config.master_key_previous_file.is_some();
    if previous && config.master_key.is_none() && config.master_key_file.is_none() {
        bail!(
            "master_key_previous is for a rotation: set master_key (or master_key_file) to the new key as well"
        );
    }
    Ok(())
}

/// The file a `file:` reference names, when `value` is a reference (an
/// `env:` one is refused, see the module's documentation).
pub fn reference(value: &Secret) -> Option<anyhow::Result<std::path::PathBuf>> {
    let v = value.expose().trim();
    if v.starts_with("env:") {
        return Some(Err(anyhow::anyhow!(
            "an env: reference is not accepted for a master key (another variable could be \
             within a tenant's grant): set RELAY_MASTER_KEY itself, or use file:/path"
        )));
    }
    v.strip_prefix("file:").map(|path| {
        let path = std::path::PathBuf::from(path);
        if path.is_absolute() {
            Ok(path)
        } else {
            Err(anyhow::anyhow!("a file: reference names an absolute path"))
        }
    })
}

fn read_file(path: &std::path::Path) -> anyhow::Result<[u8; 32]> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the master key file {}", path.display()))?;
    parse_master_key(&text).with_context(|| format!("master key file {}", path.display()))
}

/// The key `value` or `file` configure, if either does.
fn configured(
    name: &str,
    value: &Option<Secret>,
    file: &Option<std::path::PathBuf>,
) -> anyhow::Result<Option<[u8; 32]>> {
    if let Some(path) = file {
        return read_file(path).map(Some);
    }
    let Some(value) = value else {
        return Ok(None);
    };
    match reference(value) {
        None => parse_master_key(value.expose())
            .context(name.to_string())
            .map(Some),
        Some(Err(e)) => Err(e).context(name.to_string()),
        Some(Ok(path)) => read_file(&path).context(name.to_string()).map(Some),
    }
}

/// The master key (with the previous one during a rotation), checked
/// against the database (see the module's documentation).
pub async fn load(config: &Config, store: &dyn Store) -> anyhow::Result<MasterKey> {
    let current = match configured("master_key", &config.master_key, &config.master_key_file)? {
        Some(bytes) => bytes,
        None if config.uses_sqlite() => zero_configuration(config)?,
        None => bail!(
            "no master key: on PostgreSQL every node must be given the same master key \
             (RELAY_MASTER_KEY, master_key = \"file:/path\", or master_key_file); \
             it is never generated, since a key in one node's data directory would be lost with it"
        ),
    };
    let mut key = MasterKey::from_bytes(current);
    if let Some(previous) = configured(
        "master_key_previous",
        &config.master_key_previous,
        &config.master_key_previous_file,
    )? {
        key = key.with_previous(previous);
    }
    let mut nonce = [0u8; 24];
    getrandom::fill(&mut nonce)
        .map_err(|e| anyhow::anyhow!("the operating system's random source: {e}"))?;
    let setting = relay_store::reseal::CHECK_SETTING;
    let check = key.seal(nonce, CHECK, setting.as_bytes());
    let stored = store
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move { settings::put_if_absent(&mut x, setting, &check).await })
        })
        .await?;
    if key.open(&stored, setting.as_bytes()).as_deref() != Ok(CHECK) {
        bail!(
            "the master key does not match the one this database's signing keys were sealed with; \
             start with the original master_key (or master_key_file){}",
            if key.has_previous() {
                ", or during a rotation with it as master_key_previous"
            } else {
                ""
            }
        );
    }
    Ok(key)
}

/// SQLite's zero configuration: `<data_dir>/master.key`, generated on first
/// start with a warning to back it up.
fn zero_configuration(config: &Config) -> anyhow::Result<[u8; 32]> {
    let path = config.data_dir.join("master.key");
    if !path.exists() {
        let mut fresh = [0u8; 32];
        getrandom::fill(&mut fresh)
            .map_err(|e| anyhow::anyhow!("the operating system's random source: {e}"))?;
        std::fs::create_dir_all(&config.data_dir)?;
        crate::config::write_private_file(&path, &format!("{}\n", hex::encode(fresh)))
            .with_context(|| format!("cannot write {}", path.display()))?;
        tracing::warn!(path = %path.display(), "generated a new master key; back this file up: without it, signing keys cannot be read");
        eprintln!(
            "Generated a master key in {}. Back it up: without it the signing keys in the database cannot be read.",
            path.display()
        );
    }
    read_file(&path)
}

/// `relay keys rotate-master`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct RotateArgs {
    #[command(flatten)]
    pub flags: crate::config::Flags,
    /// Values re-sealed per transaction.
    #[arg(long, default_value_t = 500)]
    pub batch_size: u32,
    /// Stop after this many batches (the rotation resumes where it stopped
    /// when run again).
    #[arg(long)]
    pub max_batches: Option<u64>,
}

/// Re-seals every sealed value under `master_key`, reading the old ones
/// with `master_key_previous`, a batch per transaction, while Relay serves.
pub async fn rotate_master(config: &Config, args: &RotateArgs) -> anyhow::Result<()> {
    if config.master_key_previous.is_none() && config.master_key_previous_file.is_none() {
        bail!(
            "a rotation needs both keys: master_key (or master_key_file) the new one, \
             master_key_previous (or master_key_previous_file) the one values are sealed with now"
        );
    }
    let store = crate::serve::open_store(config, false).await?;
    let master = load(config, &*store).await?;
    let (mut scanned, mut resealed, mut batches) = (0u64, 0u64, 0u64);
    loop {
        let (key, limit) = (master.clone(), args.batch_size);
        let p = store
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move { relay_store::reseal::batch(&mut x, &key, limit).await })
            })
            .await?;
        scanned += p.scanned;
        resealed += p.resealed;
        batches += 1;
        if p.done {
            println!(
                "Rotation complete: {resealed} of {scanned} sealed values re-sealed under the new master key. \
                 Every node may now drop master_key_previous."
            );
            tracing::info!(scanned, resealed, "master key rotation complete");
            return Ok(());
        }
        if args.max_batches.is_some_and(|max| batches >= max) {
            println!(
                "Stopped after {batches} batch(es): {resealed} of {scanned} values re-sealed so far. \
                 Run `relay keys rotate-master` again to resume; keep master_key_previous on every node until it completes."
            );
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> anyhow::Result<Config> {
        let env: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::load_from(&crate::config::Flags::default(), &env)
    }

    #[test]
    fn a_key_comes_from_a_value_a_variable_or_a_file_and_errors_never_show_it() {
        let key = "5a".repeat(32);
        let c = config(&[("RELAY_MASTER_KEY", &key)]).unwrap();
        let read = |c: &Config| configured("master_key", &c.master_key, &c.master_key_file);
        assert_eq!(read(&c).unwrap(), Some([0x5a; 32]));
        // Not by reference to another variable (it could be in a tenant's grant).
        let err = config(&[("RELAY_MASTER_KEY", "env:ACME_RELAY_KEY")]).unwrap_err();
        assert!(
            format!("{err:#}").contains("env: reference is not accepted"),
            "{err:#}"
        );

        // By reference to a file.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, format!("{key}\n")).unwrap();
        let c = config(&[("RELAY_MASTER_KEY", &format!("file:{}", path.display()))]).unwrap();
        assert_eq!(read(&c).unwrap(), Some([0x5a; 32]));
        assert!(config(&[("RELAY_MASTER_KEY", "file:relative/key")]).is_err());
        // A file it names is one no tenant's reference may read.
        let protected = c.protected_paths();
        assert!(
            protected.iter().any(|p| p == &path.display().to_string()),
            "{protected:?}"
        );

        // A malformed key: the error says what is wrong, never the value.
        let bad = format!("{}zz", "5a".repeat(31));
        let err = config(&[("RELAY_MASTER_KEY", &bad)]).unwrap_err();
        assert!(!format!("{err:#} {err:?}").contains(&bad), "{err:#}");
        let bad_previous = "not a key but a secret-looking value 0123";
        let err = config(&[
            ("RELAY_MASTER_KEY", &key),
            ("RELAY_MASTER_KEY_PREVIOUS", bad_previous),
        ])
        .unwrap_err();
        assert!(
            format!("{err:#}").contains("master_key_previous"),
            "{err:#}"
        );
        assert!(
            !format!("{err:#} {err:?}").contains(bad_previous),
            "{err:#}"
        );

        // A previous key alone, or a key twice, is refused.
        let err = config(&[("RELAY_MASTER_KEY_PREVIOUS", &key)]).unwrap_err();
        assert!(format!("{err:#}").contains("set master_key"), "{err:#}");
        let err = config(&[
            ("RELAY_MASTER_KEY", &key),
            ("RELAY_MASTER_KEY_FILE", "/run/secrets/key"),
        ])
        .unwrap_err();
        assert!(format!("{err:#}").contains("not both"), "{err:#}");
    }
}
