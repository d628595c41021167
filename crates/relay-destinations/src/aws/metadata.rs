//! The installation's own AWS credentials from the link-local services AWS
//! runs beside a workload (`[aws] credential_source`):
//!
//! - **instance metadata** (EC2, IMDSv2): `PUT /latest/api/token` with
//!   `X-aws-ec2-metadata-token-ttl-seconds` for a session token, then, with
//!   it in `X-aws-ec2-metadata-token`, `GET
//!   /latest/meta-data/iam/security-credentials/` (the instance profile's
//!   role name) and `GET …/security-credentials/<role>` (its credentials).
//!   IMDSv1 (no token) is never used.
//! - **container credentials** (ECS task roles at `169.254.170.2`, EKS Pod
//!   Identity at `169.254.170.23`): `GET <url>`, with `Authorization: <the
//!   token file's contents>` when a token file is configured (EKS Pod
//!   Identity's projected token, read at every fetch as Kubernetes rotates
//!   it).
//!
//! Both answer `{"AccessKeyId", "SecretAccessKey", "Token", "Expiration"}`.
//! These addresses are link-local, which the SSRF rules refuse to every
//! tenant: they are reached through relay-net's operator client, with URLs
//! only the operator's configuration names. No endpoint can point at them,
//! and nothing a tenant sends reaches them. The answers are credentials:
//! no error here quotes a body.

use std::path::PathBuf;
use std::time::Duration;

use bytes::Bytes;
use relay_core::secret::SecretValue;
use relay_core::time::Timestamp;
use relay_net::operator::{OperatorClient, OperatorError, OperatorUrl};
use relay_net::{HeaderName, HeaderValue, Method};

use super::Keys;
use super::sts::{Failure, Temporary};

/// IMDS's default address.
pub const INSTANCE_METADATA_ENDPOINT: &str = "http://169.254.169.254";
/// How long an IMDSv2 session token is asked for (its longest: 6 hours);
/// one is asked for at every fetch, so its length only bounds a stolen one.
pub const IMDS_TOKEN_TTL_SECONDS: &str = "21600";
/// The longest answer read from a credential source.
pub const MAX_ANSWER_BYTES: usize = 16 * 1024;

/// Where the installation's credentials come from. Its `Debug` names the
/// source and its address, never a token.
#[derive(Debug, Clone)]
pub enum Source {
    /// EC2's instance metadata service (IMDSv2) at `endpoint`.
    InstanceMetadata { endpoint: OperatorUrl },
    /// ECS's or EKS Pod Identity's container credentials at `url`, with
    /// the token in `token_file` as `Authorization` when given.
    Container {
        url: OperatorUrl,
        token_file: Option<PathBuf>,
    },
}

impl Source {
    /// What the source is, for messages: `instance metadata at http://…`.
    pub fn describe(&self) -> String {
        match self {
            Source::InstanceMetadata { endpoint } => format!("instance metadata at {endpoint:?}"),
            Source::Container { url, .. } => format!("container credentials at {url:?}"),
        }
    }
}

/// Whether `url` may serve container credentials: `https://`, or `http://`
/// to a loopback address or to the link-local addresses of ECS
/// (`169.254.170.2`) and EKS Pod Identity (`169.254.170.23`,
/// `fd00:ec2::23`) — the rule AWS's SDKs apply to
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, so a token is never sent in
/// clear across a network.
pub fn container_url_allowed(url: &OperatorUrl) -> bool {
    if url.is_tls() {
        return true;
    }
    let host = url.host();
    if host == "localhost" {
        return true;
    }
    match host.parse::<std::net::IpAddr>() {
        Ok(ip) if ip.is_loopback() => true,
        Ok(ip) => ["169.254.170.2", "169.254.170.23", "fd00:ec2::23"]
            .iter()
            .any(|allowed| allowed.parse::<std::net::IpAddr>().ok() == Some(ip)),
        Err(_) => false,
    }
}

/// The credentials a source's JSON answer holds (every field there and
/// the expiry RFC 3339), or `None`.
pub fn read_credentials(body: &[u8]) -> Option<Temporary> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "PascalCase")]
    struct Answer {
        access_key_id: String,
        secret_access_key: String,
        token: Option<String>,
        expiration: String,
    }
    let a: Answer = serde_json::from_slice(body).ok()?;
    if a.access_key_id.is_empty() || a.secret_access_key.is_empty() {
        return None;
    }
    Some(Temporary {
        keys: Keys {
            access_key_id: SecretValue::from(a.access_key_id.as_str()),
            secret_access_key: SecretValue::from(a.secret_access_key.as_str()),
            session_token: a
                .token
                .filter(|t| !t.is_empty())
                .map(|t| SecretValue::from(t.as_str())),
        },
        expires_at: Timestamp::parse_rfc3339(a.expiration.trim())?,
    })
}

