//! The compliance suite: one set of cases that every destination kind runs
//! against its own real peer (HTTPS: `relay-receiver`; brokers: the real
//! servers).
//!
//! A kind's test file implements [`Peer`] for its peer and expands
//! [`compliance_suite!`], which makes one test per case and backend
//! (SQLite and PostgreSQL). The [`Harness`] wires a store, the dispatcher and
//! the outbound guard the way `relay serve` does, with the peer reached
//! through the operator's allow list (never by bypassing the guard), and an
//! injected clock.
//!
//! The cases ([`cases`]): delivered once, the signature verifies (with the
//! standalone verifier SDK, `relay-verify`), the envelope is valid
//! CloudEvents (the 1.0.2 JSON Schema kept in `testdata/`), a retryable
//! failure is classified as a retry, a refusal no retry fixes ends the
//! message in the reference's terminal state for its kind
//! ([`cases::refusal_ends`]), a timeout,
//! the destination down then up, the attempt record is complete, no
//! secret reaches the logs or the attempt records, and a destination
//! stopped in the middle of a burst loses nothing. A kind with a binary
//! content mode (`compliance_suite!(Peer; binary)`) also shows that its
//! binding carries every attribute and that the signature over the data
//! verifies. A kind whose peer re-serializes what it carries
//! (`compliance_suite!(Peer; reserialized)`: EventBridge) runs every case
//! but the two that need the bytes sent to arrive unchanged (the signature,
//! the record's digest of what arrived), the record's other parts checked
//! alike. Every kind also shows that a peer that hangs holds only its
//! own endpoint's slots: another endpoint ([`neighbour`]) keeps delivering
//! meanwhile.

pub mod cases;
mod harness;
pub mod neighbour;
pub mod process;

pub use harness::{Harness, Received};
pub use relay_core::model::ContentMode;

use std::future::Future;

use relay_destinations::Config;
use relay_net::{OutboundConfig, StaticResolver};

/// How the peer answers from now on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Takes responsibility for each message (HTTPS: 2xx; a broker: its
    /// durable acknowledgement).
    Accept,
    /// Refuses in a way worth retrying (HTTPS: 503).
    FailRetryable,
    /// Refuses in a way no retry fixes (HTTPS: 400).
    FailPermanent,
    /// Accepts the connection and never answers.
    Hang,
    /// Not listening at all.
    Down,
}

/// A real peer of one destination kind.
pub trait Peer: Sized + Send + Sync + 'static {
    /// The kind's name (`destination.kind`).
    const KIND: &'static str;

    /// Starts a fresh peer. `None`: its server is not available here (the
    /// test says `SKIPPED`, which `RELAY_TEST_REQUIRE_ALL=1` makes a failure).
    fn start() -> impl Future<Output = Option<Self>> + Send;

    /// The endpoint's destination, pointing at this peer, as its kind's
    /// configuration.
    fn destination(&self) -> Config;

    /// The operator settings that let Relay reach the peer on loopback, and
    /// the names the resolver answers for it.
    fn outbound(&self) -> (OutboundConfig, StaticResolver);

    /// Answers this way from now on.
    fn set_mode(&self, mode: Mode) -> impl Future<Output = ()> + Send;

    /// Every message the peer has durably received, oldest first.
    fn received(&self) -> impl Future<Output = Vec<Received>> + Send;

    /// Secret values in the destination's configuration (credentials), which
    /// must never appear in logs or records. The signing secret is checked
    /// by the harness itself.
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }

    /// What the operator grants the harness's tenant to name in its
    /// secret references (`[[secrets.grants]]`): a peer whose credentials
    /// are an `env:` or `file:` reference grants it here.
    fn secret_grant(&self) -> relay_core::secret::SecretGrant {
        relay_core::secret::SecretGrant::default()
    }

    /// The ids of the events a received message carries: its
    /// `webhook-id` (every kind delivers an event as one message whose
    /// `webhook-id` is the event id), or, for a batched kind, the ids of
    /// the events its lines hold.
    fn event_ids(received: &Received) -> Vec<String> {
        vec![received.webhook_id.clone()]
    }
    /// The error kinds an attempt against a peer in [`Mode::Down`] records
    /// (HTTPS: `connect`).
    fn down_error_kinds() -> &'static [relay_core::model::ErrorKind] {
        &[relay_core::model::ErrorKind::Connect]
    }
}

