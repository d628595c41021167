//! A small HTTPS client for the receiver's tests: one hyper HTTP/1.1
//! connection over rustls (ring), trusting the receiver's test CA.

#![allow(dead_code)] // each test binary uses part of it

use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use relay_receiver::Receiver;
use rustls::ClientConfig;
use rustls::pki_types::ServerName;
use tokio::net::TcpStream;
use tokio::task::JoinHandle;
use tokio_rustls::TlsConnector;

/// One client connection; dropping it closes the socket.
pub struct Conn {
    sender: SendRequest<Full<Bytes>>,
    driver: JoinHandle<()>,
    host: String,
}

impl Drop for Conn {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// Connects to the receiver over TCP at its address and runs TLS for
/// `server_name` (a DNS name is sent as SNI; an IP address is not).
pub async fn connect(receiver: &Receiver, server_name: &str) -> Conn {
    connect_with(receiver, server_name, receiver.ca().client_config()).await
}

pub async fn connect_with(
    receiver: &Receiver,
    server_name: &str,
    config: Arc<ClientConfig>,
) -> Conn {
    let tcp = TcpStream::connect(receiver.addr())
        .await
        .expect("tcp connect");
    let name = ServerName::try_from(server_name.to_owned()).expect("server name");
    let tls = TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .expect("tls handshake");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .expect("http handshake");
    let driver = tokio::spawn(async move {
        let _ = connection.await;
    });
    let host = if server_name.contains(':') {
        format!("[{server_name}]:{}", receiver.port())
    } else {
        format!("{server_name}:{}", receiver.port())
    };
    Conn {
        sender,
        driver,
        host,
    }
}

impl Conn {
    /// Sends one request and returns the response head (the body is read separately).
    pub async fn send(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: impl Into<Bytes>,
    ) -> hyper::Result<Response<Incoming>> {
        self.sender.ready().await?;
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("host", &self.host);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(Full::new(body.into())).expect("valid request");
        self.sender.send_request(request).await
    }

    /// `POST path` with `body`.
    pub async fn post(
        &mut self,
        path: &str,
        body: impl Into<Bytes>,
    ) -> hyper::Result<Response<Incoming>> {
        self.send("POST", path, &[], body).await
    }

    /// `POST path` and read the whole answer: (status, body).
    pub async fn post_read(&mut self, path: &str, body: impl Into<Bytes>) -> (u16, Bytes) {
        let response = self.post(path, body).await.expect("response");
        let status = response.status().as_u16();
        (status, read_body(response).await)
    }
}

/// Reads a whole response body.
pub async fn read_body(response: Response<Incoming>) -> Bytes {
    response
        .into_body()
        .collect()
        .await
        .expect("read body")
        .to_bytes()
}
