//! The kind's parts that need no peer: secrets out of `Debug` and records
//! (`aws/testing.rs`, shared with `sns`).

use relay_core::model::ContentMode;

use super::*;
use crate::aws::testing;
use crate::test_message::prepared;

fn destination() -> SqsDestination {
    SqsDestination {
        queue_url: "https://127.0.0.1:9/123456789012/q.fifo".into(),
        region: "us-east-1".into(),
        credentials: testing::credentials(),
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
    }
}

#[tokio::test]
async fn credentials_never_show() {
    testing::credentials_never_show::<Sqs>(&destination(), "q.fifo").await;
}

#[test]
fn a_key_id_that_cannot_be_sent_is_unresolved() {
    testing::a_key_id_that_cannot_be_sent_is_unresolved::<Sqs>(&destination());
}

/// A body SQS cannot carry is never sent: dead-lettered, recorded.
#[tokio::test]
async fn an_unsendable_body_is_rejected_unsent() {
    let client = Sqs::build(&destination(), &testing::shared(), &testing::secrets()).unwrap();
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
