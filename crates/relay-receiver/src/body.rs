//! The response body type: a whole body at once, or a stream made on demand.

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, SizeHint};

use crate::receiver::{InFlight, Shared};

/// Size of one streamed chunk.
const CHUNK_LEN: usize = 64 * 1024;

/// The bytes every streamed chunk repeats: static, so streaming allocates nothing.
static CHUNK: [u8; CHUNK_LEN] = [b'x'; CHUNK_LEN];

/// A response body that also carries the request's in-flight guard, so the
/// request counts as in flight until its last body frame has been handed to
/// hyper (or the body is dropped because the connection ended).
pub(crate) struct ReplyBody {
    kind: Kind,
    guard: Option<InFlight>,
}

enum Kind {
    /// The remaining bytes of a complete body (`None` once sent).
    Full(Option<Bytes>),
    /// Bytes left to stream (`None` for an endless stream).
    Stream {
        remaining: Option<u64>,
        shared: Arc<Shared>,
    },
}

impl ReplyBody {
    pub(crate) fn full(body: Bytes, guard: InFlight) -> ReplyBody {
        let body = (!body.is_empty()).then_some(body);
        ReplyBody {
            kind: Kind::Full(body),
            guard: Some(guard),
        }
    }

    pub(crate) fn stream(total: Option<u64>, shared: Arc<Shared>, guard: InFlight) -> ReplyBody {
        ReplyBody {
            kind: Kind::Stream {
                remaining: total,
                shared,
            },
            guard: Some(guard),
        }
    }
}

impl Body for ReplyBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        match &mut this.kind {
            Kind::Full(body) => {
                // The last (only) frame: the request is no longer in flight.
                this.guard = None;
                Poll::Ready(body.take().map(|b| Ok(Frame::data(b))))
            }
            Kind::Stream { remaining, shared } => {
                let len = match remaining {
                    Some(0) => {
                        this.guard = None;
                        return Poll::Ready(None);
                    }
                    Some(left) => {
                        let len = usize::try_from(*left).map_or(CHUNK_LEN, |l| l.min(CHUNK_LEN));
                        *left -= len as u64;
                        len
                    }
                    None => CHUNK_LEN,
                };
                shared
                    .bytes_streamed
                    .fetch_add(len as u64, Ordering::Relaxed);
                if *remaining == Some(0) {
                    this.guard = None;
                }
                Poll::Ready(Some(Ok(Frame::data(Bytes::from_static(&CHUNK[..len])))))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.kind {
            Kind::Full(body) => body.is_none(),
            Kind::Stream { remaining, .. } => *remaining == Some(0),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.kind {
            Kind::Full(body) => SizeHint::with_exact(body.as_ref().map_or(0, |b| b.len() as u64)),
            Kind::Stream {
                remaining: Some(left),
                ..
            } => SizeHint::with_exact(*left),
            Kind::Stream {
                remaining: None, ..
            } => SizeHint::default(),
        }
    }
}
