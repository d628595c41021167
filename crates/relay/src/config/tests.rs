use super::layers::KEYS;
use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_need_no_configuration() {
    let c = Config::load_from(&Flags::default(), &[]).unwrap();
    assert_eq!(c.listen, "127.0.0.1:8080");
    assert_eq!(c.database_url(), "sqlite://./relay-data/relay.db");
    assert!(c.uses_sqlite());
}

#[test]
fn layers_apply_in_order_file_env_flags() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("relay.toml");
    std::fs::write(
        &file,
        "listen = \"127.0.0.1:1000\"\ndata_dir = \"/from/file\"\n[limits]\nendpoints_per_tenant = 7\n[outbound]\nallow_ports = [8443]\n",
    )
    .unwrap();
    let flags = Flags {
        config: Some(file.clone()),
        listen: Some("127.0.0.1:3000".into()),
        ..Default::default()
    };
    let c = Config::load_from(
        &flags,
        &env(&[
            ("RELAY_LISTEN", "127.0.0.1:2000"),
            ("RELAY_DATA_DIR", "/from/env"),
            ("RELAY_LIMITS__ENDPOINTS_PER_CONSUMER", "3"),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.0/8"),
            ("RELAY_TEST_POSTGRES_URL", "postgres://ignored"),
            ("RELAY_CONFIG", "ignored-here"),
            ("HOME", "/root"),
        ]),
    )
    .unwrap();
    assert_eq!(c.listen, "127.0.0.1:3000", "flags win");
    assert_eq!(
        c.data_dir,
        PathBuf::from("/from/env"),
        "environment beats file"
    );
    assert_eq!(c.limits.endpoints_per_tenant, 7, "file beats defaults");
    assert_eq!(
        c.limits.endpoints_per_consumer, 3,
        "numbers from the environment"
    );
    assert_eq!(c.outbound.allow_ports, vec![8443]);
    assert_eq!(c.outbound.allow_cidrs, vec!["127.0.0.0/8".to_string()]);
}

/// Every setting `docs/configuration.md` lists is a key the loader
/// accepts, from a file and from the environment, and every key it
/// accepts is listed there.
#[test]
fn documented_settings_are_the_known_keys() {
    let doc = include_str!("../../../../docs/configuration.md");
    let mut documented: Vec<(String, String)> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split_once('`').map(|(name, _)| name))
        .filter_map(|name| match name.strip_prefix('[') {
            Some(rest) => rest
                .split_once("] ")
                .map(|(section, key)| (section.to_string(), key.to_string())),
            None => Some((String::new(), name.to_string())),
        })
        .filter(|(_, key)| key.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect();
    documented.sort();
    let mut known: Vec<(String, String)> = KEYS
        .iter()
        .flat_map(|(section, keys)| keys.iter().map(|k| (section.to_string(), k.to_string())))
        .filter(|(section, key)| {
            // A section's own name among the top-level keys.
            !(section.is_empty() && KEYS.iter().any(|(s, _)| s == key))
        })
        .collect();
    known.sort();
    assert_eq!(documented, known, "docs/configuration.md against KEYS");
    let c = Config::default();
    let rendered = c.render_redacted();
    for (section, key) in &known {
        if section.is_empty() {
            continue;
        }
        assert!(
            rendered.contains(&format!("{key} = ")),
            "`{section}.{key}` is not printed by `config check`"
        );
    }
}

#[test]
fn delivery_settings_load_from_a_file_and_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("relay.toml");
    std::fs::write(
        &file,
        "[delivery]\nrecovery_per_second = 5\nshutdown_grace_seconds = 7\n",
    )
    .unwrap();
    let flags = Flags {
        config: Some(file),
        ..Default::default()
    };
    let c = Config::load_from(&flags, &[]).unwrap();
    assert_eq!(c.delivery.recovery_per_second, 5);
    assert_eq!(c.delivery.shutdown_grace_seconds, 7);
    let c = Config::load_from(
        &Flags::default(),
        &env(&[
            ("RELAY_DELIVERY__RECOVERY_PER_SECOND", "0"),
            ("RELAY_DELIVERY__SHUTDOWN_GRACE_SECONDS", "0"),
        ]),
    )
    .unwrap();
    assert_eq!(c.delivery.recovery_per_second, 0);
    assert_eq!(c.delivery.shutdown_grace_seconds, 0);
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    assert_eq!(defaults.delivery.shutdown_grace_seconds, 25);
}

