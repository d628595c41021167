//! The object storage kind's pure rules: field checks, object names and
//! URLs.

use crate::s3::{S3Addressing, S3Batch, S3Compression, S3Destination};
use relay_core::secret::SecretRef;

use super::config::{
    authority, check, object_key, object_url, registration_url, valid_bucket, valid_prefix,
    valid_region,
};

fn dest(f: impl FnOnce(&mut S3Destination)) -> S3Destination {
    let mut d = S3Destination {
        bucket: "relay-events".into(),
        prefix: String::new(),
        region: "eu-west-1".into(),
        endpoint_url: None,
        addressing: S3Addressing::Path,
        access_key_id: SecretRef::Secret("s3-key-id".into()),
        secret_access_key: SecretRef::Secret("s3-secret".into()),
        session_token: None,
        batch: S3Batch::default(),
        compression: S3Compression::None,
    };
    f(&mut d);
    d
}

#[test]
fn buckets() {
    for ok in ["abc", "relay-events", "my.bucket.name", "a1b", "0ab"] {
        assert!(valid_bucket(ok), "{ok}");
    }
    for bad in [
        "ab",
        "Relay",
        "-abc",
        "abc-",
        "a..b",
        "a.-b",
        "a-.b",
        "192.168.1.1",
        "a_b",
        "a b",
        &"a".repeat(64),
    ] {
        assert!(!valid_bucket(bad), "{bad}");
    }
}

#[test]
fn prefixes() {
    for ok in [
        "",
        "relay/",
        "relay/orders/",
        "relay",
        "dt=x/",
        "a!-_.*'()/b",
        "events.",
    ] {
        assert!(valid_prefix(ok), "{ok}");
    }
    for bad in [
        "/relay",
        "a//b",
        "a/./b",
        "a/../b",
        "..",
        "./",
        "a b",
        "a{b}",
        "a%20",
        "a\\b",
        "ключ/",
        &"a".repeat(513),
    ] {
        assert!(!valid_prefix(bad), "{bad}");
    }
}

#[test]
fn regions() {
    for ok in ["us-east-1", "auto", "eu-central-2"] {
        assert!(valid_region(ok), "{ok}");
    }
    for bad in ["", "US-EAST-1", "us_east", &"a".repeat(65)] {
        assert!(!valid_region(bad), "{bad}");
    }
}

#[test]
fn field_checks_name_their_field() {
    let code = |d: S3Destination| check(&d).err().map(|i| (i.code, i.pointer));
    assert_eq!(code(dest(|_| {})), None);
    assert_eq!(
        code(dest(|d| d.bucket = "No".into())),
        Some(("invalid_bucket", "/destination/bucket"))
    );
    assert_eq!(
        code(dest(|d| {
            d.bucket = "a.b.c".into();
            d.addressing = S3Addressing::VirtualHost;
        })),
        Some(("invalid_bucket", "/destination/bucket"))
    );
    assert_eq!(
        code(dest(|d| d.prefix = "/x".into())),
        Some(("invalid_prefix", "/destination/prefix"))
    );
    assert_eq!(
        code(dest(|d| d.region = "Mars".into())),
        Some(("invalid_region", "/destination/region"))
    );
    for batch in [
        S3Batch {
            max_events: 0,
            ..S3Batch::default()
        },
        S3Batch {
            max_events: 10_001,
            ..S3Batch::default()
        },
        S3Batch {
            max_bytes: 1023,
            ..S3Batch::default()
        },
        S3Batch {
            max_bytes: 16 * 1024 * 1024 + 1,
            ..S3Batch::default()
        },
        S3Batch {
            max_wait_seconds: 0,
            ..S3Batch::default()
        },
        S3Batch {
            max_wait_seconds: 31,
            ..S3Batch::default()
        },
    ] {
        assert_eq!(
            code(dest(|d| d.batch = batch)),
            Some(("invalid_batch", "/destination/batch")),
            "{batch:?}"
        );
    }
    for batch in [
        S3Batch {
            max_events: 1,
            max_bytes: 1024,
            max_wait_seconds: 1,
        },
        S3Batch {
            max_events: 10_000,
            max_bytes: 16 * 1024 * 1024,
            max_wait_seconds: 30,
        },
    ] {
        assert_eq!(code(dest(|d| d.batch = batch)), None, "{batch:?}");
    }
}

#[test]
fn service_urls() {
    assert_eq!(
        authority("https://s3.eu-west-1.amazonaws.com"),
        Some(("https", "s3.eu-west-1.amazonaws.com"))
    );
    assert_eq!(
        authority("https://minio.example:9000/"),
        Some(("https", "minio.example:9000"))
    );
    for bad in [
        "https://minio.example/path",
        "https://minio.example?x=1",
        "https://minio.example#f",
        "https://user:pw@minio.example",
        "minio.example",
        "https://",
    ] {
        assert_eq!(authority(bad), None, "{bad}");
    }
    assert_eq!(
        registration_url(&dest(|_| {})).as_deref(),
        Some("https://s3.eu-west-1.amazonaws.com/")
    );
    assert_eq!(
        registration_url(&dest(|d| d.addressing = S3Addressing::VirtualHost)).as_deref(),
        Some("https://relay-events.s3.eu-west-1.amazonaws.com/")
    );
}

#[test]
fn object_names_derive_from_the_batch_alone() {
    let t = "2026-12-03T18:04:05.123Z";
    assert_eq!(
        object_key("", "bat_01", t, S3Compression::None),
        "2026/12/03/18/bat_01.jsonl"
    );
    assert_eq!(
        object_key("relay/orders/", "bat_01", t, S3Compression::Gzip),
        "relay/orders/2026/12/03/18/bat_01.jsonl.gz"
    );
    assert_eq!(
        object_key("relay/", "bat_01", t, S3Compression::None),
        object_key("relay/", "bat_01", t, S3Compression::None),
    );
}

