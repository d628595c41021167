use super::layers::KEYS;
use super::secrets::SecretGrant;
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
        "[delivery]\nrecovery_per_second = 5\nmax_recovery_in_flight = 16\nshutdown_grace_seconds = 7\n",
    )
    .unwrap();
    let flags = Flags {
        config: Some(file),
        ..Default::default()
    };
    let c = Config::load_from(&flags, &[]).unwrap();
    assert_eq!(c.delivery.recovery_per_second, 5);
    assert_eq!(c.delivery.max_recovery_in_flight, 16);
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
    assert_eq!(defaults.delivery.max_recovery_in_flight, 384);
    let zero = Config::load_from(
        &Flags::default(),
        &env(&[("RELAY_DELIVERY__MAX_RECOVERY_IN_FLIGHT", "0")]),
    );
    let err = format!("{:#}", zero.expect_err("a cap of 0 is refused"));
    assert!(
        err.contains("max_recovery_in_flight must be at least 1"),
        "{err}"
    );
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
            (
                "RELAY_OPERATOR_TOKEN",
                "rop_supersecret_4f9a2c7e1b3d5f8a0c6e",
            ),
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

/// `relay config check` prints the database URL; whatever way a password
/// is written into it (user information, a query parameter, unescaped
/// characters), the password is not printed.
#[test]
fn a_password_inside_a_url_is_never_printed() {
    for url in [
        "postgres://relay:PWSECRET@db.internal/relay",
        "postgresql://relay:PWSECRET@db.internal:5432/relay?sslmode=require",
        "postgres://:PWSECRET@db.internal/relay",
        "postgres://relay:PW@SECRET@db.internal/relay",
        "postgres://relay:PW/SECRET@db.internal/relay",
        "postgres://relay:PW#SECRET@db.internal/relay",
        "postgres://relay:PW?SECRET@db.internal/relay",
        "postgres://relay@db.internal/relay?password=PWSECRET",
        "postgres://db.internal/relay?user=relay&password=PWSECRET&sslmode=require",
        "postgres://db.internal/relay?sslpassword=PWSECRET",
        "postgres://relay:PWSECRET@db.internal/relay?application_name=a@b",
    ] {
        let c = Config::load_from(&Flags::default(), &env(&[("RELAY_DATABASE_URL", url)]))
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let printed = c.render_redacted();
        assert!(
            !printed.contains("SECRET") && !printed.contains("PW"),
            "{url} printed as:\n{printed}"
        );
        assert!(printed.contains("<redacted>"), "{printed}");
        assert!(!format!("{c:?}").contains("SECRET"));
    }
    // What is not a secret stays readable.
    let plain = super::render::redact_url(
        "postgres://relay:pw@db.internal:5432/relay?sslmode=require&password=x",
    );
    assert_eq!(
        plain,
        "postgres://relay:<redacted>@db.internal:5432/relay?sslmode=require&password=<redacted>"
    );
    assert_eq!(
        super::render::redact_url("sqlite://./relay-data/relay.db"),
        "sqlite://./relay-data/relay.db"
    );
    // `public_url` is printed too: it may not carry credentials at all.
    let err = Config::load_from(
        &Flags::default(),
        &env(&[(
            "RELAY_PUBLIC_URL",
            "https://user:PWSECRET@relay.example.com",
        )]),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("public_url") && !err.contains("SECRET"),
        "{err}"
    );
}

