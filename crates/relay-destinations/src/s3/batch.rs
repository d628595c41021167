//! A batch's object, pure: the JSON Lines of its messages, its name and
//! signature ([`S3`]'s [`Batching`]: the engine's batches are sealed and
//! written here), and the [`Prepared`] the kind's `deliver` writes.
//!
//! **The object** is one line per message, in the batch's order: each line
//! is the message's CloudEvents structured JSON exactly as `prepare` made it
//! (a complete CloudEvent, with the endpoint version's shape of its data),
//! followed by `\n`. JSON has no raw newline inside a value, so a line is
//! always one event.
//!
//! **The signature** is one Standard Webhooks signature over the object's
//! exact bytes (as stored: the gzip when compression is on), with
//! `webhook-id` = the batch id and `webhook-timestamp` = the batch's time.
//! It travels as the object's metadata, so any Standard Webhooks SDK
//! verifies a downloaded object as it verifies a webhook: the three
//! metadata values as the headers, the object's bytes as the raw body. It
//! covers every line, and the verifier checks it before inflating
//! anything. The object is made, signed and stored once when the batch is
//! closed; every write of the batch sends these same bytes.

use crate::s3::S3Compression;
use bytes::Bytes;
use relay_core::model::{ContentMode, Environment};
use relay_core::signature::{SigningKey, sign_request};
use relay_core::time::Timestamp;
use sha2::{Digest, Sha256};

use super::{Client, Object, S3, Written, config};
use crate::Prepared;
use crate::batching::{BatchObject, BatchPolicy, Batching, Closing};

/// The JSON Lines of `bodies`, each followed by `\n`.
pub fn lines<'a>(bodies: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    for body in bodies {
        out.extend_from_slice(body);
        out.push(b'\n');
    }
    out
}

/// The object of a batch whose JSON Lines are `lines`: the lines
/// themselves, or their gzip (one member, no file name, no time: the same
/// lines make the same bytes).
pub fn object(lines: Vec<u8>, compression: S3Compression) -> Bytes {
    match compression {
        S3Compression::None => Bytes::from(lines),
        S3Compression::Gzip => {
            use std::io::Write as _;
            let mut gz = flate2::GzBuilder::new()
                .mtime(0)
                .write(Vec::new(), flate2::Compression::default());
            // Writing to a Vec cannot fail.
            let _ = gz.write_all(&lines);
            Bytes::from(gz.finish().unwrap_or_default())
        }
    }
}

/// A closed batch as it is stored and written: its object's bytes and the
/// signature over them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    pub batch_id: String,
    /// The batch's time (the `webhook-timestamp`, the object name's date).
    pub time: Timestamp,
    /// The object's exact bytes.
    pub object: Bytes,
    pub webhook_timestamp: String,
    pub webhook_signature: String,
}

/// Signs `object` as the batch `batch_id` of `time` with the endpoint's
/// active keys.
pub fn seal(batch_id: &str, time: Timestamp, object: Bytes, keys: &[SigningKey]) -> Sealed {
    let signed = sign_request(keys, batch_id, time, &object);
    Sealed {
        batch_id: batch_id.to_string(),
        time,
        object,
        webhook_timestamp: signed.webhook_timestamp,
        webhook_signature: signed.webhook_signature,
    }
}

/// The [`Prepared`] the kind's `deliver` writes for `sealed`: the object's
/// bytes as the body and the batch's signature values. `attempt_number` is
/// the batch's write number.
pub fn prepared(sealed: &Sealed, environment: Environment, attempt_number: i64) -> Prepared {
    Prepared {
        body_sha256: hex::encode(Sha256::digest(&sealed.object)),
        body: sealed.object.clone(),
        content_type: "application/x-ndjson",
        content_mode: ContentMode::Structured,
        attributes: Vec::new(),
        webhook_id: sealed.batch_id.clone(),
        webhook_timestamp: sealed.webhook_timestamp.clone(),
        webhook_signature: sealed.webhook_signature.clone(),
        event_type: String::new(),
        environment,
        ordering_key: None,
        attempt_number,
        traceparent: None,
    }
}

