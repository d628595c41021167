//! What the receiver does with a request once it has read it.
//!
//! A [`Behavior`] is chosen per request (see
//! [`Receiver`](crate::Receiver) for the order: scripts, then per-path
//! defaults, then the default) and applied after the request has been read
//! and recorded, so every request is recorded whatever the answer.

use std::time::Duration;

use bytes::Bytes;
use hyper::StatusCode;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};

/// A complete answer: status, headers and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The status code.
    pub status: StatusCode,
    /// Headers sent as given; `content-length` is added from the body.
    pub headers: HeaderMap,
    /// The body, sent with a `content-length`.
    pub body: Bytes,
}

impl Reply {
    /// An answer with `status`, no extra header and an empty body.
    ///
    /// # Panics
    /// If `status` is not between 100 and 999.
    pub fn new(status: u16) -> Reply {
        Reply {
            status: StatusCode::from_u16(status)
                .unwrap_or_else(|_| panic!("{status} is not an HTTP status code")),
            headers: HeaderMap::new(),
            body: Bytes::new(),
        }
    }

    /// Adds a header (repeat the call for a repeated header).
    ///
    /// # Panics
    /// If `name` or `value` is not valid in HTTP/1.1.
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        let name = HeaderName::from_bytes(name.as_bytes())
            .unwrap_or_else(|_| panic!("invalid header name {name:?}"));
        let value = HeaderValue::from_str(value)
            .unwrap_or_else(|_| panic!("invalid value {value:?} for header {name}"));
        self.headers.append(name, value);
        self
    }

    /// Sets the body.
    pub fn with_body(mut self, body: impl Into<Bytes>) -> Reply {
        self.body = body.into();
        self
    }
}

/// What to do with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Behavior {
    /// Answer at once with this reply; the connection stays open (keep-alive).
    Respond(Reply),
    /// Wait this long (server side), then do `then`.
    Delay {
        /// How long to wait before `then`.
        delay: Duration,
        /// What to do after the wait.
        then: Box<Behavior>,
    },
    /// Never answer. The request stays in flight until the client closes the
    /// connection (or the receiver is dropped).
    Hang,
    /// Wait until the [`Gate`] opens (at once if it is open), then do
    /// `then`: a test holds attempts on the wire exactly as long as it
    /// needs, whatever the machine's speed.
    Gated {
        /// What the request waits for.
        gate: Gate,
        /// What to do once it opens.
        then: Box<Behavior>,
    },
    /// Send `status` and `headers`, then a body of `total_bytes` bytes (with a
    /// `content-length`), or an endless chunked body when `None`. The body is
    /// produced only as fast as the client reads it, so memory stays flat;
    /// it stops when the client goes away.
    Stream {
        /// The status code sent before the body.
        status: StatusCode,
        /// Headers sent before the body.
        headers: HeaderMap,
        /// The body's length, or `None` for a body that never ends.
        total_bytes: Option<u64>,
    },
    /// Close the connection without answering (no response bytes, no TLS
    /// `close_notify`): the client sees the connection end mid-exchange.
    Close,
}

impl Default for Behavior {
    /// [`Behavior::ok`].
    fn default() -> Behavior {
        Behavior::ok()
    }
}

impl Behavior {
    /// `200 OK` with an empty body.
    pub fn ok() -> Behavior {
        Behavior::status(200)
    }

    /// `status` with an empty body.
    pub fn status(status: u16) -> Behavior {
        Behavior::Respond(Reply::new(status))
    }

    /// Any reply built with [`Reply`].
    pub fn reply(reply: Reply) -> Behavior {
        Behavior::Respond(reply)
    }

    /// `302 Found` with `location`.
    pub fn redirect(location: &str) -> Behavior {
        Behavior::Respond(Reply::new(302).with_header("location", location))
    }

    /// `410 Gone`.
    pub fn gone() -> Behavior {
        Behavior::status(410)
    }

    /// `status` (e.g. 429 or 503) with `retry-after: {retry_after}`; the value
    /// is sent as given (seconds or an HTTP date).
    pub fn retry_after(status: u16, retry_after: &str) -> Behavior {
        Behavior::Respond(Reply::new(status).with_header("retry-after", retry_after))
    }

    /// `200 OK` with `webhook-delivery: abort-message`.
    pub fn abort_message() -> Behavior {
        Behavior::Respond(Reply::new(200).with_header("webhook-delivery", "abort-message"))
    }

    /// Waits `delay` on the server side, then does `then`.
    pub fn delay(delay: Duration, then: Behavior) -> Behavior {
        Behavior::Delay {
            delay,
            then: Box::new(then),
        }
    }

    /// Waits until `gate` opens, then does `then`.
    pub fn gated(gate: &Gate, then: Behavior) -> Behavior {
        Behavior::Gated {
            gate: gate.clone(),
            then: Box::new(then),
        }
    }

    /// Never answers.
    pub fn hang() -> Behavior {
        Behavior::Hang
    }

    /// `200 OK` with a chunked body that never ends.
    pub fn stream_endless() -> Behavior {
        Behavior::Stream {
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            total_bytes: None,
        }
    }

    /// `200 OK` with a body of `total_bytes` bytes and a `content-length`.
    pub fn stream_bytes(total_bytes: u64) -> Behavior {
        Behavior::Stream {
            status: StatusCode::OK,
            headers: HeaderMap::new(),
            total_bytes: Some(total_bytes),
        }
    }

    /// Closes the connection without answering.
    pub fn close() -> Behavior {
        Behavior::Close
    }
}

/// A gate requests wait at ([`Behavior::gated`]) until the test opens it;
/// once open it stays open. Clones are the same gate.
#[derive(Debug, Clone, Default)]
pub struct Gate(std::sync::Arc<tokio::sync::watch::Sender<bool>>);

impl Gate {
    /// A closed gate.
    pub fn new() -> Gate {
        Gate::default()
    }

    /// Opens the gate: every request waiting at it goes on, and later ones
    /// do not wait.
    pub fn open(&self) {
        self.0.send_replace(true);
    }

    /// Waits until the gate is open.
    pub async fn opened(&self) {
        let mut open = self.0.subscribe();
        // The sender lives in `self`: the wait ends only when it opens.
        let _ = open.wait_for(|open| *open).await;
    }
}

impl PartialEq for Gate {
    fn eq(&self, other: &Gate) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Gate {}
