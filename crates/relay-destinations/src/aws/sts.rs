//! Temporary credentials from STS's `AssumeRole`, with the `ExternalId`
//! AWS asks of a third party that assumes its customers' roles (the
//! confused-deputy guard), cached and refreshed before they expire.
//!
//! - [`external_id`]: the id Relay generates for a tenant, pure: an
//!   HMAC-SHA256 of the tenant's id under an installation secret, so it is
//!   stable, differs per tenant, and no tenant can choose another's;
//! - [`assume_role`]: one signed `AssumeRole` (STS's query protocol)
//!   through the guarded HTTPS client, always with an `ExternalId` (the
//!   type has no way to leave it out; [`valid_external_id`] holds STS's
//!   rule, which some STS-compatible services do not check);
//! - [`AssumedRole`]: the cache: the credentials are reused until
//!   [`REFRESH_BEFORE`] before their `Expiration` by the given clock, then
//!   assumed again (one call at a time; callers wait for it).
//!
//! The installation's identity and the endpoint's choice of keys or role
//! are in [`super::identity`].

use std::sync::Arc;

use hmac::{Hmac, KeyInit, Mac};
use relay_core::secret::SecretValue;
use relay_core::time::{Clock, Timestamp};
use relay_net::{GuardError, HttpsClient, Limits, Response};
use sha2::Sha256;

use super::Keys;
use super::identity::Installation;

/// The service name STS requests are signed for.
pub const SERVICE: &str = "sts";

/// Credentials are assumed again this long before they expire.
pub const REFRESH_BEFORE_SECONDS: i64 = 300;
pub const REFRESH_BEFORE: std::time::Duration =
    std::time::Duration::from_secs(REFRESH_BEFORE_SECONDS as u64);

/// The `ExternalId` of `tenant` under the installation's `secret`:
/// `relay-` and 40 hex digits of HMAC-SHA256(secret, tenant).
pub fn external_id(secret: &[u8], tenant: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("HMAC takes a key of any length");
    mac.update(b"relay aws external id\0");
    mac.update(tenant.as_bytes());
    let digest = mac.finalize().into_bytes();
    format!("relay-{}", hex::encode(&digest[..20]))
}

/// STS's rule for an `ExternalId`: 2 to 1224 of `A-Z a-z 0-9` and
/// `+ = , . @ : / -` and `_`.
pub fn valid_external_id(s: &str) -> bool {
    (2..=1224).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+=,.@:/-_".contains(&b))
}

/// What to assume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Role {
    /// `arn:aws:iam::<account>:role/<name>`.
    pub arn: String,
    pub external_id: String,
    /// `RoleSessionName` (2–64 of `\w+=,.@-`), shown in the account's
    /// CloudTrail.
    pub session_name: String,
    /// 900 to 43200.
    pub duration_seconds: u32,
}

/// Credentials STS gave, and when they expire. Its `Debug` shows the
/// expiry alone.
#[derive(Clone)]
pub struct Temporary {
    pub keys: Keys,
    pub expires_at: Timestamp,
}

impl std::fmt::Debug for Temporary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Temporary")
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// Why no credentials came.
#[derive(Debug)]
pub enum Failure {
    /// Nothing was sent: the role or the base credentials cannot make a
    /// request (the reason, never a value).
    Invalid(String),
    /// The guard or the connection failed.
    Guard(GuardError),
    /// STS refused: the status, its error code and message.
    Refused {
        status: u16,
        code: Option<String>,
        message: Option<String>,
    },
    /// A `200` whose body has no credentials.
    Unreadable,
    /// The installation's own credential source (instance metadata,
    /// container credentials) failed: which, and why (never a body).
    Source(String),
}

impl std::fmt::Display for Failure {
    /// The reason, STS's error code and message: never a credential (STS
    /// names principals and roles in its messages, not keys).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Invalid(reason) => f.write_str(reason),
            Failure::Guard(e) => write!(f, "STS could not be reached: {e}"),
            Failure::Refused {
                status,
                code,
                message,
            } => {
                write!(f, "STS answered {status}")?;
                if let Some(code) = code {
                    write!(f, " {code}")?;
                }
                if let Some(message) = message {
                    write!(f, ": {message}")?;
                }
                Ok(())
            }
            Failure::Unreadable => f.write_str("STS's answer holds no credentials"),
            Failure::Source(reason) => f.write_str(reason),
        }
    }
}

