//! SNS's `Publish` over its query protocol (`Action=Publish`, a form body,
//! `application/x-www-form-urlencoded`), pure: the request's form with the
//! message attributes and FIFO ids of [`crate::aws::message`] (SQS's kind
//! follows the same rule: at most [`MAX_ATTRIBUTES`]), and the reading of
//! SNS's XML answer. SNS answers no digest of what it took: the
//! `MessageId` is the whole acknowledgement. It opens nothing.

use crate::s3::classify::element;

pub use crate::aws::message::{MAX_ATTRIBUTES, attributes, attributes_bytes, fifo_ids};

/// The request's `Content-Type`.
pub const CONTENT_TYPE: &str = "application/x-www-form-urlencoded; charset=utf-8";

/// The query protocol's API version of SNS.
pub const VERSION: &str = "2010-03-31";

/// Whether SNS takes `body` as a message: UTF-8, at least one byte.
pub fn valid_message(body: &[u8]) -> Option<&str> {
    std::str::from_utf8(body).ok().filter(|t| !t.is_empty())
}

/// The `Publish` request's form: the topic, the message, each attribute
/// as `MessageAttributes.entry.<n>.Name`, `.Value.DataType` (`String`)
/// and `.Value.StringValue` (numbered from 1 in the order given), and on a
/// FIFO topic the `MessageGroupId` and `MessageDeduplicationId`.
pub fn request(
    topic_arn: &str,
    message: &str,
    attributes: &[(String, String)],
    fifo: Option<&(String, String)>,
) -> Vec<u8> {
    let mut form = form_urlencoded::Serializer::new(String::new());
    form.append_pair("Action", "Publish")
        .append_pair("Version", VERSION)
        .append_pair("TopicArn", topic_arn)
        .append_pair("Message", message);
    for (i, (name, value)) in attributes.iter().enumerate() {
        let entry = format!("MessageAttributes.entry.{}", i + 1);
        form.append_pair(&format!("{entry}.Name"), name)
            .append_pair(&format!("{entry}.Value.DataType"), "String")
            .append_pair(&format!("{entry}.Value.StringValue"), value);
    }
    if let Some((group, dedup)) = fifo {
        form.append_pair("MessageGroupId", group)
            .append_pair("MessageDeduplicationId", dedup);
    }
    form.finish().into_bytes()
}

/// What SNS answered, read from its XML.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Answer {
    /// `PublishResult`'s `MessageId`.
    pub message_id: Option<String>,
    /// A FIFO topic's `SequenceNumber`.
    pub sequence_number: Option<String>,
    /// An error's `Code` (`AuthorizationError`, `NotFound`, …).
    pub error_code: Option<String>,
    pub error_message: Option<String>,
}

/// Reads an answer's body: `<PublishResponse><PublishResult><MessageId>…`
/// or `<ErrorResponse><Error><Code>…</Code><Message>…</Message>`.
pub fn answer(body: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(body);
    let field = |name| {
        element(&text, name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let result = element(&text, "PublishResult").unwrap_or_default();
    let in_result = |name| {
        element(result, name)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    Answer {
        message_id: in_result("MessageId"),
        sequence_number: in_result("SequenceNumber"),
        error_code: field("Code"),
        error_message: field("Message"),
    }
}

#[cfg(test)]
mod tests {
    use relay_core::model::ContentMode;

    use super::*;
    use crate::test_message::prepared;

    fn form(body: &[u8]) -> Vec<(String, String)> {
        form_urlencoded::parse(body).into_owned().collect()
    }

    #[test]
    fn a_publish_is_its_form() {
        let attrs = vec![
            ("webhook-id".to_string(), "evt_1".to_string()),
            (
                "content-type".to_string(),
                "application/json; x=&".to_string(),
            ),
        ];
        let body = request(
            "arn:aws:sns:eu-west-1:123456789012:t.fifo",
            "{\"a\":\"é & +\"}",
            &attrs,
            Some(&("g/1".into(), "evt_1".into())),
        );
        let text = std::str::from_utf8(&body).unwrap();
        assert!(!text.contains(' ') && !text.contains('"'), "{text}");
        let expected: Vec<(String, String)> = [
            ("Action", "Publish"),
            ("Version", VERSION),
            ("TopicArn", "arn:aws:sns:eu-west-1:123456789012:t.fifo"),
            ("Message", "{\"a\":\"é & +\"}"),
            ("MessageAttributes.entry.1.Name", "webhook-id"),
            ("MessageAttributes.entry.1.Value.DataType", "String"),
            ("MessageAttributes.entry.1.Value.StringValue", "evt_1"),
            ("MessageAttributes.entry.2.Name", "content-type"),
            ("MessageAttributes.entry.2.Value.DataType", "String"),
            (
                "MessageAttributes.entry.2.Value.StringValue",
                "application/json; x=&",
            ),
            ("MessageGroupId", "g/1"),
            ("MessageDeduplicationId", "evt_1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(form(&body), expected);
        let standard = request("arn:aws:sns:r:123456789012:t", "m", &[], None);
        assert_eq!(
            form(&standard).len(),
            4,
            "no attributes, no FIFO ids on a standard topic"
        );
    }

    /// The attributes are SQS's kind's rule, ten at most in either mode.
    #[test]
    fn attributes_are_the_shared_rule() {
        for mode in [ContentMode::Structured, ContentMode::Binary] {
            let m = prepared(mode);
            let a = attributes(&m);
            assert!(a.len() <= MAX_ATTRIBUTES, "{a:?}");
            assert_eq!(a, crate::sqs::wire::attributes(&m));
        }
    }

    #[test]
    fn answers_are_read() {
        let ok = br#"<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>567910cd-659e-55d4-8ccb-5aaf14679dc0</MessageId><SequenceNumber>10000000000000003000</SequenceNumber></PublishResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></PublishResponse>"#;
        assert_eq!(
            answer(ok),
            Answer {
                message_id: Some("567910cd-659e-55d4-8ccb-5aaf14679dc0".into()),
                sequence_number: Some("10000000000000003000".into()),
                ..Answer::default()
            }
        );
        let err = br#"<ErrorResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><Error><Type>Sender</Type><Code>AuthorizationError</Code><Message>User: arn:aws:iam::123456789012:user/x is not authorized to perform: SNS:Publish</Message></Error><RequestId>r</RequestId></ErrorResponse>"#;
        let a = answer(err);
        assert_eq!(a.error_code.as_deref(), Some("AuthorizationError"));
        assert!(a.error_message.unwrap().contains("not authorized"));
        assert_eq!(a.message_id, None);
        // A MessageId outside PublishResult is no acknowledgement.
        assert_eq!(answer(b"<MessageId>x</MessageId>").message_id, None);
        assert_eq!(answer(b"not xml"), Answer::default());
        assert_eq!(
            answer(b"<PublishResult><MessageId> </MessageId></PublishResult>").message_id,
            None
        );
    }

    #[test]
    fn a_message_is_utf8() {
        assert_eq!(valid_message(b"{}"), Some("{}"));
        assert_eq!(valid_message(b""), None);
        assert_eq!(valid_message(b"\xff"), None);
    }
}
