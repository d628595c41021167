//! The installation's own AWS identity, and the role credentials an
//! endpoint's client signs with when its tenant gave a role instead of
//! keys.
//!
//! - [`Installation`]: what the operator configured (`[aws]`): the secret
//!   the per-tenant `ExternalId`s derive from, and the identity Relay
//!   assumes tenants' roles with: static keys, or web identity (IRSA, a
//!   projected service-account token exchanged at STS with
//!   `AssumeRoleWithWebIdentity`), or the credentials AWS's link-local
//!   services serve (EC2 instance metadata, ECS and EKS Pod Identity
//!   container credentials: [`super::metadata`], through the operator
//!   client), cached and refreshed before expiry. Only the operator
//!   configures it; no endpoint can name it.
//! - [`Signer`]: what an AWS kind's client signs with: the endpoint's
//!   own keys, or a tenant's role assumed with the installation's identity
//!   and the tenant's `ExternalId` ([`sts::AssumedRole`]).
//!
//! Every STS call goes through the guarded client, like any delivery: the
//! STS URL is the operator's (`[aws] sts_endpoint`) or AWS's regional one.

use std::path::PathBuf;
use std::sync::Arc;

use relay_core::secret::{SecretRef, SecretValue, Secrets, Unresolved};
use relay_core::time::Clock;
use relay_net::operator::OperatorClient;
use relay_net::{GuardError, HttpsClient, Limits, Method};

use super::{Keys, metadata, sts};

/// How the installation identifies itself to STS.
pub enum Identity {
    /// Static keys from the operator's configuration.
    Keys(Keys),
    /// Web identity: the token in `token_file` (read at every exchange, as
    /// Kubernetes rotates it) exchanged for `role_arn`'s credentials.
    WebIdentity {
        token_file: PathBuf,
        role_arn: String,
    },
    /// The credentials a link-local service serves (instance metadata,
    /// container credentials), fetched with the operator client.
    Metadata {
        source: metadata::Source,
        client: OperatorClient,
    },
}

/// The installation's AWS identity and the secret of its `ExternalId`s.
/// Its `Debug` names the kind of identity and the role, never a value.
pub struct Installation {
    external_id_secret: SecretValue,
    identity: Identity,
    /// The STS URL (`https://sts.<region>.amazonaws.com/`) or `None` for
    /// AWS's regional endpoint of the region a request is for.
    sts_endpoint: Option<String>,
    /// The region the web identity exchange is signed for (and whose STS
    /// serves it when no endpoint is configured).
    region: String,
    /// The web identity's or the credential source's credentials, while
    /// they are fresh.
    cache: sts::Cache,
}

impl std::fmt::Debug for Installation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let identity = match &self.identity {
            Identity::Keys(_) => "keys".to_string(),
            Identity::WebIdentity { role_arn, .. } => format!("web identity as {role_arn}"),
            Identity::Metadata { source, .. } => source.describe(),
        };
        f.debug_struct("Installation")
            .field("identity", &identity)
            .field("sts_endpoint", &self.sts_endpoint)
            .finish_non_exhaustive()
    }
}

/// The session name Relay's sessions carry in the account's CloudTrail.
pub const SESSION_NAME: &str = "relay";

impl Installation {
    pub fn new(
        external_id_secret: SecretValue,
        identity: Identity,
        sts_endpoint: Option<String>,
        region: String,
        clock: Arc<dyn Clock>,
    ) -> Installation {
        Installation {
            external_id_secret,
            identity,
            sts_endpoint,
            region,
            cache: sts::Cache::new(clock),
        }
    }

    /// The `ExternalId` of `tenant` ([`sts::external_id`]).
    pub fn external_id(&self, tenant: &str) -> String {
        sts::external_id(self.external_id_secret.expose(), tenant)
    }

    /// The principal a tenant's trust policy names, when the installation
    /// knows it (its web identity's role).
    pub fn principal(&self) -> Option<&str> {
        match &self.identity {
            Identity::WebIdentity { role_arn, .. } => Some(role_arn),
            Identity::Keys(_) | Identity::Metadata { .. } => None,
        }
    }

    /// The STS URL for a request signed for `region`.
    pub fn sts_url(&self, region: &str) -> String {
        self.sts_endpoint
            .clone()
            .unwrap_or_else(|| regional_sts_url(region))
    }

