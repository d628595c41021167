//! The kind's parts that need no peer: secrets out of `Debug` and records
//! (`aws/testing.rs`, shared with `sqs`), what is never sent, the size.

use relay_core::model::ContentMode;

use super::*;
use crate::aws::testing;
use crate::test_message::prepared;

fn destination() -> SnsDestination {
    SnsDestination {
        topic_arn: "arn:aws:sns:us-east-1:123456789012:orders.fifo".into(),
        endpoint_url: Some("https://127.0.0.1:9".into()),
        credentials: testing::credentials(),
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
    }
}

#[tokio::test]
async fn credentials_never_show() {
    testing::credentials_never_show::<Sns>(&destination(), "orders.fifo").await;
}

#[test]
fn a_key_id_that_cannot_be_sent_is_unresolved() {
    testing::a_key_id_that_cannot_be_sent_is_unresolved::<Sns>(&destination());
}

/// A message SNS cannot carry is never sent: dead-lettered, recorded.
#[tokio::test]
async fn an_unsendable_message_is_rejected_unsent() {
    let client = Sns::build(&destination(), &testing::shared(), &testing::secrets()).unwrap();
    let mut m = prepared(ContentMode::Binary);
    m.body = bytes::Bytes::from_static(b"\xff\xfe");
    let published = Sns::deliver(&client, &m, Limits::default()).await;
    assert!(matches!(published.result, Err(Failure::Unsendable(_))));
    assert!(matches!(
        Sns::classify(&published, Timestamp::from_millis(0)),
        Verdict::Rejected { .. }
    ));
    assert_eq!(
        Sns::record(&published).detail["error"]["code"],
        "unsendable"
    );
}

/// Nothing listens on the endpoint: a connection failure, retried, its
/// record naming the topic.
#[tokio::test]
async fn no_answer_is_retried() {
    let client = Sns::build(&destination(), &testing::shared(), &testing::secrets()).unwrap();
    let published = Sns::deliver(
        &client,
        &prepared(ContentMode::Structured),
        Limits::default(),
    )
    .await;
    assert!(matches!(
        Sns::classify(&published, Timestamp::from_millis(0)),
        Verdict::Retry { .. }
    ));
    let record = Sns::record(&published);
    assert_eq!(
        record.detail["topic_arn"],
        "arn:aws:sns:us-east-1:123456789012:orders.fifo"
    );
    assert!(record.error.is_some());
}

/// The size counted is the message and the attributes, and the capacity
/// is the topic's.
#[test]
fn message_bytes_count_the_attributes() {
    let m = prepared(ContentMode::Structured);
    let n = Sns::message_bytes(&destination(), &m);
    assert_eq!(
        n,
        m.body.len() as u64 + wire::attributes_bytes(&wire::attributes(&m))
    );
    assert_eq!(
        Sns::capacity(&destination()).max_message_bytes,
        Some(256 * 1024)
    );
}

/// The configuration reads from and writes to the API's JSON, the
/// credentials among the topic's own fields.
#[test]
fn the_configuration_is_one_object() {
    let v = serde_json::json!({
        "topic_arn": "arn:aws:sns:eu-west-1:123456789012:orders",
        "access_key_id": "secret:k", "secret_access_key": "env:SNS_SECRET",
    });
    let d: SnsDestination = serde_json::from_value(v).unwrap();
    assert_eq!(
        d.credentials.access_key_id,
        Some(SecretRef::Secret("k".into()))
    );
    assert_eq!(d.credentials.session_token, None);
    assert_eq!(d.max_message_bytes, 256 * 1024);
    assert!(!d.is_fifo());
    let back = serde_json::to_value(&d).unwrap();
    assert_eq!(back["access_key_id"], "secret:k");
    assert!(back.get("credentials").is_none(), "{back}");
    let unknown = serde_json::json!({
        "topic_arn": "arn:aws:sns:eu-west-1:123456789012:orders",
        "access_key_id": "secret:k", "secret_access_key": "secret:s", "extra": 1,
    });
    assert!(serde_json::from_value::<SnsDestination>(unknown).is_err());
}