#[test]
fn a_configured_token_must_be_hard_to_guess() {
    for (value, why) in [
        ("rop_short", "too short"),
        (
            "rop_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "too easy to guess",
        ),
        ("abababababababababababababababababab", "too easy to guess"),
        ("rop_with a space_0123456789abcdef0123", "printable ASCII"),
    ] {
        for key in ["RELAY_OPERATOR_TOKEN", "RELAY_METRICS__TOKEN"] {
            let err = Config::load_from(&Flags::default(), &env(&[(key, value)]))
                .map(|_| ())
                .expect_err(value)
                .to_string();
            let name = if key == "RELAY_OPERATOR_TOKEN" {
                "operator_token"
            } else {
                "metrics.token"
            };
            assert!(err.contains(name) && err.contains(why), "{err}");
            assert!(!err.contains(value), "the message quotes the token: {err}");
        }
    }
    // What Relay generates, and what the documentation suggests, pass.
    let generated = relay_api::auth::new_operator_token();
    let hex = "4f9a2c7e1b3d5f8a0c6e4f9a2c7e1b3d5f8a0c6e4f9a2c7e1b3d5f8a0c6e1234";
    for token in [generated.as_str(), hex, &hex[..32]] {
        let c = Config::load_from(
            &Flags::default(),
            &env(&[
                ("RELAY_OPERATOR_TOKEN", token),
                ("RELAY_METRICS__TOKEN", token),
            ]),
        )
        .unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(c.operator_token.as_ref().map(Secret::expose), Some(token));
    }
}

#[test]
fn server_and_metrics_settings_load_and_are_checked() {
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    let s = defaults.server.settings();
    assert_eq!(s.header_read_timeout.as_secs(), 10);
    assert_eq!(s.body_read_timeout.as_secs(), 30);
    assert_eq!(s.response_write_timeout.as_secs(), 30);
    assert_eq!(s.idle_timeout.as_secs(), 60);
    assert_eq!(s.max_connections, 1024);
    assert_eq!(s.shutdown_drain.as_secs(), 10);
    let access = defaults.api_settings().metrics;
    assert!(!access.separate_listener && access.token_sha256.is_none());

    let c = Config::load_from(
        &Flags::default(),
        &env(&[
            ("RELAY_SERVER__HEADER_READ_TIMEOUT_SECONDS", "3"),
            ("RELAY_SERVER__BODY_READ_TIMEOUT_SECONDS", "4"),
            ("RELAY_SERVER__RESPONSE_WRITE_TIMEOUT_SECONDS", "5"),
            ("RELAY_SERVER__IDLE_TIMEOUT_SECONDS", "6"),
            ("RELAY_SERVER__MAX_CONNECTIONS", "7"),
            ("RELAY_SERVER__SHUTDOWN_DRAIN_SECONDS", "0"),
            ("RELAY_METRICS__LISTEN", "127.0.0.1:9090"),
            (
                "RELAY_METRICS__TOKEN",
                "mtr_4f9a2c7e1b3d5f8a0c6e4f9a2c7e1b3d",
            ),
        ]),
    )
    .unwrap();
    let api = c.api_settings();
    let s = &api.server;
    assert_eq!(
        (
            s.header_read_timeout.as_secs(),
            s.body_read_timeout.as_secs(),
            s.response_write_timeout.as_secs(),
            s.idle_timeout.as_secs(),
            s.max_connections,
            s.shutdown_drain.as_secs()
        ),
        (3, 4, 5, 6, 7, 0)
    );
    assert!(api.metrics.separate_listener);
    assert_eq!(
        api.metrics.token_sha256,
        Some(relay_api::auth::token_digest(
            "mtr_4f9a2c7e1b3d5f8a0c6e4f9a2c7e1b3d"
        ))
    );
    let printed = c.render_redacted();
    assert!(printed.contains("listen = \"127.0.0.1:9090\""), "{printed}");
    assert!(!printed.contains("mtr_4f9a"), "{printed}");
    assert!(!format!("{c:?}").contains("mtr_4f9a"));

    for (k, v) in [
        ("RELAY_SERVER__HEADER_READ_TIMEOUT_SECONDS", "0"),
        ("RELAY_SERVER__BODY_READ_TIMEOUT_SECONDS", "0"),
        ("RELAY_SERVER__RESPONSE_WRITE_TIMEOUT_SECONDS", "0"),
        ("RELAY_SERVER__IDLE_TIMEOUT_SECONDS", "0"),
        ("RELAY_SERVER__MAX_CONNECTIONS", "0"),
        ("RELAY_SERVER__MAX_CONNECTIONS", "1000001"),
        ("RELAY_SERVER__SHUTDOWN_DRAIN_SECONDS", "3601"),
        ("RELAY_METRICS__LISTEN", "nowhere"),
        ("RELAY_METRICS__LISTEN", "127.0.0.1:8080"),
    ] {
        let err = Config::load_from(&Flags::default(), &env(&[(k, v)]));
        assert!(err.is_err(), "{k}={v} should be rejected");
    }
}

