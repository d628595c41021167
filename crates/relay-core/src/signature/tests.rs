use super::*;
use serde_json::Value;

fn vectors() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/standard-webhooks.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => panic!(
            "the Standard Webhooks vectors are missing at {} ({e}); they are kept in the repository's testdata/",
            path.display()
        ),
    };
    match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => panic!("{} is not JSON: {e}", path.display()),
    }
}

fn field<'a>(v: &'a Value, name: &str) -> &'a str {
    match v.get(name).and_then(Value::as_str) {
        Some(s) => s,
        None => panic!("vector field {name} missing in {v}"),
    }
}

fn cases<'a>(v: &'a Value, scheme: &str) -> &'a Vec<Value> {
    match v.get(scheme).and_then(Value::as_array) {
        Some(a) if !a.is_empty() => a,
        _ => panic!("no {scheme} vectors"),
    }
}

fn timestamp(v: &Value) -> Timestamp {
    match v.get("timestamp").and_then(Value::as_i64) {
        Some(t) => Timestamp::from_millis(t * 1000),
        None => panic!("vector timestamp missing in {v}"),
    }
}

#[test]
fn reproduces_every_v1_vector() {
    let v = vectors();
    for case in cases(&v, "v1") {
        let key = SigningKey::parse(field(case, "secret"));
        let Ok(key) = key else { panic!("{key:?}") };
        assert_eq!(key.scheme(), SignatureScheme::V1);
        let headers = sign_request(
            std::slice::from_ref(&key),
            field(case, "id"),
            timestamp(case),
            field(case, "body").as_bytes(),
        );
        assert_eq!(headers.webhook_signature, field(case, "signature"));
        assert_eq!(headers.webhook_id, field(case, "id"));
        let vk = VerificationKey::parse(field(case, "secret"));
        let Ok(vk) = vk else { panic!("{vk:?}") };
        assert_eq!(
            verify(
                &[vk],
                &headers,
                field(case, "body").as_bytes(),
                timestamp(case),
                300
            ),
            Ok(())
        );
    }
}

#[test]
fn reproduces_every_v1a_vector() {
    let v = vectors();
    for case in cases(&v, "v1a") {
        let key = SigningKey::parse(field(case, "secret_key"));
        let Ok(key) = key else { panic!("{key:?}") };
        assert_eq!(key.scheme(), SignatureScheme::V1a);
        let SigningKey::Ed25519(ed) = &key else {
            panic!("not Ed25519")
        };
        assert_eq!(ed.public_key().to_whpk(), field(case, "public_key"));
        let headers = sign_request(
            std::slice::from_ref(&key),
            field(case, "id"),
            timestamp(case),
            field(case, "body").as_bytes(),
        );
        assert_eq!(headers.webhook_signature, field(case, "signature"));
        let pk = VerificationKey::parse(field(case, "public_key"));
        let Ok(pk) = pk else { panic!("{pk:?}") };
        assert_eq!(
            verify(
                &[pk],
                &headers,
                field(case, "body").as_bytes(),
                timestamp(case),
                300
            ),
            Ok(())
        );
        // Both whsk_ forms name the same key.
        let round = Ed25519SigningKey::parse(&ed.expose_whsk());
        assert_eq!(
            round.as_ref().map(|k| k.expose_seed()),
            Ok(ed.expose_seed())
        );
        let seed_form = format!("whsk_{}", BASE64.encode(ed.expose_seed()));
        assert_eq!(Ed25519SigningKey::parse(&seed_form).as_ref(), Ok(ed));
    }
}

#[test]
fn several_keys_give_several_entries_in_order() {
    let v = vectors();
    let v1 = &cases(&v, "v1")[0];
    let v1a = &cases(&v, "v1a")[0];
    let keys: Vec<SigningKey> = [field(v1, "secret"), field(v1a, "secret_key")]
        .into_iter()
        .filter_map(|k| SigningKey::parse(k).ok())
        .collect();
    assert_eq!(keys.len(), 2);
    let headers = sign_request(
        &keys,
        field(v1, "id"),
        timestamp(v1),
        field(v1, "body").as_bytes(),
    );
    // The judges' captured request carries exactly this header.
    assert_eq!(
        headers.webhook_signature,
        format!("{} {}", field(v1, "signature"), field(v1a, "signature"))
    );
    // Rotation: new key first, then the old one.
    let new = SigningKey::generate(SignatureScheme::V1a, [7; 32]);
    let old = SigningKey::generate(SignatureScheme::V1a, [8; 32]);
    let c = SignedContent {
        webhook_id: "msg_1",
        webhook_timestamp: "1",
        body: b"{}",
    };
    let header = signature_header(&[new.clone(), old.clone()], &c);
    assert_eq!(
        header,
        format!("{} {}", new.sign_entry(&c), old.sign_entry(&c))
    );
    assert_eq!(header.matches(' ').count(), 1);
    assert!(header.starts_with("v1a,"));
}