    /// The keys the installation signs `AssumeRole` with: its static keys,
    /// or its web identity's or credential source's credentials (cached
    /// until [`sts::REFRESH_BEFORE`] before they expire).
    pub async fn keys(&self, https: &HttpsClient, limits: Limits) -> Result<Keys, sts::Failure> {
        let (token_file, role_arn) = match &self.identity {
            Identity::Keys(keys) => return Ok(keys.clone()),
            Identity::Metadata { source, client } => {
                let fresh = self
                    .cache
                    .get(|| metadata::fetch(client, source, limits.total_timeout))
                    .await?;
                return Ok(fresh.keys);
            }
            Identity::WebIdentity {
                token_file,
                role_arn,
            } => (token_file, role_arn),
        };
        let fresh = self
            .cache
            .get(|| async {
                let token = tokio::fs::read_to_string(token_file).await.map_err(|e| {
                    sts::Failure::Invalid(format!(
                        "cannot read the web identity token file {}: {}",
                        token_file.display(),
                        e.kind()
                    ))
                })?;
                assume_role_with_web_identity(
                    https,
                    &self.sts_url(&self.region),
                    role_arn,
                    token.trim(),
                    limits,
                )
                .await
            })
            .await?;
        Ok(fresh.keys)
    }
}

/// AWS's regional STS URL for `region`.
pub fn regional_sts_url(region: &str) -> String {
    if region.starts_with("cn-") {
        format!("https://sts.{region}.amazonaws.com.cn/")
    } else {
        format!("https://sts.{region}.amazonaws.com/")
    }
}

/// The `AssumeRoleWithWebIdentity` request's form body (an unsigned call:
/// the token is the proof).
pub fn web_identity_body(role_arn: &str, token: &str) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("Action", "AssumeRoleWithWebIdentity")
        .append_pair("Version", "2011-06-15")
        .append_pair("RoleArn", role_arn)
        .append_pair("RoleSessionName", SESSION_NAME)
        .append_pair("WebIdentityToken", token)
        .append_pair("DurationSeconds", "3600")
        .finish()
}

/// One `AssumeRoleWithWebIdentity` at `sts_url`.
pub async fn assume_role_with_web_identity(
    https: &HttpsClient,
    sts_url: &str,
    role_arn: &str,
    token: &str,
    limits: Limits,
) -> Result<sts::Temporary, sts::Failure> {
    if token.is_empty() {
        return Err(sts::Failure::Invalid(
            "the web identity token file is empty".into(),
        ));
    }
    let checked = https
        .guard()
        .parse_url(sts_url)
        .map_err(|e| sts::Failure::Guard(GuardError::Rejected(e)))?;
    let headers = vec![(
        relay_net::HeaderName::from_static("content-type"),
        relay_net::HeaderValue::from_static("application/x-www-form-urlencoded; charset=utf-8"),
    )];
    let response = https
        .send(
            Method::POST,
            &checked,
            headers,
            web_identity_body(role_arn, token).into(),
            limits,
        )
        .await
        .map_err(sts::Failure::Guard)?;
    sts::read_answer(&response)
}

/// What an AWS kind's client signs with. No `Debug` of a value.
#[derive(Clone)]
pub enum Signer {
    /// The endpoint's own keys (secret references, resolved).
    Keys(Keys),
    /// A tenant's role, assumed with the installation's identity.
    Role(Arc<sts::AssumedRole>),
    /// A role, on an installation that has no AWS identity configured:
    /// every request fails with this reason (registration refuses such an
    /// endpoint; this is an operator who removed `[aws]` later).
    Unavailable(&'static str),
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Signer::Keys(_) => f.write_str("Signer::Keys(..)"),
            Signer::Role(r) => write!(f, "Signer::Role({r:?})"),
            Signer::Unavailable(why) => write!(f, "Signer::Unavailable({why})"),
        }
    }
}

/// An AWS endpoint's choice of credentials, as its configuration names
/// them ([`check_choice`] holds at registration).
#[derive(Debug, Clone, Copy)]
pub struct Chosen<'a> {
    pub access_key_id: Option<&'a SecretRef>,
    pub secret_access_key: Option<&'a SecretRef>,
    pub session_token: Option<&'a SecretRef>,
    pub role_arn: Option<&'a str>,
}

/// Why role credentials cannot be had on this installation.
pub const NO_INSTALLATION_IDENTITY: &str =
    "this installation has no AWS identity to assume roles with (the operator's `[aws]` section)";