#[test]
fn telemetry_is_off_by_default_and_its_endpoint_is_checked_and_never_printed_whole() {
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    assert!(defaults.telemetry.endpoint().is_none());
    assert_eq!(defaults.telemetry.service_name, "relay");
    assert!(!defaults.metrics.tenant_labels);
    let c = Config::load_from(
        &Flags::default(),
        &env(&[
            (
                "RELAY_TELEMETRY__OTLP_ENDPOINT",
                "https://otlp.example/v1/traces?api_key=otl_s3cr3t_value",
            ),
            ("RELAY_TELEMETRY__SERVICE_NAME", "relay-eu"),
            ("RELAY_METRICS__TENANT_LABELS", "true"),
        ]),
    )
    .unwrap();
    assert!(c.telemetry.endpoint().is_some());
    assert!(c.metrics.tenant_labels);
    let printed = c.render_redacted();
    assert!(printed.contains("otlp.example"), "{printed}");
    assert!(printed.contains("service_name = \"relay-eu\""), "{printed}");
    assert!(!printed.contains("otl_s3cr3t"), "{printed}");
    assert!(!format!("{c:?}").contains("otl_s3cr3t"));
    for bad in [
        "ftp://otlp.example/v1/traces",
        "http://u:p@otlp.example/v1/traces",
    ] {
        let e = Config::load_from(
            &Flags::default(),
            &env(&[("RELAY_TELEMETRY__OTLP_ENDPOINT", bad)]),
        )
        .unwrap_err();
        assert!(
            format!("{e:#}").contains("telemetry.otlp_endpoint"),
            "{e:#}"
        );
        assert!(!format!("{e:#}").contains(":p@"), "{e:#}");
    }
}

#[test]
fn store_settings_load_check_and_print() {
    let c = Config::load_from(&Flags::default(), &[]).unwrap();
    assert_eq!(c.store.settings(), relay_store::StoreSettings::default());
    let c = Config::load_from(
        &Flags::default(),
        &env(&[
            ("RELAY_STORE__POOL_SIZE", "40"),
            ("RELAY_STORE__CONNECT_TIMEOUT_SECONDS", "5"),
            ("RELAY_STORE__STATEMENT_TIMEOUT_SECONDS", "30"),
        ]),
    )
    .unwrap();
    let s = c.store.settings();
    assert_eq!(s.pool_size, 40);
    assert_eq!(s.connect_timeout, std::time::Duration::from_secs(5));
    assert_eq!(
        s.statement_timeout,
        Some(std::time::Duration::from_secs(30))
    );
    let printed = c.render_redacted();
    let section = printed
        .split("[store]\n")
        .nth(1)
        .expect("a [store] section");
    for line in [
        "pool_size = 40",
        "connect_timeout_seconds = 5",
        "statement_timeout_seconds = 30",
    ] {
        // (each line ends with where its value came from: `  # env …`)
        assert!(
            section
                .lines()
                .any(|l| l.split("  # ").next() == Some(line)),
            "{line}: {printed}"
        );
    }
    for (k, v, why) in [
        ("RELAY_STORE__POOL_SIZE", "1", "store.pool_size"),
        (
            "RELAY_STORE__CONNECT_TIMEOUT_SECONDS",
            "0",
            "store.connect_timeout_seconds",
        ),
        (
            "RELAY_STORE__STATEMENT_TIMEOUT_SECONDS",
            "86401",
            "store.statement_timeout_seconds",
        ),
    ] {
        let e = Config::load_from(&Flags::default(), &env(&[(k, v)])).unwrap_err();
        assert!(e.to_string().contains(why), "{k}={v}: {e}");
    }
    let e = Config::load_from(&Flags::default(), &env(&[("RELAY_STORE__POOL", "4")])).unwrap_err();
    assert!(e.to_string().contains("store.pool"), "{e}");
}

