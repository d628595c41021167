//! The receiver against a real hyper + rustls client on loopback.

mod common;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use common::{connect, read_body};
use http_body_util::BodyExt as _;
use relay_core::model::SignatureScheme;
use relay_core::signature::{SigningKey, sign_request};
use relay_core::time::Timestamp;
use relay_receiver::{Behavior, Receiver, ReceiverConfig, Reply, TestCa};

const WAIT: Duration = Duration::from_secs(10);

async fn start() -> Receiver {
    start_with(ReceiverConfig::default()).await
}

async fn start_with(config: ReceiverConfig) -> Receiver {
    Receiver::start(config).await.expect("receiver starts")
}

fn now() -> Timestamp {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_millis();
    Timestamp::from_millis(i64::try_from(ms).expect("fits"))
}

#[tokio::test]
async fn answers_200_by_default_and_records_everything() {
    let receiver = start().await;
    assert!(receiver.url("/hooks/a").starts_with("https://127.0.0.1:"));
    assert_eq!(
        receiver.url("hooks/a"),
        format!("https://127.0.0.1:{}/hooks/a", receiver.port())
    );
    let mut conn = connect(&receiver, "localhost").await;
    let before = Instant::now();
    let before_wall = SystemTime::now();
    let response = conn
        .send(
            "POST",
            "/hooks/a?x=1",
            &[("X-Mixed-Case", "Value"), ("content-type", "text/plain")],
            "hello",
        )
        .await
        .expect("response");
    assert_eq!(response.status(), 200);
    assert!(read_body(response).await.is_empty());
    let after = Instant::now();

    let requests = receiver.wait_for(1, WAIT).await.expect("one request");
    assert_eq!(requests.len(), 1);
    assert_eq!(receiver.count(), 1);
    let r = &requests[0];
    assert_eq!(r.seq, 0);
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/hooks/a");
    assert_eq!(r.query.as_deref(), Some("x=1"));
    assert_eq!(r.header("x-mixed-case"), Some("Value"));
    assert_eq!(r.header("X-MIXED-CASE"), Some("Value"));
    assert!(r.headers.iter().all(|(n, _)| *n == n.to_ascii_lowercase()));
    assert!(r.headers.iter().any(|(n, _)| n == "x-mixed-case"));
    assert_eq!(r.body, Bytes::from_static(b"hello"));
    assert_eq!(r.body_str(), Some("hello"));
    assert!(before <= r.received_at && r.received_at <= after);
    assert!(r.received_at_system >= before_wall);
    assert!(r.remote_addr.ip().is_loopback());
    assert_eq!(r.sni.as_deref(), Some("localhost"));
    assert_eq!(r.connection_id, 0);
    assert_eq!(r.request_on_connection, 0);
    assert_eq!(r.signature_valid, None, "not verifying");
    assert_eq!(receiver.connections(), 1);
    assert_eq!(receiver.requests_to("/hooks/a").len(), 1);
    assert!(receiver.requests_to("/other").is_empty());
}

#[tokio::test]
async fn every_reply_behaviour_on_one_kept_alive_connection() {
    let receiver = start().await;
    let mut conn = connect(&receiver, "localhost").await;
    let date = "Wed, 21 Oct 2015 07:28:00 GMT";
    type Case<'a> = (Behavior, u16, Vec<(&'a str, &'a str)>, &'a [u8]);
    let cases: Vec<Case<'_>> = vec![
        (
            Behavior::redirect("https://elsewhere.test/x"),
            302,
            vec![("location", "https://elsewhere.test/x")],
            b"",
        ),
        (Behavior::gone(), 410, vec![], b""),
        (
            Behavior::retry_after(429, "7"),
            429,
            vec![("retry-after", "7")],
            b"",
        ),
        (
            Behavior::retry_after(503, date),
            503,
            vec![("retry-after", date)],
            b"",
        ),
        (
            Behavior::abort_message(),
            200,
            vec![("webhook-delivery", "abort-message")],
            b"",
        ),
        (
            Behavior::reply(
                Reply::new(201)
                    .with_header("x-a", "1")
                    .with_header("x-a", "2")
                    .with_body("made"),
            ),
            201,
            vec![("x-a", "1"), ("content-length", "4")],
            b"made",
        ),
        (Behavior::status(500), 500, vec![], b""),
        (Behavior::ok(), 200, vec![("content-length", "0")], b""),
    ];
    for (behavior, status, headers, body) in cases {
        receiver.set_behavior(behavior.clone());
        let response = conn.post("/hooks/b", "x").await.expect("response");
        assert_eq!(response.status(), status, "{behavior:?}");
        for (name, value) in headers {
            assert_eq!(
                response.headers().get(name).and_then(|v| v.to_str().ok()),
                Some(value),
                "{behavior:?}: {name}"
            );
        }
        if status == 201 {
            let all: Vec<_> = response.headers().get_all("x-a").iter().collect();
            assert_eq!(all, ["1", "2"]);
        }
        assert_eq!(read_body(response).await, Bytes::from_static(body));
    }
    let requests = receiver.requests();
    assert_eq!(requests.len(), 8);
    assert!(requests.iter().all(|r| r.connection_id == 0));
    assert_eq!(
        receiver.connections(),
        1,
        "every answer kept the connection"
    );
}