impl Signer {
    /// The credentials `chosen` names, for an endpoint of `tenancy`'s
    /// tenant signing for `region`: its keys, resolved, or its role. A
    /// reference without a value, or with one that cannot be sent, is
    /// [`Unresolved`].
    pub fn for_endpoint(
        secrets: &Secrets,
        chosen: Chosen<'_>,
        region: &str,
        shared: &crate::Shared,
        tenancy: crate::Tenancy<'_>,
    ) -> Result<Signer, Unresolved> {
        match (
            chosen.role_arn,
            chosen.access_key_id,
            chosen.secret_access_key,
        ) {
            (None, Some(id), Some(key)) => Ok(Signer::Keys(Keys::resolve(
                secrets,
                id,
                key,
                chosen.session_token,
            )?)),
            (Some(arn), _, _) => Ok(Signer::role(
                tenancy.aws,
                &shared.https,
                arn,
                tenancy.tenant,
                region,
                shared.clock.clone(),
            )),
            // Registration refuses it (`check_choice`); a stored one sends
            // nothing.
            _ => Ok(Signer::Unavailable(
                "the endpoint names neither keys nor a role",
            )),
        }
    }

    /// The credentials of an endpoint that names `role_arn`, for `tenant`,
    /// signed for `region`.
    pub fn role(
        installation: Option<&Arc<Installation>>,
        https: &HttpsClient,
        role_arn: &str,
        tenant: &str,
        region: &str,
        clock: Arc<dyn Clock>,
    ) -> Signer {
        let Some(installation) = installation else {
            return Signer::Unavailable(NO_INSTALLATION_IDENTITY);
        };
        Signer::Role(Arc::new(sts::AssumedRole::by_installation(
            https.clone(),
            installation.clone(),
            region.to_string(),
            role(installation, role_arn, tenant),
            clock,
        )))
    }

    /// The keys to sign the next request with.
    pub async fn keys(&self, limits: Limits) -> Result<Keys, sts::Failure> {
        match self {
            Signer::Keys(k) => Ok(k.clone()),
            Signer::Role(r) => r.keys(limits).await.map(|t| t.keys),
            Signer::Unavailable(why) => Err(sts::Failure::Invalid((*why).to_string())),
        }
    }
}

/// The role `tenant`'s endpoint names, with the tenant's `ExternalId`.
pub fn role(installation: &Installation, role_arn: &str, tenant: &str) -> sts::Role {
    sts::Role {
        arn: role_arn.to_string(),
        external_id: installation.external_id(tenant),
        session_name: SESSION_NAME.to_string(),
        duration_seconds: 3600,
    }
}

/// Registration's check of an AWS endpoint's role (`None`: keys, nothing
/// to check), through the guarded client: `invalid_role` names what STS
/// answered, `aws_roles_unavailable` an installation without `[aws]`.
pub async fn check_access(
    role_arn: Option<&str>,
    region: &str,
    shared: &crate::Shared,
    tenancy: crate::Tenancy<'_>,
) -> Result<(), crate::Invalid> {
    let Some(arn) = role_arn else {
        return Ok(());
    };
    if tenancy.aws.is_none() {
        return Err(crate::Invalid {
            code: "aws_roles_unavailable",
            pointer: "/destination/role_arn",
            message: NO_INSTALLATION_IDENTITY.to_string(),
        });
    }
    check_role(
        tenancy.aws,
        &shared.https,
        arn,
        tenancy.tenant,
        region,
        Limits::default(),
    )
    .await
    .map_err(|message| crate::Invalid {
        code: "invalid_role",
        pointer: "/destination/role_arn",
        message,
    })
}

/// Registration's check of a role: one `AssumeRole` with the tenant's
/// `ExternalId` (not cached). `Err` is the reason, naming STS's error code,
/// never a credential.
pub async fn check_role(
    installation: Option<&Arc<Installation>>,
    https: &HttpsClient,
    role_arn: &str,
    tenant: &str,
    region: &str,
    limits: Limits,
) -> Result<(), String> {
    let installation = installation.ok_or(NO_INSTALLATION_IDENTITY)?;
    let base = installation
        .keys(https, limits)
        .await
        .map_err(|e| format!("the installation's own AWS identity failed: {e}"))?;
    sts::assume_role(
        https,
        &installation.sts_url(region),
        region,
        &base,
        &role(installation, role_arn, tenant),
        super::now(),
        limits,
    )
    .await
    .map(drop)
    .map_err(|e| format!("the role cannot be assumed with this tenant's external id: {e}"))
}

