//! TLS with a client certificate against a TLS peer: each mock broker sits
//! behind a TLS terminator of the test's (rustls) that presents a
//! certificate for the brokers' name, signed by a test CA Relay trusts
//! through the operator's `extra_ca_certs`, and requires a client
//! certificate signed by its own client CA. The cluster advertises every
//! broker at its terminator, by name, so the host name is verified for the
//! bootstrap broker and for every advertised one alike.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DistinguishedName, DnType,
    ExtendedKeyUsagePurpose, IsCa, KeyPair, KeyUsagePurpose,
};
use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, TransportError, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::Shared;
use relay_destinations::kafka::KafkaBroker;
use relay_net::{Guard, HttpsClient, OutboundConfig, StaticResolver};
use relay_receiver::{TestCa, crypto_provider};
use rustls::RootCertStore;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::WebPkiClientVerifier;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use super::answers::{deliver, prepared};
use super::cluster::Cluster;
use super::{HOST, destination};

/// A CA for client certificates, and one client certificate it signed.
struct ClientCa {
    ca: CertificateDer<'static>,
    cert_pem: String,
    key_pem: String,
}

fn client_ca() -> ClientCa {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, "Kafka client CA");
    params.distinguished_name = dn;
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let issuer = CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap();
    let mut leaf = CertificateParams::new(vec!["relay".to_string()]).unwrap();
    let mut dn = DistinguishedName::new();
    dn.push(DnType::CommonName, "relay");
    leaf.distinguished_name = dn;
    leaf.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    let key = KeyPair::generate().unwrap();
    let cert = leaf.signed_by(&key, &issuer).unwrap();
    ClientCa {
        ca: issuer.der().clone(),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    }
}

/// TLS terminators in front of the cluster's brokers.
struct Terminators {
    ports: Vec<u16>,
    /// Handshakes that presented a client certificate the client CA signed.
    verified: Arc<AtomicUsize>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Terminators {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

async fn terminators(cluster: &Cluster, server_ca: &TestCa, client: &ClientCa) -> Terminators {
    let leaf = server_ca.leaf().without_defaults().names([HOST]).build();
    let mut roots = RootCertStore::empty();
    roots.add(client.ca.clone()).unwrap();
    let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), crypto_provider())
        .build()
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(crypto_provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            leaf.cert_chain(),
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
                leaf.key_der().secret_der().to_vec(),
            )),
        )
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let verified = Arc::new(AtomicUsize::new(0));
    let (mut ports, mut tasks) = (Vec::new(), Vec::new());
    for (i, broker_port) in cluster.ports().into_iter().enumerate() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (acceptor, verified) = (acceptor.clone(), verified.clone());
        tasks.push(tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let (acceptor, verified) = (acceptor.clone(), verified.clone());
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    if tls
                        .get_ref()
                        .1
                        .peer_certificates()
                        .is_some_and(|c| !c.is_empty())
                    {
                        verified.fetch_add(1, Ordering::Relaxed);
                    }
                    let Ok(mut broker) =
                        tokio::net::TcpStream::connect(("127.0.0.1", broker_port)).await
                    else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut tls, &mut broker).await;
                });
            }
        }));
        cluster.advertise(i as i32 + 1, HOST, port);
        ports.push(port);
    }
    Terminators {
        ports,
        verified,
        tasks,
    }
}

/// With its client certificate, Relay delivers through TLS (the
/// terminator verified the certificate; the broker's name verified
/// against the operator's extra CA); without one, the handshake is refused
/// and the attempt is a retry recorded as `tls`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_with_a_client_certificate() {
    let cluster = Cluster::start(3, "tls", 3);
    let server_ca = TestCa::generate();
    let client = client_ca();
    let t = terminators(&cluster, &server_ca, &client).await;
    let dir = tempfile::tempdir().unwrap();
    let config = OutboundConfig {
        allow_ports: t.ports.clone(),
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![server_ca.write_ca_pem(dir.path()).unwrap()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new().with(HOST, ["127.0.0.1".parse().unwrap()]);
    let shared = Shared {
        https: HttpsClient::new(Guard::with_resolver(&config, Arc::new(resolver)).unwrap()),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let (cert, key) = (
        SecretRef::Secret("kafka-cert".into()),
        SecretRef::Secret("kafka-key".into()),
    );
    let mut secrets = Secrets::new();
    secrets.insert(cert.clone(), SecretValue::from(client.cert_pem.as_str()));
    secrets.insert(key.clone(), SecretValue::from(client.key_pem.as_str()));
    let mut d = destination(&cluster, ContentMode::Structured);
    d.bootstrap = vec![KafkaBroker {
        host: HOST.into(),
        port: t.ports[0],
    }];
    d.tls = true;
    let mut with_cert = d.clone();
    with_cert.client_certificate = Some(cert);
    with_cert.client_key = Some(key);

    let c = relay_destinations::build(&Config::Kafka(with_cert), &shared, &secrets).unwrap();
    for i in 0..6 {
        let p = prepared(
            &format!("evt_tls_{i}"),
            Some(&format!("k{i}")),
            ContentMode::Structured,
        );
        let (verdict, record) = deliver(&c, &p, Duration::from_secs(10)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    }
    assert!(
        t.verified.load(Ordering::Relaxed) > 0,
        "client certificates were verified"
    );

    let c = relay_destinations::build(&Config::Kafka(d), &shared, &secrets).unwrap();
    let p = prepared("evt_tls_refused", None, ContentMode::Structured);
    let (verdict, record) = deliver(&c, &p, Duration::from_secs(3)).await;
    assert_eq!(
        verdict,
        Verdict::Retry {
            code: FailureCode::Transport(TransportError::Tls),
            not_before: None,
        },
        "{record:?}"
    );
}