/// The `AssumeRole` request's form body.
pub fn request_body(role: &Role) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("Action", "AssumeRole")
        .append_pair("Version", "2011-06-15")
        .append_pair("RoleArn", &role.arn)
        .append_pair("RoleSessionName", &role.session_name)
        .append_pair("ExternalId", &role.external_id)
        .append_pair("DurationSeconds", &role.duration_seconds.to_string())
        .finish()
}

/// The credentials of an `AssumeRole` answer's XML.
pub fn read_credentials(body: &str) -> Option<Temporary> {
    let el = |name| crate::s3::classify::element(body, name);
    let credentials = el("Credentials")?;
    let inner = |name| crate::s3::classify::element(credentials, name);
    Some(Temporary {
        keys: Keys {
            access_key_id: SecretValue::from(inner("AccessKeyId")?),
            secret_access_key: SecretValue::from(inner("SecretAccessKey")?),
            session_token: Some(SecretValue::from(inner("SessionToken")?)),
        },
        expires_at: Timestamp::parse_rfc3339(inner("Expiration")?.trim())?,
    })
}

/// One `AssumeRole` of `role` at `sts_url` (`https://sts.<region>.amazonaws.com/`
/// or a compatible service), signed with `base` at `now` for `region`.
pub async fn assume_role(
    https: &HttpsClient,
    sts_url: &str,
    region: &str,
    base: &Keys,
    role: &Role,
    now: Timestamp,
    limits: Limits,
) -> Result<Temporary, Failure> {
    if !valid_external_id(&role.external_id) {
        return Err(Failure::Invalid(
            "the external id is not 2 to 1224 of STS's characters".into(),
        ));
    }
    let response = super::post(
        https,
        sts_url,
        &[(
            "content-type",
            "application/x-www-form-urlencoded; charset=utf-8",
        )],
        request_body(role).into_bytes(),
        base,
        now,
        region,
        SERVICE,
        limits,
    )
    .await
    .map_err(|e| match e {
        super::Failure::Guard(e) => Failure::Guard(e),
        super::Failure::Unaddressable(reason) => Failure::Invalid(reason),
        // `post` fails with nothing else.
        other => Failure::Invalid(format!("{other:?}")),
    })?;
    read_answer(&response)
}

/// STS's answer read: the credentials of a success, or its refusal.
pub fn read_answer(response: &Response) -> Result<Temporary, Failure> {
    let text = String::from_utf8_lossy(&response.body_prefix);
    if !response.status.is_success() {
        let el = |name| crate::s3::classify::element(&text, name).map(str::to_string);
        return Err(Failure::Refused {
            status: response.status.as_u16(),
            code: el("Code"),
            message: el("Message"),
        });
    }
    read_credentials(&text).ok_or(Failure::Unreadable)
}

/// Whether credentials expiring at `expires_at` are assumed again at `now`.
pub fn needs_refresh(expires_at: Timestamp, now: Timestamp) -> bool {
    now.plus_seconds(REFRESH_BEFORE_SECONDS) >= expires_at
}

/// Temporary credentials, kept until [`REFRESH_BEFORE`] before they
/// expire by the given clock, then fetched again (one fetch at a time;
/// callers wait for it). A role's, and the installation's web identity's.
pub(crate) struct Cache {
    clock: Arc<dyn Clock>,
    kept: tokio::sync::Mutex<Option<Temporary>>,
}

impl Cache {
    pub(crate) fn new(clock: Arc<dyn Clock>) -> Cache {
        Cache {
            clock,
            kept: tokio::sync::Mutex::new(None),
        }
    }

    /// The kept credentials while fresh, else `fetch`'s, kept.
    pub(crate) async fn get<F>(&self, fetch: impl FnOnce() -> F) -> Result<Temporary, Failure>
    where
        F: std::future::Future<Output = Result<Temporary, Failure>>,
    {
        let mut kept = self.kept.lock().await;
        if let Some(t) = kept.as_ref()
            && !needs_refresh(t.expires_at, self.clock.now())
        {
            return Ok(t.clone());
        }
        let fresh = fetch().await?;
        *kept = Some(fresh.clone());
        Ok(fresh)
    }
}

/// A role's credentials, cached: see the module documentation. No
/// `Debug` of its values.
pub struct AssumedRole {
    https: HttpsClient,
    region: String,
    base: Base,
    role: Role,
    cache: Cache,
}

impl std::fmt::Debug for AssumedRole {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AssumedRole")
            .field("role", &self.role.arn)
            .finish_non_exhaustive()
    }
}

