//! SendGrid's signed event webhook: `X-Twilio-Email-Event-Webhook-Signature`
//! is a base64 DER ECDSA P-256/SHA-256 signature of the
//! `X-Twilio-Email-Event-Webhook-Timestamp` value followed by the raw body;
//! the source's secret is the verification key SendGrid shows (base64 DER
//! SubjectPublicKeyInfo). Nothing secret: the key is public.
//!
//! A request is a batch (a JSON array of events). Receipt id: `sha256:` and
//! the hex digest of the body (a retried batch is the same bytes); each
//! element becomes its own ledger entry, id `sg_event_id`, type `event`,
//! occurred at `timestamp`, normalized message id `sg_message_id`,
//! recipient `email`, status `event`. Replay window: the timestamp within
//! the tolerance (default 300 s).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use relay_core::time::Timestamp;
use ring::signature::{ECDSA_P256_SHA256_ASN1, UnparsedPublicKey};
use serde_json::Value;

use crate::mac::sha256_hex;
use crate::{
    LedgerEvent, Refusal, Request, SourceSecret, Verified, check_window, json, unix_seconds,
};

/// DER prefix of a P-256 SubjectPublicKeyInfo (id-ecPublicKey, prime256v1,
/// a 66-byte BIT STRING); the uncompressed point follows.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];

/// The uncompressed point of a base64 DER (or PEM) P-256 public key.
pub fn parse_public_key(secret: &str) -> Result<Vec<u8>, &'static str> {
    const WHAT: &str = "a SendGrid verification key is a base64 DER P-256 public key";
    let b64: String = secret
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .flat_map(|l| l.trim().chars())
        .collect();
    let der = BASE64.decode(b64).map_err(|_| WHAT)?;
    match der.strip_prefix(&P256_SPKI_PREFIX[..]) {
        Some(point) if point.len() == 65 && point[0] == 0x04 => Ok(point.to_vec()),
        _ => Err(WHAT),
    }
}

pub fn verify(
    secrets: &[SourceSecret],
    request: &Request<'_>,
    now: Timestamp,
    tolerance: i64,
) -> Result<Verified, Refusal> {
    let sig = BASE64
        .decode(request.require("x-twilio-email-event-webhook-signature")?)
        .map_err(|_| Refusal::MalformedSignature)?;
    let ts = request.require("x-twilio-email-event-webhook-timestamp")?;
    let sent = unix_seconds(ts)?;
    check_window(sent, now, tolerance)?;
    let mut signed = Vec::with_capacity(ts.len() + request.body.len());
    signed.extend_from_slice(ts.as_bytes());
    signed.extend_from_slice(request.body);
    let mut matched = false;
    for secret in secrets {
        if let Ok(point) = parse_public_key(secret.expose()) {
            matched |= UnparsedPublicKey::new(&ECDSA_P256_SHA256_ASN1, point)
                .verify(&signed, &sig)
                .is_ok();
        }
    }
    if !matched {
        return Err(Refusal::NoMatchingSignature);
    }
    Ok(Verified {
        event_id: format!("sha256:{}", sha256_hex(request.body)),
    })
}

pub fn events(_receipt_id: &str, request: &Request<'_>) -> Result<Vec<LedgerEvent>, Refusal> {
    let body = json::body(request)?;
    let items = match &body {
        Value::Array(items) => items.as_slice(),
        Value::Object(_) => std::slice::from_ref(&body),
        _ => return Err(Refusal::MalformedBody("not a JSON array of events")),
    };
    Ok(items
        .iter()
        .filter_map(|e| {
            let id = json::text(e, "/sg_event_id")?;
            let kind = json::text(e, "/event");
            Some(LedgerEvent {
                provider_event_id: id,
                event_type: kind.clone().unwrap_or_else(|| "event".into()),
                occurred_at: json::unix_time(e, "/timestamp"),
                message_id: json::text(e, "/sg_message_id"),
                recipient: json::text(e, "/email"),
                status: kind,
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{headers, load, s, tampered};

    #[test]
    fn verifies_the_published_example_and_refuses_tampered_copies() {
        let v = load("inbound/sendgrid.json");
        let ts = s(&v, "timestamp");
        let now = Timestamp::from_millis(ts.parse::<i64>().unwrap_or_default() * 1000 + 5_000);
        let h = headers(&[
            ("X-Twilio-Email-Event-Webhook-Signature", s(&v, "signature")),
            ("X-Twilio-Email-Event-Webhook-Timestamp", ts),
        ]);
        let body = s(&v, "payload").as_bytes();
        let secrets = [SourceSecret::new(s(&v, "public_key"))];
        let req = Request {
            url: "",
            headers: &h,
            body,
        };
        let ok = verify(&secrets, &req, now, 300);
        assert!(
            matches!(&ok, Ok(v) if v.event_id.starts_with("sha256:")),
            "{ok:?}"
        );

        let bad = tampered(body);
        assert_eq!(
            verify(&secrets, &Request { body: &bad, ..req }, now, 300),
            Err(Refusal::NoMatchingSignature)
        );
        let other = [SourceSecret::new(s(&v, "other_public_key"))];
        assert_eq!(
            verify(&other, &req, now, 300),
            Err(Refusal::NoMatchingSignature)
        );
        let bad_sig = headers(&[
            (
                "X-Twilio-Email-Event-Webhook-Signature",
                s(&v, "tampered_signature"),
            ),
            ("X-Twilio-Email-Event-Webhook-Timestamp", ts),
        ]);
        assert_eq!(
            verify(
                &secrets,
                &Request {
                    headers: &bad_sig,
                    ..req
                },
                now,
                300
            ),
            Err(Refusal::NoMatchingSignature)
        );
        let other_ts = headers(&[
            ("X-Twilio-Email-Event-Webhook-Signature", s(&v, "signature")),
            ("X-Twilio-Email-Event-Webhook-Timestamp", "1588788368"),
        ]);
        assert_eq!(
            verify(
                &secrets,
                &Request {
                    headers: &other_ts,
                    ..req
                },
                now,
                300
            ),
            Err(Refusal::NoMatchingSignature)
        );
        assert_eq!(
            verify(&secrets, &req, now.plus_seconds(300), 300),
            Err(Refusal::TimestampOutOfTolerance)
        );
    }

    #[test]
    fn a_batch_is_one_ledger_entry_per_event() {
        let body = br#"[{"email":"a@example.com","timestamp":1513299569,"event":"delivered","sg_event_id":"e1","sg_message_id":"m1"},{"email":"b@example.com","timestamp":1513299570,"event":"bounce","sg_event_id":"e2","sg_message_id":"m2"},{"event":"no id"}]"#;
        let req = Request {
            url: "",
            headers: &[],
            body,
        };
        let ev = events("r", &req).unwrap_or_default();
        assert_eq!(ev.len(), 2);
        assert_eq!(ev[1].provider_event_id, "e2");
        assert_eq!(ev[1].status.as_deref(), Some("bounce"));
        assert_eq!(ev[1].recipient.as_deref(), Some("b@example.com"));
        assert_eq!(
            ev[0].occurred_at,
            Some(Timestamp::from_millis(1_513_299_569_000))
        );
    }

    #[test]
    fn keys_that_are_not_p256_are_refused() {
        assert!(parse_public_key("bm90IGEga2V5").is_err());
        assert!(
            parse_public_key("MCowBQYDK2VwAyEAGb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=")
                .is_err()
        );
    }
}
