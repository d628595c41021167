//! What a test that starts a private server (a broker, moto, Tansu) needs:
//! a free loopback port for it, and to wait until it listens there.

use std::time::Duration;

/// A loopback port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until `what` accepts connections on 127.0.0.1:`port`; panics
/// after `within`.
pub async fn listening(what: &str, port: u16, within: Duration) {
    let deadline = tokio::time::Instant::now() + within;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{what} did not listen on {port} within {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
