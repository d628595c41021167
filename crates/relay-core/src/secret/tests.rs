use super::*;

#[test]
fn references_parse_and_print_back() {
    let ok: &[(&str, SecretRef)] = &[
        ("secret:redis", SecretRef::Secret("redis".into())),
        ("secret:a", SecretRef::Secret("a".into())),
        (
            "secret:Prod.redis-pw_2",
            SecretRef::Secret("Prod.redis-pw_2".into()),
        ),
        ("secret:9lives", SecretRef::Secret("9lives".into())),
        (
            "env:RELAY_SECRET_X",
            SecretRef::Env("RELAY_SECRET_X".into()),
        ),
        ("env:_x1", SecretRef::Env("_x1".into())),
        (
            "file:/etc/relay/pw",
            SecretRef::File("/etc/relay/pw".into()),
        ),
        ("file:/pw", SecretRef::File("/pw".into())),
        ("file:/a/.hidden", SecretRef::File("/a/.hidden".into())),
    ];
    for (text, want) in ok {
        let got = SecretRef::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(&got, want, "{text}");
        assert_eq!(got.to_string(), *text);
        let json = serde_json::to_string(&got).unwrap();
        assert_eq!(json, format!("\"{text}\""));
        assert_eq!(serde_json::from_str::<SecretRef>(&json).unwrap(), got);
    }
    let long_name = format!("secret:{}", "n".repeat(MAX_NAME));
    assert!(SecretRef::parse(&long_name).is_ok());
    let long_path = format!("file:/{}", "p".repeat(MAX_PATH - 1));
    assert!(SecretRef::parse(&long_path).is_ok());
}

#[test]
fn malformed_references_are_refused_with_their_reason() {
    let bad: &[(&str, RefError)] = &[
        ("", RefError::Scheme),
        ("hunter2", RefError::Scheme),
        ("SECRET:x", RefError::Scheme),
        ("vault:x", RefError::Scheme),
        (" secret:x", RefError::Scheme),
        ("secret:", RefError::Name),
        ("secret:-x", RefError::Name),
        ("secret:.x", RefError::Name),
        ("secret:a b", RefError::Name),
        ("secret:a/b", RefError::Name),
        ("secret:é", RefError::Name),
        ("env:", RefError::EnvName),
        ("env:1X", RefError::EnvName),
        ("env:A-B", RefError::EnvName),
        ("env:A=B", RefError::EnvName),
        ("file:", RefError::Path),
        ("file:/", RefError::Path),
        ("file:relative/pw", RefError::Path),
        ("file:/etc/../root/pw", RefError::Path),
        ("file:/etc/./pw", RefError::Path),
        ("file:/etc//pw", RefError::Path),
        ("file:/etc/relay/", RefError::Path),
        ("file:/etc/p\0w", RefError::Path),
    ];
    for (text, want) in bad {
        assert_eq!(SecretRef::parse(text), Err(*want), "{text:?}");
    }
    let long_name = format!("secret:{}", "n".repeat(MAX_NAME + 1));
    assert_eq!(SecretRef::parse(&long_name), Err(RefError::Name));
    let long_env = format!("env:{}", "E".repeat(MAX_ENV_NAME + 1));
    assert_eq!(SecretRef::parse(&long_env), Err(RefError::EnvName));
    let long_path = format!("file:/{}", "p".repeat(MAX_PATH));
    assert_eq!(SecretRef::parse(&long_path), Err(RefError::Path));
}

#[test]
fn a_plain_credential_where_a_reference_belongs_is_never_echoed() {
    for text in ["hunter2-Pa55", "secret:hunter2 Pa55", "env:hunter2-Pa55"] {
        let e = serde_json::from_str::<SecretRef>(&serde_json::to_string(text).unwrap())
            .unwrap_err()
            .to_string();
        assert!(!e.contains("hunter2"), "{e}");
        assert!(!e.contains("Pa55"), "{e}");
    }
}

#[test]
fn a_value_never_shows_in_debug_or_display() {
    let v = SecretValue::from("hunter2-Pa55");
    for shown in [format!("{v:?}"), format!("{v}"), format!("{v:#?}")] {
        assert!(!shown.contains("hunter2"), "{shown}");
    }
    assert_eq!(v.expose(), b"hunter2-Pa55");
    assert_eq!(v.expose_str(), Some("hunter2-Pa55"));
    assert_eq!(SecretValue::new(vec![0xff]).expose_str(), None);

    let mut s = Secrets::new();
    s.insert(SecretRef::Env("RELAY_PW".into()), v.clone());
    let shown = format!("{s:?}");
    assert!(
        shown.contains("env:RELAY_PW") || shown.contains("RELAY_PW"),
        "{shown}"
    );
    assert!(!shown.contains("hunter2"), "{shown}");
}

#[test]
fn values_and_resolved_sets_compare_by_content() {
    let a = SecretValue::from("one");
    assert!(a.same(&SecretValue::from("one")));
    assert!(!a.same(&SecretValue::from("two")));
    assert!(!a.same(&SecretValue::from("one!")));

    let r = SecretRef::Secret("pw".into());
    let mut x = Secrets::new();
    x.insert(r.clone(), a.clone());
    let mut y = Secrets::new();
    assert!(!x.same(&y));
    y.insert(r.clone(), SecretValue::from("one"));
    assert!(x.same(&y));
    y.insert(r.clone(), SecretValue::from("two"));
    assert!(!x.same(&y));
    assert_eq!(x.require(&r).unwrap().expose(), b"one");
    let missing = SecretRef::Env("NOPE".into());
    assert_eq!(
        x.require(&missing).unwrap_err(),
        Unresolved(missing.clone())
    );
}

