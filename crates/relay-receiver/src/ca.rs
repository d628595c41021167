//! A throw-away certificate authority and the leaf certificates it signs.
//!
//! [`TestCa::generate`] makes a fresh ECDSA P-256 CA in memory. Its PEM goes
//! to Relay's `[outbound] extra_ca_certs` ([`TestCa::write_ca_pem`]); its
//! leaves ([`TestCa::leaf`]) serve TLS for the [`Receiver`](crate::Receiver).
//! By default a leaf names `localhost`, `127.0.0.1` and `::1`; the
//! [`LeafBuilder`] adds or replaces names. [`TestCa::client_config`] is a
//! rustls client configuration that trusts this CA and nothing else, for
//! test clients and the benchmark's own client. [`TestCa::client_cert`]
//! issues a client certificate (mutual TLS) that a receiver requiring
//! this CA's clients accepts ([`LeafCert::server_config_with`]).
//!
//! Everything uses rustls' `ring` provider, never aws-lc.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, RootCertStore, ServerConfig};
use sha2::{Digest, Sha256};

/// The names a leaf certificate carries unless told otherwise.
pub const DEFAULT_LEAF_NAMES: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Distinguishes CA files written by one process.
static CA_FILE_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The rustls crypto provider used everywhere in this crate (`ring`).
pub fn crypto_provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A certificate authority generated for one test run. Not secret, not durable.
pub struct TestCa {
    issuer: CertifiedIssuer<'static, KeyPair>,
}

impl fmt::Debug for TestCa {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestCa").finish_non_exhaustive()
    }
}

impl TestCa {
    /// A new CA with a fresh key (common name `Relay test CA`).
    ///
    /// # Panics
    /// If key generation or self-signing fails, which only a broken crypto
    /// provider can cause.
    pub fn generate() -> TestCa {
        TestCa::generate_named("Relay test CA")
    }

    /// A new CA with a fresh key and the common name `name`.
    ///
    /// # Panics
    /// As [`TestCa::generate`].
    pub fn generate_named(name: &str) -> TestCa {
        let mut params =
            CertificateParams::new(Vec::<String>::new()).expect("CA parameters without names");
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, name);
        params.distinguished_name = dn;
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let key = KeyPair::generate().expect("generate the CA key");
        let issuer = CertifiedIssuer::self_signed(params, key).expect("self-sign the CA");
        TestCa { issuer }
    }

    /// The CA certificate as PEM.
    pub fn ca_cert_pem(&self) -> String {
        self.issuer.pem()
    }

    /// The CA certificate as DER.
    pub fn ca_cert_der(&self) -> CertificateDer<'static> {
        self.issuer.der().clone()
    }

    /// Writes the CA certificate as PEM to a new file in `dir` and returns its
    /// path: the file to list in Relay's `[outbound] extra_ca_certs`. Each
    /// call writes a file with a new name; the caller owns it.
    pub fn write_ca_pem(&self, dir: &Path) -> io::Result<PathBuf> {
        let n = CA_FILE_COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("relay-test-ca-{}-{n}.pem", std::process::id()));
        std::fs::write(&path, self.ca_cert_pem())?;
        Ok(path)
    }

    /// A root store holding only this CA.
    pub fn root_store(&self) -> RootCertStore {
        let mut roots = RootCertStore::empty();
        roots
            .add(self.ca_cert_der())
            .expect("the CA certificate parses");
        roots
    }

    /// A rustls client configuration (ring provider, TLS 1.2 and 1.3, ALPN
    /// `http/1.1`) that trusts this CA and nothing else.
    pub fn client_config(&self) -> Arc<ClientConfig> {
        let mut config = ClientConfig::builder_with_provider(crypto_provider())
            .with_safe_default_protocol_versions()
            .expect("ring supports the default protocol versions")
            .with_root_certificates(self.root_store())
            .with_no_client_auth();
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(config)
    }

    /// Starts a leaf certificate with the [`DEFAULT_LEAF_NAMES`].
    pub fn leaf(&self) -> LeafBuilder<'_> {
        LeafBuilder {
            ca: self,
            names: DEFAULT_LEAF_NAMES.iter().map(|n| n.to_string()).collect(),
            client: false,
        }
    }

    /// A client certificate (extended key usage `clientAuth`) whose common
    /// name and DNS name are `name`, for mutual TLS.
    pub fn client_cert(&self, name: &str) -> LeafCert {
        LeafBuilder {
            ca: self,
            names: vec![name.to_string()],
            client: true,
        }
        .build()
    }

    /// A leaf certificate for `localhost`, `127.0.0.1` and `::1`.
    pub fn default_leaf(&self) -> LeafCert {
        self.leaf().build()
    }
}

/// Chooses the names of a leaf certificate; see [`TestCa::leaf`].
#[derive(Debug)]
pub struct LeafBuilder<'a> {
    ca: &'a TestCa,
    names: Vec<String>,
    /// A client certificate (`clientAuth`) rather than a server's.
    client: bool,
}

