//! One HTTP/1.1 exchange with Relay over a small pool of kept-alive
//! connections to the client's one origin, plain or TLS (rustls on `ring`,
//! the web PKI roots of `webpki-roots` plus the CA certificates the caller
//! adds).

use std::sync::{Arc, Mutex};

use bytes::Bytes;
use http::{HeaderMap, Request, Uri};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::Error;

/// Idle connections kept for reuse.
const MAX_IDLE: usize = 8;

/// A whole answer.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
}

pub(crate) struct Transport {
    host: String,
    port: u16,
    /// The `Host` header.
    authority: String,
    /// The base URL's path, without its trailing `/` (`""` at the root).
    pub base_path: String,
    tls: Option<(TlsConnector, ServerName<'static>)>,
    idle: Mutex<Vec<SendRequest<Full<Bytes>>>>,
}

impl Transport {
    /// A transport to `base_url` (`http://` or `https://`), trusting the web
    /// PKI roots and `extra_roots` for TLS.
    pub fn new(
        base_url: &str,
        extra_roots: Vec<CertificateDer<'static>>,
    ) -> Result<Transport, Error> {
        let uri: Uri = base_url
            .parse()
            .map_err(|e| Error::Config(format!("base URL {base_url:?}: {e}")))?;
        let https = match uri.scheme_str() {
            Some("https") => true,
            Some("http") => false,
            _ => {
                return Err(Error::Config(format!(
                    "base URL {base_url:?}: not an http:// or https:// URL"
                )));
            }
        };
        if uri.query().is_some() {
            return Err(Error::Config(format!("base URL {base_url:?}: has a query")));
        }
        let authority = uri
            .authority()
            .ok_or_else(|| Error::Config(format!("base URL {base_url:?}: no host")))?;
        if authority.as_str().contains('@') {
            return Err(Error::Config(
                "base URL: credentials go in the API key, not the URL".into(),
            ));
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let port = authority.port_u16().unwrap_or(if https { 443 } else { 80 });
        let tls = if https {
            let mut roots = RootCertStore::empty();
            roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
            for cert in extra_roots {
                roots
                    .add(cert)
                    .map_err(|e| Error::Config(format!("CA certificate: {e}")))?;
            }
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let mut config = ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| Error::Config(format!("TLS: {e}")))?
                .with_root_certificates(roots)
                .with_no_client_auth();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            let name = ServerName::try_from(host.clone())
                .map_err(|e| Error::Config(format!("base URL host {host:?}: {e}")))?;
            Some((TlsConnector::from(Arc::new(config)), name))
        } else {
            None
        };
        Ok(Transport {
            host,
            port,
            authority: authority.as_str().to_string(),
            base_path: uri.path().trim_end_matches('/').to_string(),
            tls,
            idle: Mutex::new(Vec::new()),
        })
    }

    pub fn authority(&self) -> &str {
        &self.authority
    }

    /// Sends `request` and reads the whole answer: on an idle connection
    /// when one is left (a request the server never saw because the
    /// connection had closed is sent again on a new one), else on a new one.
    pub async fn round_trip(&self, mut request: Request<Full<Bytes>>) -> Result<Answer, String> {
        loop {
            let Some(mut sender) = self.take_idle() else {
                break;
            };
            match sender.try_send_request(request).await {
                Ok(response) => return self.read(sender, response).await,
                Err(mut e) => match e.take_message() {
                    Some(unsent) => request = unsent,
                    None => return Err(describe(e.error())),
                },
            }
        }
        let mut sender = self.connect().await?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| describe(&e))?;
        self.read(sender, response).await
    }

    async fn read(
        &self,
        sender: SendRequest<Full<Bytes>>,
        response: hyper::Response<hyper::body::Incoming>,
    ) -> Result<Answer, String> {
        let (parts, body) = response.into_parts();
        let body = body.collect().await.map_err(|e| describe(&e))?.to_bytes();
        self.put_idle(sender);
        Ok(Answer {
            status: parts.status.as_u16(),
            headers: parts.headers,
            body,
        })
    }

    fn take_idle(&self) -> Option<SendRequest<Full<Bytes>>> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(sender) = idle.pop() {
            if !sender.is_closed() && sender.is_ready() {
                return Some(sender);
            }
        }
        None
    }

    fn put_idle(&self, sender: SendRequest<Full<Bytes>>) {
        if sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push(sender);
        }
    }

    async fn connect(&self) -> Result<SendRequest<Full<Bytes>>, String> {
        let tcp = TcpStream::connect((self.host.as_str(), self.port))
            .await
            .map_err(|e| format!("connect to {}: {e}", self.authority))?;
        let _ = tcp.set_nodelay(true);
        match &self.tls {
            None => handshake(tcp).await,
            Some((connector, name)) => {
                let tls = connector
                    .connect(name.clone(), tcp)
                    .await
                    .map_err(|e| format!("TLS with {}: {e}", self.authority))?;
                handshake(tls).await
            }
        }
    }
}

async fn handshake<S>(stream: S) -> Result<SendRequest<Full<Bytes>>, String>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, connection) = http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| describe(&e))?;
    tokio::spawn(async move {
        // Ends when the connection closes or every sender is dropped.
        let _ = connection.await;
    });
    Ok(sender)
}

/// An error and its causes, on one line.
fn describe(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// The certificates of a PEM text (`-----BEGIN CERTIFICATE-----` blocks).
pub(crate) fn pem_certificates(pem: &[u8]) -> Result<Vec<CertificateDer<'static>>, Error> {
    use rustls::pki_types::pem::PemObject;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<_, _>>()
        .map_err(|e| Error::Config(format!("CA certificate PEM: {e}")))?;
    if certs.is_empty() {
        return Err(Error::Config(
            "CA certificate PEM: no certificate in it".into(),
        ));
    }
    Ok(certs)
}
