//! Signing keys at rest: after storing Ed25519 and HMAC keys, no spelling of
//! their secret bytes appears in the SQLite database or its WAL.

use base64::Engine;
use relay_core::id::IdKind;
use relay_core::model::{Consumer, Environment, SignatureScheme, Tenant, fixture};
use relay_core::sealed::MasterKey;
use relay_core::signature::SigningKey;
use relay_core::time::Timestamp;
use relay_store::{EndpointLimits, ExecutorExt as _, Operator, Scope, endpoints, keys, new_id};

fn spellings(secret: &[u8]) -> Vec<Vec<u8>> {
    let b64 = [
        base64::engine::general_purpose::STANDARD,
        base64::engine::general_purpose::STANDARD_NO_PAD,
        base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ];
    let mut out = vec![secret.to_vec(), hex::encode(secret).into_bytes()];
    out.extend(b64.iter().map(|e| e.encode(secret).into_bytes()));
    out
}

#[tokio::test]
async fn no_key_material_is_stored_in_clear() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("relay.db");
    let store = relay_store::sqlite::SqliteStore::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    store.migrate().await.unwrap();
    let now = Timestamp(1_800_000_000_000);
    let tenant = Tenant {
        id: new_id(IdKind::Tenant, now),
        name: "a".into(),
        parent_id: None,
        created_at: now,
    };
    relay_store::conformance::create_tenant(&store, &tenant).await;
    let scope = Scope {
        tenant_id: tenant.id.clone(),
        environment: Environment::Live,
    };
    let consumer = Consumer {
        id: new_id(IdKind::Consumer, now),
        external_id: "c".into(),
        kind: relay_core::model::ConsumerKind::Customer,
        name: None,
        source: "/c".into(),
        environment: Environment::Live,
        created_at: now,
        updated_at: now,
    };
    relay_store::conformance::create_consumer(&store, &scope, &consumer)
        .await
        .unwrap();
    let master = MasterKey::from_bytes([42; 32]);
    let mut secrets = Vec::new();
    for scheme in [SignatureScheme::V1a, SignatureScheme::V1] {
        let endpoint = fixture::endpoint(new_id(IdKind::Endpoint, now), consumer.id.clone(), now)
            .https("https://hooks.example.com/")
            .signature_scheme(scheme)
            .build();
        let (record, key) = keys::generate(&master, &endpoint.id, scheme, now);
        secrets.push(match &key {
            SigningKey::Ed25519(k) => k.expose_seed().to_vec(),
            SigningKey::Hmac(h) => h.expose_bytes().to_vec(),
        });
        relay_store::conformance::create_endpoint(
            &store,
            &scope,
            &endpoint,
            &[record],
            EndpointLimits {
                per_tenant: 10,
                per_consumer: 10,
            },
            None,
        )
        .await
        .unwrap();
        // And it opens again for signing.
        let id = endpoint.id.clone();
        let stored = store
            .read(move |mut x| Box::pin(async move { endpoints::keys(&mut x, &id).await }))
            .await
            .unwrap();
        assert_eq!(keys::open(&master, &stored[0]).unwrap(), key);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let p = entry.unwrap().path();
        files.push((p.clone(), std::fs::read(&p).unwrap()));
    }
    assert!(files.iter().map(|(_, b)| b.len()).sum::<usize>() > 0);
    for secret in &secrets {
        for spelling in spellings(secret) {
            for (p, bytes) in &files {
                assert!(
                    !bytes
                        .windows(spelling.len())
                        .any(|w| w == spelling.as_slice()),
                    "{} holds key material in clear",
                    p.display()
                );
            }
        }
    }
}