#[test]
fn a_tls_database_url_prints_its_files_but_hides_the_key_and_password() {
    let url = "postgres://relay:PWSECRET@db.internal/relay?sslmode=verify-full\
               &sslrootcert=/etc/relay/ca.pem&sslcert=/etc/relay/c.crt&sslkey=/etc/relay/c.key";
    let c = Config::load_from(&Flags::default(), &env(&[("RELAY_DATABASE_URL", url)])).unwrap();
    let printed = c.render_redacted();
    assert!(
        printed.contains(
            "postgres://relay:<redacted>@db.internal/relay?sslmode=verify-full\
             &sslrootcert=/etc/relay/ca.pem&sslcert=/etc/relay/c.crt&sslkey=<redacted>"
        ),
        "{printed}"
    );
    assert!(!printed.contains("PWSECRET") && !printed.contains("c.key"));
}

#[test]
fn the_shutdown_delay_is_off_by_default_and_bounded() {
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    assert!(defaults.server.shutdown_delay().is_zero());
    let c = Config::load_from(
        &Flags::default(),
        &env(&[("RELAY_SERVER__SHUTDOWN_DELAY_SECONDS", "10")]),
    )
    .unwrap();
    assert_eq!(c.server.shutdown_delay().as_secs(), 10);
    assert!(
        c.render_redacted().contains("shutdown_delay_seconds = 10"),
        "{}",
        c.render_redacted()
    );
    let err = Config::load_from(
        &Flags::default(),
        &env(&[("RELAY_SERVER__SHUTDOWN_DELAY_SECONDS", "3601")]),
    )
    .unwrap_err();
    assert!(
        format!("{err:#}").contains("server.shutdown_delay_seconds"),
        "{err:#}"
    );
}

/// A lease shorter than an attempt can take (the request timeout, the 2 s a
/// kind may wait beyond it, the 5 s margin) is refused, saying so; the
/// defaults (60 s against 20 + 2 + 5) pass.
#[test]
fn a_lease_shorter_than_an_attempt_can_take_is_refused() {
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    assert_eq!(defaults.delivery.lease_seconds, 60);
    assert_eq!(defaults.delivery.request_timeout_seconds, 20);
    let load = |lease: &str, timeout: Option<&str>| {
        let mut vars = vec![("RELAY_DELIVERY__LEASE_SECONDS", lease)];
        if let Some(t) = timeout {
            vars.push(("RELAY_DELIVERY__REQUEST_TIMEOUT_SECONDS", t));
        }
        Config::load_from(&Flags::default(), &env(&vars))
    };
    let e = format!("{:#}", load("26", None).unwrap_err());
    assert!(
        e.contains("delivery.lease_seconds is 26, but must be at least 27")
            && e.contains("delivery.request_timeout_seconds (20 s)")
            && e.contains("another node would send the message again"),
        "{e}"
    );
    assert_eq!(load("27", None).unwrap().delivery.lease_seconds, 27);
    // A shorter request timeout allows a shorter lease.
    let c = load("12", Some("5")).unwrap();
    assert_eq!(c.delivery.request_timeout_seconds, 5);
    let e = format!("{:#}", load("11", Some("5")).unwrap_err());
    assert!(e.contains("must be at least 12"), "{e}");
    let e = format!("{:#}", load("60", Some("0")).unwrap_err());
    assert!(
        e.contains("delivery.request_timeout_seconds must be at least 1"),
        "{e}"
    );
    // And a long request timeout needs a longer lease than the default.
    let e = format!("{:#}", load("60", Some("60")).unwrap_err());
    assert!(e.contains("must be at least 67"), "{e}");
}

