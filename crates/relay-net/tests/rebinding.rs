//! DNS rebinding: the name passes registration with a public address and
//! answers a blocked one when the connection is made. The connect-time check
//! must refuse it with kind `blocked_address`, without connecting.

mod support;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig};
use support::{RebindingResolver, ip};

fn rebinding_guard(later: Vec<std::net::IpAddr>) -> (Guard, Arc<RebindingResolver>) {
    let resolver = Arc::new(RebindingResolver::new(vec![ip("93.184.215.14")], later));
    let guard = Guard::with_resolver(&OutboundConfig::default(), resolver.clone()).expect("guard");
    (guard, resolver)
}

#[tokio::test]
async fn connect_checked_refuses_the_rebound_address() {
    let (guard, resolver) = rebinding_guard(vec![ip("127.0.0.1")]);
    let checked = guard
        .check_url("https://rebind.example/hook")
        .await
        .expect("registration sees the public address");
    assert_eq!(checked.addresses(), &[ip("93.184.215.14")]);

    let error = guard
        .connect_checked(&checked.host_str(), checked.port(), Duration::from_secs(2))
        .await
        .expect_err("the rebound address must be refused");
    assert_eq!(error.kind().as_str(), "blocked_address", "{error}");
    // What the name resolved to stays with the operator (issue #39 §6).
    assert!(!error.to_string().contains("127.0.0.1"), "{error}");
    assert!(error.to_string().contains("blocked address"), "{error}");
    assert_eq!(error.remote_addr(), None, "no connection was attempted");
    assert_eq!(resolver.calls(), 2, "resolved again at connect time");
}

#[tokio::test]
async fn one_blocked_address_in_the_answer_refuses_all() {
    let (guard, _) = rebinding_guard(vec![ip("93.184.215.14"), ip("169.254.169.254")]);
    guard
        .check_url("https://rebind.example/")
        .await
        .expect("registration");
    let error = guard
        .resolve_checked("rebind.example", 443)
        .await
        .expect_err("mixed answer");
    assert_eq!(error.kind().as_str(), "blocked_address");
    assert!(!error.to_string().contains("169.254.169.254"), "{error}");
    assert!(error.to_string().contains("blocked address"), "{error}");
}

#[tokio::test]
async fn the_https_client_refuses_the_rebound_address() {
    for later in [
        ip("127.0.0.1"),
        ip("::ffff:10.0.0.1"),
        ip("64:ff9b::a9fe:a9fe"),
    ] {
        let (guard, _) = rebinding_guard(vec![later]);
        let checked = guard
            .check_url("https://rebind.example/hook")
            .await
            .expect("registration");
        let client = HttpsClient::new(guard);
        let error = client
            .post(
                &checked,
                Vec::new(),
                Bytes::from_static(b"{}"),
                Limits::default(),
            )
            .await
            .expect_err("delivery must be refused");
        assert_eq!(error.kind().as_str(), "blocked_address", "{later}: {error}");
    }
}
