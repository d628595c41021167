//! Rotating the master key (`crate::reseal`): every sealed value (signing
//! keys, tenant secrets, inbound sources' secrets, the master key's check)
//! moves to the new key a batch at a time; both keys open everything
//! meanwhile; an interrupted rotation resumes from its cursor; a value that
//! opens under neither key stops it with an error that names the row and no
//! key material.

use super::inbound_calls as ic;
use relay_core::model::{Environment, SignatureScheme};
use relay_core::sealed::MasterKey;
use relay_core::secret::SecretValue;
use relay_inbound::SourceSecret;
use relay_inbound::model::StoredSecret;

use super::inbound::source_record;
use super::secrets::{get_sealed_secret, put_secret};
use super::{
    LIMITS, T0, consumer, create_endpoint, endpoint_keys, endpoint_value, get_setting,
    put_setting_if_absent, scope, tenant,
};
use crate::inbound::{open_secret, seal_secret};
use crate::reseal::{CHECK_SETTING, CURSOR_SETTING, Progress};
use crate::secrets::{PutSecret, seal};
use crate::{Commit, EndpointKeyRecord, ExecutorExt as _, Result, Scope, Store, StoreError};

const OLD: [u8; 32] = [0x11; 32];
const NEW: [u8; 32] = [0x22; 32];

/// What the store holds sealed, read back: (what, sealed text, associated data).
async fn sealed_values(
    s: &dyn Store,
    sc: &Scope,
    endpoints: &[String],
    secrets: &[&str],
    sources: &[String],
) -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in endpoints {
        for k in endpoint_keys(s, e).await.unwrap() {
            out.push((
                k.id.clone(),
                k.sealed_secret.clone(),
                k.id.clone().into_bytes(),
            ));
        }
    }
    for name in secrets {
        let (_, sealed) = get_sealed_secret(s, sc, name).await.unwrap().unwrap();
        let aad = crate::secrets::binding_text(&sc.tenant_id, sc.environment.as_str(), name);
        out.push((name.to_string(), sealed, aad));
    }
    for id in sources {
        let rec = ic::get_inbound_source(s, sc, id).await.unwrap().unwrap();
        let mut stored = vec![rec.secret.clone()];
        stored.extend(rec.previous.iter().map(|(p, _)| p.clone()));
        for st in stored {
            if let StoredSecret::Sealed(text) = st {
                out.push((id.clone(), text, id.clone().into_bytes()));
            }
        }
    }
    let check = get_setting(s, CHECK_SETTING).await.unwrap().unwrap();
    out.push((
        CHECK_SETTING.into(),
        check,
        CHECK_SETTING.as_bytes().to_vec(),
    ));
    out
}

