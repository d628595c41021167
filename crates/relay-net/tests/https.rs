//! The guarded HTTPS client against a real rustls server on 127.0.0.1.
//!
//! Loopback is reached the way an operator would open it for development:
//! `allow_cidrs = ["127.0.0.0/8"]`, the server's port in `allow_ports` and
//! the test CA (generated with rcgen) in `extra_ca_certs`. "localhost" is
//! resolved by an injected resolver, so SNI, certificate verification and
//! the Host header are checked against the name, not the address.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use relay_net::{
    Guard, HeaderName, HeaderValue, HttpsClient, Limits, OutboundConfig, StaticResolver,
};
use rustls::ServerConfig;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;

/// What the test server does with each request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `200 OK`, body `accepted`, keep-alive.
    Ok,
    /// `200 OK` with `connection: close`, then closes.
    Close,
    /// `302 Found` to another path on the same server.
    Redirect,
    /// `200 OK` announcing 64 MiB and streaming until the peer goes away.
    Stream,
    /// Reads the request and never answers.
    Hang,
}

/// What the server saw.
#[derive(Debug)]
struct Seen {
    sni: Option<String>,
    head: String,
    body: Vec<u8>,
}

struct Server {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    requests: mpsc::UnboundedReceiver<Seen>,
    streamed: mpsc::UnboundedReceiver<(usize, bool)>,
}

struct Pki {
    ca_file: PathBuf,
    server: Arc<ServerConfig>,
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.ca_file);
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// A CA, a leaf for `names` signed by it, and the CA written to a PEM file.
fn pki(tag: &str, names: &[&str]) -> Pki {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("ca params");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca =
        CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("ca key")).expect("ca");
    let leaf_key = KeyPair::generate().expect("leaf key");
    let leaf = CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())
        .expect("leaf params")
        .signed_by(&leaf_key, &ca)
        .expect("leaf");
    let ca_file = std::env::temp_dir().join(format!(
        "relay-net-test-ca-{}-{tag}.pem",
        std::process::id()
    ));
    std::fs::write(&ca_file, ca.pem()).expect("write CA");
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let chain: Vec<CertificateDer<'static>> = vec![leaf.der().clone(), ca.der().clone()];
    let server = ServerConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .expect("versions")
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .expect("server config");
    Pki {
        ca_file,
        server: Arc::new(server),
    }
}

async fn serve(pki: &Pki, mode: Mode) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let acceptor = TlsAcceptor::from(Arc::clone(&pki.server));
    let connections = Arc::new(AtomicUsize::new(0));
    let (seen_tx, requests) = mpsc::unbounded_channel();
    let (stream_tx, streamed) = mpsc::unbounded_channel();
    let counter = Arc::clone(&connections);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let acceptor = acceptor.clone();
            let seen_tx = seen_tx.clone();
            let stream_tx = stream_tx.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let sni = tls.get_ref().1.server_name().map(str::to_owned);
                let mut buf = Vec::new();
                loop {
                    let Some((head, body)) = read_request(&mut tls, &mut buf).await else {
                        return;
                    };
                    let _ = seen_tx.send(Seen {
                        sni: sni.clone(),
                        head,
                        body,
                    });
                    match mode {
                        Mode::Ok => {
                            let reply = b"HTTP/1.1 200 OK\r\ncontent-length: 8\r\n\r\naccepted";
                            if tls.write_all(reply).await.is_err() {
                                return;
                            }
                        }
                        Mode::Close => {
                            let reply = b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok";
                            let _ = tls.write_all(reply).await;
                            let _ = tls.shutdown().await;
                            return;
                        }
                        Mode::Redirect => {
                            let reply = b"HTTP/1.1 302 Found\r\nlocation: /elsewhere\r\ncontent-length: 0\r\n\r\n";
                            if tls.write_all(reply).await.is_err() {
                                return;
                            }
                        }
                        Mode::Stream => {
                            let total = 64 * 1024 * 1024;
                            let head =
                                format!("HTTP/1.1 200 OK\r\ncontent-length: {total}\r\n\r\n");
                            let chunk = vec![b'a'; 64 * 1024];
                            let mut written = 0;
                            let mut broken = false;
                            if tls.write_all(head.as_bytes()).await.is_ok() {
                                while written < total {
                                    if tls.write_all(&chunk).await.is_err()
                                        || tls.flush().await.is_err()
                                    {
                                        broken = true;
                                        break;
                                    }
                                    written += chunk.len();
                                }
                            }
                            let _ = stream_tx.send((written, broken));
                            return;
                        }
                        Mode::Hang => {
                            std::future::pending::<()>().await;
                        }
                    }
                }
            });
        }
    });
    Server {
        addr,
        connections,
        requests,
        streamed,
    }
}