/// The first role name of IMDS's `security-credentials/` listing, when it
/// is one path segment.
pub fn role_name(listing: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(listing).ok()?;
    let name = text.lines().next()?.trim();
    (!name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+=,.@_-".contains(&b)))
    .then_some(name)
}

/// Fetches the credentials `source` serves, within `timeout` per request.
pub async fn fetch(
    client: &OperatorClient,
    source: &Source,
    timeout: Duration,
) -> Result<Temporary, Failure> {
    let failed = |what: &str| Failure::Source(format!("{}: {what}", source.describe()));
    let body = match source {
        Source::InstanceMetadata { endpoint } => {
            let token = get(
                client,
                Method::PUT,
                &endpoint.join("/latest/api/token"),
                vec![(
                    HeaderName::from_static("x-aws-ec2-metadata-token-ttl-seconds"),
                    HeaderValue::from_static(IMDS_TOKEN_TTL_SECONDS),
                )],
                timeout,
            )
            .await
            .map_err(|e| failed(&format!("the session token: {e}")))?;
            let mut token = HeaderValue::from_bytes(token.trim_ascii())
                .map_err(|_| failed("the session token is no header value"))?;
            token.set_sensitive(true);
            let header = HeaderName::from_static("x-aws-ec2-metadata-token");
            let listing = get(
                client,
                Method::GET,
                &endpoint.join("/latest/meta-data/iam/security-credentials/"),
                vec![(header.clone(), token.clone())],
                timeout,
            )
            .await
            .map_err(|e| failed(&format!("the instance profile's role: {e}")))?;
            let role = role_name(&listing)
                .ok_or_else(|| failed("the instance has no instance profile role"))?;
            get(
                client,
                Method::GET,
                &endpoint.join(&format!(
                    "/latest/meta-data/iam/security-credentials/{role}"
                )),
                vec![(header, token)],
                timeout,
            )
            .await
            .map_err(|e| failed(&format!("the role's credentials: {e}")))?
        }
        Source::Container { url, token_file } => {
            let mut headers = Vec::new();
            if let Some(file) = token_file {
                let token = tokio::fs::read(file).await.map_err(|e| {
                    failed(&format!(
                        "cannot read the token file {}: {}",
                        file.display(),
                        e.kind()
                    ))
                })?;
                let mut value = HeaderValue::from_bytes(token.trim_ascii())
                    .map_err(|_| failed("the token file holds no header value"))?;
                value.set_sensitive(true);
                headers.push((HeaderName::from_static("authorization"), value));
            }
            get(client, Method::GET, url, headers, timeout)
                .await
                .map_err(|e| failed(&e.to_string()))?
        }
    };
    read_credentials(&body).ok_or_else(|| failed("the answer holds no credentials"))
}

/// Why a request to the source failed: its transport error, or the status
/// it answered (never the body).
#[derive(Debug, thiserror::Error)]
enum SourceError {
    #[error("{0}")]
    Operator(#[from] OperatorError),
    #[error("answered {0}")]
    Status(u16),
}

/// One request, its `2xx` body.
async fn get(
    client: &OperatorClient,
    method: Method,
    url: &OperatorUrl,
    headers: Vec<(HeaderName, HeaderValue)>,
    timeout: Duration,
) -> Result<Bytes, SourceError> {
    let answer = client
        .request(
            method,
            url,
            headers,
            Bytes::new(),
            timeout,
            MAX_ANSWER_BYTES,
        )
        .await?;
    if !answer.status.is_success() {
        return Err(SourceError::Status(answer.status.as_u16()));
    }
    Ok(answer.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_and_never_half() {
        let ok = br#"{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"AKIA1","SecretAccessKey":"s3cr3t","Token":"tok","Expiration":"2026-12-06T12:00:00Z"}"#;
        let t = read_credentials(ok).expect("read");
        assert_eq!(t.keys.access_key_id.expose(), b"AKIA1");
        assert_eq!(t.keys.session_token.unwrap().expose(), b"tok");
        assert_eq!(
            Some(t.expires_at),
            Timestamp::parse_rfc3339("2026-12-06T12:00:00Z")
        );
        for bad in [
            &br#"{"AccessKeyId":"AKIA1","SecretAccessKey":"s","Token":"t"}"#[..],
            br#"{"AccessKeyId":"","SecretAccessKey":"s","Expiration":"2026-12-06T12:00:00Z"}"#,
            br#"{"AccessKeyId":"A","SecretAccessKey":"s","Expiration":"tomorrow"}"#,
            b"<html>captive portal</html>",
        ] {
            assert!(read_credentials(bad).is_none());
        }
        // A container answer without a token (long-term keys) is keys.
        let t = read_credentials(
            br#"{"AccessKeyId":"A","SecretAccessKey":"s","Expiration":"2026-12-06T12:00:00Z"}"#,
        )
        .unwrap();
        assert!(t.keys.session_token.is_none());
    }

    #[test]
    fn the_role_is_the_listings_first_line() {
        assert_eq!(role_name(b"relay-node\n"), Some("relay-node"));
        assert_eq!(role_name(b"a\nb"), Some("a"));
        assert_eq!(role_name(b""), None);
        assert_eq!(role_name(b"../../latest/user-data"), None);
        assert_eq!(role_name(b"a b"), None);
    }

    #[test]
    fn container_credentials_travel_in_clear_only_on_the_host_or_link() {
        let allowed = |u: &str| container_url_allowed(&OperatorUrl::parse(u).unwrap());
        for ok in [
            "http://169.254.170.2/v2/credentials/abc",
            "http://169.254.170.23/v1/credentials",
            "http://[fd00:ec2::23]/v1/credentials",
            "http://127.0.0.1:9000/creds",
            "http://localhost/creds",
            "https://creds.example/v1",
        ] {
            assert!(allowed(ok), "{ok}");
        }
        for refused in [
            "http://169.254.169.254/latest",
            "http://10.0.0.5/creds",
            "http://creds.example/v1",
        ] {
            assert!(!allowed(refused), "{refused}");
        }
    }
}
