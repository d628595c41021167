//! A local fake of Relay's API for the client's tests: an HTTP/1.1 server
//! on loopback (plain, or TLS with a CA made here) that answers from a
//! script and records every request; and a timer that records the client's
//! waits and returns at once.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use relay_sdk::Timer;
use tokio::net::TcpListener;

/// One scripted answer.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Never answer (the client's timeout).
    pub hang: bool,
}

impl Reply {
    pub fn json(status: u16, body: serde_json::Value) -> Reply {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
            hang: false,
        }
    }

    pub fn problem(status: u16, code: &str) -> Reply {
        let mut r = Reply::json(
            status,
            serde_json::json!({"type": "about:blank", "title": "refused", "status": status,
                               "detail": format!("{code} here"), "code": code}),
        );
        r.headers[0].1 = "application/problem+json".into();
        r
    }

    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn hang() -> Reply {
        Reply {
            status: 200,
            headers: Vec::new(),
            body: String::new(),
            hang: true,
        }
    }
}

/// What the server saw of one request.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub uri: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Seen {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("a JSON body")
    }
}

#[derive(Default)]
struct State {
    connections: AtomicUsize,
    script: Mutex<VecDeque<Reply>>,
    seen: Mutex<Vec<Seen>>,
}

/// The fake API.
pub struct Fake {
    pub url: String,
    state: Arc<State>,
}

impl Fake {
    /// A plain HTTP server answering `script` in order (then 500s).
    pub async fn start(script: Vec<Reply>) -> Fake {
        Fake::start_with(script, None).await
    }

    /// With `tls`, an HTTPS server with that configuration.
    pub async fn start_with(script: Vec<Reply>, tls: Option<Arc<rustls::ServerConfig>>) -> Fake {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let state = Arc::new(State {
            connections: AtomicUsize::new(0),
            script: Mutex::new(script.into()),
            seen: Mutex::new(Vec::new()),
        });
        let shared = state.clone();
        let scheme = if tls.is_some() { "https" } else { "http" };
        let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                shared.connections.fetch_add(1, Ordering::SeqCst);
                let state = shared.clone();
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |req| answer(state.clone(), req));
                    let http = hyper::server::conn::http1::Builder::new();
                    match acceptor {
                        None => {
                            let _ = http.serve_connection(TokioIo::new(stream), service).await;
                        }
                        Some(acceptor) => {
                            if let Ok(tls) = acceptor.accept(stream).await {
                                let _ = http.serve_connection(TokioIo::new(tls), service).await;
                            }
                        }
                    }
                });
            }
        });
        Fake {
            url: format!("{scheme}://127.0.0.1:{port}"),
            state,
        }
    }

    /// The connections accepted.
    pub fn connections(&self) -> usize {
        self.state.connections.load(Ordering::SeqCst)
    }

    pub fn seen(&self) -> Vec<Seen> {
        self.state.seen.lock().unwrap().clone()
    }
}

async fn answer(
    state: Arc<State>,
    req: Request<hyper::body::Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes().to_vec())
        .unwrap_or_default();
    state.seen.lock().unwrap().push(Seen {
        method: parts.method.to_string(),
        uri: parts.uri.to_string(),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_string()))
            .collect(),
        body,
    });
    let reply = state
        .script
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| Reply::problem(500, "script_exhausted"));
    if reply.hang {
        std::future::pending::<()>().await;
    }
    let mut response = Response::builder().status(reply.status);
    for (name, value) in &reply.headers {
        response = response.header(name, value);
    }
    Ok(response.body(Full::new(Bytes::from(reply.body))).unwrap())
}

/// A timer that records the waits and returns at once; its clock stands
/// at `now`.
pub struct Recorder {
    pub now: SystemTime,
    pub waits: Mutex<Vec<Duration>>,
}

impl Recorder {
    pub fn new() -> Arc<Recorder> {
        Arc::new(Recorder {
            now: SystemTime::UNIX_EPOCH + Duration::from_secs(1_784_000_000),
            waits: Mutex::new(Vec::new()),
        })
    }

    pub fn waits(&self) -> Vec<Duration> {
        self.waits.lock().unwrap().clone()
    }
}

impl Timer for Recorder {
    fn now(&self) -> SystemTime {
        self.now
    }

    fn sleep(&self, wait: Duration) -> Pin<Box<dyn Future<Output = ()> + Send>> {
        self.waits.lock().unwrap().push(wait);
        Box::pin(async {})
    }
}