/// Reads one HTTP/1.1 request (head and `content-length` body).
async fn read_request<S: AsyncReadExt + Unpin>(
    stream: &mut S,
    buf: &mut Vec<u8>,
) -> Option<(String, Vec<u8>)> {
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos + 4;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let length = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = buf[head_end..head_end + length].to_vec();
    buf.drain(..head_end + length);
    Some((head, body))
}

fn loopback_config(pki: Option<&Pki>, port: u16) -> OutboundConfig {
    OutboundConfig {
        allow_ports: vec![port],
        allow_cidrs: vec!["127.0.0.0/8".into()],
        block_cidrs: Vec::new(),
        extra_ca_certs: pki.map(|p| vec![p.ca_file.clone()]).unwrap_or_default(),
        allow_plaintext_credentials_to_loopback: false,
    }
}

fn resolver() -> StaticResolver {
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    StaticResolver::new()
        .with("localhost", [loopback])
        .with("other-name.test", [loopback])
}

fn client(pki: Option<&Pki>, port: u16) -> HttpsClient {
    let guard =
        Guard::with_resolver(&loopback_config(pki, port), Arc::new(resolver())).expect("guard");
    HttpsClient::new(guard)
}

fn headers() -> Vec<(HeaderName, HeaderValue)> {
    vec![
        (
            HeaderName::from_static("webhook-id"),
            HeaderValue::from_static("msg_1"),
        ),
        (
            HeaderName::from_static("content-type"),
            HeaderValue::from_static("application/cloudevents+json"),
        ),
        // Ignored: the client sets Host from the URL.
        (
            HeaderName::from_static("host"),
            HeaderValue::from_static("evil.example"),
        ),
    ]
}

