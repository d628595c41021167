//! The HTTP server under slow and hostile clients (`relay_api::serve` on a
//! real socket, raw TCP clients): a request head or body that does not
//! arrive in time is answered `408` and its connection closed, so a few
//! hundred slowloris connections neither hold the server nor delay a normal
//! request; an idle kept-alive connection is closed; a client that does not
//! read its response is cut off; connections over the cap are answered `503`;
//! shutdown ends within its drain time whatever the clients do. The rules
//! are in `docs/security.md` ("The HTTP server under slow and hostile
//! clients").

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::http::StatusCode;
use common::Harness;
use relay_api::ApiSettings;
use relay_api::server::ServerSettings;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

const WHSEC: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// `relay_api::serve` on a free loopback port.
struct Server {
    addr: SocketAddr,
    h: Harness,
    stop: Option<oneshot::Sender<()>>,
    done: JoinHandle<std::io::Result<()>>,
}

async fn start(server: ServerSettings) -> Server {
    let h = Harness::with_settings(ApiSettings {
        server,
        ..ApiSettings::default()
    })
    .await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (tx, rx) = oneshot::channel::<()>();
    let done = tokio::spawn(relay_api::serve(listener, h.state.clone(), async {
        let _ = rx.await;
    }));
    Server {
        addr,
        h,
        stop: Some(tx),
        done,
    }
}

/// Short timeouts, so that the tests wait seconds, not minutes.
fn quick() -> ServerSettings {
    ServerSettings {
        header_read_timeout: Duration::from_secs(1),
        body_read_timeout: Duration::from_secs(1),
        response_write_timeout: Duration::from_secs(1),
        idle_timeout: Duration::from_secs(1),
        max_connections: 1024,
        shutdown_drain: Duration::from_secs(1),
    }
}

const LONG: Duration = Duration::from_secs(30);

/// Reads one response (head and `content-length` body) off a kept-alive connection.
async fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(end) = find(&data, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&data[..end]).to_string();
            let length: usize = head
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse().ok())?
                })
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                let status = head[9..12].parse().expect("status");
                let body = String::from_utf8_lossy(&data[end + 4..end + 4 + length]).to_string();
                return (status, body);
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Ok(Ok(0)) => panic!(
                "closed before a whole response: {:?}",
                String::from_utf8_lossy(&data)
            ),
            Ok(Ok(n)) => data.extend_from_slice(&buf[..n]),
            Ok(Err(e)) => panic!("read: {e}"),
            Err(_) => panic!(
                "no whole response within 10 s: {:?}",
                String::from_utf8_lossy(&data)
            ),
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// Reads until the server closes the connection (end of stream or reset);
/// returns how long that took and what was read. Panics after `within`.
async fn wait_closed(stream: &mut TcpStream, within: Duration) -> (Duration, Vec<u8>) {
    let t0 = Instant::now();
    let mut data = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = within.saturating_sub(t0.elapsed());
        match tokio::time::timeout(left, stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => return (t0.elapsed(), data),
            Ok(Ok(n)) => data.extend_from_slice(&buf[..n]),
            Err(_) => panic!(
                "the server kept the connection open for {within:?}; read {} bytes: {:?}",
                data.len(),
                String::from_utf8_lossy(&data[..data.len().min(200)])
            ),
        }
    }
}

/// `GET /healthz` on a new connection; returns its status and how long it took.
async fn healthz(addr: SocketAddr) -> (u16, Duration) {
    let t0 = Instant::now();
    let mut s = TcpStream::connect(addr).await.expect("connect");
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\n\r\n")
        .await
        .expect("write");
    let (status, _) = read_response(&mut s).await;
    (status, t0.elapsed())
}

#[track_caller]
fn assert_408(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    assert!(text.starts_with("HTTP/1.1 408 "), "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("content-type: application/problem+json"),
        "{text}"
    );
    assert!(text.contains("\"code\":\"request_timeout\""), "{text}");
}

