//! Twilio: `X-Twilio-Signature`, the base64 HMAC-SHA1 keyed by the auth
//! token of the URL Twilio addressed followed by every form parameter, name
//! then value, sorted by name (and by value within a name). For a JSON body
//! Twilio adds `bodySHA256=<hex>` to the URL's query and signs the URL
//! alone; the body is checked against that digest. As Twilio's own
//! libraries do, the URL is also tried with its port removed (or the
//! scheme's default port added), since proxies change it.
//!
//! Event id: the `I-Twilio-Idempotency-Token` header (the same on Twilio's
//! retries), else `<MessageSid|CallSid|Sid>:<status>`. Replay window: none
//! (Twilio signs no time); deduplication is the replay protection. Event
//! type: the status (`MessageStatus`, `SmsStatus`, `CallStatus`), else
//! `request`. Normalized: message id (the Sid), recipient (`To`), status.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::mac::{equal, hmac, sha256_hex};
use crate::{HmacAlgorithm, LedgerEvent, Refusal, Request, SourceSecret, Verified};

fn params(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body).into_owned().collect()
}

fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    let query = query.split('#').next().unwrap_or(query);
    form_urlencoded::parse(query.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

/// `url` with its port removed, or the scheme's default port added.
fn port_variant(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let host_start = authority.rfind('@').map_or(0, |i| i + 1);
    let host = &authority[host_start..];
    let has_port = match host.rfind(':') {
        Some(i) => !host.ends_with(']') && host[i + 1..].bytes().all(|b| b.is_ascii_digit()),
        None => false,
    };
    let new_host = if has_port {
        host[..host.rfind(':')?].to_owned()
    } else {
        let port = match scheme.to_ascii_lowercase().as_str() {
            "https" => 443,
            "http" => 80,
            _ => return None,
        };
        format!("{host}:{port}")
    };
    Some(format!(
        "{scheme}://{}{new_host}{tail}",
        &authority[..host_start]
    ))
}

/// The text Twilio signs for `url` and the request's body.
fn signed_text(url: &str, body: &[u8], json_body: bool) -> String {
    let mut out = url.to_owned();
    if !json_body {
        let mut p = params(body);
        p.sort();
        for (k, v) in p {
            out.push_str(&k);
            out.push_str(&v);
        }
    }
    out
}

pub fn verify(
    secrets: &[SourceSecret],
    request: &Request<'_>,
    signed_url: Option<&str>,
) -> Result<Verified, Refusal> {
    let sig = BASE64
        .decode(request.require("x-twilio-signature")?)
        .map_err(|_| Refusal::MalformedSignature)?;
    let url = signed_url.unwrap_or(request.url);
    let body_digest = query_param(url, "bodySHA256");
    let json_body = body_digest.is_some();
    if let Some(d) = &body_digest
        && !equal(
            sha256_hex(request.body).as_bytes(),
            d.to_ascii_lowercase().as_bytes(),
        )
    {
        return Err(Refusal::NoMatchingSignature);
    }
    let mut urls = vec![url.to_owned()];
    urls.extend(port_variant(url));
    let mut matched = false;
    for secret in secrets {
        for u in &urls {
            let expected = hmac(
                HmacAlgorithm::Sha1,
                secret.expose().as_bytes(),
                &[signed_text(u, request.body, json_body).as_bytes()],
            );
            matched |= equal(&expected, &sig);
        }
    }
    if !matched {
        return Err(Refusal::NoMatchingSignature);
    }
    if let Some(token) = request
        .header("i-twilio-idempotency-token")
        .filter(|t| !t.is_empty())
    {
        return Ok(Verified {
            event_id: token.to_owned(),
        });
    }
    let fields = Fields::of(request);
    match (fields.sid, fields.status) {
        (Some(sid), Some(status)) => Ok(Verified {
            event_id: format!("{sid}:{status}"),
        }),
        (Some(sid), None) => Ok(Verified { event_id: sid }),
        _ => Err(Refusal::MissingEventId(
            "no I-Twilio-Idempotency-Token header and no Sid parameter",
        )),
    }
}

struct Fields {
    sid: Option<String>,
    status: Option<String>,
    to: Option<String>,
}

impl Fields {
    fn of(request: &Request<'_>) -> Fields {
        let p = params(request.body);
        let get = |names: &[&str]| {
            names
                .iter()
                .find_map(|n| p.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone()))
        };
        Fields {
            sid: get(&["MessageSid", "SmsSid", "CallSid", "Sid"]),
            status: get(&["MessageStatus", "SmsStatus", "CallStatus"]),
            to: get(&["To"]),
        }
    }
}