#[tokio::test]
async fn delay_answers_after_the_delay() {
    let receiver = start().await;
    receiver.set_behavior(Behavior::delay(
        Duration::from_millis(300),
        Behavior::status(202),
    ));
    let mut conn = connect(&receiver, "localhost").await;
    let started = Instant::now();
    let (status, _) = conn.post_read("/slow", "x").await;
    assert_eq!(status, 202);
    assert!(started.elapsed() >= Duration::from_millis(300));
    // The request was recorded on arrival, before the delay.
    let r = &receiver.requests()[0];
    assert!(r.received_at < started + Duration::from_millis(300));
}

#[tokio::test]
async fn hang_never_answers_and_ends_when_the_client_leaves() {
    let receiver = start().await;
    receiver.set_behavior(Behavior::hang());
    let mut conn = connect(&receiver, "localhost").await;
    let answer = tokio::time::timeout(Duration::from_millis(400), conn.post("/hang", "x")).await;
    assert!(answer.is_err(), "the client times out: {answer:?}");
    receiver.wait_for(1, WAIT).await.expect("recorded anyway");
    assert_eq!(receiver.in_flight(), 1);
    assert_eq!(receiver.in_flight_on("/hang"), 1);
    drop(conn);
    receiver
        .wait_idle(WAIT)
        .await
        .expect("the hung request ends with its connection");
    assert_eq!(receiver.in_flight_on("/hang"), 0);
}

#[tokio::test]
async fn close_drops_the_connection_without_an_answer() {
    let receiver = start().await;
    receiver.set_behavior(Behavior::close());
    let mut conn = connect(&receiver, "localhost").await;
    let answer = conn.post("/close", "x").await;
    let err = answer.expect_err("no answer");
    // The socket ends without a TLS close_notify: rustls reports an
    // unexpected EOF (or hyper an incomplete message).
    let eof = std::error::Error::source(&err)
        .and_then(|e| e.downcast_ref::<std::io::Error>())
        .is_some_and(|e| e.kind() == std::io::ErrorKind::UnexpectedEof);
    assert!(eof || err.is_incomplete_message(), "{err:?}");
    assert_eq!(receiver.count(), 1);
    receiver.wait_idle(WAIT).await.expect("nothing in flight");
    // The receiver itself is fine: a new connection is answered.
    receiver.set_behavior(Behavior::ok());
    let mut conn = connect(&receiver, "localhost").await;
    assert_eq!(conn.post_read("/close", "x").await.0, 200);
    assert_eq!(receiver.connections(), 2);
}

#[tokio::test]
async fn endless_stream_stops_when_the_client_hangs_up() {
    let receiver = start().await;
    receiver.set_behavior(Behavior::stream_endless());
    let mut conn = connect(&receiver, "localhost").await;
    let response = conn.post("/stream", "x").await.expect("headers arrive");
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("content-length").is_none());
    let mut body = response.into_body();
    let mut read = 0usize;
    while read < 2 * 1024 * 1024 {
        let frame = body.frame().await.expect("more").expect("frame");
        if let Some(data) = frame.data_ref() {
            read += data.len();
        }
    }
    assert_eq!(receiver.in_flight(), 1, "still streaming");
    drop(body);
    drop(conn);
    receiver
        .wait_idle(WAIT)
        .await
        .expect("the stream ends when the client goes away");
    let streamed = receiver.bytes_streamed();
    println!("streamed {streamed} bytes, client read {read}");
    assert!(streamed >= read as u64);
    // Only what fits in hyper's and the sockets' buffers was produced beyond
    // what the client read: the body is made on demand.
    assert!(
        streamed < read as u64 + 32 * 1024 * 1024,
        "streamed {streamed} for {read} read"
    );
    assert_eq!(
        receiver.bytes_streamed(),
        streamed,
        "nothing more after the end"
    );
}