/// IAM's shape of a role ARN: `arn:<partition>:iam::<12-digit account>:role/<path/><name>`,
/// the partition `aws`, `aws-cn` or `aws-us-gov`, the path and name of
/// `A-Z a-z 0-9 + = , . @ _ -` (and `/` in the path), the name 1 to 64.
pub fn valid_role_arn(arn: &str) -> bool {
    let Some(rest) = ["arn:aws:iam::", "arn:aws-cn:iam::", "arn:aws-us-gov:iam::"]
        .iter()
        .find_map(|p| arn.strip_prefix(p))
    else {
        return false;
    };
    let Some((account, role)) = rest.split_once(":role/") else {
        return false;
    };
    let name = role.rsplit('/').next().unwrap_or_default();
    account.len() == 12
        && account.bytes().all(|b| b.is_ascii_digit())
        && arn.len() <= 2048
        && (1..=64).contains(&name.len())
        && role
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+=,.@_-/".contains(&b))
}

/// The registration rule of an AWS kind's credentials: the keys (both
/// references, a session token only with them), or a role, never both and
/// never neither. The pointers are the fields' in the endpoint.
pub fn check_choice(
    access_key_id: bool,
    secret_access_key: bool,
    session_token: bool,
    role_arn: Option<&str>,
) -> Result<(), crate::Invalid> {
    let invalid = |pointer, message: &str| crate::Invalid {
        code: "invalid_credentials",
        pointer,
        message: message.to_string(),
    };
    match role_arn {
        Some(arn) => {
            if access_key_id || secret_access_key || session_token {
                return Err(invalid(
                    "/destination/role_arn",
                    "give either keys or a role_arn, not both",
                ));
            }
            if !valid_role_arn(arn) {
                return Err(crate::Invalid {
                    code: "invalid_role_arn",
                    pointer: "/destination/role_arn",
                    message: "a role ARN is `arn:aws:iam::<12-digit account id>:role/<name>` (partition aws, aws-cn or aws-us-gov; the name 1 to 64 of A-Z, a-z, 0-9 and `+=,.@_-`)".to_string(),
                });
            }
            Ok(())
        }
        None if !access_key_id => Err(invalid(
            "/destination/access_key_id",
            "give access_key_id and secret_access_key (secret references), or a role_arn",
        )),
        None if !secret_access_key => Err(invalid(
            "/destination/secret_access_key",
            "secret_access_key goes with access_key_id",
        )),
        None => Ok(()),
    }
}

/// The verdict of an attempt that got no credentials to sign with, pure:
///
/// | Failure | Verdict | `error_code` |
/// |---|---|---|
/// | STS's `403` (the role's trust policy refuses this installation or this tenant's `ExternalId`, or the installation may not assume it) | dead-lettered, `rejected_by_destination` | `auth_refused` |
/// | STS's `429`, `5xx`, `Throttling` | retried | `unavailable` |
/// | STS's other refusals (an expired or invalid web identity token: the operator's to fix) | retried | `auth_refused` |
/// | nothing sent (no installation identity, an unreadable token file) | retried | `auth_refused` |
/// | STS unreachable | retried | the transport kind (`auth_refused` when the guard refused STS's URL) |
/// | a `200` without credentials | retried | `protocol` |
pub fn classify_failure(failure: &sts::Failure) -> relay_core::outcome::Verdict {
    use relay_core::outcome::{FailureCode, Refusal, TransportError, Verdict};
    let retry = |code| Verdict::Retry {
        code,
        not_before: None,
    };
    match failure {
        sts::Failure::Refused { status: 403, .. } => Verdict::Rejected {
            reason: relay_core::transition::DeadLetterReason::RejectedByDestination,
            code: FailureCode::Refused(Refusal::AuthRefused),
        },
        sts::Failure::Refused { status, code, .. }
            if *status == 429 || *status >= 500 || code.as_deref() == Some("Throttling") =>
        {
            retry(FailureCode::Refused(Refusal::Unavailable))
        }
        sts::Failure::Refused { .. } | sts::Failure::Invalid(_) => {
            retry(FailureCode::Refused(Refusal::AuthRefused))
        }
        sts::Failure::Guard(e) => retry(match crate::transport_error(e.kind()) {
            Some(t) => FailureCode::Transport(t),
            None => FailureCode::Refused(Refusal::AuthRefused),
        }),
        sts::Failure::Unreadable => retry(FailureCode::Transport(TransportError::Protocol)),
        sts::Failure::Source(_) => retry(FailureCode::Refused(Refusal::Unavailable)),
    }
}

#[cfg(test)]
mod tests;
