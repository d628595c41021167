//! What the AWS kinds (`s3/`, `sqs/`, `sns/`) share: AWS Signature Version 4
//! ([`sigv4`], pure, checked against AWS's published vectors), the
//! credentials of a configuration ([`Credentials`], secret references) and
//! the static credentials an endpoint's client keeps ([`Keys`]), the signed
//! headers of one request ([`signed_headers`]) and one signed `POST`
//! ([`post`]), a message's attributes and FIFO ids ([`message`], SQS's
//! and SNS's rule), and temporary credentials
//! from STS's `AssumeRole` with a per-tenant `ExternalId`, cached and
//! refreshed before expiry ([`sts`]), the installation's own identity and
//! an endpoint's choice of keys or role ([`identity`]), and the
//! installation's credentials from AWS's link-local services
//! ([`metadata`]). HTTP itself goes through relay-net's guarded client
//! (the link-local services, its operator client); nothing here opens a
//! socket.

pub mod classify;
pub mod identity;
pub mod message;
pub mod metadata;
pub mod sigv4;
pub mod sts;
#[cfg(test)]
pub(crate) mod testing;

use relay_core::secret::{SecretRef, SecretValue, Secrets, Unresolved};
use relay_core::time::Timestamp;
use relay_net::{
    ErrorKind, GuardError, HeaderName, HeaderValue, HttpsClient, Limits, Method, Response,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::Record;

/// The credentials of an AWS kind's configuration (`sqs`, `sns`), one type
/// for every such kind: its fields are the configuration's own
/// (`#[serde(flatten)]`; the API's schema folds them into the kind's
/// object, `schema.rs`): static keys, each a secret reference, never a
/// value; or a role Relay assumes ([`identity`]). [`Credentials::check`]
/// holds that it is one or the other.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Credentials {
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// access key id, never the value itself. Give the keys, or `role_arn`.
    /// See docs/destinations.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub access_key_id: Option<SecretRef>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// secret access key, never the value itself; with `access_key_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub secret_access_key: Option<SecretRef>,
    /// A secret reference (`secret:NAME`, `env:NAME` or `file:/path`) to the
    /// session token (temporary credentials), sent as `x-amz-security-token`,
    /// never the value itself; with the keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, pattern = "^(secret:|env:|file:/)")]
    pub session_token: Option<SecretRef>,
    /// Instead of keys: the ARN of a role in the account
    /// (`arn:aws:iam::<account id>:role/<name>`) that Relay assumes with
    /// STS `AssumeRole`, its own AWS identity and this tenant's
    /// `ExternalId` (`GET /v1/aws/external-id`), which the role's trust
    /// policy must require. Registration assumes it once to check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(max_length = 2048, pattern = "^arn:aws[a-z-]*:iam::[0-9]{12}:role/")]
    pub role_arn: Option<String>,
}

impl Credentials {
    /// Static keys (tests, benches).
    pub fn keys(access_key_id: SecretRef, secret_access_key: SecretRef) -> Credentials {
        Credentials {
            access_key_id: Some(access_key_id),
            secret_access_key: Some(secret_access_key),
            session_token: None,
            role_arn: None,
        }
    }

    /// A role, assumed by the installation (tests).
    pub fn role(role_arn: &str) -> Credentials {
        Credentials {
            access_key_id: None,
            secret_access_key: None,
            session_token: None,
            role_arn: Some(role_arn.to_string()),
        }
    }

    /// Every secret reference, with the JSON pointer of its field.
    pub fn secret_refs(&self) -> Vec<(&'static str, &SecretRef)> {
        [
            ("/destination/access_key_id", &self.access_key_id),
            ("/destination/secret_access_key", &self.secret_access_key),
            ("/destination/session_token", &self.session_token),
        ]
        .into_iter()
        .filter_map(|(pointer, r)| Some((pointer, r.as_ref()?)))
        .collect()
    }

    /// Registration's rule: keys or a role ([`identity::check_choice`]).
    pub fn check(&self) -> Result<(), crate::Invalid> {
        identity::check_choice(
            self.access_key_id.is_some(),
            self.secret_access_key.is_some(),
            self.session_token.is_some(),
            self.role_arn.as_deref(),
        )
    }

    /// What the client signs with, for an endpoint of `tenancy`'s tenant
    /// signing for `region` ([`identity::Signer::for_endpoint`]).
    pub fn signer(
        &self,
        secrets: &Secrets,
        region: &str,
        shared: &crate::Shared,
        tenancy: crate::Tenancy<'_>,
    ) -> Result<identity::Signer, Unresolved> {
        identity::Signer::for_endpoint(
            secrets,
            identity::Chosen {
                access_key_id: self.access_key_id.as_ref(),
                secret_access_key: self.secret_access_key.as_ref(),
                session_token: self.session_token.as_ref(),
                role_arn: self.role_arn.as_deref(),
            },
            region,
            shared,
            tenancy,
        )
    }