#[tokio::test]
async fn huge_fixed_body_is_sent_whole_with_its_length() {
    let receiver = start().await;
    let total = 8 * 1024 * 1024 + 5;
    receiver.set_behavior(Behavior::stream_bytes(total));
    let mut conn = connect(&receiver, "localhost").await;
    let response = conn.post("/big", "x").await.expect("response");
    assert_eq!(
        response
            .headers()
            .get("content-length")
            .and_then(|v| v.to_str().ok()),
        Some(total.to_string().as_str())
    );
    let body = read_body(response).await;
    assert_eq!(body.len() as u64, total);
    receiver.wait_idle(WAIT).await.expect("done");
    assert_eq!(receiver.bytes_streamed(), total);
    // The connection is still usable afterwards.
    receiver.set_behavior(Behavior::ok());
    assert_eq!(conn.post_read("/big", "x").await.0, 200);
}

#[tokio::test]
async fn scripts_come_first_then_path_behaviours_then_the_default() {
    let receiver = start().await;
    receiver.push_script(vec![Behavior::status(503), Behavior::gone()]);
    receiver.push_path_script("/b", vec![Behavior::status(500)]);
    receiver.set_path_behavior("/c", Behavior::status(204));
    assert_eq!(receiver.script_remaining(), 3);
    let mut conn = connect(&receiver, "localhost").await;
    let mut got = Vec::new();
    for path in ["/a", "/b", "/a", "/a", "/c", "/b", "/c"] {
        got.push((path, conn.post_read(path, "x").await.0));
    }
    assert_eq!(
        got,
        [
            ("/a", 503),
            ("/b", 500),
            ("/a", 410),
            ("/a", 200),
            ("/c", 204),
            ("/b", 200),
            ("/c", 204),
        ]
    );
    assert_eq!(receiver.script_remaining(), 0);
    receiver.clear_path_behavior("/c");
    receiver.push_script(vec![Behavior::gone()]);
    receiver.clear_scripts();
    assert_eq!(conn.post_read("/c", "x").await.0, 200);
}

