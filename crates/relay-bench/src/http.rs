//! A minimal keep-alive HTTP/1.1 client (plain or TLS) on one connection,
//! for the publisher, the setup calls and the `limit` client.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio_rustls::TlsConnector;
use tokio_rustls::rustls::ClientConfig;
use tokio_rustls::rustls::pki_types::ServerName;

/// One keep-alive connection.
pub struct Conn {
    sender: SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    authority: String,
}

impl Conn {
    /// Connects over plain TCP (the Relay API).
    pub async fn plain(addr: SocketAddr) -> anyhow::Result<Conn> {
        let tcp = relay_net::loopback::connect_loopback(addr)
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        let (sender, conn) = http1::handshake(TokioIo::new(tcp)).await?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Conn {
            sender,
            addr,
            authority: addr.to_string(),
        })
    }

    /// Connects over TLS (the receiver), trusting `tls`'s roots.
    pub async fn tls(addr: SocketAddr, tls: Arc<ClientConfig>) -> anyhow::Result<Conn> {
        let tcp = relay_net::loopback::connect_loopback(addr)
            .await
            .with_context(|| format!("cannot connect to {addr}"))?;
        let stream = TlsConnector::from(tls)
            .connect(ServerName::IpAddress(addr.ip().into()), tcp)
            .await
            .context("TLS handshake with the receiver")?;
        let (sender, conn) = http1::handshake(TokioIo::new(stream)).await?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Conn {
            sender,
            addr,
            authority: addr.to_string(),
        })
    }

    /// Where it is connected.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Sends one request and reads the whole answer.
    pub async fn send(
        &mut self,
        method: Method,
        path: &str,
        headers: &[(&str, &str)],
        body: Bytes,
    ) -> anyhow::Result<(StatusCode, Bytes)> {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", &self.authority);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body))?;
        self.sender.ready().await?;
        let response = self.sender.send_request(request).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        Ok((status, body))
    }
}

/// The Relay API as the bench's tenant (or operator) sees it.
pub struct Api {
    pub conn: Conn,
    pub token: String,
}

impl Api {
    /// A JSON call; fails unless the answer is 2xx. Returns the decoded answer.
    pub async fn call(
        &mut self,
        method: Method,
        path: &str,
        body: Option<serde_json::Value>,
    ) -> anyhow::Result<serde_json::Value> {
        let auth = format!("Bearer {}", self.token);
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let (status, answer) = self
            .conn
            .send(
                method.clone(),
                path,
                &[
                    ("authorization", &auth),
                    ("content-type", "application/json"),
                ],
                Bytes::from(body),
            )
            .await?;
        if !status.is_success() {
            anyhow::bail!(
                "{method} {path}: {status}: {}",
                String::from_utf8_lossy(&answer)
            );
        }
        if answer.is_empty() {
            return Ok(serde_json::Value::Null);
        }
        Ok(serde_json::from_slice(&answer)?)
    }
}

/// A tenant the bench set up: its live API key's client and its consumer.
pub struct Tenant {
    pub id: String,
    pub api: Api,
    pub consumer_id: String,
}

impl Tenant {
    /// Creates tenant `name` through the operator's API at `addr`, a live
    /// API key, the event types `event_types` (any JSON object) and a
    /// consumer.
    pub async fn create(
        addr: std::net::SocketAddr,
        operator_token: &str,
        name: &str,
        event_types: &[&str],
    ) -> anyhow::Result<Tenant> {
        use anyhow::Context as _;
        use serde_json::json;
        let mut op = Api {
            conn: Conn::plain(addr).await?,
            token: operator_token.to_owned(),
        };
        let tenant = op
            .call(Method::POST, "/v1/tenants", Some(json!({ "name": name })))
            .await?;
        let id = tenant["id"].as_str().context("tenant id")?.to_owned();
        let key = op
            .call(
                Method::POST,
                &format!("/v1/tenants/{id}/api-keys"),
                Some(json!({"environment": "live", "name": name})),
            )
            .await?;
        let mut api = Api {
            conn: Conn::plain(addr).await?,
            token: key["key"].as_str().context("api key")?.to_owned(),
        };
        for t in event_types {
            api.call(
                Method::PUT,
                &format!("/v1/event-types/{t}"),
                // For every consumer: the bench publishes for no consumer,
                // to its customers' endpoints (`relay_core::audience`).
                Some(
                    json!({"description": "relay bench", "schema": {"type": "object"},
                            "audience": "all_consumers"}),
                ),
            )
            .await?;
        }
        let consumer = api
            .call(
                Method::POST,
                "/v1/consumers",
                Some(json!({"external_id": name, "name": name})),
            )
            .await?;
        let consumer_id = consumer["id"].as_str().context("consumer id")?.to_owned();
        Ok(Tenant {
            id,
            api,
            consumer_id,
        })
    }

    /// Creates an HTTPS endpoint at `url` subscribed to `event_type`, with
    /// `max_concurrency` when given; returns its id.
    pub async fn endpoint(
        &mut self,
        url: &str,
        event_type: &str,
        max_concurrency: Option<u32>,
    ) -> anyhow::Result<String> {
        use anyhow::Context as _;
        use serde_json::json;
        let mut body = json!({
            "consumer_id": self.consumer_id,
            "destination": {"kind": "https", "url": url},
            "event_types": [event_type],
            // Whole payloads: what the bench has always measured.
            "snapshot_fields": ["*"],
        });
        if let Some(c) = max_concurrency {
            body["max_concurrency"] = json!(c);
        }
        let e = self
            .api
            .call(Method::POST, "/v1/endpoints", Some(body))
            .await?;
        Ok(e["id"].as_str().context("endpoint id")?.to_owned())
    }
}
