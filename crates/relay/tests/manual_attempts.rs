//! Manual attempts end to end (issue #40 §3d): a resend whose HTTP client
//! goes away mid-attempt still runs to its end and keeps its attempt record,
//! and a failed manual attempt at a message held by a paused endpoint that
//! is resumed while the attempt runs leaves the message to its schedule
//! (which delivers it), not held again.

mod harness;

use std::io::Write;
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use harness::{Settings, Sink, eventually, id_of, start, tenant};
use relay_receiver::Behavior;
use serde_json::json;

/// How long the receiver holds the manual attempt before failing it: the
/// client goes away and the endpoint is resumed meanwhile.
const SLOW: Duration = Duration::from_secs(5);

#[test]
fn a_resend_whose_client_goes_away_ends_and_a_resumed_endpoint_gets_the_message() {
    let sink = Sink::start(Behavior::ok());
    // The manual attempt is held, then fails; what follows is delivered.
    sink.receiver
        .push_path_script("/held", vec![Behavior::delay(SLOW, Behavior::status(503))]);
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let t = tenant(&relay.url, "manual");
    let ep = id_of(&t.endpoint(&sink.receiver.url("/held"), "v1a"));
    t.api.expect(
        "POST",
        &format!("/v1/endpoints/{ep}/pause"),
        Some(&json!({})),
        200,
    );
    t.api.publish_to(&t.consumer_id, "evt_held");
    let messages = t.api.list_all(&format!("/v1/messages?endpoint_id={ep}"));
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0]["state"], "held");
    let id = id_of(&messages[0]);
    let deadline = Instant::now() + Duration::from_secs(40);

    // The resend, from a client that goes away once its attempt is on the wire.
    let address = relay.url.strip_prefix("http://").expect("an http:// URL");
    let mut client = TcpStream::connect(address).expect("connect to relay");
    write!(
        client,
        "POST /v1/messages/{id}/resend HTTP/1.1\r\nHost: {address}\r\n\
         Authorization: Bearer {}\r\nContent-Length: 0\r\n\r\n",
        t.api.token
    )
    .expect("send the resend");
    sink.wait_in_flight(1, deadline)
        .expect("the manual attempt on the wire");
    client
        .shutdown(Shutdown::Both)
        .expect("close the connection");
    drop(client);

    // The endpoint is resumed while the attempt runs.
    t.api.expect(
        "POST",
        &format!("/v1/endpoints/{ep}/resume"),
        Some(&json!({})),
        200,
    );
    assert_eq!(
        sink.receiver.in_flight_on("/held"),
        1,
        "resumed while the manual attempt runs"
    );

    // The attempt ran to its end: its record is kept.
    let attempts = eventually("the manual attempt's record", deadline, || {
        let a = t.api.list_all(&format!("/v1/messages/{id}/attempts"));
        (!a.is_empty()).then_some(a)
    });
    assert_eq!(attempts[0]["trigger"], "manual", "{attempts:?}");
    assert_eq!(attempts[0]["status_code"], 503, "{attempts:?}");

    // Not held again: the endpoint is active, so its schedule delivers it.
    eventually("the message delivered by its schedule", deadline, || {
        let m = t.api.get(&format!("/v1/messages/{id}"));
        assert_ne!(m["state"], "held", "held again after the resume: {m}");
        (m["state"] == "delivered").then_some(())
    });
    let attempts = t.api.list_all(&format!("/v1/messages/{id}/attempts"));
    assert_eq!(attempts.len(), 2, "{attempts:?}");
    assert_eq!(attempts[1]["trigger"], "scheduled", "{attempts:?}");
}
