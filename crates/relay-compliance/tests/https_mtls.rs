//! HTTPS with mutual TLS passes the compliance suite: the same receiver as
//! `https.rs`, requiring a client certificate of its own client CA, and an
//! endpoint that presents one (`destination.auth.client_certificate`, its
//! chain and key `file:` references). The secrets case proves the private
//! key never reaches a log, a record or `Debug`; below, every request that
//! arrives came with the endpoint's certificate.

#[path = "https/peer.rs"]
mod peer;

use peer::HttpsPeer;
use relay_compliance::{Peer as _, compliance_suite};

type Mtls = HttpsPeer<true>;

compliance_suite!(Mtls);

/// The receiver saw the endpoint's certificate on every request.
#[tokio::test]
async fn the_client_certificate_is_presented() {
    relay_compliance::cases::run::<Mtls, _, _>(
        false,
        "the_client_certificate_is_presented",
        |h| async move {
            for _ in 0..3 {
                h.publish().await;
            }
            assert_eq!(h.round().await, 3);
            assert_eq!(h.peer.received().await.len(), 3);
            let expected = h
                .peer
                .client
                .as_ref()
                .expect("mutual TLS")
                .cert
                .sha256_hex();
            let s = h.peer.state.lock().unwrap();
            let requests = s.receiver.as_ref().expect("up").requests();
            assert_eq!(requests.len(), 3);
            for r in &requests {
                assert_eq!(r.client_cert_sha256.as_deref(), Some(expected.as_str()));
            }
        },
    )
    .await;
}

/// A key replaced since registration by one that is not the chain's (a
/// rotation half done) sends nothing: the attempt is recorded as
/// `secret_unresolved` naming the key's reference, retried, the key in no
/// record or warning; once the right key is back, the next attempt
/// delivers with the certificate.
#[tokio::test]
async fn a_key_that_no_longer_matches_is_a_recorded_retried_attempt() {
    relay_compliance::cases::run::<Mtls, _, _>(false, "mismatched_key", |h| async move {
        let client = h.peer.client.as_ref().expect("mutual TLS");
        let other = client.ca.client_cert("relay-other");
        std::fs::write(&client.key_file, other.key_pem()).expect("replace the key");
        h.publish().await;
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Scheduled, "{m:?}");
        assert_eq!(m.last_error_code.as_deref(), Some("secret_unresolved"));
        let attempts = h.attempts(&m).await;
        assert_eq!(attempts.len(), 1);
        assert_eq!(
            attempts[0].outcome,
            relay_core::outcome::AttemptOutcome::Retry
        );
        let reference = format!("file:{}", client.key_file.display());
        let detail = attempts[0].detail.to_string();
        assert!(detail.contains(&reference), "{detail}");
        assert!(h.peer.received().await.is_empty(), "nothing was sent");
        let warnings = relay_store::conformance::endpoint_warnings(h.store(), &h.endpoint.id, 10)
            .await
            .unwrap();
        let seen = format!("{detail} {warnings:?}");
        for key in [client.cert.key_pem(), other.key_pem()] {
            for line in key.lines().filter(|l| !l.starts_with("-----")) {
                assert!(!seen.contains(line), "a private key: {seen}");
            }
        }

        std::fs::write(&client.key_file, client.cert.key_pem()).expect("restore the key");
        h.advance_to_next_attempt(&m);
        assert_eq!(h.round().await, 1);
        let m = h.only_message().await;
        assert_eq!(m.state, relay_core::model::MessageState::Delivered, "{m:?}");
        let s = h.peer.state.lock().unwrap();
        let requests = s.receiver.as_ref().expect("up").requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            requests[0].client_cert_sha256.as_deref(),
            Some(client.cert.sha256_hex().as_str())
        );
    })
    .await;
}
