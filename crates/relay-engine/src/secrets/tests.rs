use super::*;
use relay_core::model::Environment;

fn sc() -> Scope {
    Scope {
        tenant_id: "t".into(),
        environment: Environment::Live,
    }
}

/// The grant of `sc()`'s tenant.
fn policy(dirs: &[&std::path::Path]) -> SecretPolicy {
    SecretPolicy::default().grant(
        "t",
        relay_core::secret::SecretGrant {
            env_prefixes: vec!["PAT".into(), "RELAY_TEST_UNSET_".into()],
            file_dirs: dirs.iter().map(|d| d.display().to_string()).collect(),
        },
    )
}

fn other_tenant() -> Scope {
    Scope {
        tenant_id: "u".into(),
        environment: Environment::Live,
    }
}

fn code(r: Result<SecretValue, ResolveError>) -> &'static str {
    match r {
        Ok(_) => "ok",
        Err(e) => {
            assert!(e.to_string().contains(&e.reference.to_string()), "{e}");
            e.code
        }
    }
}

#[tokio::test]
async fn environment_variables_resolve_only_where_the_policy_allows() {
    let dir = tempfile::tempdir().unwrap();
    let r = Resolver::new(policy(&[dir.path()]));
    let path = std::env::var_os("PATH").expect("PATH is set");
    let got = r
        .resolve_one(&sc(), &SecretRef::Env("PATH".into()))
        .await
        .unwrap();
    assert_eq!(got.expose(), path.as_encoded_bytes());
    assert_eq!(
        code(r.resolve_one(&sc(), &SecretRef::Env("HOME".into())).await),
        "secret_env_not_allowed"
    );
    assert_eq!(
        code(
            r.resolve_one(&sc(), &SecretRef::Env("RELAY_TEST_UNSET_SURELY".into()))
                .await
        ),
        "secret_env_unset"
    );
    assert_eq!(
        code(
            Resolver::default()
                .resolve_one(&sc(), &SecretRef::Env("PATH".into()))
                .await
        ),
        "secret_env_not_allowed"
    );
}

#[tokio::test]
async fn files_resolve_inside_the_allowed_directories_only() {
    let allowed = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let r = Resolver::new(policy(&[allowed.path()]));
    let at = |name: &str| SecretRef::File(format!("{}/{name}", allowed.path().display()));

    std::fs::write(allowed.path().join("pw"), "hunter2\n").unwrap();
    std::fs::write(allowed.path().join("crlf"), "hunter2\r\n").unwrap();
    std::fs::write(allowed.path().join("raw"), b"\x00\xffkey").unwrap();
    std::fs::write(allowed.path().join("empty"), "\n").unwrap();
    std::fs::write(allowed.path().join("big"), vec![b'x'; 64 * 1024 + 1]).unwrap();
    std::fs::create_dir(allowed.path().join("sub")).unwrap();
    std::fs::write(outside.path().join("other"), "elsewhere").unwrap();
    std::os::unix::fs::symlink(outside.path().join("other"), allowed.path().join("link")).unwrap();
    std::os::unix::fs::symlink(allowed.path().join("pw"), allowed.path().join("inner")).unwrap();

    let value = |r: Result<SecretValue, ResolveError>| r.unwrap().expose().to_vec();
    assert_eq!(value(r.resolve_one(&sc(), &at("pw")).await), b"hunter2");
    assert_eq!(value(r.resolve_one(&sc(), &at("crlf")).await), b"hunter2");
    assert_eq!(
        value(r.resolve_one(&sc(), &at("raw")).await),
        b"\x00\xffkey"
    );
    assert_eq!(value(r.resolve_one(&sc(), &at("inner")).await), b"hunter2");
    let cases = [
        (at("empty"), "secret_file_unreadable"),
        (at("big"), "secret_file_unreadable"),
        (at("sub"), "secret_file_unreadable"),
        (at("missing"), "secret_file_unreadable"),
        (at("link"), "secret_file_not_allowed"),
        (
            SecretRef::File(format!("{}/other", outside.path().display())),
            "secret_file_not_allowed",
        ),
    ];
    for (reference, want) in cases {
        assert_eq!(
            code(r.resolve_one(&sc(), &reference).await),
            want,
            "{reference}"
        );
    }
    // A refusal names the reference, never the content.
    let e = r.resolve_one(&sc(), &at("link")).await.unwrap_err();
    assert!(!format!("{e} {e:?}").contains("elsewhere"));
}

/// The attacker: tenant `u` names the variable and the file the operator
/// granted tenant `t`, to have their values sent to its own server.
#[tokio::test]
async fn another_tenant_resolves_nothing_of_a_grant() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("pw"), "hunter2").unwrap();
    let r = Resolver::new(policy(&[dir.path()]));
    let env = SecretRef::Env("PATH".into());
    let file = SecretRef::File(format!("{}/pw", dir.path().display()));
    assert!(r.resolve_one(&sc(), &env).await.is_ok());
    assert!(r.resolve_one(&sc(), &file).await.is_ok());
    assert_eq!(
        code(r.resolve_one(&other_tenant(), &env).await),
        "secret_env_not_allowed"
    );
    assert_eq!(
        code(r.resolve_one(&other_tenant(), &file).await),
        "secret_file_not_allowed"
    );
    let e = r.resolve_one(&other_tenant(), &file).await.unwrap_err();
    assert!(e.to_string().contains("granted"), "{e}");
    assert!(!format!("{e} {e:?}").contains("hunter2"));
}