/// `[server] role` from each layer, `relay serve --role` over all of them,
/// and every invalid name refused with the key and the names that exist.
#[test]
fn the_role_is_all_by_default_and_the_flag_overrides_file_and_environment() {
    use relay_api::Role;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("relay.toml");
    std::fs::write(&file, "[server]\nrole = \"worker\"\n").unwrap();
    let with_file = |role: Option<&str>| Flags {
        config: Some(file.clone()),
        role: role.map(str::to_string),
        ..Default::default()
    };
    let flag = |role: &str| Flags {
        role: Some(role.to_string()),
        ..Default::default()
    };
    /// Flags, environment, the role, where it came from.
    type Case<'a> = (Flags, Vec<(&'a str, &'a str)>, Role, &'a str);
    let cases: Vec<Case> = vec![
        (Flags::default(), vec![], Role::All, "# default"),
        (flag("all"), vec![], Role::All, "# flag --role"),
        (flag("api"), vec![], Role::Api, "# flag --role"),
        (flag("worker"), vec![], Role::Worker, "# flag --role"),
        (
            Flags::default(),
            vec![("RELAY_SERVER__ROLE", "api")],
            Role::Api,
            "# env RELAY_SERVER__ROLE",
        ),
        (with_file(None), vec![], Role::Worker, "# file "),
        (
            with_file(None),
            vec![("RELAY_SERVER__ROLE", "api")],
            Role::Api,
            "# env RELAY_SERVER__ROLE",
        ),
        (
            with_file(Some("api")),
            vec![("RELAY_SERVER__ROLE", "all")],
            Role::Api,
            "# flag --role",
        ),
        (with_file(Some("all")), vec![], Role::All, "# flag --role"),
    ];
    for (i, (flags, vars, want, source)) in cases.into_iter().enumerate() {
        let c =
            Config::load_from(&flags, &env(&vars)).unwrap_or_else(|e| panic!("case {i}: {e:#}"));
        assert_eq!(c.server.role, want, "case {i}");
        assert_eq!(c.api_settings().role, want, "case {i}");
        let printed = c.render_redacted();
        let line = printed
            .lines()
            .find(|l| l.starts_with("role = "))
            .unwrap_or_else(|| panic!("case {i}: no role line in\n{printed}"));
        assert!(
            line.starts_with(&format!("role = \"{want}\"")) && line.contains(source),
            "case {i}: {line}"
        );
    }
}

#[test]
fn an_invalid_role_is_a_configuration_error_naming_the_key_and_the_roles() {
    for bad in ["", "API", "Worker", "both", "api,worker", " all", "workers"] {
        let from_flag = Config::load_from(
            &Flags {
                role: Some(bad.to_string()),
                ..Default::default()
            },
            &[],
        );
        let from_env = Config::load_from(&Flags::default(), &env(&[("RELAY_SERVER__ROLE", bad)]));
        for (layer, result) in [("flag", from_flag), ("env", from_env)] {
            let err = format!(
                "{:#}",
                result.expect_err(&format!("{layer} {bad:?} accepted"))
            );
            assert!(
                err.contains("server.role must be one of \"all\", \"api\", \"worker\""),
                "{layer} {bad:?}: {err}"
            );
            assert!(err.contains(&format!("{bad:?}")), "{layer} {bad:?}: {err}");
        }
    }
    // Not a string at all, in a file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("relay.toml");
    std::fs::write(&file, "[server]\nrole = 1\n").unwrap();
    let err = Config::load_from(
        &Flags {
            config: Some(file),
            ..Default::default()
        },
        &[],
    )
    .unwrap_err();
    assert!(
        format!("{err:#}").contains("invalid configuration"),
        "{err:#}"
    );
    // A key of its own in [server], nowhere else.
    let err = Config::load_from(&Flags::default(), &env(&[("RELAY_ROLE", "api")])).unwrap_err();
    assert!(
        format!("{err:#}").contains("unknown configuration key `role`"),
        "{err:#}"
    );
}

