//! `[gcp]`: the installation's own Google identity (workload identity: the
//! service account Relay's machine or pod runs as, whose tokens the
//! metadata server gives), which Pub/Sub endpoints with
//! `workload_identity` publish with, for the projects listed
//! (docs/configuration.md, docs/destinations.md). Off unless configured:
//! such an endpoint is then refused.

use std::sync::Arc;

use anyhow::bail;
use relay_destinations::gcp::{self, Installation, MetadataServer};
use relay_destinations::pubsub::config::valid_project;
use relay_net::operator::{OperatorClient, OperatorUrl};
use serde::Deserialize;

/// `[gcp]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Gcp {
    /// `true`: Pub/Sub endpoints may publish as the installation's own
    /// service account (`workload_identity: true`), to topics of
    /// `projects`.
    #[serde(deserialize_with = "relay_net::config::boolean")]
    pub workload_identity: bool,
    /// The metadata server's address (GCE and GKE: `http://169.254.169.254`,
    /// also known as `metadata.google.internal`).
    pub metadata_endpoint: String,
    /// The projects whose topics may be published to with the
    /// installation's identity. Every tenant may name a topic of these
    /// projects: list the projects that hold the tenants' topics only
    /// when the tenants are trusted with each other's (else give each
    /// tenant a service account key of its own).
    #[serde(deserialize_with = "super::strings")]
    pub projects: Vec<String>,
}

impl Default for Gcp {
    fn default() -> Self {
        Gcp {
            workload_identity: false,
            metadata_endpoint: gcp::METADATA_ENDPOINT.into(),
            projects: Vec::new(),
        }
    }
}

impl Gcp {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        if !self.workload_identity {
            if !self.projects.is_empty() {
                bail!("gcp.projects goes with gcp.workload_identity = true");
            }
            return Ok(());
        }
        OperatorUrl::parse(&self.metadata_endpoint)
            .map_err(|e| anyhow::anyhow!("gcp.metadata_endpoint: {e}"))?;
        if self.projects.is_empty() {
            bail!(
                "gcp.workload_identity needs gcp.projects: the projects whose topics endpoints may publish to as this installation"
            );
        }
        if let Some(bad) = self.projects.iter().find(|p| !valid_project(p)) {
            bail!("gcp.projects: {bad:?} is not a project id");
        }
        Ok(())
    }

    /// The installation's workload identity for the engine, when
    /// configured (validated first), asked with an operator client of
    /// `guard`'s trust.
    pub fn installation(
        &self,
        clock: Arc<dyn relay_core::time::Clock>,
        guard: &relay_net::Guard,
    ) -> Option<Arc<Installation>> {
        if !self.workload_identity {
            return None;
        }
        let server = MetadataServer {
            endpoint: OperatorUrl::parse(&self.metadata_endpoint).ok()?,
            client: OperatorClient::new(guard),
        };
        Some(Arc::new(Installation::new(
            server,
            self.projects.iter().cloned(),
            clock,
        )))
    }
}