pub fn events(event_id: &str, request: &Request<'_>) -> Result<Vec<LedgerEvent>, Refusal> {
    let f = Fields::of(request);
    Ok(vec![LedgerEvent {
        provider_event_id: event_id.to_owned(),
        event_type: f.status.clone().unwrap_or_else(|| "request".into()),
        occurred_at: None,
        message_id: f.sid,
        recipient: f.to,
        status: f.status,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testdata::{arr, headers, load, s};
    use serde_json::Value;

    fn form(case: &Value) -> Vec<u8> {
        let mut ser = form_urlencoded::Serializer::new(String::new());
        for pair in case
            .get("params")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let k = pair.get(0).and_then(Value::as_str).unwrap_or_default();
            let v = pair.get(1).and_then(Value::as_str).unwrap_or_default();
            ser.append_pair(k, v);
        }
        ser.finish().into_bytes()
    }

    #[test]
    fn verifies_the_published_examples_and_refuses_tampered_copies() {
        let v = load("inbound/twilio.json");
        let secrets = [SourceSecret::new(s(&v, "auth_token"))];
        for case in arr(&v, "cases") {
            let body = match case.get("body").and_then(Value::as_str) {
                Some(b) => b.as_bytes().to_vec(),
                None => form(case),
            };
            let h = headers(&[
                ("X-Twilio-Signature", s(case, "signature")),
                ("I-Twilio-Idempotency-Token", "tok-1"),
            ]);
            let req = Request {
                url: s(case, "url"),
                headers: &h,
                body: &body,
            };
            assert_eq!(
                verify(&secrets, &req, None).map(|v| v.event_id),
                Ok("tok-1".to_owned()),
                "{}",
                s(case, "name")
            );
            // A changed parameter value, a changed URL, another token: refused.
            let mut bad = body.clone();
            let at = bad.iter().rposition(|b| b.is_ascii_digit()).unwrap_or(0);
            bad[at] = if bad[at] == b'9' { b'8' } else { bad[at] + 1 };
            assert_eq!(
                verify(&secrets, &Request { body: &bad, ..req }, None),
                Err(Refusal::NoMatchingSignature),
                "{}",
                s(case, "name")
            );
            let other_url = s(case, "url").replace("myapp", "yourapp");
            assert_eq!(
                verify(
                    &secrets,
                    &Request {
                        url: &other_url,
                        ..req
                    },
                    None
                ),
                Err(Refusal::NoMatchingSignature)
            );
            assert_eq!(
                verify(&[SourceSecret::new("54321")], &req, None),
                Err(Refusal::NoMatchingSignature)
            );
            // The signed URL option replaces the URL the request reached.
            assert!(
                verify(
                    &secrets,
                    &Request {
                        url: &other_url,
                        ..req
                    },
                    Some(s(case, "url"))
                )
                .is_ok()
            );
        }
    }

    #[test]
    fn without_an_idempotency_token_the_event_id_is_the_sid_and_status() {
        let body = b"MessageSid=SM1&MessageStatus=delivered&To=%2B15005550006";
        let url = "https://relay.example/inbound/isrc_1";
        let text = signed_text(url, body, false);
        let sig = BASE64.encode(hmac(HmacAlgorithm::Sha1, b"tok", &[text.as_bytes()]));
        let h = headers(&[("X-Twilio-Signature", &sig)]);
        let req = Request {
            url,
            headers: &h,
            body,
        };
        assert_eq!(
            verify(&[SourceSecret::new("tok")], &req, None).map(|v| v.event_id),
            Ok("SM1:delivered".to_owned())
        );
        let ev = events("SM1:delivered", &req).unwrap_or_default();
        assert_eq!(ev[0].recipient.as_deref(), Some("+15005550006"));
        assert_eq!(ev[0].status.as_deref(), Some("delivered"));
        assert_eq!(ev[0].message_id.as_deref(), Some("SM1"));
    }

    #[test]
    fn port_variants() {
        assert_eq!(
            port_variant("https://a.com/x?y").as_deref(),
            Some("https://a.com:443/x?y")
        );
        assert_eq!(
            port_variant("http://a.com:8080").as_deref(),
            Some("http://a.com")
        );
        assert_eq!(
            port_variant("https://u:p@a.com/").as_deref(),
            Some("https://u:p@a.com:443/")
        );
    }
}