#[test]
fn the_policy_refuses_env_and_files_by_default_and_allows_what_the_operator_lists() {
    let none = SecretPolicy::default();
    let sec = SecretRef::Secret("pw".into());
    let env = |n: &str| SecretRef::Env(n.into());
    let file = |p: &str| SecretRef::File(p.into());
    assert_eq!(none.permits("ten_a", &sec), Ok(()));
    assert_eq!(none.permits("ten_a", &env("RELAY_X")), Err(Refused::Env));
    assert_eq!(
        none.permits("ten_a", &file("/etc/relay/x")),
        Err(Refused::File)
    );

    let p = SecretPolicy::default().grant(
        "ten_a",
        SecretGrant {
            env_prefixes: vec!["RELAY_SECRET_".into(), "".into()],
            file_dirs: vec![
                "/etc/relay/secrets/".into(),
                "/run/keys".into(),
                "rel".into(),
            ],
        },
    );
    let cases: &[(SecretRef, Result<(), Refused>)] = &[
        (sec.clone(), Ok(())),
        (env("RELAY_SECRET_REDIS"), Ok(())),
        (env("RELAY_SECRET_"), Ok(())),
        (env("RELAY_SECRE"), Err(Refused::Env)),
        (env("HOME"), Err(Refused::Env)),
        (env("relay_secret_x"), Err(Refused::Env)),
        (file("/etc/relay/secrets/redis"), Ok(())),
        (file("/etc/relay/secrets/a/b"), Ok(())),
        (file("/run/keys/pw"), Ok(())),
        (file("/run/keysx/pw"), Err(Refused::File)),
        (file("/run/pw"), Err(Refused::File)),
        (file("/etc/relay/secrets"), Err(Refused::File)),
        (file("/rel/pw"), Err(Refused::File)),
    ];
    for (r, want) in cases {
        assert_eq!(p.permits("ten_a", r), *want, "{r}");
    }
    assert_eq!(Refused::Env.code(), "secret_env_not_allowed");
    assert_eq!(Refused::File.code(), "secret_file_not_allowed");
    assert_eq!(Refused::Protected.code(), "secret_file_not_allowed");
}

/// The attacker: tenant B names what the operator granted tenant A.
#[test]
fn a_grant_is_its_tenants_alone() {
    let p = SecretPolicy::default()
        .grant(
            "ten_a",
            SecretGrant {
                env_prefixes: vec!["ACME_".into()],
                file_dirs: vec!["/run/secrets/acme".into()],
            },
        )
        .grant(
            "ten_a",
            SecretGrant {
                env_prefixes: vec![],
                file_dirs: vec!["/run/secrets/shared".into()],
            },
        );
    let env = SecretRef::Env("ACME_TOKEN".into());
    let file = SecretRef::File("/run/secrets/acme/token".into());
    let shared = SecretRef::File("/run/secrets/shared/token".into());
    for r in [&env, &file, &shared] {
        assert_eq!(p.permits("ten_a", r), Ok(()), "{r}");
    }
    assert_eq!(p.permits("ten_b", &env), Err(Refused::Env));
    assert_eq!(p.permits("ten_b", &file), Err(Refused::File));
    assert_eq!(p.permits("ten_b", &shared), Err(Refused::File));
    assert_eq!(p.permits("", &env), Err(Refused::Env));
    assert_eq!(p.file_dirs("ten_a").len(), 2);
    assert!(p.file_dirs("ten_b").is_empty());
}

/// Relay's configuration file, master key file and data directory are never
/// readable, even inside a granted directory.
#[test]
fn protected_paths_are_refused_whatever_the_grant() {
    let p = SecretPolicy {
        protected_paths: vec![
            "/etc/relay/relay.toml".into(),
            "/etc/relay/master.key".into(),
            "/var/lib/relay/".into(),
        ],
        ..Default::default()
    }
    .grant(
        "ten_a",
        SecretGrant {
            env_prefixes: vec![],
            file_dirs: vec!["/etc/relay".into(), "/var/lib".into()],
        },
    );
    let file = |p: &str| SecretRef::File(p.into());
    let cases: &[(&str, Result<(), Refused>)] = &[
        ("/etc/relay/relay.toml", Err(Refused::Protected)),
        ("/etc/relay/master.key", Err(Refused::Protected)),
        ("/var/lib/relay/relay.db", Err(Refused::Protected)),
        ("/var/lib/relay/operator_token", Err(Refused::Protected)),
        ("/etc/relay/hooks-token", Ok(())),
        ("/etc/relay/relay.toml.bak", Ok(())),
        ("/var/lib/relayx/pw", Ok(())),
    ];
    for (path, want) in cases {
        assert_eq!(p.permits("ten_a", &file(path)), *want, "{path}");
    }
    // Refused for a tenant without a grant too, and said as such.
    assert_eq!(
        p.permits("ten_b", &file("/etc/relay/relay.toml")),
        Err(Refused::Protected)
    );
}

#[test]
fn path_inside_is_component_wise() {
    let cases: &[(&str, &str, bool)] = &[
        ("/a/b", "/a", true),
        ("/a/b", "/a/", true),
        ("/a/b/c", "/a", true),
        ("/ab", "/a", false),
        ("/a", "/a", false),
        ("/a/", "/a", false),
        ("/a/../b", "/a", false),
        ("/a/b", "/", true),
        ("/a/b", "", false),
        ("/a/b", "a", false),
    ];
    for (path, dir, want) in cases {
        assert_eq!(path_inside(path, dir), *want, "{path} in {dir}");
    }
}