#[test]
fn unknown_keys_are_errors_naming_the_key() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("relay.toml");
    std::fs::write(&file, "[outbound]\nallow_port = [1]\n").unwrap();
    let flags = Flags {
        config: Some(file),
        ..Default::default()
    };
    let err = Config::load_from(&flags, &[]).unwrap_err().to_string();
    assert!(err.contains("outbound.allow_port"), "{err}");
    std::fs::write(dir.path().join("x.toml"), "listn = \"x\"\n").unwrap();
    let flags = Flags {
        config: Some(dir.path().join("x.toml")),
        ..Default::default()
    };
    let err = Config::load_from(&flags, &[]).unwrap_err().to_string();
    assert!(err.contains("`listn`"), "{err}");
    let err = Config::load_from(&Flags::default(), &env(&[("RELAY_LISTN", "x")]))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`listn`") && err.contains("environment"),
        "{err}"
    );
    let err = Config::load_from(
        &Flags::default(),
        &env(&[("RELAY_RETRY__MAX_ATTEMPT", "3")]),
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("retry.max_attempt"), "{err}");
}

#[test]
fn bad_values_are_errors() {
    for (k, v) in [
        ("RELAY_LISTEN", "nowhere"),
        ("RELAY_DATABASE_URL", "mysql://x"),
        ("RELAY_LIMITS__ENDPOINTS_PER_TENANT", "many"),
        ("RELAY_OUTBOUND__ALLOW_CIDRS", "not-a-cidr"),
        ("RELAY_MASTER_KEY", "short"),
        ("RELAY_RETRY__MAX_ATTEMPTS", "0"),
        ("RELAY_DELIVERY__LEASE_SECONDS", "4"),
    ] {
        assert!(
            Config::load_from(&Flags::default(), &env(&[(k, v)])).is_err(),
            "{k}={v} should be rejected"
        );
    }
}

#[test]
fn secrets_are_redacted_when_printed() {
    let c = Config::load_from(
        &Flags::default(),
        &env(&[
            ("RELAY_OPERATOR_TOKEN", "rop_supersecret"),
            ("RELAY_MASTER_KEY", &"ab".repeat(32)),
            (
                "RELAY_DATABASE_URL",
                "postgres://relay:hunter2@db.internal/relay",
            ),
        ]),
    )
    .unwrap();
    let printed = c.render_redacted();
    let debug = format!("{c:?}");
    for secret in ["rop_supersecret", &"ab".repeat(32), "hunter2"] {
        assert!(!printed.contains(secret), "{printed}");
        assert!(!debug.contains(secret), "{debug}");
    }
    assert!(
        printed.contains("postgres://relay:<redacted>@db.internal/relay"),
        "{printed}"
    );
}

#[test]
fn master_keys_take_hex_or_base64() {
    assert!(parse_master_key(&"0f".repeat(32)).is_ok());
    assert!(parse_master_key("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=").is_ok());
    assert!(parse_master_key("AAAA").is_err());
}

/// Loads `text` as the configuration file `dir/relay.toml`, with `env`.
fn load_file(
    dir: &std::path::Path,
    text: &str,
    flags: Flags,
    env_pairs: &[(&str, &str)],
) -> anyhow::Result<Config> {
    let file = dir.join("relay.toml");
    std::fs::write(&file, text).unwrap();
    Config::load_from(
        &Flags {
            config: Some(file),
            ..flags
        },
        &env(env_pairs),
    )
}

const TEN_A: &str = "ten_01JD0000000000000000000000";

