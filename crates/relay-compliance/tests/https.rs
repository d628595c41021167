//! HTTPS passes the compliance suite against `relay-receiver`
//! ([`peer`]). The endpoint has two custom headers: a literal one and an
//! `Authorization` whose value is a `file:` secret reference the operator's
//! policy allows; the secrets case proves that value never reaches a log, a
//! record or `Debug`, and [`custom_headers_arrive`] that both arrive.
//! `https_mtls.rs` runs the same suite against a receiver that requires a
//! client certificate.

#[path = "https/peer.rs"]
mod peer;

use peer::HttpsPeer;
use relay_compliance::{Peer as _, compliance_suite};
use relay_receiver::{Behavior, Reply};

type Plain = HttpsPeer<false>;

compliance_suite!(Plain);

/// The endpoint's custom headers arrive with every request, the secret
/// reference resolved, after Relay's own headers (which they cannot replace).
#[tokio::test]
async fn custom_headers_arrive() {
    relay_compliance::cases::run::<Plain, _, _>(false, "custom_headers_arrive", |h| async move {
        h.publish().await;
        assert_eq!(h.round().await, 1);
        assert_eq!(h.peer.received().await.len(), 1);
        let s = h.peer.state.lock().unwrap();
        let requests = s.receiver.as_ref().expect("up").requests();
        assert_eq!(requests.len(), 1);
        let r = &requests[0];
        assert_eq!(r.header("x-tenant"), Some("acme"));
        assert_eq!(r.header("authorization"), Some(h.peer.token.as_str()));
        assert_eq!(
            r.header("content-type"),
            Some("application/cloudevents+json")
        );
        let count = |n: &str| r.headers.iter().filter(|(k, _)| k == n).count();
        assert_eq!(count("authorization"), 1);
        assert_eq!(count("webhook-signature"), 1);
    })
    .await;
}

/// A receiver that echoes the secret header's value in its answer puts no
/// secret in the attempt record: the recorded body has `[redacted]` instead.
#[tokio::test]
async fn an_echoed_secret_is_redacted_from_the_record() {
    relay_compliance::cases::run::<Plain, _, _>(false, "echoed_secret", |h| async move {
        let echo = format!("you sent {} and acme", h.peer.token);
        {
            let s = h.peer.state.lock().unwrap();
            s.receiver
                .as_ref()
                .expect("up")
                .set_behavior(Behavior::reply(Reply::new(400).with_body(echo)));
        }
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        let attempts = h.attempts(&m).await;
        assert_eq!(attempts.len(), 1);
        let records = serde_json::to_string(&attempts).unwrap();
        assert!(!records.contains(&h.peer.token), "{records}");
        assert!(
            records.contains("you sent [redacted] and acme"),
            "{records}"
        );
    })
    .await;
}

/// A secret reference that does not resolve at the attempt (here the
/// `file:` secret removed) is a recorded, retried attempt that uses up one
/// of the schedule's attempts and warns the endpoint, naming the reference
/// and never a value; once the secret is back, the next attempt delivers.
#[tokio::test]
async fn an_unresolvable_secret_is_a_recorded_retried_attempt() {
    relay_compliance::cases::run::<Plain, _, _>(false, "unresolvable_secret", |h| async move {
        std::fs::remove_file(&h.peer.token_file).expect("remove the secret file");
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Scheduled, "{m:?}");
        assert_eq!(m.attempts_used, 1, "{m:?}");
        assert_eq!(m.last_error_code.as_deref(), Some("secret_unresolved"));
        let attempts = h.attempts(&m).await;
        assert_eq!(attempts.len(), 1);
        let a = &attempts[0];
        assert_eq!(a.outcome, relay_core::outcome::AttemptOutcome::Retry);
        assert_eq!(
            a.error_code,
            Some(relay_core::outcome::FailureCode::SecretUnresolved)
        );
        assert_eq!(a.destination_ip, None);
        let detail = a.detail.to_string();
        let reference = format!("file:{}", h.peer.token_file.display());
        assert!(detail.contains(&reference), "{detail}");
        assert!(h.peer.received().await.is_empty(), "nothing was sent");
        let warnings = relay_store::conformance::endpoint_warnings(h.store(), &h.endpoint.id, 10)
            .await
            .unwrap();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(
            warnings[0].kind,
            relay_core::model::WarningKind::SecretUnresolved
        );
        assert!(warnings[0].detail.contains(&reference), "{warnings:?}");

        std::fs::write(&h.peer.token_file, &h.peer.token).expect("restore the secret");
        h.advance_to_next_attempt(&m);
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Delivered, "{m:?}");
        assert_eq!(m.attempts_used, 2);
        assert_eq!(h.peer.received().await.len(), 1);
        let records = serde_json::to_string(&h.attempts(&m).await).unwrap();
        assert!(!records.contains(&h.peer.token), "{records}");
    })
    .await;
}