#[tokio::test]
async fn post_succeeds_with_sni_and_host_of_the_name_and_reuses_the_connection() {
    let pki = pki("ok", &["localhost"]);
    let mut server = serve(&pki, Mode::Ok).await;
    let port = server.addr.port();
    let client = client(Some(&pki), port);
    let url = format!("https://localhost:{port}/hooks/a?x=1");
    let checked = client.guard().check_url(&url).await.expect("registration");

    let response = client
        .post(
            &checked,
            headers(),
            Bytes::from_static(b"{\"a\":1}"),
            Limits::default(),
        )
        .await
        .expect("delivery");
    assert_eq!(response.status, 200);
    assert_eq!(&response.body_prefix[..], b"accepted");
    assert!(!response.truncated);
    assert_eq!(response.remote_addr, server.addr);
    assert!(!response.reused_connection);

    let seen = server.requests.recv().await.expect("request");
    assert_eq!(seen.sni.as_deref(), Some("localhost"));
    let head = seen.head.to_ascii_lowercase();
    assert!(head.starts_with("post /hooks/a?x=1 http/1.1\r\n"), "{head}");
    assert!(
        head.contains(&format!("\r\nhost: localhost:{port}\r\n")),
        "{head}"
    );
    assert!(!head.contains("evil.example"), "{head}");
    assert!(head.contains("\r\nwebhook-id: msg_1\r\n"), "{head}");
    assert_eq!(seen.body, b"{\"a\":1}");

    let again = client
        .post(
            &checked,
            headers(),
            Bytes::from_static(b"{}"),
            Limits::default(),
        )
        .await
        .expect("second delivery");
    assert_eq!(again.status, 200);
    assert!(again.reused_connection);
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_connection_the_server_closes_is_not_reused() {
    let pki = pki("close", &["localhost"]);
    let server = serve(&pki, Mode::Close).await;
    let port = server.addr.port();
    let client = client(Some(&pki), port);
    let url = format!("https://localhost:{port}/");
    for _ in 0..3 {
        let response = client
            .post_url(
                &url,
                headers(),
                Bytes::from_static(b"{}"),
                Limits::default(),
            )
            .await
            .expect("delivery");
        assert_eq!(response.status, 200);
        assert!(!response.reused_connection);
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_redirect_is_returned_and_not_followed() {
    let pki = pki("redirect", &["localhost"]);
    let mut server = serve(&pki, Mode::Redirect).await;
    let port = server.addr.port();
    let client = client(Some(&pki), port);
    let response = client
        .post_url(
            &format!("https://localhost:{port}/start"),
            headers(),
            Bytes::from_static(b"{}"),
            Limits::default(),
        )
        .await
        .expect("delivery");
    assert_eq!(response.status, 302);
    assert_eq!(
        response.headers.get("location").map(HeaderValue::as_bytes),
        Some(&b"/elsewhere"[..])
    );
    let first = server.requests.recv().await.expect("request");
    assert!(first.head.starts_with("POST /start "), "{}", first.head);
    assert!(
        server.requests.try_recv().is_err(),
        "the redirect must not be followed"
    );
}

#[tokio::test]
async fn a_huge_response_is_read_to_the_limit_and_dropped() {
    let pki = pki("stream", &["localhost"]);
    let mut server = serve(&pki, Mode::Stream).await;
    let port = server.addr.port();
    let client = client(Some(&pki), port);
    let response = client
        .post_url(
            &format!("https://localhost:{port}/"),
            headers(),
            Bytes::from_static(b"{}"),
            Limits::default(),
        )
        .await
        .expect("delivery");
    assert_eq!(response.status, 200);
    assert_eq!(response.body_prefix.len(), 8192);
    assert!(response.body_prefix.iter().all(|&b| b == b'a'));
    assert!(response.truncated);
    // The server finds out that the client went away: a deadline, not a sleep.
    let (written, broken) = tokio::time::timeout(Duration::from_secs(30), server.streamed.recv())
        .await
        .expect("the client must drop the connection")
        .expect("server report");
    assert!(broken, "the server could write everything");
    assert!(written < 64 * 1024 * 1024, "written {written}");
}

#[tokio::test]
async fn a_hanging_server_hits_the_timeout() {
    let pki = pki("hang", &["localhost"]);
    let server = serve(&pki, Mode::Hang).await;
    let port = server.addr.port();
    let client = client(Some(&pki), port);
    let limits = Limits {
        total_timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let started = std::time::Instant::now();
    let error = client
        .post_url(
            &format!("https://localhost:{port}/"),
            headers(),
            Bytes::from_static(b"{}"),
            limits,
        )
        .await
        .expect_err("must time out");
    assert_eq!(error.kind().as_str(), "timeout", "{error}");
    assert_eq!(error.remote_addr(), Some(server.addr));
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[tokio::test]
async fn an_unknown_ca_is_a_tls_error() {
    let pki = pki("unknown", &["localhost"]);
    let server = serve(&pki, Mode::Ok).await;
    let port = server.addr.port();
    let client = client(None, port);
    let error = client
        .post_url(
            &format!("https://localhost:{port}/"),
            headers(),
            Bytes::from_static(b"{}"),
            Limits::default(),
        )
        .await
        .expect_err("untrusted certificate");
    assert_eq!(error.kind().as_str(), "tls", "{error}");
    assert_eq!(error.remote_addr(), Some(server.addr));
}

#[tokio::test]
async fn the_certificate_is_verified_for_the_name_not_the_address() {
    let pki = pki("name", &["localhost"]);
    let server = serve(&pki, Mode::Ok).await;
    let port = server.addr.port();
    let client = client(Some(&pki), port);
    for url in [
        format!("https://other-name.test:{port}/"),
        format!("https://127.0.0.1:{port}/"),
    ] {
        let error = client
            .post_url(
                &url,
                headers(),
                Bytes::from_static(b"{}"),
                Limits::default(),
            )
            .await
            .expect_err("certificate is for localhost only");
        assert_eq!(error.kind().as_str(), "tls", "{url}: {error}");
    }
}

#[tokio::test]
async fn connect_tls_gives_brokers_a_verified_stream() {
    let pki = pki("broker", &["localhost"]);
    let server = serve(&pki, Mode::Ok).await;
    let port = server.addr.port();
    let guard = Guard::with_resolver(&loopback_config(Some(&pki), port), Arc::new(resolver()))
        .expect("guard");
    let (mut tls, addr) = guard
        .connect_tls("localhost", port, Duration::from_secs(5))
        .await
        .expect("tls");
    assert_eq!(addr, server.addr);
    tls.write_all(b"POST / HTTP/1.1\r\nhost: localhost\r\ncontent-length: 0\r\n\r\n")
        .await
        .expect("write");
    let mut reply = [0u8; 12];
    tls.read_exact(&mut reply).await.expect("read");
    assert_eq!(&reply, b"HTTP/1.1 200");
    // The port must still be allowed and the address still checked.
    let error = guard
        .connect_tls("localhost", port.wrapping_add(1), Duration::from_secs(1))
        .await
        .expect_err("port");
    assert_eq!(error.kind().as_str(), "port_not_allowed");
}