#[test]
fn the_secret_policy_grants_per_tenant_and_refuses_what_would_expose_relay_itself() {
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    let policy = defaults.secrets.policy(Vec::new());
    assert!(
        policy.grants.is_empty(),
        "env: and file: are granted to no tenant by default"
    );
    assert_eq!(defaults.secrets.refresh_seconds, 30);

    let dir = tempfile::tempdir().unwrap();
    let grants = format!(
        "[secrets]\nrefresh_seconds = 5\n\n[[secrets.grants]]\ntenant = \"{TEN_A}\"\nenv_prefixes = [\"ACME_\"]\nfile_dirs = [\"/run/secrets/acme\"]\n"
    );
    let c = load_file(dir.path(), &grants, Flags::default(), &[]).unwrap();
    assert_eq!(
        c.secrets.grants,
        [SecretGrant {
            tenant: TEN_A.into(),
            env_prefixes: vec!["ACME_".into()],
            file_dirs: vec!["/run/secrets/acme".into()],
        }]
    );
    assert_eq!(c.secrets.refresh_seconds, 5);
    let protected = c.protected_paths();
    let file = std::path::absolute(dir.path().join("relay.toml")).unwrap();
    assert!(
        protected.contains(&file.display().to_string()),
        "the configuration file is protected: {protected:?}"
    );
    let policy = c.secrets.policy(protected);
    assert_eq!(policy.file_dirs(TEN_A), ["/run/secrets/acme"]);
    assert!(
        policy
            .file_dirs("ten_01JD0000000000000000000001")
            .is_empty()
    );
    let printed = c.render_redacted();
    assert!(printed.contains("[[secrets.grants]]"), "{printed}");
    assert!(printed.contains(TEN_A), "{printed}");

    // The installation-wide keys of earlier versions are refused, with
    // the way to grant instead.
    for (k, v) in [
        ("RELAY_SECRETS__ALLOW_ENV_PREFIXES", "APP_"),
        ("RELAY_SECRETS__ALLOW_FILE_DIRS", "/run/secrets"),
    ] {
        let e = Config::load_from(&Flags::default(), &env(&[(k, v)])).unwrap_err();
        assert!(format!("{e:#}").contains("[[secrets.grants]]"), "{e:#}");
    }

    let grant = |prefix: &str, dirs: &str| {
        format!(
            "[[secrets.grants]]\ntenant = \"{TEN_A}\"\nenv_prefixes = [{prefix}]\nfile_dirs = [{dirs}]\n"
        )
    };
    let refused = [
        grant("\"RELAY_\"", ""),
        grant("\"REL\"", ""),
        grant("\"RELAY_MASTER\"", ""),
        grant("\"\"", ""),
        grant("", "\"relative/dir\""),
        grant("", "\"/run/../etc\""),
        grant("", "\"/\""),
        "[[secrets.grants]]\ntenant = \"acme\"\nenv_prefixes = [\"ACME_\"]\n".to_string(),
        "[[secrets.grants]]\nenv_prefixes = [\"ACME_\"]\n".to_string(),
        "[secrets]\nrefresh_seconds = 0\n".to_string(),
    ];
    for text in refused {
        assert!(
            load_file(dir.path(), &text, Flags::default(), &[]).is_err(),
            "{text} should be refused"
        );
    }
    // A directory holding the configuration file, the data directory or
    // the master key file, as written or through a symbolic link.
    let here = dir.path().display().to_string();
    let holds_config = load_file(
        dir.path(),
        &grant("", &format!("{here:?}")),
        Flags {
            data_dir: Some("/var/lib/relay-elsewhere".into()),
            ..Default::default()
        },
        &[],
    );
    assert!(holds_config.is_err());
    let other = tempfile::tempdir().unwrap();
    let holds_data = load_file(
        dir.path(),
        &grant("", &format!("{:?}", other.path().display().to_string())),
        Flags {
            data_dir: Some(other.path().join("data")),
            ..Default::default()
        },
        &[],
    );
    assert!(holds_data.is_err());
    let link = other.path().join("link");
    std::os::unix::fs::symlink(dir.path(), &link).unwrap();
    let through_link = load_file(
        dir.path(),
        &grant("", &format!("{:?}", link.display().to_string())),
        Flags {
            data_dir: Some("/var/lib/relay-elsewhere".into()),
            ..Default::default()
        },
        &[],
    );
    assert!(
        through_link.is_err(),
        "the link leads to the config's directory"
    );
    let holds_key = load_file(
        other.path(),
        &grant("", "\"/run/secrets\""),
        Flags {
            data_dir: Some("/var/lib/relay-elsewhere".into()),
            ..Default::default()
        },
        &[("RELAY_MASTER_KEY_FILE", "/run/secrets/master.key")],
    );
    assert!(holds_key.is_err());
    let fine = load_file(
        other.path(),
        &grant("\"ACME_\"", "\"/run/secrets/acme\""),
        Flags {
            data_dir: Some("/var/lib/relay-elsewhere".into()),
            ..Default::default()
        },
        &[("RELAY_MASTER_KEY_FILE", "/run/secrets/master.key")],
    );
    assert!(fine.is_ok(), "{fine:?}");
}
