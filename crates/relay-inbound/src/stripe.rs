//! Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, the
//! HMAC-SHA256 of `{t}.{raw body}` keyed by the endpoint secret (the whole
//! `whsec_…` text). Entries other than `v1` (the test-mode `v0`) are ignored.
//!
//! Event id: the body's `id` (`evt_…`). Replay window: `t` within the
//! tolerance (default 300 s, Stripe's own libraries' default). Event type:
//! `type`; occurred at: `created`.

use relay_core::time::Timestamp;

use crate::mac::{equal, hmac, unhex};
use crate::{
    HmacAlgorithm, LedgerEvent, Refusal, Request, SourceSecret, Verified, check_window, json,
    unix_seconds,
};

pub fn verify(
    secrets: &[SourceSecret],
    request: &Request<'_>,
    now: Timestamp,
    tolerance: i64,
) -> Result<Verified, Refusal> {
    let header = request.require("stripe-signature")?;
    let mut t = None;
    let mut signatures = Vec::new();
    for item in header.split(',') {
        let Some((k, v)) = item.trim().split_once('=') else {
            continue;
        };
        match k {
            "t" => t = Some(v),
            "v1" => {
                if let Some(bytes) = unhex(v) {
                    signatures.push(bytes);
                }
            }
            _ => {}
        }
    }
    let t = t.ok_or(Refusal::MalformedSignature)?;
    let sent = unix_seconds(t)?;
    if signatures.is_empty() {
        return Err(Refusal::MalformedSignature);
    }
    check_window(sent, now, tolerance)?;
    let mut matched = false;
    for secret in secrets {
        let expected = hmac(
            HmacAlgorithm::Sha256,
            secret.expose().as_bytes(),
            &[t.as_bytes(), b".", request.body],
        );
        for sig in &signatures {
            matched |= equal(&expected, sig);
        }
    }
    if !matched {
        return Err(Refusal::NoMatchingSignature);
    }
    let body = json::body(request)?;
    let event_id = json::text(&body, "/id").ok_or(Refusal::MissingEventId("the body's id"))?;
    Ok(Verified { event_id })
}

pub fn events(event_id: &str, request: &Request<'_>) -> Result<Vec<LedgerEvent>, Refusal> {
    let body = json::body(request)?;
    Ok(vec![LedgerEvent {
        provider_event_id: event_id.to_owned(),
        event_type: json::text(&body, "/type").unwrap_or_else(|| "event".into()),
        occurred_at: json::unix_time(&body, "/created"),
        ..LedgerEvent::default()
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{arr, headers, i, load, s, tampered};

    #[test]
    fn verifies_the_vectors_and_refuses_tampered_copies() {
        let v = load("inbound/stripe.json");
        for case in arr(&v, "cases") {
            let h = headers(&[("Stripe-Signature", s(case, "header"))]);
            let body = s(case, "body").as_bytes();
            let now = Timestamp::from_millis(i(case, "timestamp") * 1000);
            let secrets = [SourceSecret::new(s(case, "secret"))];
            let req = Request {
                url: "",
                headers: &h,
                body,
            };
            assert_eq!(
                verify(&secrets, &req, now, 300).map(|v| v.event_id),
                Ok(s(case, "event_id").to_owned())
            );
            let ev = events(s(case, "event_id"), &req).unwrap_or_default();
            assert_eq!(ev[0].event_type, s(case, "event_type"));
            assert_eq!(
                ev[0].occurred_at,
                Some(Timestamp::from_millis(i(case, "created") * 1000))
            );

            let bad = tampered(body);
            let req_bad = Request { body: &bad, ..req };
            assert_eq!(
                verify(&secrets, &req_bad, now, 300),
                Err(Refusal::NoMatchingSignature)
            );
            let wrong = [SourceSecret::new("whsec_other")];
            assert_eq!(
                verify(&wrong, &req, now, 300),
                Err(Refusal::NoMatchingSignature)
            );
            assert_eq!(
                verify(&secrets, &req, now.plus_seconds(-301), 300),
                Err(Refusal::TimestampOutOfTolerance)
            );
            // Only the v0 entry left: nothing to verify with.
            let only_v0 = headers(&[("Stripe-Signature", "t=1733140000,v0=6ffbb59b")]);
            let req_v0 = Request {
                headers: &only_v0,
                ..req
            };
            assert_eq!(
                verify(&secrets, &req_v0, now, 300),
                Err(Refusal::MalformedSignature)
            );
        }
    }
}
