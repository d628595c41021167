//! The generic HMAC preset, for providers that sign the raw body with an
//! HMAC and say so in one header: the header, the algorithm (SHA-1,
//! SHA-256, SHA-512), the encoding (hex, base64) and a prefix (`sha256=`)
//! are options, as is where the event id (and type) is: a header or a JSON
//! pointer into the body.
//!
//! Replay window: none (no timestamp is signed); deduplication by event id
//! is the replay protection.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::mac::{equal, hmac, unhex};
use crate::{
    GenericOptions, LedgerEvent, Locator, Refusal, Request, SignatureEncoding, SourceSecret,
    Verified, json,
};

fn locate(locator: &Locator, request: &Request<'_>) -> Option<String> {
    match locator {
        Locator::Header(name) => request
            .header(name)
            .filter(|v| !v.is_empty())
            .map(str::to_owned),
        Locator::Json(pointer) => {
            let body = json::body(request).ok()?;
            json::text(&body, pointer).filter(|v| !v.is_empty())
        }
    }
}

pub fn verify(
    options: &GenericOptions,
    secrets: &[SourceSecret],
    request: &Request<'_>,
) -> Result<Verified, Refusal> {
    let value = request
        .header(&options.header)
        .filter(|v| !v.is_empty())
        .ok_or(Refusal::MissingHeader("configured signature"))?;
    let encoded = value
        .trim()
        .strip_prefix(options.prefix.as_str())
        .ok_or(Refusal::MalformedSignature)?;
    let sig = match options.encoding {
        SignatureEncoding::Hex => unhex(encoded),
        SignatureEncoding::Base64 => BASE64.decode(encoded).ok(),
    }
    .ok_or(Refusal::MalformedSignature)?;
    let mut matched = false;
    for secret in secrets {
        let expected = hmac(
            options.algorithm,
            secret.expose().as_bytes(),
            &[request.body],
        );
        matched |= equal(&expected, &sig);
    }
    if !matched {
        return Err(Refusal::NoMatchingSignature);
    }
    let event_id = locate(&options.event_id, request)
        .ok_or(Refusal::MissingEventId("where the source's options say"))?;
    Ok(Verified { event_id })
}

pub fn events(
    options: &GenericOptions,
    event_id: &str,
    request: &Request<'_>,
) -> Result<Vec<LedgerEvent>, Refusal> {
    let event_type = options
        .event_type
        .as_ref()
        .and_then(|l| locate(l, request))
        .unwrap_or_else(|| "event".into());
    Ok(vec![LedgerEvent {
        provider_event_id: event_id.to_owned(),
        event_type,
        ..LedgerEvent::default()
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HmacAlgorithm;
    use crate::testdata::{arr, headers, load, s, tampered};

    fn options(
        algorithm: HmacAlgorithm,
        encoding: SignatureEncoding,
        prefix: &str,
    ) -> GenericOptions {
        GenericOptions {
            header: "X-Hub-Signature-256".into(),
            algorithm,
            encoding,
            prefix: prefix.into(),
            event_id: Locator::Header("X-GitHub-Delivery".into()),
            event_type: Some(Locator::Json("/action".into())),
        }
    }

    #[test]
    fn configured_as_github_it_verifies_github_published_example() {
        let v = load("inbound/github.json");
        let case = &arr(&v, "cases")[0];
        let o = options(HmacAlgorithm::Sha256, SignatureEncoding::Hex, "sha256=");
        let h = headers(&[
            ("x-hub-signature-256", s(case, "header")),
            ("x-github-delivery", "d-1"),
        ]);
        let body = s(case, "body").as_bytes();
        let secrets = [SourceSecret::new(s(case, "secret"))];
        let req = Request {
            url: "",
            headers: &h,
            body,
        };
        assert_eq!(
            verify(&o, &secrets, &req).map(|v| v.event_id),
            Ok("d-1".into())
        );
        let bad = tampered(body);
        assert_eq!(
            verify(&o, &secrets, &Request { body: &bad, ..req }),
            Err(Refusal::NoMatchingSignature)
        );
        let no_prefix = options(HmacAlgorithm::Sha256, SignatureEncoding::Hex, "");
        assert_eq!(
            verify(&no_prefix, &secrets, &req),
            Err(Refusal::MalformedSignature)
        );
        let sha512 = options(HmacAlgorithm::Sha512, SignatureEncoding::Hex, "sha256=");
        assert_eq!(
            verify(&sha512, &secrets, &req),
            Err(Refusal::NoMatchingSignature)
        );
    }

    #[test]
    fn every_algorithm_and_encoding_with_the_id_in_the_body() {
        let body = br#"{"id":"ev_9","kind":"thing.done"}"#;
        for algorithm in [
            HmacAlgorithm::Sha1,
            HmacAlgorithm::Sha256,
            HmacAlgorithm::Sha512,
        ] {
            for encoding in [SignatureEncoding::Hex, SignatureEncoding::Base64] {
                let mac = hmac(algorithm, b"k", &[body]);
                let text = match encoding {
                    SignatureEncoding::Hex => hex::encode(&mac),
                    SignatureEncoding::Base64 => BASE64.encode(&mac),
                };
                let o = GenericOptions {
                    header: "X-Sig".into(),
                    algorithm,
                    encoding,
                    prefix: String::new(),
                    event_id: Locator::Json("/id".into()),
                    event_type: Some(Locator::Json("/kind".into())),
                };
                let h = headers(&[("x-sig", &text)]);
                let req = Request {
                    url: "",
                    headers: &h,
                    body,
                };
                let secrets = [SourceSecret::new("k")];
                assert_eq!(
                    verify(&o, &secrets, &req).map(|v| v.event_id),
                    Ok("ev_9".into())
                );
                assert_eq!(
                    events(&o, "ev_9", &req).unwrap_or_default()[0].event_type,
                    "thing.done"
                );
                let bad = tampered(body);
                assert_eq!(
                    verify(&o, &secrets, &Request { body: &bad, ..req }),
                    Err(Refusal::NoMatchingSignature)
                );
            }
        }
    }
}
