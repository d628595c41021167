//! Requests to a service the operator configured, never to a tenant's
//! address: the OTLP collector of `[telemetry] otlp_endpoint`, and the
//! link-local services the installation's own cloud credentials come from
//! (AWS's instance metadata and container credentials, Google's metadata
//! server: `[aws] credential_source`, `[gcp] workload_identity`).
//!
//! The operator chose the address in Relay's configuration, so the tenant
//! rules of the SSRF policy do not apply (a collector on loopback or a
//! private network, a metadata service at `169.254.169.254`, are the usual
//! cases); the socket still opens here, so "only relay-net opens outbound
//! sockets" stays literally true. No tenant input ever reaches this
//! client: an endpoint's URL goes through the guard, which refuses
//! link-local addresses whatever the allow list says. `http://` and
//! `https://` (verified with the outbound trust: the Web PKI roots and
//! `[outbound] extra_ca_certs`); no proxy, no redirects (a `3xx` is an
//! answer), one connection per request (an exporter posts a batch a
//! second at most, a credential source is asked once an hour or so).

use std::io;
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST, USER_AGENT};
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode};
use http_body_util::{BodyExt, Full, Limited};
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
    #[error("the answer is longer than {0} bytes")]
    TooLarge(usize),
}

/// An operator service's answer, read whole. No `Debug`: a credential
/// source's body is credentials.
pub struct OperatorAnswer {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

/// The longest answer [`OperatorClient::post`] reads (an OTLP collector's
/// answer is a few bytes).
const POST_ANSWER_BYTES: usize = 64 * 1024;

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

    /// The URL with `path` (starting with `/`) after its own path, which
    /// loses a trailing `/` first: `http://169.254.169.254` and
    /// `/latest/api/token`.
    pub fn join(&self, path: &str) -> OperatorUrl {
        let base = self.target.split('?').next().unwrap_or_default();
        OperatorUrl {
            target: format!("{}{path}", base.trim_end_matches('/')),
            ..self.clone()
        }
    }

    /// The host, as written (an IPv6 address without brackets).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Whether it is `https://`.
    pub fn is_tls(&self) -> bool {
        self.tls
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
        let headers = vec![(CONTENT_TYPE, HeaderValue::from_static(content_type))];
        let answer = self
            .request(Method::POST, url, headers, body, timeout, POST_ANSWER_BYTES)
            .await?;
        if answer.status.is_success() {
            Ok(())
        } else {
            Err(OperatorError::Status(answer.status))
        }
    }

    /// One request to `url` within `timeout`, its answer read whole (at
    /// most `max_body` bytes, else [`OperatorError::TooLarge`]). Any
    /// status is an answer: the caller judges it.
    pub async fn request(
        &self,
        method: Method,
        url: &OperatorUrl,
        headers: Vec<(HeaderName, HeaderValue)>,
        body: Bytes,
        timeout: Duration,
        max_body: usize,
    ) -> Result<OperatorAnswer, OperatorError> {
        let exchange = Exchange {
            method,
            headers,
            body,
            max_body,
        };
        match tokio::time::timeout(timeout, self.exchange(url, exchange)).await {
            Ok(result) => result,
            Err(_) => Err(OperatorError::Timeout(timeout)),
        }
    }

    async fn exchange(
        &self,
        url: &OperatorUrl,
        exchange: Exchange,
    ) -> Result<OperatorAnswer, OperatorError> {
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
            send(stream, url, exchange).await
        } else {
            send(tcp, url, exchange).await
        }
    }
}

/// What one request sends.
struct Exchange {
    method: Method,
    headers: Vec<(HeaderName, HeaderValue)>,
    body: Bytes,
    max_body: usize,
}

async fn send<S>(
    stream: S,
    url: &OperatorUrl,
    exchange: Exchange,
) -> Result<OperatorAnswer, OperatorError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    let task = tokio::spawn(async move {
        let _ = connection.await;
    });
    let mut builder = Request::builder()
        .method(exchange.method)
        .uri(url.target.as_str())
        .header(HOST, url.authority())
        .header(CONTENT_LENGTH, exchange.body.len())
        .header(USER_AGENT, concat!("relay/", env!("CARGO_PKG_VERSION")));
    for (name, value) in exchange.headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .body(Full::new(exchange.body))
        .map_err(|e| OperatorError::Url(e.to_string()))?;
    let max_body = exchange.max_body;
    let result = async {
        let response = sender.send_request(request).await?;
        let (parts, body) = response.into_parts();
        let body = Limited::new(body, max_body)
            .collect()
            .await
            .map_err(|e| match e.downcast::<hyper::Error>() {
                Ok(e) => OperatorError::Http(*e),
                Err(_) => OperatorError::TooLarge(max_body),
            })?
            .to_bytes();
        Ok::<_, OperatorError>(OperatorAnswer {
            status: parts.status,
            headers: parts.headers,
            body,
        })
    }
    .await;
    task.abort();
    result
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
        let base = OperatorUrl::parse("http://169.254.169.254").unwrap();
        assert_eq!(base.join("/latest/api/token").target, "/latest/api/token");
        let base = OperatorUrl::parse("http://127.0.0.1:9/md/").unwrap();
        assert_eq!(base.join("/token").target, "/md/token");
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
