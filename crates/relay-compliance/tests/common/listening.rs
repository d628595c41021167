//! Waiting until a private server a test started listens (a connection,
//! which the tests may open directly: `relay-net`'s tidy check covers the
//! crates' own code).

use std::time::Duration;

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
