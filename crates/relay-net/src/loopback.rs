//! Connections to this machine's own services (never tenant-given addresses).
//!
//! `relay bench` drives its own in-process API and its own receiver; those
//! connections still go through this crate, so "only relay-net opens
//! outbound sockets" stays literally true, and this function refuses any
//! address that is not loopback.

use std::io;
use std::net::SocketAddr;

use tokio::net::TcpStream;

/// Connects to `addr`, which must be a loopback address.
pub async fn connect_loopback(addr: SocketAddr) -> io::Result<TcpStream> {
    if !addr.ip().is_loopback() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{addr} is not a loopback address"),
        ));
    }
    let tcp = TcpStream::connect(addr).await?;
    tcp.set_nodelay(true)?;
    Ok(tcp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn only_loopback_addresses_are_accepted() {
        let err = connect_loopback("10.0.0.1:80".parse().unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::PermissionDenied);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        assert!(connect_loopback(addr).await.is_ok());
    }
}
