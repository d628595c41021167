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
use relay_destinations::aws::metadata::{self, Source};
use relay_net::operator::{OperatorClient, OperatorUrl};
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
    /// Instead of keys or a web identity: the credentials a link-local
    /// service of AWS serves the machine or the container Relay runs in
    /// (`instance_metadata`: EC2's IMDSv2; `container`: ECS task roles and
    /// EKS Pod Identity).
    pub credential_source: Option<CredentialSource>,
    /// The instance metadata service's address.
    pub metadata_endpoint: String,
    /// The container credentials' URL (ECS: `http://169.254.170.2` and
    /// `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`; EKS Pod Identity:
    /// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, `http://169.254.170.23/v1/credentials`).
    pub container_credentials_url: Option<String>,
    /// The file whose contents are the container credentials' `Authorization`
    /// (EKS Pod Identity: `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE`), read at
    /// every fetch.
    pub container_token_file: Option<PathBuf>,
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
            credential_source: None,
            metadata_endpoint: metadata::INSTANCE_METADATA_ENDPOINT.into(),
            container_credentials_url: None,
            container_token_file: None,
            sts_endpoint: None,
            region: "us-east-1".into(),
        }
    }
}

/// `[aws] credential_source`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CredentialSource {
    InstanceMetadata,
    Container,
}

impl CredentialSource {
    pub fn as_str(self) -> &'static str {
        match self {
            CredentialSource::InstanceMetadata => "instance_metadata",
            CredentialSource::Container => "container",
        }
    }
}

/// The shortest `external_id_secret`.
pub const MIN_EXTERNAL_ID_SECRET: usize = 32;

impl Aws {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        let keys = self.access_key_id.is_some() || self.secret_access_key.is_some();
        let web = self.web_identity_token_file.is_some() || self.role_arn.is_some();
        let source = self.credential_source.is_some();
        if self.credential_source != Some(CredentialSource::Container)
            && (self.container_credentials_url.is_some() || self.container_token_file.is_some())
        {
            bail!(
                "aws.container_credentials_url and aws.container_token_file go with aws.credential_source = \"container\""
            );
        }
        if !keys && !web && !source && self.session_token.is_none() {
            if self.external_id_secret.is_some() {
                bail!(
                    "aws.external_id_secret needs an identity: aws.access_key_id and aws.secret_access_key, aws.web_identity_token_file and aws.role_arn, or aws.credential_source"
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
        if usize::from(keys) + usize::from(web) + usize::from(source) > 1 {
            bail!("aws: give one identity: static keys, a web identity, or a credential_source");
        }
        self.validate_source()?;
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

    /// The link-local source's rules: a metadata endpoint that is a URL,
    /// a container URL that is one and keeps its token off the network.
    fn validate_source(&self) -> anyhow::Result<()> {
        match self.credential_source {
            None => Ok(()),
            Some(CredentialSource::InstanceMetadata) => {
                OperatorUrl::parse(&self.metadata_endpoint)
                    .map_err(|e| anyhow::anyhow!("aws.metadata_endpoint: {e}"))?;
                Ok(())
            }
            Some(CredentialSource::Container) => {
                let Some(raw) = &self.container_credentials_url else {
                    bail!(
                        "aws.credential_source = \"container\" needs aws.container_credentials_url (ECS: http://169.254.170.2 and the relative URI; EKS Pod Identity: http://169.254.170.23/v1/credentials)"
                    );
                };
                let url = OperatorUrl::parse(raw)
                    .map_err(|e| anyhow::anyhow!("aws.container_credentials_url: {e}"))?;
                if !metadata::container_url_allowed(&url) {
                    bail!(
                        "aws.container_credentials_url must be https://, or http:// to a loopback address, 169.254.170.2, 169.254.170.23 or fd00:ec2::23 (its token must not cross a network in clear)"
                    );
                }
                Ok(())
            }
        }
    }

    /// The credential source configured, when one is (validated first).
    fn source(&self) -> Option<Source> {
        Some(match self.credential_source? {
            CredentialSource::InstanceMetadata => Source::InstanceMetadata {
                endpoint: OperatorUrl::parse(&self.metadata_endpoint).ok()?,
            },
            CredentialSource::Container => Source::Container {
                url: OperatorUrl::parse(self.container_credentials_url.as_deref()?).ok()?,
                token_file: self.container_token_file.clone(),
            },
        })
    }

    /// The installation's identity for the engine, when configured
    /// (validated first); a credential source is asked with an operator
    /// client of `guard`'s trust.
    pub fn installation(
        &self,
        clock: Arc<dyn relay_core::time::Clock>,
        guard: &relay_net::Guard,
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
            _ => Identity::Metadata {
                source: self.source()?,
                client: OperatorClient::new(guard),
            },
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