impl Batching for S3 {
    fn policy(config: &crate::s3::S3Destination) -> BatchPolicy {
        BatchPolicy {
            max_events: config.batch.max_events,
            max_bytes: config.batch.max_bytes,
            max_wait_seconds: config.batch.max_wait_seconds,
        }
    }

    /// JSON Lines (gzip if configured), signed over the object's bytes,
    /// named from the batch id and time ([`config::object_key`]).
    fn seal(client: &Client, closing: &Closing<'_>) -> BatchObject {
        let d = client.config();
        let bytes = object(lines(closing.lines.iter().copied()), d.compression);
        let sealed = seal(closing.batch_id, closing.time, bytes, closing.keys);
        BatchObject {
            key: config::object_key(
                &d.prefix,
                closing.batch_id,
                &closing.time.to_rfc3339(),
                d.compression,
            ),
            content_type: config::content_type(d.compression).into(),
            batch_id: sealed.batch_id,
            bytes: sealed.object,
            webhook_timestamp: sealed.webhook_timestamp,
            webhook_signature: sealed.webhook_signature,
        }
    }

    async fn write(client: &Client, o: &BatchObject, limits: relay_net::Limits) -> Written {
        let object = Object {
            key: &o.key,
            bytes: o.bytes.clone(),
            content_type: &o.content_type,
            batch_id: &o.batch_id,
            webhook_timestamp: &o.webhook_timestamp,
            webhook_signature: &o.webhook_signature,
        };
        client.write(&object, limits).await
    }
}

#[cfg(test)]
mod tests {
    use relay_core::model::SignatureScheme;
    use relay_core::signature::{SignatureHeaders, SigningKey, verify};

    use super::*;

    #[test]
    fn a_line_per_body_each_ended() {
        assert_eq!(
            lines([&b"{\"a\":1}"[..], b"{\"b\":2}"]),
            b"{\"a\":1}\n{\"b\":2}\n"
        );
        assert_eq!(lines(std::iter::empty::<&[u8]>()), b"");
    }

    #[test]
    fn gzip_objects_inflate_to_the_lines_and_are_reproducible() {
        use std::io::Read as _;
        let lines = lines([&b"{\"a\":1}"[..], b"{\"b\":2}"]);
        assert_eq!(object(lines.clone(), S3Compression::None), lines);
        let gz = object(lines.clone(), S3Compression::Gzip);
        assert_eq!(&gz[..2], &[0x1f, 0x8b]);
        assert_eq!(gz, object(lines.clone(), S3Compression::Gzip));
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, lines);
    }

    #[test]
    fn the_seal_verifies_over_the_object_bytes() {
        let key = SigningKey::generate(SignatureScheme::V1, [7; 32]);
        let t = Timestamp::from_millis(1_764_784_800_000);
        let object = Bytes::from(lines([&b"{\"id\":\"evt_1\"}"[..]]));
        let sealed = seal("bat_1", t, object.clone(), std::slice::from_ref(&key));
        assert_eq!(sealed.webhook_timestamp, "1764784800");
        let headers = SignatureHeaders {
            webhook_id: "bat_1".into(),
            webhook_timestamp: sealed.webhook_timestamp.clone(),
            webhook_signature: sealed.webhook_signature.clone(),
        };
        assert_eq!(
            verify(&[key.verification_key()], &headers, &object, t, 300),
            Ok(())
        );
        // The same batch sealed again is the same signature (HMAC).
        assert_eq!(seal("bat_1", t, object, &[key]), sealed);
        let p = prepared(&sealed, Environment::Live, 2);
        assert_eq!(p.webhook_id, "bat_1");
        assert_eq!(p.body, sealed.object);
        assert_eq!(p.body_sha256, hex::encode(Sha256::digest(&sealed.object)));
    }
}