impl LeafBuilder<'_> {
    /// Adds a DNS name or an IP address (written as text) to the certificate.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        let name = name.into();
        if !self.names.contains(&name) {
            self.names.push(name);
        }
        self
    }

    /// Adds several names.
    pub fn names<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for name in names {
            self = self.name(name);
        }
        self
    }

    /// Drops the default names, keeping only those added after this call.
    pub fn without_defaults(mut self) -> Self {
        self.names.clear();
        self
    }

    /// Signs the leaf with the CA.
    ///
    /// # Panics
    /// If a name is neither an IP address nor a valid DNS name, or no name is given.
    pub fn build(self) -> LeafCert {
        assert!(
            !self.names.is_empty(),
            "a leaf certificate needs at least one name"
        );
        let mut params = CertificateParams::new(self.names.clone())
            .unwrap_or_else(|e| panic!("invalid leaf names {:?}: {e}", self.names));
        let mut dn = DistinguishedName::new();
        dn.push(DnType::CommonName, self.names[0].as_str());
        params.distinguished_name = dn;
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
        params.extended_key_usages = vec![if self.client {
            ExtendedKeyUsagePurpose::ClientAuth
        } else {
            ExtendedKeyUsagePurpose::ServerAuth
        }];
        let key = KeyPair::generate().expect("generate a leaf key");
        let cert = params
            .signed_by(&key, &self.ca.issuer)
            .expect("sign the leaf");
        LeafCert {
            names: self.names,
            cert_der: cert.der().clone(),
            cert_pem: cert.pem(),
            key_der: key.serialize_der(),
            key_pem: key.serialize_pem(),
            ca_der: self.ca.ca_cert_der(),
            ca_pem: self.ca.ca_cert_pem(),
        }
    }
}

/// A leaf certificate, its private key and the CA that signed it.
#[derive(Clone)]
pub struct LeafCert {
    names: Vec<String>,
    cert_der: CertificateDer<'static>,
    cert_pem: String,
    key_der: Vec<u8>,
    key_pem: String,
    ca_der: CertificateDer<'static>,
    ca_pem: String,
}

impl fmt::Debug for LeafCert {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LeafCert")
            .field("names", &self.names)
            .finish_non_exhaustive()
    }
}

impl LeafCert {
    /// The names (DNS names and IP addresses) in the certificate.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The leaf certificate as PEM.
    pub fn cert_pem(&self) -> &str {
        &self.cert_pem
    }

    /// The leaf, then the CA, as PEM: the chain a client presents.
    pub fn chain_pem(&self) -> String {
        format!("{}{}", self.cert_pem, self.ca_pem)
    }

    /// SHA-256 of the leaf certificate's DER, lower-case hex (what
    /// [`Recorded::client_cert_sha256`](crate::Recorded::client_cert_sha256)
    /// holds for a client that presented it).
    pub fn sha256_hex(&self) -> String {
        sha256_hex(&self.cert_der)
    }

    /// The leaf's private key as PKCS#8 PEM.
    pub fn key_pem(&self) -> &str {
        &self.key_pem
    }

    /// The chain a server presents: the leaf, then the CA.
    pub fn cert_chain(&self) -> Vec<CertificateDer<'static>> {
        vec![self.cert_der.clone(), self.ca_der.clone()]
    }

    /// The leaf's private key as DER.
    pub fn key_der(&self) -> PrivateKeyDer<'static> {
        PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_der.clone()))
    }

    /// A rustls server configuration (ring provider, TLS 1.2 and 1.3, ALPN
    /// `http/1.1`, no client authentication) presenting this certificate.
    pub fn server_config(&self) -> Arc<ServerConfig> {
        self.server_config_with(None, false)
    }

    /// [`LeafCert::server_config`] that requires a client certificate
    /// issued by `client_ca` when given (a client without one, or with
    /// another CA's, fails the handshake with an alert), and speaks TLS 1.2
    /// only when `tls12_only`.
    pub fn server_config_with(
        &self,
        client_ca: Option<&TestCa>,
        tls12_only: bool,
    ) -> Arc<ServerConfig> {
        let builder = if tls12_only {
            ServerConfig::builder_with_provider(crypto_provider())
                .with_protocol_versions(&[&rustls::version::TLS12])
        } else {
            ServerConfig::builder_with_provider(crypto_provider())
                .with_safe_default_protocol_versions()
        }
        .expect("ring supports TLS 1.2 and 1.3");
        let builder = match client_ca {
            Some(ca) => builder.with_client_cert_verifier(
                WebPkiClientVerifier::builder_with_provider(
                    Arc::new(ca.root_store()),
                    crypto_provider(),
                )
                .build()
                .expect("a verifier over one CA"),
            ),
            None => builder.with_no_client_auth(),
        };
        let mut config = builder
            .with_single_cert(self.cert_chain(), self.key_der())
            .expect("the leaf key matches its certificate");
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Arc::new(config)
    }
}

/// SHA-256 of `der`, lower-case hex.
pub(crate) fn sha256_hex(der: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(der)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
