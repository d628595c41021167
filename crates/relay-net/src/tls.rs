//! The TLS client configuration shared by every outbound TLS connection.
//!
//! Built once: the ring crypto provider (the only one in Relay's graph), the
//! bundled web PKI roots (`webpki-roots`) plus the operator's
//! `extra_ca_certs`, TLS 1.2 and 1.3, no client certificate. The server name
//! given to the handshake is always the original host name, never the
//! resolved address, so SNI and certificate verification are about the name
//! the tenant registered.

use std::sync::Arc;

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, RootCertStore};

use crate::config::{ConfigError, OutboundConfig, read_pem_certs};
use crate::target::TargetHost;

/// Builds the client configuration from the bundled roots and the
/// operator's extra CA files.
pub fn client_config(config: &OutboundConfig) -> Result<ClientConfig, ConfigError> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    for path in &config.extra_ca_certs {
        for cert in read_pem_certs(path)? {
            roots
                .add(cert)
                .map_err(|source| ConfigError::CaCertificate {
                    path: path.clone(),
                    source,
                })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(ConfigError::Tls)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}

/// The name to verify the certificate against (and send as SNI for names).
pub fn server_name(
    host: &TargetHost,
) -> Result<ServerName<'static>, rustls::pki_types::InvalidDnsNameError> {
    match host {
        TargetHost::Ip(ip) => Ok(ServerName::IpAddress((*ip).into())),
        TargetHost::Name(name) => ServerName::try_from(name.clone()),
    }
}