#[test]
fn verify_rejects_tampering_and_stale_timestamps() {
    let key = SigningKey::generate(SignatureScheme::V1, [1; 32]);
    let ed = SigningKey::generate(SignatureScheme::V1a, [2; 32]);
    let now = Timestamp::from_millis(1_700_000_000_000);
    for k in [key, ed] {
        let vk = [k.verification_key()];
        let h = sign_request(std::slice::from_ref(&k), "msg_x", now, b"{\"a\":1}");
        assert_eq!(verify(&vk, &h, b"{\"a\":1}", now, 300), Ok(()));
        assert_eq!(
            verify(&vk, &h, b"{\"a\":1}", now.plus_seconds(300), 300),
            Ok(()),
            "inclusive"
        );
        assert_eq!(
            verify(&vk, &h, b"{\"a\":1}", now.plus_seconds(-300), 300),
            Ok(()),
            "inclusive"
        );
        assert_eq!(
            verify(&vk, &h, b"{\"a\":1}", now.plus_seconds(301), 300),
            Err(VerifyError::TimestampOutOfTolerance)
        );
        assert_eq!(
            verify(&vk, &h, b"{\"a\": 1}", now, 300),
            Err(VerifyError::NoMatchingSignature),
            "re-serialized body"
        );
        let other_id = SignatureHeaders {
            webhook_id: "msg_y".into(),
            ..h.clone()
        };
        assert_eq!(
            verify(&vk, &other_id, b"{\"a\":1}", now, 300),
            Err(VerifyError::NoMatchingSignature)
        );
        for bad_ts in ["", "-1", "1e9", "abc", "99999999999999999999999"] {
            let bad = SignatureHeaders {
                webhook_timestamp: bad_ts.into(),
                ..h.clone()
            };
            assert_eq!(
                verify(&vk, &bad, b"{\"a\":1}", now, 300),
                Err(VerifyError::InvalidTimestamp),
                "{bad_ts}"
            );
        }
        // Unknown versions and garbage entries are skipped; a valid entry still verifies.
        let noisy = SignatureHeaders {
            webhook_signature: format!("v2,AAAA garbage v1,!!! {}", h.webhook_signature),
            ..h.clone()
        };
        assert_eq!(verify(&vk, &noisy, b"{\"a\":1}", now, 300), Ok(()));
        let none = SignatureHeaders {
            webhook_signature: String::new(),
            ..h.clone()
        };
        assert_eq!(
            verify(&vk, &none, b"{\"a\":1}", now, 300),
            Err(VerifyError::NoMatchingSignature)
        );
        // A key of the other scheme does not verify it.
        let wrong = [SigningKey::generate(SignatureScheme::V1, [3; 32]).verification_key()];
        assert_eq!(
            verify(&wrong, &h, b"{\"a\":1}", now, 300),
            Err(VerifyError::NoMatchingSignature)
        );
    }
}

#[test]
fn key_parsing_errors() {
    let cases: &[(&str, &str)] = &[
        ("sk_abc", "key_wrong_prefix"),
        ("whsec_!!!", "key_invalid_base64"),
        ("whsec_AAAA", "key_wrong_length"),
        ("whsk_AAAA", "key_wrong_length"),
        ("whpk_AAAA", "key_wrong_prefix"),
        ("", "key_wrong_prefix"),
    ];
    for (s, code) in cases {
        assert_eq!(
            SigningKey::parse(s).map(|_| ()).map_err(|e| e.code()),
            Err(*code),
            "{s}"
        );
    }
    assert_eq!(
        Ed25519PublicKey::parse("whpk_AAAA").map_err(|e| e.code()),
        Err("key_wrong_length")
    );
    assert_eq!(
        HmacSecret::from_bytes(&[0; 65]).map_err(|e| e.code()),
        Err("key_wrong_length")
    );
    assert!(HmacSecret::from_bytes(&[0; 24]).is_ok());
    // A 64-byte pair whose public half is not the seed's.
    let mut pair = [0u8; 64];
    pair[..32].copy_from_slice(&[9; 32]);
    pair[32..].copy_from_slice(
        &Ed25519SigningKey::from_seed([10; 32])
            .public_key()
            .to_bytes(),
    );
    assert_eq!(
        Ed25519SigningKey::from_bytes(&pair),
        Err(KeyError::MismatchedKeyPair)
    );
}