/// What an [`AssumedRole`] signs `AssumeRole` with.
enum Base {
    /// These keys, at this STS URL.
    Keys { keys: Keys, sts_url: String },
    /// The installation's identity, at its STS URL for the region.
    Installation(Arc<Installation>),
}

impl AssumedRole {
    /// `role`, assumed at `sts_url` with the keys `base`.
    pub fn new(
        https: HttpsClient,
        sts_url: String,
        region: String,
        base: Keys,
        role: Role,
        clock: Arc<dyn Clock>,
    ) -> AssumedRole {
        AssumedRole {
            https,
            region,
            base: Base::Keys {
                keys: base,
                sts_url,
            },
            role,
            cache: Cache::new(clock),
        }
    }

    /// `role`, assumed with the installation's identity.
    pub fn by_installation(
        https: HttpsClient,
        installation: Arc<Installation>,
        region: String,
        role: Role,
        clock: Arc<dyn Clock>,
    ) -> AssumedRole {
        AssumedRole {
            https,
            region,
            base: Base::Installation(installation),
            role,
            cache: Cache::new(clock),
        }
    }

    /// The role's credentials: the cached ones while they are not within
    /// [`REFRESH_BEFORE`] of expiring, else new ones from STS (signed at
    /// the machine's clock, which STS compares with its own).
    pub async fn keys(&self, limits: Limits) -> Result<Temporary, Failure> {
        self.cache
            .get(|| async {
                let (base, sts_url) = match &self.base {
                    Base::Keys { keys, sts_url } => (keys.clone(), sts_url.clone()),
                    Base::Installation(i) => {
                        (i.keys(&self.https, limits).await?, i.sts_url(&self.region))
                    }
                };
                assume_role(
                    &self.https,
                    &sts_url,
                    &self.region,
                    &base,
                    &self.role,
                    super::now(),
                    limits,
                )
                .await
            })
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn external_ids_are_stable_per_tenant_and_valid() {
        let a = external_id(b"installation secret", "ten_1");
        assert_eq!(a, external_id(b"installation secret", "ten_1"));
        assert_ne!(a, external_id(b"installation secret", "ten_2"));
        assert_ne!(a, external_id(b"another installation", "ten_1"));
        assert!(a.starts_with("relay-") && a.len() == 46, "{a}");
        assert!(valid_external_id(&a));
    }

    #[test]
    fn external_id_rule() {
        for (s, ok) in [
            ("ab", true),
            ("a", false),
            ("", false),
            ("relay-0123abcd", true),
            ("a+b=c,d.e@f:g/h-i_j", true),
            ("with space", false),
            ("ключ", false),
        ] {
            assert_eq!(valid_external_id(s), ok, "{s}");
        }
        assert!(valid_external_id(&"x".repeat(1224)));
        assert!(!valid_external_id(&"x".repeat(1225)));
    }

    #[test]
    fn the_request_always_names_the_external_id() {
        let body = request_body(&Role {
            arn: "arn:aws:iam::123456789012:role/relay".into(),
            external_id: "relay-abc".into(),
            session_name: "relay".into(),
            duration_seconds: 900,
        });
        assert_eq!(
            body,
            "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Frelay&RoleSessionName=relay&ExternalId=relay-abc&DurationSeconds=900"
        );
    }

    #[test]
    fn credentials_are_read_from_the_answer() {
        let xml = "<AssumeRoleResponse><AssumeRoleResult><Credentials>\
            <AccessKeyId>ASIAEXAMPLE</AccessKeyId><SecretAccessKey>s</SecretAccessKey>\
            <SessionToken>t</SessionToken><Expiration>2027-01-15T08:00:00Z</Expiration>\
            </Credentials></AssumeRoleResult></AssumeRoleResponse>";
        let t = read_credentials(xml).unwrap();
        assert_eq!(t.keys.access_key_id.expose(), b"ASIAEXAMPLE");
        assert_eq!(t.keys.session_token.unwrap().expose(), b"t");
        assert_eq!(
            t.expires_at,
            Timestamp::parse_rfc3339("2027-01-15T08:00:00Z").unwrap()
        );
        assert!(read_credentials("<Error/>").is_none());
    }

    #[test]
    fn refresh_comes_before_expiry() {
        let exp = Timestamp::from_millis(1_800_000_000_000);
        assert!(!needs_refresh(exp, exp.plus_seconds(-301)));
        assert!(needs_refresh(exp, exp.plus_seconds(-300)));
        assert!(needs_refresh(exp, exp));
    }
}
