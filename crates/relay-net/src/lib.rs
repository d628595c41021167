//! Relay's outbound guard: the only place in Relay that opens outbound
//! sockets.
//!
//! Every outbound connection (HTTPS endpoints now; OAuth token endpoints,
//! brokers, queues, object storage and A2A push later) is resolved here,
//! every candidate address is checked against the SSRF policy, and the
//! connection is made to a verified address with the original host name for
//! TLS SNI, certificate verification and the `Host` header.
//!
//! Modules, in reading order:
//! - [`policy`]: the pure address/port policy over the shipped blocked
//!   ranges (`blocked_ranges.txt`) and the operator's overrides.
//! - [`config`]: the `[outbound]` configuration section.
//! - [`target`]: URL and host parsing, the URL rules, [`UrlRejection`] codes.
//! - [`resolve`]: the [`Resolve`] trait, the system resolver and a static
//!   resolver for tests.
//! - [`guard`]: [`Guard`]: `check_url` at registration; `resolve_checked`,
//!   `connect_checked`, `connect_tls` at connect time; [`GuardError`] kinds.
//! - [`tls`]: the shared rustls client configuration (ring provider).
//! - [`identity`]: [`ClientIdentity`], a client certificate chain and key
//!   for mutual TLS.
//! - [`loopback`]: connections to this machine's own services (`relay bench`),
//!   loopback addresses only.
//! - [`operator`]: posts to a service the operator configured (the OTLP
//!   collector), never a tenant's address.
//! - [`client`]: [`HttpsClient`], the pooled, guarded HTTP/1.1 client for
//!   webhook deliveries.
//!
//! Errors: one enum per concern. [`ConfigError`] is an operator mistake found
//! at start; [`UrlRejection`] is a tenant-facing refusal with a stable code;
//! [`GuardError`] is a per-attempt failure with a stable kind; [`Blocked`] is
//! the policy's verdict on one address. `docs/security.md` is the operator's
//! view of all of this.

pub mod client;
pub mod config;
pub mod guard;
pub mod identity;
pub mod loopback;
pub mod operator;
pub mod policy;
pub mod resolve;
pub mod target;
pub mod tls;

pub use client::{HttpsClient, Limits, PoolSettings, Response};
pub use config::{ConfigError, OutboundConfig};
pub use guard::{Guard, GuardError};
pub use identity::{ClientIdentity, IdentityError, IdentityPart};
pub use policy::{Blocked, Policy};
pub use resolve::{Resolve, ResolveFuture, StaticResolver, SystemResolver};
pub use target::{CheckedUrl, ErrorKind, TargetHost, UrlRejection};

/// Re-exported so callers name the same `http` types as the client.
pub use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