/// A client that sends `head`, then `drip` one byte at a time every
/// `every`, reading all along, until the server closes the connection.
/// Returns how long the server took to close it and what it answered.
async fn trickle(
    addr: SocketAddr,
    head: Vec<u8>,
    drip: Vec<u8>,
    every: Duration,
    within: Duration,
) -> (Duration, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    let t0 = Instant::now();
    stream.write_all(&head).await.expect("write head");
    let mut tick = tokio::time::interval(every);
    let mut data = Vec::new();
    let mut buf = [0u8; 1024];
    let mut i = 0;
    loop {
        tokio::select! {
            r = stream.read(&mut buf) => match r {
                Ok(0) | Err(_) => return (t0.elapsed(), data),
                Ok(n) => data.extend_from_slice(&buf[..n]),
            },
            _ = tick.tick() => {
                if t0.elapsed() > within {
                    panic!("the server kept a slow client for {within:?}");
                }
                // Once answered, the client stops sending.
                if data.is_empty() && stream.write_all(&drip[i % drip.len()..][..1]).await.is_err() {
                    return (t0.elapsed(), data);
                }
                i += 1;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn slowloris_connections_are_cut_off_and_a_normal_request_still_answers_promptly() {
    const SLOW: usize = 300;
    let header = Duration::from_secs(2);
    let s = start(ServerSettings {
        header_read_timeout: header,
        ..quick()
    })
    .await;
    let t0 = Instant::now();
    let mut slow = tokio::task::JoinSet::new();
    for _ in 0..SLOW {
        let addr = s.addr;
        slow.spawn(trickle(
            addr,
            b"POST /v1/events HTTP/1.1\r\nHost: relay.test\r\n".to_vec(),
            b"X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_vec(),
            Duration::from_secs(1),
            Duration::from_secs(20),
        ));
    }
    // While they trickle, a normal request answers at once.
    tokio::time::sleep(Duration::from_millis(500)).await;
    for _ in 0..5 {
        let (status, took) = healthz(s.addr).await;
        assert_eq!(status, 200);
        assert!(
            took < Duration::from_secs(1),
            "a normal request took {took:?} beside {SLOW} slow connections"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let mut latest = Duration::ZERO;
    let mut answered_408 = 0;
    while let Some(r) = slow.join_next().await {
        let (took, data) = r.expect("slow client");
        latest = latest.max(took);
        if !data.is_empty() {
            assert_408(&data);
            answered_408 += 1;
        }
    }
    assert!(
        latest < header + Duration::from_millis(1500),
        "the last slow connection was closed after {latest:?} (header timeout {header:?})"
    );
    // Almost all get their 408 (a byte sent just as the server closes can
    // turn the close into a reset that loses it).
    assert!(answered_408 * 10 >= SLOW * 9, "{answered_408} of {SLOW}");
    println!(
        "{SLOW} slowloris connections: all closed within {latest:?} of their start ({answered_408} answered 408); t = {:?}",
        t0.elapsed()
    );
}

#[tokio::test]
async fn a_request_head_not_received_in_time_is_answered_408() {
    let s = start(quick()).await;
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\n")
        .await
        .unwrap();
    let (took, data) = wait_closed(&mut stream, Duration::from_secs(10)).await;
    assert_408(&data);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    // A connection that sends nothing at all is closed at the same
    // deadline, without an answer (there is no request to answer).
    let mut silent = TcpStream::connect(s.addr).await.unwrap();
    let (took, data) = wait_closed(&mut silent, Duration::from_secs(10)).await;
    assert!(data.is_empty(), "{:?}", String::from_utf8_lossy(&data));
    assert!(took < Duration::from_millis(2500), "{took:?}");
}

#[tokio::test]
async fn a_slow_body_is_cut_off_with_408_on_the_inbound_route_and_the_api() {
    let s = start(ServerSettings {
        header_read_timeout: LONG,
        idle_timeout: LONG,
        ..quick()
    })
    .await;
    let (_, key) = s.h.tenant_with_key("acme", "live").await;
    let source =
        s.h.post(
            "/v1/inbound-sources",
            &key,
            json!({"name": "provider", "preset": "standard_webhooks", "secret": WHSEC}),
        )
        .await
        .expect(StatusCode::CREATED);
    let path = source["path"].as_str().expect("path").to_string();
    let head = |path: &str, auth: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: relay.test\r\n{auth}Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"a\":"
        )
        .into_bytes()
    };

    // Part of the body, then nothing: the unauthenticated route answers 408.
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    stream.write_all(&head(&path, "")).await.unwrap();
    let (took, data) = wait_closed(&mut stream, Duration::from_secs(10)).await;
    assert_408(&data);
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_millis(2500),
        "{took:?}"
    );

    // One byte every 200 ms: the limit is on the whole body, not on each read.
    let (took, data) = trickle(
        s.addr,
        head(&path, ""),
        b"1".to_vec(),
        Duration::from_millis(200),
        Duration::from_secs(10),
    )
    .await;
    assert!(took < Duration::from_millis(2500), "{took:?}");
    if !data.is_empty() {
        assert_408(&data);
    }

    // The same on an authenticated route.
    let auth = format!("Authorization: Bearer {key}\r\n");
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    stream.write_all(&head("/v1/events", &auth)).await.unwrap();
    let (took, data) = wait_closed(&mut stream, Duration::from_secs(10)).await;
    assert_408(&data);
    assert!(took < Duration::from_millis(2500), "{took:?}");

    // Nothing slow was kept as a receipt.
    let receipts =
        s.h.get("/v1/inbound-receipts", &key)
            .await
            .expect(StatusCode::OK);
    assert_eq!(receipts["data"].as_array().map(Vec::len), Some(0));
}

#[tokio::test]
async fn an_idle_kept_alive_connection_is_closed() {
    let s = start(ServerSettings {
        header_read_timeout: Duration::from_secs(5),
        response_write_timeout: LONG,
        idle_timeout: Duration::from_secs(1),
        ..quick()
    })
    .await;
    let mut stream = TcpStream::connect(s.addr).await.unwrap();
    // Kept alive: two requests on one connection.
    for _ in 0..2 {
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\n\r\n")
            .await
            .unwrap();
        let (status, body) = read_response(&mut stream).await;
        assert_eq!((status, body.as_str()), (200, "ok"));
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    let (took, data) = wait_closed(&mut stream, Duration::from_secs(10)).await;
    assert!(data.is_empty(), "{:?}", String::from_utf8_lossy(&data));
    // The idle time (1 s, 0.3 s of which have passed), not the header time (5 s).
    assert!(
        took >= Duration::from_millis(500) && took < Duration::from_millis(2000),
        "{took:?}"
    );
}

#[tokio::test]
async fn a_client_that_does_not_read_its_responses_is_cut_off() {
    const REQUESTS: usize = 200;
    // One place: while the server holds the unread connection, a probe is
    // answered 503; once it cut that connection off, a probe is served. So
    // the test never reads the stalled connection before the server gave
    // up on it, however slowly a loaded machine makes the responses.
    let s = start(ServerSettings {
        header_read_timeout: LONG,
        idle_timeout: LONG,
        max_connections: 1,
        ..quick()
    })
    .await;
    // A small receive buffer, so that the responses outgrow what the
    // sockets hold after a few of them (with the kernel's default,
    // autotuned to tens of MiB, they could all fit).
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(s.addr).await.unwrap();
    // Many large responses asked for at once, none read: more than the
    // sockets' buffers hold.
    let one = b"GET /openapi.json HTTP/1.1\r\nHost: relay.test\r\n\r\n";
    stream.write_all(&one.repeat(REQUESTS)).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        assert!(
            Instant::now() < deadline,
            "the server kept a client that reads nothing for 90 s"
        );
        let mut probe = TcpStream::connect(s.addr).await.unwrap();
        probe
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let (_, answer) = wait_closed(&mut probe, Duration::from_secs(10)).await;
        if answer.starts_with(b"HTTP/1.1 200 ") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (_, data) = wait_closed(&mut stream, Duration::from_secs(20)).await;
    let answered = data
        .windows(b"HTTP/1.1 200 ".len())
        .filter(|w| w == b"HTTP/1.1 200 ")
        .count();
    assert!(
        answered < REQUESTS,
        "the server waited for the client to read all {REQUESTS} responses"
    );
}

#[tokio::test]
async fn connections_over_the_cap_are_answered_503_and_closed() {
    let s = start(ServerSettings {
        header_read_timeout: LONG,
        idle_timeout: LONG,
        max_connections: 3,
        ..quick()
    })
    .await;
    let mut held = Vec::new();
    for _ in 0..3 {
        let mut stream = TcpStream::connect(s.addr).await.unwrap();
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\n\r\n")
            .await
            .unwrap();
        assert_eq!(read_response(&mut stream).await.0, 200);
        held.push(stream);
    }
    // The fourth is answered at once, before it says anything.
    let mut fourth = TcpStream::connect(s.addr).await.unwrap();
    let (_, data) = wait_closed(&mut fourth, Duration::from_secs(5)).await;
    let text = String::from_utf8_lossy(&data);
    assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
    assert!(text.contains("\"code\":\"too_many_connections\""), "{text}");
    assert!(
        text.to_ascii_lowercase().contains("retry-after: 1"),
        "{text}"
    );
    // A closed connection frees its place.
    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut stream = TcpStream::connect(s.addr).await.unwrap();
        let _ = stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\nConnection: close\r\n\r\n")
            .await;
        let (_, data) = wait_closed(&mut stream, Duration::from_secs(5)).await;
        if data.starts_with(b"HTTP/1.1 200 ") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no place freed: {}",
            String::from_utf8_lossy(&data)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_ends_within_the_drain_time_whatever_the_clients_do() {
    let drain = Duration::from_secs(1);
    let mut s = start(ServerSettings {
        header_read_timeout: LONG,
        body_read_timeout: LONG,
        response_write_timeout: LONG,
        idle_timeout: LONG,
        max_connections: 1024,
        shutdown_drain: drain,
    })
    .await;
    let (_, key) = s.h.tenant_with_key("acme", "live").await;
    let mut held = Vec::new();
    for i in 0..30 {
        let mut stream = TcpStream::connect(s.addr).await.unwrap();
        match i % 3 {
            // In the middle of a head.
            0 => stream
                .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\n")
                .await
                .unwrap(),
            // In the middle of a body.
            1 => stream
                .write_all(
                    format!(
                        "POST /v1/events HTTP/1.1\r\nHost: relay.test\r\nAuthorization: Bearer {key}\r\nContent-Length: 100\r\n\r\n{{"
                    )
                    .as_bytes(),
                )
                .await
                .unwrap(),
            // Kept alive after a request, idle.
            _ => {
                stream
                    .write_all(b"GET /healthz HTTP/1.1\r\nHost: relay.test\r\n\r\n")
                    .await
                    .unwrap();
                assert_eq!(read_response(&mut stream).await.0, 200);
            }
        }
        held.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let t0 = Instant::now();
    let _ = s.stop.take().expect("stop").send(());
    let ended = tokio::time::timeout(Duration::from_secs(10), &mut s.done).await;
    let took = t0.elapsed();
    assert!(
        ended.is_ok(),
        "serve still running 10 s after shutdown (drain time {drain:?})"
    );
    ended.unwrap().expect("join").expect("serve");
    assert!(took < drain + Duration::from_millis(700), "{took:?}");
    // Every connection is closed.
    for mut stream in held {
        wait_closed(&mut stream, Duration::from_secs(2)).await;
    }
    // And nothing listens any more.
    assert!(TcpStream::connect(s.addr).await.is_err());
}