#[tokio::test]
async fn wait_for_is_woken_by_arrivals_and_times_out() {
    let receiver = Arc::new(start().await);
    let sender = {
        let receiver = Arc::clone(&receiver);
        tokio::spawn(async move {
            let mut conn = connect(&receiver, "localhost").await;
            for i in 0..3 {
                conn.post_read("/w", format!("{i}")).await;
            }
        })
    };
    let requests = receiver.wait_for(3, WAIT).await.expect("three");
    assert_eq!(requests.len(), 3);
    let bodies: Vec<_> = requests.iter().map(|r| r.body.clone()).collect();
    assert_eq!(bodies, ["0", "1", "2"]);
    assert_eq!(
        requests.iter().map(|r| r.seq).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    sender.await.expect("sender");
    let err = receiver
        .wait_for(4, Duration::from_millis(200))
        .await
        .expect_err("no fourth request");
    assert!(err.detail.contains("3 of 4"), "{err}");
    assert_eq!(
        receiver.wait_for_count(2, Duration::ZERO).await,
        Ok(3),
        "already there"
    );
    receiver.reset();
    assert_eq!(receiver.count(), 0);
    assert!(receiver.requests().is_empty());
}

#[tokio::test]
async fn max_concurrent_counts_requests_in_flight_overall_and_per_path() {
    let receiver = Arc::new(start().await);
    receiver.set_path_behavior("/slow", Behavior::hang());
    let mut hung = Vec::new();
    for _ in 0..3 {
        let mut conn = connect(&receiver, "localhost").await;
        hung.push(tokio::spawn(async move {
            let _ = conn.post("/slow", "x").await;
        }));
    }
    receiver
        .wait_in_flight(3, WAIT)
        .await
        .expect("three in flight");
    assert_eq!(receiver.in_flight_on("/slow"), 3);
    // One more, answered at once, while the three hang.
    let mut conn = connect(&receiver, "localhost").await;
    assert_eq!(conn.post_read("/other", "x").await.0, 200);
    assert_eq!(receiver.max_concurrent("/slow"), 3);
    assert_eq!(receiver.max_concurrent("/other"), 1);
    assert_eq!(receiver.max_concurrent_total(), 4);
    assert_eq!(receiver.max_concurrent("/never"), 0);
    for task in hung {
        task.abort();
    }
    receiver.wait_idle(WAIT).await.expect("all ended");
    // One after the other: never more than one in flight.
    for _ in 0..3 {
        assert_eq!(conn.post_read("/seq", "x").await.0, 200);
    }
    assert_eq!(receiver.max_concurrent("/seq"), 1);
    receiver.reset();
    assert_eq!(receiver.max_concurrent_total(), 0);
    assert_eq!(receiver.max_concurrent("/slow"), 0);
}

#[tokio::test]
async fn keep_alive_reuse_shows_in_connection_ids() {
    let receiver = start().await;
    let mut a = connect(&receiver, "localhost").await;
    let mut b = connect(&receiver, "localhost").await;
    for _ in 0..3 {
        assert_eq!(a.post_read("/k", "a").await.0, 200);
    }
    assert_eq!(b.post_read("/k", "b").await.0, 200);
    let requests = receiver.requests();
    let on_a: Vec<_> = requests.iter().filter(|r| r.body == "a").collect();
    let on_b: Vec<_> = requests.iter().filter(|r| r.body == "b").collect();
    assert_eq!(on_a.len(), 3);
    assert!(
        on_a.iter()
            .all(|r| r.connection_id == on_a[0].connection_id)
    );
    assert_eq!(
        on_a.iter()
            .map(|r| r.request_on_connection)
            .collect::<Vec<_>>(),
        [0, 1, 2]
    );
    assert_ne!(on_b[0].connection_id, on_a[0].connection_id);
    assert_eq!(on_b[0].request_on_connection, 0);
    assert_eq!(receiver.connections(), 2);
}

#[tokio::test]
async fn sni_is_recorded_and_the_certificate_covers_every_default_name() {
    let receiver = start_with(ReceiverConfig {
        extra_names: vec!["relay.test".into()],
        ..ReceiverConfig::default()
    })
    .await;
    for (name, sni) in [
        ("localhost", Some("localhost")),
        ("relay.test", Some("relay.test")),
        // Clients send no SNI for addresses; the handshake still verifies
        // the certificate for them.
        ("127.0.0.1", None),
        ("::1", None),
    ] {
        let mut conn = connect(&receiver, name).await;
        assert_eq!(conn.post_read("/sni", name.to_owned()).await.0, 200);
        let r = receiver
            .requests()
            .into_iter()
            .find(|r| r.body == name)
            .expect("recorded");
        assert_eq!(r.sni.as_deref(), sni, "{name}");
    }
    assert_eq!(
        receiver.leaf().names(),
        ["localhost", "127.0.0.1", "::1", "relay.test"]
    );
}

#[tokio::test]
async fn a_name_outside_the_certificate_fails_the_handshake() {
    let receiver = start().await;
    let tcp = tokio::net::TcpStream::connect(receiver.addr())
        .await
        .expect("tcp");
    let name = rustls::pki_types::ServerName::try_from("not-in-cert.test").expect("name");
    let result = tokio_rustls::TlsConnector::from(receiver.ca().client_config())
        .connect(name, tcp)
        .await;
    assert!(result.is_err());
    // And a client that does not trust the CA fails too.
    let other = TestCa::generate();
    let tcp = tokio::net::TcpStream::connect(receiver.addr())
        .await
        .expect("tcp");
    let name = rustls::pki_types::ServerName::try_from("localhost").expect("name");
    let result = tokio_rustls::TlsConnector::from(other.client_config())
        .connect(name, tcp)
        .await;
    assert!(result.is_err());
}

#[tokio::test]
async fn one_ca_can_sign_several_receivers_and_its_pem_is_written() {
    let ca = Arc::new(TestCa::generate());
    let config = ReceiverConfig {
        ca: Some(Arc::clone(&ca)),
        ..ReceiverConfig::default()
    };
    let r1 = start_with(config.clone()).await;
    let r2 = start_with(config).await;
    assert_ne!(r1.port(), r2.port());
    for r in [&r1, &r2] {
        let mut conn = common::connect_with(r, "localhost", ca.client_config()).await;
        assert_eq!(conn.post_read("/", "x").await.0, 200);
        let pem = std::fs::read_to_string(r.ca_pem_path()).expect("CA file");
        assert_eq!(pem, ca.ca_cert_pem());
        assert!(pem.starts_with("-----BEGIN CERTIFICATE-----"));
    }
    let dir = tempfile::tempdir().expect("dir");
    let a = ca.write_ca_pem(dir.path()).expect("write");
    let b = ca.write_ca_pem(dir.path()).expect("write");
    assert_ne!(a, b);
    assert_eq!(std::fs::read_to_string(&a).expect("read"), ca.ca_cert_pem());
    let leaf = ca.leaf().without_defaults().name("only.test").build();
    assert_eq!(leaf.names(), ["only.test"]);
    assert!(leaf.cert_pem().starts_with("-----BEGIN CERTIFICATE-----"));
    assert!(leaf.key_pem().contains("PRIVATE KEY"));
    let path = r1.ca_pem_path().to_owned();
    drop(r1);
    assert!(!path.exists(), "removed with the receiver");
}

#[tokio::test]
async fn count_only_mode_keeps_no_records() {
    let receiver = start_with(ReceiverConfig {
        record_bodies: false,
        ..ReceiverConfig::default()
    })
    .await;
    let mut conn = connect(&receiver, "localhost").await;
    for _ in 0..5 {
        assert_eq!(conn.post_read("/n", vec![b'z'; 10_000]).await.0, 200);
    }
    assert_eq!(receiver.wait_for_count(5, WAIT).await, Ok(5));
    assert_eq!(receiver.count(), 5);
    assert!(receiver.requests().is_empty());
    assert!(
        receiver
            .wait_for(5, WAIT)
            .await
            .expect("counted")
            .is_empty()
    );
    assert_eq!(receiver.max_concurrent("/n"), 1);
}

#[tokio::test]
async fn signatures_are_verified_over_the_raw_body_when_asked() {
    let hmac = SigningKey::generate(SignatureScheme::V1, [1; 32]);
    let ed = SigningKey::generate(SignatureScheme::V1a, [2; 32]);
    let receiver = start_with(ReceiverConfig {
        verify: Some(vec![hmac.verification_key(), ed.verification_key()]),
        ..ReceiverConfig::default()
    })
    .await;
    let mut conn = connect(&receiver, "localhost").await;
    let body = br#"{"a":1}"#;
    let other = SigningKey::generate(SignatureScheme::V1a, [3; 32]);
    let cases: [(&SigningKey, &[u8], bool); 4] = [
        (&ed, body, true),
        (&hmac, body, true),
        (&ed, br#"{"a":2}"#, false),
        (&other, body, false),
    ];
    for (i, (key, sent, _)) in cases.iter().enumerate() {
        let h = sign_request(std::slice::from_ref(*key), &format!("msg_{i}"), now(), body);
        let response = conn
            .send(
                "POST",
                "/sig",
                &[
                    ("webhook-id", h.webhook_id.as_str()),
                    ("webhook-timestamp", h.webhook_timestamp.as_str()),
                    ("webhook-signature", h.webhook_signature.as_str()),
                ],
                Bytes::copy_from_slice(sent),
            )
            .await
            .expect("response");
        assert_eq!(response.status(), 200);
        read_body(response).await;
    }
    assert_eq!(conn.post_read("/sig", "unsigned").await.0, 200);
    let got: Vec<_> = receiver
        .requests()
        .iter()
        .map(|r| r.signature_valid)
        .collect();
    let mut want: Vec<_> = cases.iter().map(|(_, _, ok)| Some(*ok)).collect();
    want.push(Some(false));
    assert_eq!(got, want);
    assert_eq!(receiver.invalid_signatures(), 3);
}

#[tokio::test]
async fn judge_json_has_headers_and_body_or_body_b64() {
    let receiver = start().await;
    let mut conn = connect(&receiver, "localhost").await;
    conn.send(
        "POST",
        "/j",
        &[("X-Dup", "a"), ("x-dup", "b"), ("webhook-id", "msg_1")],
        "{\"k\":\"é\"}",
    )
    .await
    .expect("response");
    conn.send("POST", "/j", &[], Bytes::from_static(&[0xff, 0x00, 0x80]))
        .await
        .expect("response");
    let requests = receiver.wait_for(2, WAIT).await.expect("two");
    let text: serde_json::Value = serde_json::from_str(&requests[0].to_judge_json()).expect("JSON");
    assert_eq!(text["body"], "{\"k\":\"é\"}");
    assert!(text.get("body_b64").is_none());
    assert_eq!(text["headers"]["x-dup"], "a, b");
    assert_eq!(text["headers"]["webhook-id"], "msg_1");
    assert_eq!(text.as_object().map(|o| o.len()), Some(2));
    let binary: serde_json::Value =
        serde_json::from_str(&requests[1].to_judge_json()).expect("JSON");
    assert_eq!(binary["body_b64"], "/wCA");
    assert!(binary.get("body").is_none());
    let dir = tempfile::tempdir().expect("dir");
    let file = dir.path().join("req.json");
    requests[1].write_judge_json(&file).expect("write");
    assert_eq!(
        std::fs::read_to_string(&file).expect("read"),
        requests[1].to_judge_json()
    );
}

#[tokio::test]
async fn listens_on_a_given_port() {
    // A port picked by the OS, released, then asked for explicitly.
    let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("probe");
    let port = probe.local_addr().expect("addr").port();
    drop(probe);
    let receiver = start_with(ReceiverConfig {
        addr: (IpAddr::from([127, 0, 0, 1]), port).into(),
        ..ReceiverConfig::default()
    })
    .await;
    assert_eq!(receiver.port(), port);
    assert_eq!(
        receiver.url_for_host("localhost", "/p"),
        format!("https://localhost:{port}/p")
    );
    let mut conn = connect(&receiver, "localhost").await;
    assert_eq!(conn.post_read("/p", "x").await.0, 200);
}

#[tokio::test]
async fn serves_on_a_socket_bound_before_it_starts() {
    // Held from the moment its port is known, so nothing else can take it.
    let socket = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = socket.local_addr().expect("addr").port();
    let receiver = Receiver::start_on(ReceiverConfig::default(), socket)
        .await
        .expect("receiver starts");
    assert_eq!(receiver.port(), port);
    let mut conn = connect(&receiver, "localhost").await;
    assert_eq!(conn.post_read("/p", "x").await.0, 200);
    assert_eq!(receiver.count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_signed_requests_on_kept_alive_connections_in_count_only_mode() {
    let key = SigningKey::generate(SignatureScheme::V1a, [9; 32]);
    let receiver = Arc::new(
        start_with(ReceiverConfig {
            record_bodies: false,
            verify: Some(vec![key.verification_key()]),
            ..ReceiverConfig::default()
        })
        .await,
    );
    let body = Bytes::from(vec![b'{'; 1024]);
    let h = sign_request(std::slice::from_ref(&key), "msg_bench", now(), &body);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let receiver = Arc::clone(&receiver);
        let (body, h) = (body.clone(), h.clone());
        tasks.push(tokio::spawn(async move {
            let mut conn = connect(&receiver, "localhost").await;
            for _ in 0..500 {
                let response = conn
                    .send(
                        "POST",
                        "/bench",
                        &[
                            ("webhook-id", h.webhook_id.as_str()),
                            ("webhook-timestamp", h.webhook_timestamp.as_str()),
                            ("webhook-signature", h.webhook_signature.as_str()),
                        ],
                        body.clone(),
                    )
                    .await
                    .expect("response");
                assert_eq!(response.status(), 200);
                read_body(response).await;
            }
        }));
    }
    for task in tasks {
        task.await.expect("client");
    }
    let elapsed = started.elapsed();
    assert_eq!(receiver.wait_for_count(2000, WAIT).await, Ok(2000));
    assert_eq!(receiver.invalid_signatures(), 0);
    assert_eq!(receiver.connections(), 4);
    assert!(receiver.requests().is_empty());
    assert!(receiver.max_concurrent("/bench") <= 4);
    receiver.wait_idle(WAIT).await.expect("idle");
    println!(
        "2000 verified requests in {elapsed:?} ({:.0}/s, debug build)",
        2000.0 / elapsed.as_secs_f64()
    );
}
