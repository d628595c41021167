//! Standard Webhooks: one verifier for every compatible provider and for
//! Relay's own profile (`v1` HMAC-SHA256 with a `whsec_` secret, `v1a`
//! Ed25519 with a `whpk_` public key). The signature code is
//! `relay_core::signature`'s, the same that signs Relay's deliveries.
//!
//! Event id: the `webhook-id` header. Replay window: `webhook-timestamp`
//! within the tolerance (default 300 s). Event type: the body's `type`;
//! occurred at: the body's `timestamp` (Standard Webhooks payloads) or
//! `time` (CloudEvents, as Relay sends them).

use relay_core::signature::{self, SignatureHeaders, VerificationKey};
use relay_core::time::Timestamp;

use crate::{LedgerEvent, Refusal, Request, SourceSecret, Verified, json};

/// Parses a source secret: `whsec_…`, `whpk_…` (or `whsk_…`, verified with its public half).
pub fn parse_key(secret: &str) -> Result<VerificationKey, &'static str> {
    VerificationKey::parse(secret.trim())
        .map_err(|_| "a Standard Webhooks secret is whsec_<base64> (HMAC) or whpk_<base64> (Ed25519 public key)")
}

pub fn verify(
    secrets: &[SourceSecret],
    request: &Request<'_>,
    now: Timestamp,
    tolerance: i64,
) -> Result<Verified, Refusal> {
    let headers = SignatureHeaders {
        webhook_id: request.require("webhook-id")?.to_owned(),
        webhook_timestamp: request.require("webhook-timestamp")?.to_owned(),
        webhook_signature: request.require("webhook-signature")?.to_owned(),
    };
    let keys: Vec<VerificationKey> = secrets
        .iter()
        .filter_map(|s| parse_key(s.expose()).ok())
        .collect();
    if keys.is_empty() {
        return Err(Refusal::Misconfigured("no usable key"));
    }
    match signature::verify(&keys, &headers, request.body, now, tolerance) {
        Ok(()) => Ok(Verified {
            event_id: headers.webhook_id,
        }),
        Err(signature::VerifyError::InvalidTimestamp) => Err(Refusal::InvalidTimestamp),
        Err(signature::VerifyError::TimestampOutOfTolerance) => {
            Err(Refusal::TimestampOutOfTolerance)
        }
        Err(signature::VerifyError::NoMatchingSignature) => Err(Refusal::NoMatchingSignature),
    }
}

pub fn events(event_id: &str, request: &Request<'_>) -> Result<Vec<LedgerEvent>, Refusal> {
    let body = json::body(request)?;
    let occurred_at = ["/timestamp", "/time"]
        .iter()
        .find_map(|p| json::text(&body, p))
        .and_then(|t| Timestamp::parse_rfc3339(&t));
    Ok(vec![LedgerEvent {
        provider_event_id: event_id.to_owned(),
        event_type: json::text(&body, "/type").unwrap_or_else(|| "event".into()),
        occurred_at,
        ..LedgerEvent::default()
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{arr, headers, i, load, s, tampered};
    use relay_core::signature::{SigningKey, sign_request};

    fn check(secret: &str, case: &serde_json::Value) {
        let sig = s(case, "signature");
        let ts = i(case, "timestamp");
        let h = headers(&[
            ("webhook-id", s(case, "id")),
            ("webhook-timestamp", &ts.to_string()),
            ("webhook-signature", sig),
        ]);
        let body = s(case, "body").as_bytes();
        let now = Timestamp::from_millis(ts * 1000);
        let secrets = [SourceSecret::new(secret)];
        let req = Request {
            url: "https://relay.example/inbound/x",
            headers: &h,
            body,
        };
        assert_eq!(
            verify(&secrets, &req, now, 300),
            Ok(Verified {
                event_id: s(case, "id").to_owned()
            })
        );
        let bad = tampered(body);
        let req = Request { body: &bad, ..req };
        assert_eq!(
            verify(&secrets, &req, now, 300),
            Err(Refusal::NoMatchingSignature)
        );
        let req = Request { body, ..req };
        assert_eq!(
            verify(&secrets, &req, now.plus_seconds(301), 300),
            Err(Refusal::TimestampOutOfTolerance)
        );
    }

    #[test]
    fn verifies_the_published_v1_and_v1a_vectors_and_refuses_tampered_copies() {
        let v = load("standard-webhooks.json");
        for case in arr(&v, "v1") {
            check(s(case, "secret"), case);
        }
        for case in arr(&v, "v1a") {
            check(s(case, "public_key"), case);
        }
    }

    #[test]
    fn verifies_relay_own_deliveries_during_a_rotation() {
        let old = SigningKey::generate(relay_core::model::SignatureScheme::V1a, [7; 32]);
        let new = SigningKey::generate(relay_core::model::SignatureScheme::V1, [9; 32]);
        let now = Timestamp::from_millis(1_733_140_000_000);
        let body = br#"{"specversion":"1.0","id":"evt_1","type":"order.shipped","time":"2024-12-02T12:00:00Z"}"#;
        let signed = sign_request(std::slice::from_ref(&old), "msg_1", now, body);
        let h = headers(&[
            ("Webhook-Id", &signed.webhook_id),
            ("Webhook-Timestamp", &signed.webhook_timestamp),
            ("Webhook-Signature", &signed.webhook_signature),
        ]);
        let req = Request {
            url: "",
            headers: &h,
            body,
        };
        let SigningKey::Ed25519(old_key) = &old else {
            panic!("v1a key")
        };
        let SigningKey::Hmac(new_key) = &new else {
            panic!("v1 key")
        };
        let secrets = [
            SourceSecret::new(new_key.expose_whsec()),
            SourceSecret::new(old_key.public_key().to_whpk()),
        ];
        assert_eq!(
            verify(&secrets, &req, now, 300).map(|v| v.event_id),
            Ok("msg_1".into())
        );
        assert_eq!(
            verify(&secrets[..1], &req, now, 300),
            Err(Refusal::NoMatchingSignature)
        );
        let ev = events("msg_1", &req).unwrap_or_default();
        assert_eq!(ev.len(), 1);
        assert_eq!(ev[0].event_type, "order.shipped");
        assert_eq!(
            ev[0].occurred_at,
            Timestamp::parse_rfc3339("2024-12-02T12:00:00Z")
        );
    }

    #[test]
    fn a_missing_header_is_named() {
        let h = headers(&[("webhook-id", "m"), ("webhook-timestamp", "1")]);
        let req = Request {
            url: "",
            headers: &h,
            body: b"{}",
        };
        let secrets = [SourceSecret::new("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")];
        assert_eq!(
            verify(&secrets, &req, Timestamp::from_millis(1000), 300),
            Err(Refusal::MissingHeader("webhook-signature"))
        );
    }
}
