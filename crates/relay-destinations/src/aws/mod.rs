//! What the AWS kinds (`s3/`, `sqs/`) share: AWS Signature Version 4
//! ([`sigv4`], pure, checked against AWS's published vectors), the static
//! credentials an endpoint's client keeps ([`Keys`]), the signed
//! headers of one request ([`signed_headers`]), and temporary credentials
//! from STS's `AssumeRole` with a per-tenant `ExternalId`, cached and
//! refreshed before expiry ([`sts`]), the installation's own identity and
//! an endpoint's choice of keys or role ([`identity`]). HTTP itself goes through
//! relay-net's guarded client; nothing here opens a socket.

pub mod identity;
pub mod sigv4;
pub mod sts;

use relay_core::secret::{SecretRef, SecretValue, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{HeaderName, HeaderValue};

/// An endpoint's resolved static credentials. No `Debug`: the values are
/// [`SecretValue`]s, which never show anyway.
#[derive(Clone)]
pub struct Keys {
    pub access_key_id: SecretValue,
    pub secret_access_key: SecretValue,
    pub session_token: Option<SecretValue>,
}

impl Keys {
    /// The static credentials an endpoint's references name, resolved:
    /// an access key id that is empty or no header text, or a session
    /// token that is no header text, can never be sent, and is unresolved
    /// like a missing value (the attempt says which reference).
    pub fn resolve(
        secrets: &Secrets,
        access_key_id: &SecretRef,
        secret_access_key: &SecretRef,
        session_token: Option<&SecretRef>,
    ) -> Result<Keys, Unresolved> {
        let header_text = |v: &SecretValue| {
            v.expose_str()
                .is_some_and(|s| HeaderValue::from_str(s).is_ok())
        };
        let id = secrets.require(access_key_id)?;
        if id.expose().is_empty() || !header_text(id) {
            return Err(Unresolved(access_key_id.clone()));
        }
        let token = match session_token {
            Some(r) => {
                let t = secrets.require(r)?;
                if !header_text(t) {
                    return Err(Unresolved(r.clone()));
                }
                Some(t.clone())
            }
            None => None,
        };
        Ok(Keys {
            access_key_id: id.clone(),
            secret_access_key: secrets.require(secret_access_key)?.clone(),
            session_token: token,
        })
    }

    /// Every non-empty credential value, for redacting a service's text.
    pub fn values(&self) -> impl Iterator<Item = &SecretValue> {
        [&self.access_key_id, &self.secret_access_key]
            .into_iter()
            .chain(self.session_token.as_ref())
            .filter(|s| !s.expose().is_empty())
    }
}

/// What one signed request is: its method, the path as signed (not yet
/// percent-encoded), its `Host`, the headers besides `host`, `x-amz-date`,
/// `x-amz-security-token` and `authorization` (which are added), and the
/// hex SHA-256 of its payload.
pub struct Unsigned<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub host: &'a str,
    pub headers: &'a [(&'a str, &'a str)],
    pub payload_sha256: &'a str,
}

/// The headers to send for `request`, signed at `now` for `region` and
/// `service` with `keys`: every header of the request, `x-amz-date`, the
/// session token (as `x-amz-security-token`, marked sensitive) and the
/// `Authorization` header (sensitive). `Err` names a header that cannot be
/// sent (never its value).
pub fn signed_headers(
    request: &Unsigned<'_>,
    keys: &Keys,
    now: Timestamp,
    region: &str,
    service: &str,
) -> Result<Vec<(HeaderName, HeaderValue)>, String> {
    let amz_date = sigv4::amz_date(now);
    let token = keys
        .session_token
        .as_ref()
        .map(|t| t.expose_str().ok_or("the session token is not text"))
        .transpose()?;
    let mut signed: Vec<(&str, &str)> = Vec::with_capacity(request.headers.len() + 3);
    signed.push(("host", request.host));
    signed.extend_from_slice(request.headers);
    signed.push(("x-amz-date", &amz_date));
    if let Some(t) = token {
        signed.push(("x-amz-security-token", t));
    }
    let access_key_id = keys
        .access_key_id
        .expose_str()
        .ok_or("the access key id is not text")?;
    let authorization = sigv4::sign(
        &sigv4::Request {
            method: request.method,
            path: request.path,
            query: &[],
            headers: &signed,
            payload_sha256: request.payload_sha256,
        },
        &sigv4::Credentials {
            access_key_id,
            secret_access_key: keys.secret_access_key.expose(),
        },
        &amz_date,
        region,
        service,
    )
    .authorization;
    let mut out = Vec::with_capacity(signed.len() + 1);
    for (name, value) in signed.iter().filter(|(n, _)| *n != "host") {
        let (Ok(n), Ok(mut v)) = (
            HeaderName::from_bytes(name.as_bytes()),
            HeaderValue::from_str(value),
        ) else {
            return Err(format!("the header {name} cannot be sent"));
        };
        if *name == "x-amz-security-token" {
            v.set_sensitive(true);
        }
        out.push((n, v));
    }
    let mut auth = HeaderValue::from_str(&authorization)
        .map_err(|_| "the access key id cannot be sent in a header".to_string())?;
    auth.set_sensitive(true);
    out.push((HeaderName::from_static("authorization"), auth));
    Ok(out)
}

/// The machine's clock (a signature's time, which the service compares
/// with its own).
pub fn now() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0);
    Timestamp::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(token: Option<&str>) -> Keys {
        Keys {
            access_key_id: SecretValue::from("AKIDEXAMPLE"),
            secret_access_key: SecretValue::from("wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
            session_token: token.map(SecretValue::from),
        }
    }

    /// The headers are the request's, the date and the signature, which
    /// signs every one of them (and `host`, which the client sends).
    #[test]
    fn headers_are_signed_and_credentials_sensitive() {
        let h = signed_headers(
            &Unsigned {
                method: "POST",
                path: "/",
                host: "sqs.eu-west-1.amazonaws.com",
                headers: &[("content-type", "application/x-amz-json-1.0")],
                payload_sha256: sigv4::EMPTY_SHA256,
            },
            &keys(Some("the-token")),
            Timestamp::from_millis(1_440_938_160_000),
            "eu-west-1",
            "sqs",
        )
        .unwrap();
        let names: Vec<&str> = h.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "content-type",
                "x-amz-date",
                "x-amz-security-token",
                "authorization"
            ]
        );
        assert_eq!(h[1].1, "20150830T123600Z");
        assert!(h[2].1.is_sensitive() && h[3].1.is_sensitive());
        let auth = h[3].1.to_str().unwrap();
        assert!(
            auth.starts_with(
                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/eu-west-1/sqs/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature="
            ),
            "{auth}"
        );
        let without = signed_headers(
            &Unsigned {
                method: "POST",
                path: "/",
                host: "sqs.eu-west-1.amazonaws.com",
                headers: &[],
                payload_sha256: sigv4::EMPTY_SHA256,
            },
            &keys(None),
            Timestamp::from_millis(1_440_938_160_000),
            "eu-west-1",
            "sqs",
        )
        .unwrap();
        assert_eq!(without.len(), 2);
    }

    #[test]
    fn a_token_that_is_no_header_value_is_refused_by_name() {
        let err = signed_headers(
            &Unsigned {
                method: "POST",
                path: "/",
                host: "h",
                headers: &[],
                payload_sha256: sigv4::EMPTY_SHA256,
            },
            &keys(Some("bad\ntoken")),
            Timestamp::from_millis(0),
            "r",
            "sqs",
        )
        .unwrap_err();
        assert!(err.contains("x-amz-security-token") && !err.contains("bad"));
    }
}