    /// Registration's check of a role ([`identity::check_access`]): it is
    /// assumed once with `tenancy`'s `ExternalId`; keys are not checked
    /// (a test send proves them).
    pub async fn check_access(
        &self,
        region: &str,
        shared: &crate::Shared,
        tenancy: crate::Tenancy<'_>,
    ) -> Result<(), crate::Invalid> {
        identity::check_access(self.role_arn.as_deref(), region, shared, tenancy).await
    }
}

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

    /// `response` with every credential value redacted from its body (a
    /// service's error text may quote one).
    pub fn redact(&self, mut response: Response) -> Response {
        for secret in self.values() {
            response.body_prefix = crate::https::redact(&response.body_prefix, secret.expose());
        }
        response
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

/// The labels of an AWS host before its `amazonaws.com` (or
/// `amazonaws.com.cn`) suffix, lower-case; `None` for a host that is not
/// AWS's (a compatible service: no region to compare).
pub fn host_labels(host: &str) -> Option<Vec<String>> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let base = host
        .strip_suffix(".amazonaws.com")
        .or_else(|| host.strip_suffix(".amazonaws.com.cn"))?;
    Some(base.split('.').map(str::to_string).collect())
}

/// The region of `service`'s host `labels` ([`host_labels`]):
/// `<service>.<region>` or a VPC endpoint's `….<service>.<region>.vpce`.
pub fn service_region<'a>(labels: &'a [String], service: &str) -> Option<&'a str> {
    let labels: Vec<&'a str> = labels.iter().map(String::as_str).collect();
    match labels.as_slice() {
        [.., s, region] | [.., s, region, "vpce"] if *s == service => Some(*region),
        _ => None,
    }
}

/// A request of an AWS message kind (`sqs`, `sns`) that got no answer,
/// or was never made.
#[derive(Debug)]
pub enum Failure {
    /// The guard or the connection failed (the URL refused included).
    Guard(GuardError),
    /// No request can be made from the configuration (or the
    /// credentials): the reason, never a value.
    Unaddressable(String),
    /// The message is nothing the service can carry.
    Unsendable(&'static str),
    /// No credentials to sign with: the role could not be assumed.
    Credentials(sts::Failure),
}

impl Failure {
    /// The attempt record of it, with the kind's `detail` so far.
    pub fn record(&self, mut detail: serde_json::Value) -> Record {
        match self {
            Failure::Guard(e) => Record {
                destination: e.remote_addr(),
                error: Some((e.kind(), e.to_string())),
                detail,
            },
            Failure::Unaddressable(reason) => Record {
                destination: None,
                error: Some((ErrorKind::InvalidUrl, reason.clone())),
                detail,
            },
            Failure::Credentials(e) => {
                detail["error"] =
                    serde_json::json!({"code": "credentials", "message": e.to_string()});
                Record {
                    destination: None,
                    error: None,
                    detail,
                }
            }
            Failure::Unsendable(reason) => {
                detail["error"] = serde_json::json!({"code": "unsendable", "message": reason});
                Record {
                    destination: None,
                    error: None,
                    detail,
                }
            }
        }
    }
}

/// An answer's `Retry-After`, in seconds.
pub fn retry_after(response: &Response) -> Option<u64> {
    response
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
}

/// One signed `POST` of `body` to `url`, a service's root (`https://host[:port]/`,
/// checked by the guard), with
/// `headers` beside the signature's own, signed at `now` for `region` and
/// `service` with `keys`, through the guarded client (redirects are never
/// followed); every credential value is redacted from the answer. The SQS
/// kind's JSON actions and the SNS kind's query actions.
#[allow(clippy::too_many_arguments)]
pub async fn post(
    https: &HttpsClient,
    url: &str,
    headers: &[(&str, &str)],
    body: Vec<u8>,
    keys: &Keys,
    now: Timestamp,
    region: &str,
    service: &str,
    limits: Limits,
) -> Result<Response, Failure> {
    let checked = https
        .guard()
        .parse_url(url)
        .map_err(|e| Failure::Guard(GuardError::Rejected(e)))?;
    let host = checked.host_header();
    let payload = hex::encode(Sha256::digest(&body));
    let signed = signed_headers(
        &Unsigned {
            method: "POST",
            path: "/",
            host: &host,
            headers,
            payload_sha256: &payload,
        },
        keys,
        now,
        region,
        service,
    )
    .map_err(Failure::Unaddressable)?;
    let response = https
        .send(Method::POST, &checked, signed, body.into(), limits)
        .await
        .map_err(Failure::Guard)?;
    Ok(keys.redact(response))
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
