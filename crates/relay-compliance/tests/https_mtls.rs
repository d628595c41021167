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
