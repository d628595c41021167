//! A fast, programmable HTTPS webhook receiver on loopback, for Relay's
//! end-to-end tests and for `relay bench`.
//!
//! Map:
//! - [`ca`]: [`TestCa`], a certificate authority generated per run (its PEM
//!   goes to Relay's `[outbound] extra_ca_certs`), and the [`LeafCert`]s it
//!   signs (`localhost`, `127.0.0.1`, `::1`, or any names via [`LeafBuilder`]);
//!   [`TestCa::client_config`] is a rustls client configuration trusting it.
//! - [`receiver`]: [`Receiver::start`] with a [`ReceiverConfig`] serves
//!   HTTP/1.1 over TLS (hyper, rustls with `ring`) on `127.0.0.1`, keeps
//!   connections alive, records every request ([`Recorded`]), verifies
//!   Standard Webhooks signatures when asked (`ReceiverConfig::verify`),
//!   and accounts requests in flight overall and per path
//!   ([`Receiver::max_concurrent`]). Waits ([`Receiver::wait_for`],
//!   [`Receiver::wait_idle`]) are woken by the server, never polled.
//! - [`behavior`]: what the receiver answers, settable at runtime
//!   ([`Receiver::set_behavior`], [`Receiver::set_path_behavior`],
//!   [`Receiver::push_script`]): a status with headers and body, a
//!   server-side delay, never answering, an endless or huge streamed body,
//!   or closing the connection.
//! - [`oauth`]: [`OAuthIssuer`], a real OAuth 2.0 token endpoint (client
//!   credentials, `client_secret_basic` and `client_secret_post`) a receiver
//!   serves ([`Receiver::serve_token_endpoint`]), and the bearer-token check
//!   a receiver applies to every request ([`Receiver::require_bearer`]).
//! - [`record`]: [`Recorded`], one received request, and
//!   [`Recorded::to_judge_json`], the captured-request JSON the judges read.
//! - [`judges`]: [`Judges`], the project's judges (`scripts/judges/`) run by
//!   the test environment's Python (`RELAY_TEST_PYTHON`, set by
//!   `scripts/test`); a missing environment or a judge that gives no
//!   verdict is a failure, never a pass.
//!
//! For benchmarks, set `record_bodies: false`: requests are only counted,
//! nothing is logged, and memory stays flat over any number of requests.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use std::time::Duration;
//! use relay_receiver::{Behavior, Receiver, ReceiverConfig};
//!
//! let receiver = Receiver::start(ReceiverConfig::default()).await?;
//! receiver.push_script(vec![Behavior::retry_after(503, "5"), Behavior::ok()]);
//! let url = receiver.url("/hooks/a"); // https://127.0.0.1:PORT/hooks/a
//! let ca_file = receiver.ca_pem_path(); // for [outbound] extra_ca_certs
//! # let _ = (url, ca_file);
//! // ... let Relay deliver ...
//! let requests = receiver.wait_for(2, Duration::from_secs(10)).await.expect("two attempts");
//! assert_eq!(receiver.max_concurrent("/hooks/a"), 1);
//! # let _ = requests;
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

pub mod behavior;
mod body;
pub mod ca;
pub mod judges;
pub mod oauth;
pub mod receiver;
pub mod record;

pub use behavior::{Behavior, Gate, Reply};
pub use ca::{DEFAULT_LEAF_NAMES, LeafBuilder, LeafCert, TestCa, crypto_provider};
pub use judges::Judges;
pub use oauth::{OAuthIssuer, TokenRequest};
pub use receiver::{Arrival, ArrivalHook, Receiver, ReceiverConfig, Timeout};
pub use record::Recorded;
/// Re-exported: the key type of [`ReceiverConfig::verify`].
pub use relay_core::signature::VerificationKey;
