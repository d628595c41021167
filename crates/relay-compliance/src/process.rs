//! What a test that starts a private server (a broker, moto, Tansu) needs:
//! a free loopback port for it. (Waiting until it listens connects to it,
//! which only test code may do outside `relay-net`:
//! `tests/common/listening.rs`.)

/// A loopback port nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}
