//! The installation's own Google identity (`[gcp] workload_identity`),
//! which the Google Cloud kinds (Pub/Sub) may publish with:
//! the access tokens of the service account the machine or the pod runs as
//! (Compute Engine's attached account, GKE Workload Identity), asked of
//! the metadata server (`GET
//! /computeMetadata/v1/instance/service-accounts/default/token` with
//! `Metadata-Flavor: Google`), cached and fetched again before they expire,
//! one token for every endpoint that uses it.
//!
//! The metadata server is link-local (`169.254.169.254`), which the SSRF
//! rules refuse to every tenant: it is reached through relay-net's
//! operator client at the address the operator's configuration names, and
//! no endpoint can point at it. The identity is the installation's, not a
//! tenant's: the operator lists the projects whose topics endpoints may
//! publish to with it (`[gcp] projects`), and an endpoint for another
//! project is refused at registration and never sent.

use std::collections::BTreeSet;
use std::sync::Arc;

use bytes::Bytes;
use relay_core::model::ErrorKind;
use relay_core::time::Clock;
use relay_net::operator::{OperatorClient, OperatorError, OperatorUrl};
use relay_net::{HeaderName, HeaderValue, Limits, Method};

use crate::https::oauth2::source::{Fetcher, Fetching, TokenSource};
use crate::https::oauth2::{MAX_ANSWER_BYTES, Token, TokenError, read_answer};

/// The metadata server's default address.
pub const METADATA_ENDPOINT: &str = "http://169.254.169.254";
/// The token's path on the metadata server, asking for Pub/Sub's scope.
pub const TOKEN_PATH: &str = "/computeMetadata/v1/instance/service-accounts/default/token?scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fpubsub";

/// The metadata server, asked for tokens with the operator client.
pub struct MetadataServer {
    pub endpoint: OperatorUrl,
    pub client: OperatorClient,
}

impl std::fmt::Debug for MetadataServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the metadata server at {:?}", self.endpoint)
    }
}

impl Fetcher for MetadataServer {
    fn fetch(&self, limits: Limits) -> Fetching<'_> {
        Box::pin(self.token(limits))
    }
}

impl MetadataServer {
    /// One token: `200` with `Metadata-Flavor: Google` (else something
    /// other than the metadata server answered) and a token answer.
    async fn token(&self, limits: Limits) -> Result<Token, TokenError> {
        let answer = self
            .client
            .request(
                Method::GET,
                &self.endpoint.join(TOKEN_PATH),
                vec![(
                    HeaderName::from_static("metadata-flavor"),
                    HeaderValue::from_static("Google"),
                )],
                Bytes::new(),
                limits.total_timeout,
                MAX_ANSWER_BYTES,
            )
            .await
            .map_err(|e| {
                let kind = match &e {
                    OperatorError::Timeout(_) => ErrorKind::Timeout,
                    OperatorError::Connect { .. } => ErrorKind::Connect,
                    OperatorError::Url(_) => ErrorKind::InvalidUrl,
                    _ => ErrorKind::Http,
                };
                TokenError::transport(kind, format!("{self:?}: {e}"), None)
            })?;
        let google = answer
            .headers
            .get("metadata-flavor")
            .is_some_and(|v| v.as_bytes() == b"Google");
        if answer.status.is_success() && !google {
            return Err(TokenError::transport(
                ErrorKind::Http,
                format!("{self:?}: the answer lacks `Metadata-Flavor: Google`"),
                None,
            ));
        }
        read_answer(answer.status.as_u16(), &answer.body, false, b"")
    }
}

/// The installation's Google identity: its token cache and the projects
/// endpoints may use it for. Its `Debug` shows the server and the
/// projects, never a token.
pub struct Installation {
    tokens: TokenSource,
    projects: BTreeSet<String>,
}

impl std::fmt::Debug for Installation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Installation")
            .field("tokens", &self.tokens)
            .field("projects", &self.projects)
            .finish()
    }
}

/// Why an endpoint cannot use the installation's identity.
pub const NO_WORKLOAD_IDENTITY: &str =
    "this installation has no Google workload identity (the operator's `[gcp]` section)";

impl Installation {
    pub fn new(
        server: MetadataServer,
        projects: impl IntoIterator<Item = String>,
        clock: Arc<dyn Clock>,
    ) -> Installation {
        Installation {
            tokens: TokenSource::with_fetcher(server, clock),
            projects: projects.into_iter().collect(),
        }
    }

    /// Whether a topic of `project` may be published to with it.
    pub fn allows(&self, project: &str) -> bool {
        self.projects.contains(project)
    }

    /// The projects it may be used for, for messages.
    pub fn projects(&self) -> impl Iterator<Item = &str> {
        self.projects.iter().map(String::as_str)
    }

    /// The token cache every endpoint that uses it shares.
    pub fn tokens(&self) -> &TokenSource {
        &self.tokens
    }
}