/// One test per case and backend for the peer type `$peer`.
#[macro_export]
macro_rules! compliance_suite {
    ($peer:ty) => {
        $crate::compliance_suite!(@cases $peer;
            delivered_once, signature_verifies, envelope_is_valid_cloudevents,
            retryable_failure_is_a_retry, permanent_failure_is_permanent, timeout_is_a_retry,
            destination_down_then_up, attempt_record_is_complete, secrets_stay_out_of_logs_and_records,
            stopped_mid_burst_loses_nothing);
        mod isolation {
            use super::*;
            #[tokio::test]
            async fn sqlite_a_hung_peer_holds_only_its_endpoint() {
                $crate::cases::run_with_neighbour::<$peer, _, _>(false, "a_hung_peer_holds_only_its_endpoint",
                    $crate::cases::a_hung_peer_holds_only_its_endpoint).await;
            }
            #[tokio::test]
            async fn postgres_a_hung_peer_holds_only_its_endpoint() {
                $crate::cases::run_with_neighbour::<$peer, _, _>(true, "a_hung_peer_holds_only_its_endpoint",
                    $crate::cases::a_hung_peer_holds_only_its_endpoint).await;
            }
        }
    };
    // A kind with a binary content mode (every broker) also runs the
    // binary-mode case.
    ($peer:ty; binary) => {
        $crate::compliance_suite!($peer);
        mod binary {
            use super::*;
            #[tokio::test]
            async fn sqlite_binary_mode_carries_the_event() {
                $crate::cases::run_in::<$peer, _, _>(false, "binary_mode_carries_the_event",
                    $crate::ContentMode::Binary, $crate::cases::binary_mode_carries_the_event).await;
            }
            #[tokio::test]
            async fn postgres_binary_mode_carries_the_event() {
                $crate::cases::run_in::<$peer, _, _>(true, "binary_mode_carries_the_event",
                    $crate::ContentMode::Binary, $crate::cases::binary_mode_carries_the_event).await;
            }
        }
    };
    // A kind whose peer parses what it carries and writes it again
    // (EventBridge's `Detail`): the same JSON arrives, not the same bytes,
    // so no signature can be verified there and the record's digest is not
    // that of what arrived; every other case runs as for every kind.
    ($peer:ty; reserialized) => {
        $crate::compliance_suite!(@cases $peer;
            delivered_once, envelope_is_valid_cloudevents,
            retryable_failure_is_a_retry, permanent_failure_is_permanent, timeout_is_a_retry,
            destination_down_then_up, attempt_record_is_complete_reserialized,
            secrets_stay_out_of_logs_and_records, stopped_mid_burst_loses_nothing);
        mod isolation {
            use super::*;
            #[tokio::test]
            async fn sqlite_a_hung_peer_holds_only_its_endpoint() {
                $crate::cases::run_with_neighbour::<$peer, _, _>(false, "a_hung_peer_holds_only_its_endpoint",
                    $crate::cases::a_hung_peer_holds_only_its_endpoint).await;
            }
            #[tokio::test]
            async fn postgres_a_hung_peer_holds_only_its_endpoint() {
                $crate::cases::run_with_neighbour::<$peer, _, _>(true, "a_hung_peer_holds_only_its_endpoint",
                    $crate::cases::a_hung_peer_holds_only_its_endpoint).await;
            }
        }
    };
    (@cases $peer:ty; $($case:ident),*) => {
        mod sqlite {
            use super::*;
            $(
                #[tokio::test]
                async fn $case() {
                    $crate::cases::run::<$peer, _, _>(false, stringify!($case), $crate::cases::$case).await;
                }
            )*
        }
        mod postgres {
            use super::*;
            $(
                #[tokio::test]
                async fn $case() {
                    $crate::cases::run::<$peer, _, _>(true, stringify!($case), $crate::cases::$case).await;
                }
            )*
        }
    };
}
