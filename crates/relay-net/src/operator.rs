//! Posts to a service the operator configured (the OTLP collector of
//! `[telemetry] otlp_endpoint`), never to a tenant's address.
//!
//! The operator chose the address in Relay's configuration, so the tenant
//! rules of the SSRF policy do not apply (a collector on loopback or a
//! private network is the usual case); the socket still opens here, so
//! "only relay-net opens outbound sockets" stays literally true. `http://`
//! and `https://` (verified with the outbound trust: the Web PKI roots and
//! `[outbound] extra_ca_certs`); no proxy, no redirects, one connection per
//! post (an exporter posts a batch a second at most).

use std::io;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST, USER_AGENT};
use http::{HeaderValue, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

/// Why a post to the operator's service failed.
#[derive(Debug, thiserror::Error)]
pub enum OperatorError {
    #[error("{0}")]
    Url(String),
    #[error("cannot connect to {host}:{port}: {source}")]
    Connect {
        host: String,
        port: u16,
        source: io::Error,
    },
    #[error("HTTP exchange failed: {0}")]
    Http(#[from] hyper::Error),
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    #[error("answered {0}")]
    Status(StatusCode),
}

/// A checked URL of the operator's service.
#[derive(Clone)]
pub struct OperatorUrl {
    tls: bool,
    host: String,
    port: u16,
    /// The path and query, `/v1/traces`.
    target: String,
}

impl std::fmt::Debug for OperatorUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No user information or query is kept in what is printed.
        let scheme = if self.tls { "https" } else { "http" };
        write!(f, "{scheme}://{}:{}", self.host, self.port)
    }
}

impl OperatorUrl {
    /// Parses an `http://` or `https://` URL without user information or
    /// fragment.
    pub fn parse(raw: &str) -> Result<OperatorUrl, OperatorError> {
        let url =
            url::Url::parse(raw).map_err(|e| OperatorError::Url(format!("not a URL: {e}")))?;
        let tls = match url.scheme() {
            "http" => false,
            "https" => true,
            other => {
                return Err(OperatorError::Url(format!(
                    "the scheme must be http or https, not {other}"
                )));
            }
        };
        if !url.username().is_empty() || url.password().is_some() {
            return Err(OperatorError::Url(
                "the URL must not carry user information".into(),
            ));
        }
        if url.fragment().is_some() {
            return Err(OperatorError::Url(
                "the URL must not have a fragment".into(),
            ));
        }
        let host = match url.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => return Err(OperatorError::Url("the URL has no host".into())),
        };
        let port = url
            .port_or_known_default()
            .ok_or_else(|| OperatorError::Url("the URL has no port".into()))?;
        let mut target = url.path().to_string();
        if let Some(q) = url.query() {
            target.push('?');
            target.push_str(q);
        }
        Ok(OperatorUrl {
            tls,
            host,
            port,
            target,
        })
    }

    fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// Posts bodies to operator-configured services.
#[derive(Clone)]
pub struct OperatorClient {
    tls: TlsConnector,
}

impl OperatorClient {
    /// TLS with `guard`'s trust (Web PKI roots and the operator's extra CAs).
    pub fn new(guard: &crate::Guard) -> OperatorClient {
        OperatorClient {
            tls: guard.tls_connector(),
        }
    }

    /// POSTs `body` as `content_type` to `url` within `timeout`; `Ok` for
    /// a `2xx` answer.
    pub async fn post(
        &self,
        url: &OperatorUrl,
        content_type: &'static str,
        body: Bytes,
        timeout: Duration,
    ) -> Result<(), OperatorError> {
        match tokio::time::timeout(timeout, self.exchange(url, content_type, body)).await {
            Ok(result) => result,
            Err(_) => Err(OperatorError::Timeout(timeout)),
        }
    }

    async fn exchange(
        &self,
        url: &OperatorUrl,
        content_type: &'static str,
        body: Bytes,
    ) -> Result<(), OperatorError> {
        let tcp = TcpStream::connect((url.host.as_str(), url.port))
            .await
            .map_err(|source| OperatorError::Connect {
                host: url.host.clone(),
                port: url.port,
                source,
            })?;
        let _ = tcp.set_nodelay(true);
        if url.tls {
            let name = match url.host.parse::<std::net::IpAddr>() {
                Ok(ip) => rustls::pki_types::ServerName::IpAddress(ip.into()),
                Err(_) => {
                    rustls::pki_types::ServerName::try_from(url.host.clone()).map_err(|_| {
                        OperatorError::Url(format!("{} is not a valid TLS server name", url.host))
                    })?
                }
            };
            let stream =
                self.tls
                    .connect(name, tcp)
                    .await
                    .map_err(|source| OperatorError::Connect {
                        host: url.host.clone(),
                        port: url.port,
                        source,
                    })?;
            send(stream, url, content_type, body).await
        } else {
            send(tcp, url, content_type, body).await
        }
    }
}

async fn send<S>(
    stream: S,
    url: &OperatorUrl,
    content_type: &'static str,
    body: Bytes,
) -> Result<(), OperatorError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    let task = tokio::spawn(async move {
        let _ = connection.await;
    });
    let request = Request::builder()
        .method(Method::POST)
        .uri(url.target.as_str())
        .header(HOST, url.authority())
        .header(CONTENT_TYPE, HeaderValue::from_static(content_type))
        .header(CONTENT_LENGTH, body.len())
        .header(USER_AGENT, concat!("relay/", env!("CARGO_PKG_VERSION")))
        .body(Full::new(body))
        .map_err(|e| OperatorError::Url(e.to_string()))?;
    let result = async {
        let response = sender.send_request(request).await?;
        let status = response.status();
        // Read the (small) answer whole so the exchange ends cleanly.
        let _ = response.into_body().collect().await;
        Ok::<_, OperatorError>(status)
    }
    .await;
    task.abort();
    let status = result?;
    if status.is_success() {
        Ok(())
    } else {
        Err(OperatorError::Status(status))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_and_never_print_their_query() {
        let u = OperatorUrl::parse("http://127.0.0.1:4318/v1/traces?k=v").unwrap();
        assert_eq!(u.target, "/v1/traces?k=v");
        assert_eq!(format!("{u:?}"), "http://127.0.0.1:4318");
        let u = OperatorUrl::parse("https://collector.example/v1/traces").unwrap();
        assert_eq!((u.tls, u.port), (true, 443));
        for bad in [
            "ftp://x/v1/traces",
            "http://user:pw@x/v1/traces",
            "http://x/v1/traces#f",
            "not a url",
        ] {
            assert!(OperatorUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