pub async fn a_master_key_rotation_reseals_everything_and_resumes_after_an_interruption(
    s: &dyn Store,
) {
    let old = MasterKey::from_bytes(OLD);
    let both = MasterKey::from_bytes(NEW).with_previous(OLD);
    let new_only = MasterKey::from_bytes(NEW);
    let t = tenant(s, "rotating").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;

    // Everything sealed under the old key: 3 endpoints with 4 signing keys,
    // 4 tenant secrets, 2 inbound sources (one with a previous secret and
    // one whose secret is a reference), the master key's check.
    let mut endpoints = Vec::new();
    let mut plain_keys = Vec::new();
    for i in 0..3 {
        let e = endpoint_value(&live, &c.id, &["order.created"]);
        let mut keys: Vec<EndpointKeyRecord> = Vec::new();
        for _ in 0..=(i % 2) {
            let (rec, key) = crate::keys::generate(&old, &e.id, SignatureScheme::V1, T0);
            plain_keys.push((rec.id.clone(), key));
            keys.push(rec);
        }
        create_endpoint(s, &live, &e, &keys, LIMITS, None)
            .await
            .unwrap();
        endpoints.push(e.id);
    }
    let names = ["alpha", "bravo", "charlie", "delta"];
    for name in names {
        let put = PutSecret {
            name: name.into(),
            sealed_value: seal(
                &old,
                &live,
                name,
                &SecretValue::from(format!("value of {name}")),
            ),
            now: T0,
        };
        put_secret(s, &live, &put, None).await.unwrap();
    }
    let mut sources = Vec::new();
    let (mut sealed_src, _) = source_record(&live, "sealed", relay_inbound::Preset::Stripe);
    sealed_src.secret = seal_secret(&old, &sealed_src.source.id, &SourceSecret::new("now"));
    sealed_src.previous = Some((
        seal_secret(&old, &sealed_src.source.id, &SourceSecret::new("before")),
        T0.plus_seconds(3600),
    ));
    ic::create_inbound_source(s, &sealed_src, None)
        .await
        .unwrap();
    sources.push(sealed_src.source.id.clone());
    let (mut by_ref, _) = source_record(&live, "by-ref", relay_inbound::Preset::Stripe);
    by_ref.secret = StoredSecret::Reference("env:ACME_STRIPE".into());
    ic::create_inbound_source(s, &by_ref, None).await.unwrap();
    sources.push(by_ref.source.id.clone());
    let check = old.seal([9; 24], b"relay master key check", CHECK_SETTING.as_bytes());
    put_setting_if_absent(s, CHECK_SETTING, &check)
        .await
        .unwrap();

    let read = || sealed_values(s, &live, &endpoints, &names, &sources);
    let before = read().await;
    assert_eq!(
        before.len(),
        4 + 4 + 2 + 1,
        "every sealed value is read back"
    );
    assert!(!rotation_under_way(s).await.unwrap());

    // Two batches of 3, then the rotation is interrupted.
    for _ in 0..2 {
        let p = reseal_batch(s, &both, 3).await.unwrap();
        assert_eq!((p.scanned, p.resealed, p.done), (3, 3, false));
    }
    assert!(rotation_under_way(s).await.unwrap());
    let midway = read().await;
    let under_new = midway
        .iter()
        .filter(|(_, v, aad)| new_only.open(v, aad).is_ok())
        .count();
    let under_old = midway
        .iter()
        .filter(|(_, v, aad)| old.open(v, aad).is_ok())
        .count();
    assert_eq!((under_new, under_old), (6, 5), "6 moved, 5 not yet");
    for (what, v, aad) in &midway {
        assert!(
            both.open(v, aad).is_ok(),
            "{what} opens under both keys midway"
        );
    }
    // Meanwhile the API replaces a secret the rotation has not reached,
    // under the new key: the rotation leaves it as it is.
    let replaced = seal(&both, &live, "delta", &SecretValue::from("replaced"));
    let put = PutSecret {
        name: "delta".into(),
        sealed_value: replaced.clone(),
        now: T0.plus_seconds(5),
    };
    put_secret(s, &live, &put, None).await.unwrap();

    // A rotation under another new key does not trust this cursor: it
    // would start again (not run here; the cursor names its key).
    let stored = get_setting(s, CURSOR_SETTING).await.unwrap().unwrap();
    for b in [OLD, NEW] {
        assert!(!stored.contains(&hex::encode(b)), "the cursor holds no key");
    }

    // Resumed: from the cursor, to the end.
    let mut total = (0, 0);
    loop {
        let p = reseal_batch(s, &both, 3).await.unwrap();
        total = (total.0 + p.scanned, total.1 + p.resealed);
        if p.done {
            break;
        }
    }
    assert_eq!(
        total,
        (5, 4),
        "the rest, once each; the replaced one left alone"
    );
    assert!(!rotation_under_way(s).await.unwrap());
    let after = read().await;
    for (what, v, aad) in &after {
        assert!(new_only.open(v, aad).is_ok(), "{what} is under the new key");
        assert!(
            old.open(v, aad).is_err(),
            "{what} no longer opens under the old key"
        );
    }
    for (id, key) in &plain_keys {
        let rec = endpoints_key(s, &endpoints, id).await;
        assert_eq!(&crate::keys::open(&new_only, &rec).unwrap(), key);
    }
    let (_, delta) = get_sealed_secret(s, &live, "delta").await.unwrap().unwrap();
    assert_eq!(delta, replaced);
    let rec = ic::get_inbound_source(s, &live, &sources[0])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        open_secret(&new_only, &sources[0], &rec.secret).unwrap(),
        SourceSecret::new("now")
    );
    let rec = ic::get_inbound_source(s, &live, &sources[1])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        rec.secret,
        StoredSecret::Reference("env:ACME_STRIPE".into())
    );

    // Run again: nothing left to move.
    let p = reseal_batch(s, &new_only, 100).await.unwrap();
    assert_eq!((p.resealed, p.done), (0, true));

    // A rotation given the wrong previous key stops at the first value it
    // cannot open, naming the row, never a key.
    let wrong = MasterKey::from_bytes([0x33; 32]).with_previous([0x44; 32]);
    let err = reseal_batch(s, &wrong, 100).await.unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, StoreError::Corrupt(_)), "{text}");
    assert!(text.contains("endpoint_keys"), "{text}");
    for b in [[0x33u8; 32], [0x44; 32], NEW] {
        assert!(!text.contains(&hex::encode(b)), "{text}");
    }
    assert!(!format!("{wrong:?}").contains("3333"));
    let after_error = read().await;
    assert_eq!(after, after_error, "a failed batch changes nothing");
}

async fn endpoints_key(s: &dyn Store, endpoints: &[String], id: &str) -> EndpointKeyRecord {
    for e in endpoints {
        if let Some(k) = endpoint_keys(s, e)
            .await
            .unwrap()
            .into_iter()
            .find(|k| k.id == id)
        {
            return k;
        }
    }
    panic!("no key {id}")
}

async fn reseal_batch(s: &dyn Store, master: &MasterKey, limit: u32) -> Result<Progress> {
    let master = master.clone();
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { crate::reseal::batch(&mut x, &master, limit).await })
    })
    .await
}

async fn rotation_under_way(s: &dyn Store) -> Result<bool> {
    s.read(move |mut x| Box::pin(async move { crate::reseal::under_way(&mut x).await }))
        .await
}