#[test]
fn the_aws_identity_is_checked_and_never_printed() {
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    let clock: std::sync::Arc<dyn relay_core::time::Clock> =
        std::sync::Arc::new(relay_core::time::ManualClock::default());
    let guard = relay_net::Guard::from_config(&Default::default()).unwrap();
    assert!(defaults.aws.installation(clock.clone(), &guard).is_none());
    let secret = "aws-external-id-secret-0123456789abcdef";
    let keys = [
        ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
        ("RELAY_AWS__ACCESS_KEY_ID", "AKIARELAYINSTALLATION"),
        (
            "RELAY_AWS__SECRET_ACCESS_KEY",
            "aws-secret-access-key-value",
        ),
    ];
    let c = Config::load_from(&Flags::default(), &env(&keys)).unwrap();
    let printed = format!("{} {c:?}", c.render_redacted());
    for (_, value) in keys {
        assert!(!printed.contains(value), "{printed}");
    }
    assert!(printed.contains("RELAY_AWS__ACCESS_KEY_ID"), "{printed}");
    let installation = c
        .aws
        .installation(clock.clone(), &guard)
        .expect("configured");
    assert!(installation.principal().is_none());
    let web = Config::load_from(
        &Flags::default(),
        &env(&[
            ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
            (
                "RELAY_AWS__WEB_IDENTITY_TOKEN_FILE",
                "/var/run/secrets/token",
            ),
            (
                "RELAY_AWS__ROLE_ARN",
                "arn:aws:iam::123456789012:role/relay",
            ),
        ]),
    )
    .unwrap();
    assert_eq!(
        web.aws
            .installation(clock.clone(), &guard)
            .unwrap()
            .principal(),
        Some("arn:aws:iam::123456789012:role/relay")
    );
    // The link-local sources: instance metadata at its default address,
    // container credentials at ECS's or EKS's.
    for source in [
        vec![("RELAY_AWS__CREDENTIAL_SOURCE", "instance_metadata")],
        vec![
            ("RELAY_AWS__CREDENTIAL_SOURCE", "container"),
            (
                "RELAY_AWS__CONTAINER_CREDENTIALS_URL",
                "http://169.254.170.23/v1/credentials",
            ),
            (
                "RELAY_AWS__CONTAINER_TOKEN_FILE",
                "/var/run/secrets/pods.eks.amazonaws.com/serviceaccount/eks-pod-identity-token",
            ),
        ],
    ] {
        let mut vars = source.clone();
        vars.push(("RELAY_AWS__EXTERNAL_ID_SECRET", secret));
        let c = Config::load_from(&Flags::default(), &env(&vars)).unwrap();
        let i = c.aws.installation(clock.clone(), &guard).expect("a source");
        assert!(i.principal().is_none());
        let shown = format!("{i:?}");
        assert!(shown.contains("169.254.1"), "{shown}");
        assert!(!shown.contains(secret), "{shown}");
    }
    for (bad, says) in [
        (
            vec![
                ("RELAY_AWS__ACCESS_KEY_ID", "AKIA"),
                ("RELAY_AWS__SECRET_ACCESS_KEY", "s"),
            ],
            "external_id_secret",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", "short"),
                ("RELAY_AWS__ACCESS_KEY_ID", "AKIA"),
                ("RELAY_AWS__SECRET_ACCESS_KEY", "s"),
            ],
            "at least 32",
        ),
        (
            vec![("RELAY_AWS__EXTERNAL_ID_SECRET", secret)],
            "needs an identity",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__ACCESS_KEY_ID", "AKIA"),
            ],
            "go together",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__ACCESS_KEY_ID", "AKIA"),
                ("RELAY_AWS__SECRET_ACCESS_KEY", "s"),
                ("RELAY_AWS__ROLE_ARN", "arn:aws:iam::123456789012:role/r"),
            ],
            "give one identity",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__ACCESS_KEY_ID", "AKIA"),
                ("RELAY_AWS__SECRET_ACCESS_KEY", "s"),
                ("RELAY_AWS__CREDENTIAL_SOURCE", "instance_metadata"),
            ],
            "give one identity",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__CREDENTIAL_SOURCE", "container"),
            ],
            "needs aws.container_credentials_url",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__CREDENTIAL_SOURCE", "container"),
                (
                    "RELAY_AWS__CONTAINER_CREDENTIALS_URL",
                    "http://creds.internal.example/v1",
                ),
            ],
            "must not cross a network in clear",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__CREDENTIAL_SOURCE", "instance_metadata"),
                ("RELAY_AWS__CONTAINER_TOKEN_FILE", "/t"),
            ],
            "go with aws.credential_source",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__CREDENTIAL_SOURCE", "instance_metadata"),
                ("RELAY_AWS__METADATA_ENDPOINT", "ftp://169.254.169.254"),
            ],
            "aws.metadata_endpoint",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__WEB_IDENTITY_TOKEN_FILE", "/t"),
                ("RELAY_AWS__ROLE_ARN", "arn:aws:iam::1:role/r"),
            ],
            "not a role ARN",
        ),
        (
            vec![
                ("RELAY_AWS__EXTERNAL_ID_SECRET", secret),
                ("RELAY_AWS__ACCESS_KEY_ID", "AKIA"),
                ("RELAY_AWS__SECRET_ACCESS_KEY", "s"),
                ("RELAY_AWS__STS_ENDPOINT", "http://sts.example"),
            ],
            "https://",
        ),
    ] {
        let e = Config::load_from(&Flags::default(), &env(&bad)).unwrap_err();
        let text = format!("{e:#}");
        assert!(text.contains(says), "{bad:?}: {text}");
        assert!(!text.contains(secret), "{text}");
    }
}

