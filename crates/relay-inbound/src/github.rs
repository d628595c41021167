//! GitHub: `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the raw
//! body keyed by the webhook's secret.
//!
//! Event id: the `X-GitHub-Delivery` header (a GUID, the same on a
//! redelivery). Replay window: none (GitHub signs no time): deduplication
//! by delivery id is the replay protection. Event type: `X-GitHub-Event`,
//! with the body's `action` after a dot when it has one (`issues.opened`).

use crate::mac::{equal, hmac, unhex};
use crate::{HmacAlgorithm, LedgerEvent, Refusal, Request, SourceSecret, Verified, json};

pub fn verify(secrets: &[SourceSecret], request: &Request<'_>) -> Result<Verified, Refusal> {
    let header = request.require("x-hub-signature-256")?;
    let sig = header
        .strip_prefix("sha256=")
        .and_then(unhex)
        .ok_or(Refusal::MalformedSignature)?;
    let mut matched = false;
    for secret in secrets {
        let expected = hmac(
            HmacAlgorithm::Sha256,
            secret.expose().as_bytes(),
            &[request.body],
        );
        matched |= equal(&expected, &sig);
    }
    if !matched {
        return Err(Refusal::NoMatchingSignature);
    }
    let event_id = request
        .header("x-github-delivery")
        .filter(|v| !v.is_empty())
        .ok_or(Refusal::MissingEventId("the X-GitHub-Delivery header"))?;
    Ok(Verified {
        event_id: event_id.to_owned(),
    })
}

pub fn events(event_id: &str, request: &Request<'_>) -> Result<Vec<LedgerEvent>, Refusal> {
    let kind = request.header("x-github-event").unwrap_or("event");
    let action = json::body(request)
        .ok()
        .and_then(|b| json::text(&b, "/action"));
    let event_type = match action {
        Some(a) => format!("{kind}.{a}"),
        None => kind.to_owned(),
    };
    Ok(vec![LedgerEvent {
        provider_event_id: event_id.to_owned(),
        event_type,
        ..LedgerEvent::default()
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{arr, headers, load, s, tampered};

    #[test]
    fn verifies_the_published_example_and_refuses_tampered_copies() {
        let v = load("inbound/github.json");
        for case in arr(&v, "cases") {
            let h = headers(&[
                ("X-Hub-Signature-256", s(case, "header")),
                ("X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"),
                ("X-GitHub-Event", "ping"),
            ]);
            let body = s(case, "body").as_bytes();
            let secrets = [SourceSecret::new(s(case, "secret"))];
            let req = Request {
                url: "",
                headers: &h,
                body,
            };
            assert_eq!(
                verify(&secrets, &req).map(|v| v.event_id),
                Ok("72d3162e-cc78-11e3-81ab-4c9367dc0958".to_owned())
            );
            assert_eq!(events("x", &req).unwrap_or_default()[0].event_type, "ping");
            let bad = tampered(body);
            assert_eq!(
                verify(&secrets, &Request { body: &bad, ..req }),
                Err(Refusal::NoMatchingSignature)
            );
            let rotated = [
                SourceSecret::new("new"),
                SourceSecret::new(s(case, "secret")),
            ];
            assert!(verify(&rotated, &req).is_ok());
            let no_id = headers(&[("X-Hub-Signature-256", s(case, "header"))]);
            assert_eq!(
                verify(
                    &secrets,
                    &Request {
                        headers: &no_id,
                        ..req
                    }
                ),
                Err(Refusal::MissingEventId("the X-GitHub-Delivery header"))
            );
            let sha1 = headers(&[("X-Hub-Signature-256", "sha1=00")]);
            assert_eq!(
                verify(
                    &secrets,
                    &Request {
                        headers: &sha1,
                        ..req
                    }
                ),
                Err(Refusal::MalformedSignature)
            );
        }
    }
}
