//! The TLS client configuration shared by every outbound TLS connection.
//!
//! Built once: the ring crypto provider (the only one in Relay's graph), the
//! bundled web PKI roots (`webpki-roots`) plus the operator's
//! `extra_ca_certs`, TLS 1.2 and 1.3, no client certificate
//! ([`with_identity`] makes the configuration of one mutual-TLS client
//! identity from it). The server name
//! given to the handshake is always the original host name, never the
//! resolved address, so SNI and certificate verification are about the name
//! the tenant registered.

use std::sync::Arc;

use rustls::client::Resumption;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::ServerName;
use rustls::sign::SingleCertAndKey;
use rustls::{ClientConfig, RootCertStore};

use crate::config::{ConfigError, OutboundConfig, read_pem_certs};
use crate::identity::ClientIdentity;
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
    let config = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(ConfigError::Tls)?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(config)
}

/// The crypto provider of every TLS configuration in Relay (ring).
pub fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// `base` presenting `identity` when a server asks for a client
/// certificate: the same provider, roots, versions and ALPN, and a session
/// cache of its own, so a session resumed later is one this identity
/// authenticated (a TLS 1.3 resumption carries the first handshake's client
/// authentication: sharing the cache with another identity, or none, would
/// lend it).
pub fn with_identity(base: &ClientConfig, identity: &ClientIdentity) -> ClientConfig {
    let mut config = base.clone();
    config.client_auth_cert_resolver = Arc::new(SingleCertAndKey::from(identity.certified()));
    config.resumption = Resumption::default();
    config
}

/// The operator's extra CA files' text, one after another (each file was
/// checked to hold certificates by [`client_config`]); `None` without any.
pub fn extra_ca_pem(config: &OutboundConfig) -> Result<Option<String>, ConfigError> {
    let mut pem = String::new();
    for path in &config.extra_ca_certs {
        read_pem_certs(path)?;
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::CaFile {
            path: path.clone(),
            source,
        })?;
        pem.push_str(&text);
        if !pem.ends_with('\n') {
            pem.push('\n');
        }
    }
    Ok((!pem.is_empty()).then_some(pem))
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
