//! The kind's parts that need no peer: secrets out of `Debug` and records.

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};

use super::*;
use crate::test_message::prepared;

fn destination() -> SqsDestination {
    SqsDestination {
        queue_url: "https://127.0.0.1:9/123456789012/q.fifo".into(),
        region: "us-east-1".into(),
        access_key_id: Some(SecretRef::Secret("id".into())),
        secret_access_key: Some(SecretRef::Secret("secret".into())),
        session_token: Some(SecretRef::Secret("token".into())),
        role_arn: None,
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
    }
}

fn shared() -> Shared {
    Shared {
        https: HttpsClient::new(
            Guard::from_config(&OutboundConfig {
                allow_ports: vec![9],
                allow_cidrs: vec!["127.0.0.1/32".into()],
                block_cidrs: vec![],
                extra_ca_certs: vec![],
                allow_plaintext_credentials_to_loopback: false,
            })
            .unwrap(),
        ),
        clock: std::sync::Arc::new(relay_core::time::ManualClock::default()),
    }
}

fn secrets() -> Secrets {
    let mut s = Secrets::new();
    s.insert(
        SecretRef::Secret("id".into()),
        SecretValue::from("AKIASECRETKEYID00001"),
    );
    s.insert(
        SecretRef::Secret("secret".into()),
        SecretValue::from("the-secret-access-key"),
    );
    s.insert(
        SecretRef::Secret("token".into()),
        SecretValue::from("the-session-token"),
    );
    s
}

/// Neither the client's `Debug` nor a failed attempt's record shows a
/// credential.
#[tokio::test]
async fn credentials_never_show() {
    let client = Sqs::build(&destination(), &shared(), &secrets()).unwrap();
    let sent = Sqs::deliver(
        &client,
        &prepared(ContentMode::Structured),
        Limits::default(),
    )
    .await;
    let record = Sqs::record(&sent);
    let shown = format!("{client:?} {sent:?} {record:?}");
    for secret in [
        "AKIASECRETKEYID00001",
        "the-secret-access-key",
        "the-session-token",
    ] {
        assert!(!shown.contains(secret), "{secret} in {shown}");
    }
    assert!(shown.contains("q.fifo"));
}

/// A key id that is no header text is refused at build as unresolved.
#[test]
fn a_key_id_that_cannot_be_sent_is_unresolved() {
    let mut s = secrets();
    s.insert(SecretRef::Secret("id".into()), SecretValue::from("bad\nid"));
    assert!(Sqs::build(&destination(), &shared(), &s).is_err());
}

/// A body SQS cannot carry is never sent: dead-lettered, recorded.
#[tokio::test]
async fn an_unsendable_body_is_rejected_unsent() {
    let client = Sqs::build(&destination(), &shared(), &secrets()).unwrap();
    let mut m = prepared(ContentMode::Binary);
    m.body = bytes::Bytes::from_static(b"\x00\x01");
    let sent = Sqs::deliver(&client, &m, Limits::default()).await;
    assert!(matches!(sent.result, Err(Failure::Unsendable(_))));
    assert!(matches!(
        Sqs::classify(&sent, Timestamp::from_millis(0)),
        Verdict::Rejected { .. }
    ));
    assert_eq!(Sqs::record(&sent).detail["error"]["code"], "unsendable");
}

/// The size counted is the body and the attributes.
#[test]
fn message_bytes_count_the_attributes() {
    let m = prepared(ContentMode::Structured);
    let n = Sqs::message_bytes(&destination(), &m);
    assert_eq!(
        n,
        m.body.len() as u64 + wire::attributes_bytes(&wire::attributes(&m))
    );
    assert!(n > m.body.len() as u64 + 100);
}
