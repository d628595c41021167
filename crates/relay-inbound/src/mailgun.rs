//! Mailgun: the HMAC-SHA256, keyed by the webhook signing key, of the
//! signature's `timestamp` followed by its `token`, lowercase hex. The three
//! values are in the JSON body's `signature` object (event webhooks) or are
//! form fields (routes and legacy webhooks).
//!
//! Event id: `event-data.id`, else the token (unique per request). Replay
//! window: `timestamp` within the tolerance (default 300 s). Event type:
//! `event-data.event`; occurred at `event-data.timestamp`; normalized
//! message id (`event-data.message.headers.message-id`), recipient and
//! status (the event).

use relay_core::time::Timestamp;
use serde_json::Value;

use crate::mac::{equal, hmac, unhex};
use crate::{
    HmacAlgorithm, LedgerEvent, Refusal, Request, SourceSecret, Verified, check_window, json,
    unix_seconds,
};

struct Signed {
    timestamp: String,
    token: String,
    signature: String,
    event_id: Option<String>,
    event: Option<Value>,
}

fn read(request: &Request<'_>) -> Result<Signed, Refusal> {
    if let Ok(body) = serde_json::from_slice::<Value>(request.body) {
        let field = |p: &str| json::text(&body, p).ok_or(Refusal::MissingHeader("signature"));
        return Ok(Signed {
            timestamp: field("/signature/timestamp")?,
            token: field("/signature/token")?,
            signature: field("/signature/signature")?,
            event_id: json::text(&body, "/event-data/id"),
            event: body.get("event-data").cloned(),
        });
    }
    let p: Vec<(String, String)> = form_urlencoded::parse(request.body).into_owned().collect();
    let get = |n: &str| p.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone());
    Ok(Signed {
        timestamp: get("timestamp").ok_or(Refusal::MissingHeader("timestamp"))?,
        token: get("token").ok_or(Refusal::MissingHeader("token"))?,
        signature: get("signature").ok_or(Refusal::MissingHeader("signature"))?,
        event_id: None,
        event: Some(Value::Object(
            p.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        )),
    })
}

pub fn verify(
    secrets: &[SourceSecret],
    request: &Request<'_>,
    now: Timestamp,
    tolerance: i64,
) -> Result<Verified, Refusal> {
    let s = read(request)?;
    let sig = unhex(&s.signature).ok_or(Refusal::MalformedSignature)?;
    check_window(unix_seconds(&s.timestamp)?, now, tolerance)?;
    let mut matched = false;
    for secret in secrets {
        let expected = hmac(
            HmacAlgorithm::Sha256,
            secret.expose().as_bytes(),
            &[s.timestamp.as_bytes(), s.token.as_bytes()],
        );
        matched |= equal(&expected, &sig);
    }
    if !matched {
        return Err(Refusal::NoMatchingSignature);
    }
    Ok(Verified {
        event_id: s.event_id.unwrap_or(s.token),
    })
}

pub fn events(event_id: &str, request: &Request<'_>) -> Result<Vec<LedgerEvent>, Refusal> {
    let s = read(request)?;
    let e = s.event.unwrap_or(Value::Null);
    let kind = json::text(&e, "/event");
    Ok(vec![LedgerEvent {
        provider_event_id: event_id.to_owned(),
        event_type: kind.clone().unwrap_or_else(|| "inbound_message".into()),
        occurred_at: json::unix_time(&e, "/timestamp"),
        message_id: json::text(&e, "/message/headers/message-id")
            .or_else(|| json::text(&e, "/Message-Id")),
        recipient: json::text(&e, "/recipient"),
        status: kind,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{arr, i, load, s};

    #[test]
    fn verifies_the_vectors_and_refuses_tampered_copies() {
        let v = load("inbound/mailgun.json");
        for case in arr(&v, "cases") {
            let body = s(case, "body");
            let now = Timestamp::from_millis(i(case, "timestamp") * 1000);
            let secrets = [SourceSecret::new(s(case, "signing_key"))];
            let req = Request {
                url: "",
                headers: &[],
                body: body.as_bytes(),
            };
            assert_eq!(
                verify(&secrets, &req, now, 300).map(|v| v.event_id),
                Ok(s(case, "event_id").to_owned())
            );
            let ev = events(s(case, "event_id"), &req).unwrap_or_default();
            assert_eq!(ev[0].event_type, s(case, "event_type"));
            assert_eq!(ev[0].message_id.as_deref(), Some(s(case, "message_id")));
            assert_eq!(ev[0].recipient.as_deref(), Some(s(case, "recipient")));

            // The token or the timestamp changed: refused.
            let bad = body.replacen("\"token\":\"5", "\"token\":\"6", 1);
            assert_ne!(bad, body);
            let r = Request {
                body: bad.as_bytes(),
                ..req
            };
            assert_eq!(
                verify(&secrets, &r, now, 300),
                Err(Refusal::NoMatchingSignature)
            );
            let ts = i(case, "timestamp").to_string();
            let bad = body.replacen(&ts, &(i(case, "timestamp") + 1).to_string(), 1);
            let r = Request {
                body: bad.as_bytes(),
                ..req
            };
            assert_eq!(
                verify(&secrets, &r, now, 300),
                Err(Refusal::NoMatchingSignature)
            );
            assert_eq!(
                verify(&secrets, &req, now.plus_seconds(301), 300),
                Err(Refusal::TimestampOutOfTolerance)
            );
            assert_eq!(
                verify(&[SourceSecret::new("key-other")], &req, now, 300),
                Err(Refusal::NoMatchingSignature)
            );
        }
    }
}
