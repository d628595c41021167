//! An HTTPS endpoint's client certificate (mutual TLS): its two secret
//! references listed for the engine, their values checked at registration
//! (`check_values`), and built into a client that presents the identity
//! and whose `Debug` shows its fingerprint, never the key.

use std::sync::Arc;

use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::https::{ClientCertificate, HttpsAuth, HttpsDestination};
use relay_destinations::{Client, Shared, build, check_values, validate};
use relay_net::{Guard, HttpsClient, OutboundConfig, StaticResolver};
use relay_receiver::TestCa;

fn guard() -> Guard {
    let resolver = StaticResolver::new().with("hooks.example", ["8.8.8.8".parse().unwrap()]);
    Guard::with_resolver(&OutboundConfig::default(), Arc::new(resolver)).unwrap()
}

fn chain_ref() -> SecretRef {
    SecretRef::Secret("hooks-chain".into())
}

fn key_ref() -> SecretRef {
    SecretRef::File("/run/secrets/hooks.key".into())
}

fn destination() -> Config {
    Config::Https(HttpsDestination {
        a2a_push: None,
        url: "https://hooks.example/in".into(),
        auth: Some(HttpsAuth {
            client_certificate: Some(ClientCertificate {
                chain: chain_ref(),
                key: key_ref(),
            }),
            oauth2: None,
        }),
        headers: vec![],
    })
}

fn secrets(chain: &str, key: &str) -> Secrets {
    let mut s = Secrets::new();
    s.insert(chain_ref(), SecretValue::from(chain));
    s.insert(key_ref(), SecretValue::from(key));
    s
}

fn shared() -> Shared {
    Shared {
        https: HttpsClient::new(guard()),
        clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
    }
}

#[tokio::test]
async fn a_client_certificate_is_accepted_and_its_references_listed() {
    let d = destination();
    assert_eq!(validate(&d, &guard()).await, Ok(()));
    assert_eq!(
        d.secret_refs(),
        vec![
            ("/destination/auth/client_certificate/chain", &chain_ref()),
            ("/destination/auth/client_certificate/key", &key_ref()),
        ]
    );
    assert_eq!(
        serde_json::to_value(&d).unwrap()["auth"],
        serde_json::json!({"client_certificate": {"chain": "secret:hooks-chain", "key": "file:/run/secrets/hooks.key"}})
    );
}

#[test]
fn registration_checks_the_values_by_field_without_quoting_them() {
    let ca = TestCa::generate();
    let cert = ca.client_cert("relay");
    let other = ca.client_cert("other");
    let d = destination();
    assert_eq!(
        check_values(&d, &secrets(&cert.chain_pem(), cert.key_pem())),
        Ok(())
    );
    for (chain, key, code, pointer) in [
        (
            cert.key_pem().to_string(),
            cert.key_pem(),
            "invalid_client_certificate",
            "/destination/auth/client_certificate/chain",
        ),
        (
            cert.chain_pem(),
            "not a key",
            "invalid_client_key",
            "/destination/auth/client_certificate/key",
        ),
        (
            cert.chain_pem(),
            other.key_pem(),
            "client_key_mismatch",
            "/destination/auth/client_certificate/key",
        ),
    ] {
        let e = check_values(&d, &secrets(&chain, key)).unwrap_err();
        assert_eq!((e.code, e.pointer), (code, pointer), "{}", e.message);
        for line in chain.lines().chain(key.lines()).filter(|l| l.len() > 16) {
            assert!(!e.message.contains(line), "{}", e.message);
        }
    }
}

#[test]
fn the_client_presents_the_identity_and_debug_shows_no_key() {
    let ca = TestCa::generate();
    let cert = ca.client_cert("relay");
    let other = ca.client_cert("other");
    let d = destination();
    let e = build(&d, &shared(), &Secrets::new())
        .err()
        .expect("unresolved");
    assert_eq!(e.0, chain_ref());
    // Values replaced since registration by ones that are no identity: the
    // client is not built, and the error names the reference at fault.
    let e = build(&d, &shared(), &secrets(&cert.chain_pem(), other.key_pem()))
        .err()
        .expect("mismatch");
    assert_eq!(e.0, key_ref());
    assert!(!e.to_string().contains("PRIVATE"), "{e}");

    let client = build(&d, &shared(), &secrets(&cert.chain_pem(), cert.key_pem())).unwrap();
    let Client::Https(https) = &client else {
        panic!("an HTTPS client")
    };
    let identity = https.identity().expect("an identity");
    let debug = format!("{https:?}");
    assert!(debug.contains(&identity.fingerprint_hex()), "{debug}");
    for line in cert.key_pem().lines().filter(|l| !l.starts_with("-----")) {
        assert!(!debug.contains(line), "{debug}");
    }
    // Without `auth`, no identity.
    let Config::Https(mut plain) = destination() else {
        unreachable!()
    };
    plain.auth = None;
    let Client::Https(https) = build(&Config::Https(plain), &shared(), &Secrets::new()).unwrap()
    else {
        panic!("an HTTPS client")
    };
    assert!(https.identity().is_none());
}