#[test]
fn the_gcp_workload_identity_is_offered_only_for_the_projects_listed() {
    let clock: std::sync::Arc<dyn relay_core::time::Clock> =
        std::sync::Arc::new(relay_core::time::ManualClock::default());
    let guard = relay_net::Guard::from_config(&Default::default()).unwrap();
    let defaults = Config::load_from(&Flags::default(), &[]).unwrap();
    assert!(defaults.gcp.installation(clock.clone(), &guard).is_none());
    let c = Config::load_from(
        &Flags::default(),
        &env(&[
            ("RELAY_GCP__WORKLOAD_IDENTITY", "true"),
            ("RELAY_GCP__PROJECTS", "team-a-prod,team-b-prod"),
        ]),
    )
    .unwrap();
    assert_eq!(c.gcp.metadata_endpoint, "http://169.254.169.254");
    let i = c.gcp.installation(clock, &guard).expect("offered");
    assert!(i.allows("team-a-prod") && i.allows("team-b-prod"));
    assert!(!i.allows("team-c-prod"));
    assert!(c.render_redacted().contains("team-b-prod"));
    for (bad, says) in [
        (
            vec![("RELAY_GCP__WORKLOAD_IDENTITY", "true")],
            "needs gcp.projects",
        ),
        (
            vec![("RELAY_GCP__PROJECTS", "team-a-prod")],
            "goes with gcp.workload_identity",
        ),
        (
            vec![
                ("RELAY_GCP__WORKLOAD_IDENTITY", "true"),
                ("RELAY_GCP__PROJECTS", "Not A Project"),
            ],
            "is not a project id",
        ),
        (
            vec![
                ("RELAY_GCP__WORKLOAD_IDENTITY", "true"),
                ("RELAY_GCP__PROJECTS", "team-a-prod"),
                ("RELAY_GCP__METADATA_ENDPOINT", "file:///etc/passwd"),
            ],
            "gcp.metadata_endpoint",
        ),
    ] {
        let e = Config::load_from(&Flags::default(), &env(&bad)).unwrap_err();
        assert!(format!("{e:#}").contains(says), "{bad:?}: {e:#}");
    }
}
