//! `[aws]`: the installation's own AWS identity, with which Relay assumes
//! the roles tenants name (an `sqs` destination's `role_arn`), and the
//! secret their `ExternalId`s derive from (docs/configuration.md,
//! docs/destinations.md). Off unless configured: an endpoint naming a role
//! is then refused.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::bail;
use relay_core::secret::SecretValue;
use relay_destinations::aws::Keys;
use relay_destinations::aws::identity::{Identity, Installation, valid_role_arn};
use serde::Deserialize;

use super::Secret;

/// `[aws]`. Its `Debug` redacts every secret.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Aws {
    /// The secret every tenant's `ExternalId` is an HMAC under (at least 32
    /// characters). Keep it: a new one changes every `ExternalId`, and
    /// every trust policy that requires the old one refuses Relay.
    pub external_id_secret: Option<Secret>,
    /// Static keys of the installation's IAM user.
    pub access_key_id: Option<Secret>,
    pub secret_access_key: Option<Secret>,
    pub session_token: Option<Secret>,
    /// Web identity (EKS IRSA): the projected service-account token's file
    /// (`AWS_WEB_IDENTITY_TOKEN_FILE`) and the role it is exchanged for
    /// (`AWS_ROLE_ARN`).
    pub web_identity_token_file: Option<PathBuf>,
    pub role_arn: Option<String>,
    /// STS's URL; default AWS's regional endpoint of the region a request
    /// is for (`https://sts.<region>.amazonaws.com/`).
    pub sts_endpoint: Option<String>,
    /// The region the web identity exchange is made in.
    pub region: String,
}

impl Default for Aws {
    fn default() -> Self {
        Aws {
            external_id_secret: None,
            access_key_id: None,
            secret_access_key: None,
            session_token: None,
            web_identity_token_file: None,
            role_arn: None,
            sts_endpoint: None,
            region: "us-east-1".into(),
        }
    }
}

/// The shortest `external_id_secret`.
pub const MIN_EXTERNAL_ID_SECRET: usize = 32;

impl Aws {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        let keys = self.access_key_id.is_some() || self.secret_access_key.is_some();
        let web = self.web_identity_token_file.is_some() || self.role_arn.is_some();
        if !keys && !web && self.session_token.is_none() {
            if self.external_id_secret.is_some() {
                bail!(
                    "aws.external_id_secret needs an identity: aws.access_key_id and aws.secret_access_key, or aws.web_identity_token_file and aws.role_arn"
                );
            }
            return Ok(());
        }
        match &self.external_id_secret {
            None => bail!(
                "aws: an identity needs aws.external_id_secret (at least {MIN_EXTERNAL_ID_SECRET} characters), the secret tenants' ExternalIds derive from"
            ),
            Some(s) if s.expose().len() < MIN_EXTERNAL_ID_SECRET => {
                bail!("aws.external_id_secret must be at least {MIN_EXTERNAL_ID_SECRET} characters")
            }
            Some(_) => {}
        }
        if keys && web {
            bail!("aws: give static keys or a web identity, not both");
        }
        if keys && (self.access_key_id.is_none() || self.secret_access_key.is_none()) {
            bail!("aws.access_key_id and aws.secret_access_key go together");
        }
        if !keys && self.session_token.is_some() {
            bail!("aws.session_token goes with aws.access_key_id and aws.secret_access_key");
        }
        if web {
            match (&self.web_identity_token_file, &self.role_arn) {
                (Some(_), Some(arn)) if valid_role_arn(arn) => {}
                (Some(_), Some(_)) => {
                    bail!("aws.role_arn is not a role ARN (`arn:aws:iam::<account>:role/<name>`)")
                }
                _ => bail!("aws.web_identity_token_file and aws.role_arn go together"),
            }
        }
        if let Some(url) = &self.sts_endpoint
            && !(url.len() > "https://".len()
                && url.starts_with("https://")
                && !url.contains(char::is_whitespace))
        {
            bail!("aws.sts_endpoint must be an https:// URL");
        }
        if !relay_destinations::s3::config::valid_region(&self.region) {
            bail!("aws.region is 1 to 64 of a-z, 0-9 and `-`");
        }
        Ok(())
    }

    /// The installation's identity for the engine, when configured
    /// (validated first).
    pub fn installation(
        &self,
        clock: Arc<dyn relay_core::time::Clock>,
    ) -> Option<Arc<Installation>> {
        let secret = SecretValue::from(self.external_id_secret.as_ref()?.expose());
        let identity = match (
            &self.access_key_id,
            &self.secret_access_key,
            &self.web_identity_token_file,
            &self.role_arn,
        ) {
            (Some(id), Some(key), _, _) => Identity::Keys(Keys {
                access_key_id: SecretValue::from(id.expose()),
                secret_access_key: SecretValue::from(key.expose()),
                session_token: self
                    .session_token
                    .as_ref()
                    .map(|t| SecretValue::from(t.expose())),
            }),
            (_, _, Some(file), Some(arn)) => Identity::WebIdentity {
                token_file: file.clone(),
                role_arn: arn.clone(),
            },
            _ => return None,
        };
        Some(Arc::new(Installation::new(
            secret,
            identity,
            self.sts_endpoint.clone(),
            self.region.clone(),
            clock,
        )))
    }
}