#[test]
fn generated_keys_round_trip_through_their_strings() {
    let h = HmacSecret::generate([42; 32]);
    assert!(h.expose_whsec().starts_with("whsec_"));
    assert_eq!(HmacSecret::parse(&h.expose_whsec()), Ok(h.clone()));
    assert_eq!(h.expose_bytes(), &[42; 32]);
    let e = Ed25519SigningKey::from_seed([42; 32]);
    assert_eq!(Ed25519SigningKey::parse(&e.expose_whsk()), Ok(e.clone()));
    assert_eq!(
        Ed25519PublicKey::parse(&e.public_key().to_whpk()),
        Ok(e.public_key())
    );
    assert_ne!(Ed25519SigningKey::from_seed([43; 32]), e);
    assert_eq!(
        VerificationKey::parse(&e.expose_whsk()),
        Ok(VerificationKey::Ed25519(e.public_key()))
    );
}

#[test]
fn debug_never_shows_a_secret() {
    let v = vectors();
    let mut secrets: Vec<String> = Vec::new();
    for case in cases(&v, "v1") {
        secrets.push(field(case, "secret").into());
    }
    for case in cases(&v, "v1a") {
        secrets.push(field(case, "secret_key").into());
    }
    secrets.push(HmacSecret::generate([0xAB; 32]).expose_whsec());
    secrets.push(Ed25519SigningKey::from_seed([0xAB; 32]).expose_whsk());
    for text in &secrets {
        let Ok(key) = SigningKey::parse(text) else {
            panic!("{text}")
        };
        let raw: Vec<u8> = match &key {
            SigningKey::Hmac(k) => k.expose_bytes().to_vec(),
            SigningKey::Ed25519(k) => k.expose_seed().to_vec(),
        };
        let b64 = BASE64.encode(&raw);
        let forbidden = [
            text.clone(),
            text.trim_start_matches("whsec_")
                .trim_start_matches("whsk_")
                .to_string(),
            b64.clone(),
            b64[..16].to_string(),
            format!("{raw:?}"),
            format!("{:?}", &raw[..8]),
            raw.iter().map(|b| format!("{b:02x}")).collect::<String>()[..16].to_string(),
        ];
        let mut shown = vec![
            format!("{key:?}"),
            format!("{key:#?}"),
            format!("{:?}", key.verification_key()),
        ];
        match &key {
            SigningKey::Hmac(k) => shown.push(format!("{k:?}")),
            SigningKey::Ed25519(k) => shown.push(format!("{k:?}")),
        }
        for s in &shown {
            for f in &forbidden {
                assert!(!s.contains(f.as_str()), "{s} contains {f}");
            }
        }
    }
    let ed = Ed25519SigningKey::from_seed([0xAB; 32]);
    assert!(
        format!("{ed:?}").contains(&ed.public_key().to_whpk()),
        "the public key may show"
    );
}

proptest::proptest! {
    #[test]
    fn any_key_string_or_header_is_handled_without_panicking(
        key in "(whsec_|whsk_|whpk_)?[A-Za-z0-9+/=]{0,100}",
        header in "\\PC{0,200}",
        ts in "\\PC{0,20}",
    ) {
        let _ = SigningKey::parse(&key);
        let _ = VerificationKey::parse(&key);
        let vk = [SigningKey::generate(SignatureScheme::V1, [5; 32]).verification_key()];
        let h = SignatureHeaders { webhook_id: "msg_1".into(), webhook_timestamp: ts, webhook_signature: header };
        let _ = verify(&vk, &h, b"{}", Timestamp::from_millis(0), 300);
    }
}