/// Relay's configuration file, master key file and data directory are
/// never read through a reference, even inside a granted directory, by a
/// symbolic link, through a protected path that is itself a link, or by a
/// hard link (the same file under another name).
#[tokio::test]
async fn relays_own_files_are_never_read_through_a_reference() {
    let granted = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let g = granted.path();
    std::fs::write(g.join("relay.toml"), "master_key = \"k\"").unwrap();
    std::fs::write(g.join("master.key"), "0f0f").unwrap();
    std::fs::create_dir(g.join("data")).unwrap();
    std::fs::write(g.join("data/operator_token"), "rop_x").unwrap();
    std::fs::write(g.join("hooks-token"), "ok").unwrap();
    std::os::unix::fs::symlink(g.join("relay.toml"), g.join("config-link")).unwrap();
    std::fs::hard_link(g.join("master.key"), g.join("innocent")).unwrap();
    // The data directory named through a link, as an operator may.
    std::os::unix::fs::symlink(g.join("data"), elsewhere.path().join("data-link")).unwrap();
    let mut p = policy(&[g]);
    p.protected_paths = vec![
        g.join("relay.toml").display().to_string(),
        g.join("master.key").display().to_string(),
        elsewhere.path().join("data-link").display().to_string(),
    ];
    let r = Resolver::new(p);
    let at = |name: &str| SecretRef::File(format!("{}/{name}", g.display()));
    assert_eq!(
        r.resolve_one(&sc(), &at("hooks-token"))
            .await
            .unwrap()
            .expose(),
        b"ok"
    );
    for name in [
        "relay.toml",
        "master.key",
        "config-link",
        "innocent",
        "data/operator_token",
    ] {
        let got = r.resolve_one(&sc(), &at(name)).await;
        let e = got
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert_eq!(code(got), "secret_file_not_allowed", "{name}");
        assert!(e.contains("never read"), "{name}: {e}");
    }
}

#[tokio::test]
async fn a_set_of_references_resolves_each_once_or_fails_on_the_first() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a"), "A").unwrap();
    let r = Resolver::new(policy(&[dir.path()]));
    let a = SecretRef::File(format!("{}/a", dir.path().display()));
    let got = r.resolve(&sc(), &[a.clone(), a.clone()]).await.unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got.get(&a).unwrap().expose(), b"A");
    let missing = SecretRef::Env("RELAY_TEST_UNSET_X".into());
    let e = r
        .resolve(&sc(), &[a.clone(), missing.clone()])
        .await
        .unwrap_err();
    assert_eq!(e.reference, missing);
}

#[tokio::test]
async fn tenant_secrets_resolve_in_their_own_scope_only() {
    use relay_core::id::IdKind;
    use relay_core::model::Tenant;
    use relay_core::time::Timestamp;
    use relay_store::secrets::{PutSecret, seal};

    let db = relay_store::conformance::TestDb::sqlite().await;
    let now = Timestamp(1_800_000_000_000);
    let mut scopes = Vec::new();
    for name in ["a", "b"] {
        let t = Tenant {
            id: relay_store::new_id(IdKind::Tenant, now),
            name: name.into(),
            parent_id: None,
            created_at: now,
        };
        let created = t.clone();
        db.store
            .write(relay_store::Commit::Durable, move |mut x| {
                Box::pin(async move { relay_store::tenants::create(&mut x, &created).await })
            })
            .await
            .unwrap();
        scopes.push(Scope {
            tenant_id: t.id,
            environment: Environment::Live,
        });
    }
    let master = MasterKey::from_bytes([3; 32]);
    let put = PutSecret {
        name: "redis-pw".into(),
        sealed_value: seal(&master, &scopes[0], "redis-pw", &"hunter2".into()),
        now,
    };
    let sc = scopes[0].clone();
    db.store
        .write(relay_store::Commit::Durable, move |mut x| {
            Box::pin(async move { relay_store::secrets::put(&mut x, &sc, &put, None).await })
        })
        .await
        .unwrap();
    let reference = SecretRef::Secret("redis-pw".into());

    let r = Resolver::default().with_tenant_secrets(db.store.clone(), master.clone());
    let got = r.resolve_one(&scopes[0], &reference).await.unwrap();
    assert_eq!(got.expose(), b"hunter2");
    let test = Scope {
        environment: Environment::Test,
        ..scopes[0].clone()
    };
    for other in [&scopes[1], &test] {
        assert_eq!(
            code(r.resolve_one(other, &reference).await),
            "secret_not_found"
        );
    }
    assert_eq!(
        code(
            r.resolve_one(&scopes[0], &SecretRef::Secret("missing".into()))
                .await
        ),
        "secret_not_found"
    );
    // Not found is the tenant's to fix; not opened is Relay's side.
    let missing = r
        .resolve_one(&scopes[0], &SecretRef::Secret("missing".into()))
        .await
        .unwrap_err();
    assert_eq!(missing.failure, crate::secrets::Failure::Refused);
    // Another master key cannot open it, and says so without the value.
    let wrong =
        Resolver::default().with_tenant_secrets(db.store.clone(), MasterKey::from_bytes([4; 32]));
    let e = wrong.resolve_one(&scopes[0], &reference).await.unwrap_err();
    assert_eq!(e.code, "secret_unavailable");
    assert_eq!(e.failure, crate::secrets::Failure::Unavailable);
    assert!(!format!("{e} {e:?} {wrong:?}").contains("hunter2"));
    // Without a store a tenant secret is not found.
    assert_eq!(
        code(
            Resolver::default()
                .resolve_one(&scopes[0], &reference)
                .await
        ),
        "secret_not_found"
    );
}