#[test]
fn object_urls_and_signed_paths() {
    let d = dest(|d| {
        d.endpoint_url = Some("https://127.0.0.1:9000".into());
        d.prefix = "a(1)/".into();
    });
    let (url, path) = object_url(&d, "a(1)/2026/bat_1.jsonl").expect("a URL");
    assert_eq!(
        url,
        "https://127.0.0.1:9000/relay-events/a%281%29/2026/bat_1.jsonl"
    );
    assert_eq!(path, "/relay-events/a(1)/2026/bat_1.jsonl");
    let v = dest(|d| d.addressing = S3Addressing::VirtualHost);
    let (url, path) = object_url(&v, "k.jsonl").expect("a URL");
    assert_eq!(
        url,
        "https://relay-events.s3.eu-west-1.amazonaws.com/k.jsonl"
    );
    assert_eq!(path, "/k.jsonl");
}

#[test]
fn configuration_json_defaults_and_refusals() {
    let d: S3Destination = serde_json::from_value(serde_json::json!({
        "bucket": "relay-events",
        "region": "us-east-1",
        "access_key_id": "secret:k",
        "secret_access_key": "env:S3_SECRET"
    }))
    .expect("the defaults");
    assert_eq!(d.prefix, "");
    assert_eq!(d.addressing, S3Addressing::Path);
    assert_eq!(d.compression, S3Compression::None);
    assert_eq!(d.batch, S3Batch::default());
    assert_eq!(d.service_url(), "https://s3.us-east-1.amazonaws.com");
    // A credential itself is never accepted, and never echoed.
    let err = serde_json::from_value::<S3Destination>(serde_json::json!({
        "bucket": "relay-events",
        "region": "us-east-1",
        "access_key_id": "AKIAIOSFODNN7EXAMPLE",
        "secret_access_key": "secret:s"
    }))
    .expect_err("a plain key id");
    assert!(!err.to_string().contains("AKIAIOSFODNN7EXAMPLE"), "{err}");
    serde_json::from_value::<S3Destination>(serde_json::json!({
        "bucket": "b", "region": "r", "access_key_id": "secret:k",
        "secret_access_key": "secret:s", "extra": 1
    }))
    .expect_err("unknown fields are refused");
}

/// The kind's batching part: the object of a closed batch is named from
/// its id and time, gzip when configured, and signed over its exact bytes;
/// sealing the same batch again makes the same object.
#[test]
fn a_closed_batch_is_sealed_into_its_named_signed_object() {
    use std::sync::Arc;

    use relay_core::model::SignatureScheme;
    use relay_core::secret::{SecretValue, Secrets};
    use relay_core::signature::{SignatureHeaders, SigningKey, verify};
    use relay_core::time::Timestamp;
    use relay_net::{Guard, OutboundConfig, StaticResolver};

    use crate::batching::{Batching, Closing};
    use crate::{Kind, Shared};

    let d = dest(|d| {
        d.prefix = "relay/".into();
        d.compression = S3Compression::Gzip;
    });
    let mut secrets = Secrets::new();
    secrets.insert(d.access_key_id.clone(), SecretValue::from("AKIDEXAMPLE"));
    secrets.insert(d.secret_access_key.clone(), SecretValue::from("secret"));
    let guard = Guard::with_resolver(
        &OutboundConfig {
            allow_ports: vec![443],
            allow_cidrs: vec![],
            block_cidrs: vec![],
            extra_ca_certs: vec![],
            allow_plaintext_credentials_to_loopback: false,
        },
        Arc::new(StaticResolver::new()),
    )
    .unwrap();
    let shared = Shared {
        https: relay_net::HttpsClient::new(guard),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let client = super::S3::build(&d, &shared, &secrets).unwrap();
    let key = SigningKey::generate(SignatureScheme::V1, [7; 32]);
    let t = Timestamp::from_millis(1_764_784_800_000);
    let closing = Closing {
        batch_id: "bat_1",
        time: t,
        lines: &[&b"{\"id\":\"evt_1\"}"[..], &b"{\"id\":\"evt_2\"}"[..]],
        keys: std::slice::from_ref(&key),
    };
    let object = super::S3::seal(&client, &closing);
    assert_eq!(
        object.key,
        object_key("relay/", "bat_1", &t.to_rfc3339(), S3Compression::Gzip)
    );
    assert_eq!(object.content_type, "application/gzip");
    assert_eq!(object.batch_id, "bat_1");
    assert_eq!(
        object.bytes,
        super::batch::object(
            b"{\"id\":\"evt_1\"}\n{\"id\":\"evt_2\"}\n".to_vec(),
            S3Compression::Gzip
        )
    );
    let headers = SignatureHeaders {
        webhook_id: "bat_1".into(),
        webhook_timestamp: object.webhook_timestamp.clone(),
        webhook_signature: object.webhook_signature.clone(),
    };
    assert_eq!(
        verify(&[key.verification_key()], &headers, &object.bytes, t, 300),
        Ok(())
    );
    assert_eq!(super::S3::seal(&client, &closing), object);
    assert_eq!(
        super::S3::policy(&d),
        crate::BatchPolicy {
            max_events: d.batch.max_events,
            max_bytes: d.batch.max_bytes,
            max_wait_seconds: d.batch.max_wait_seconds,
        }
    );
}
