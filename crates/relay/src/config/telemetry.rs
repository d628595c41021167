//! `[telemetry]`: OpenTelemetry traces over OTLP/HTTP, off by default
//! (`docs/telemetry.md`).

use anyhow::Context;
use serde::Deserialize;

/// `[telemetry]`.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Telemetry {
    /// The OTLP/HTTP traces URL of the collector
    /// (`http://127.0.0.1:4318/v1/traces`); unset: no spans are made.
    pub otlp_endpoint: Option<String>,
    /// The `service.name` resource attribute of the spans.
    pub service_name: String,
}

impl Default for Telemetry {
    fn default() -> Self {
        Telemetry {
            otlp_endpoint: None,
            service_name: "relay".into(),
        }
    }
}

/// The endpoint as `relay config check` prints it: a password or a
/// secret-looking query parameter (a vendor's `?api_key=`) hidden.
impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry")
            .field(
                "otlp_endpoint",
                &self.otlp_endpoint.as_deref().map(super::render::redact_url),
            )
            .field("service_name", &self.service_name)
            .finish()
    }
}

impl Telemetry {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        if let Some(url) = &self.otlp_endpoint {
            relay_net::operator::OperatorUrl::parse(url)
                .map_err(|e| anyhow::anyhow!("{e}"))
                .context("telemetry.otlp_endpoint")?;
        }
        let name = &self.service_name;
        if name.is_empty() || name.len() > 255 || name.chars().any(char::is_control) {
            anyhow::bail!(
                "telemetry.service_name must be 1 to 255 characters, none a control character"
            );
        }
        Ok(())
    }

    /// The collector's URL, checked, when traces are on.
    pub fn endpoint(&self) -> Option<relay_net::operator::OperatorUrl> {
        self.otlp_endpoint
            .as_deref()
            .and_then(|u| relay_net::operator::OperatorUrl::parse(u).ok())
    }
}
