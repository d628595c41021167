//! How the kinds write the hosts their credentials are sent to
//! ([`crate::Kind::credential_hosts`]), so that the same host is the same
//! string whichever kind names it.

use relay_net::Guard;

/// `host:port` of a URL as the guard parses it (the scheme's default port
/// when the URL has none); the URL itself when it does not parse.
pub(crate) fn origin(guard: &Guard, url: &str) -> String {
    match guard.parse_url(url) {
        Ok(u) => format!("{}:{}", u.host_str(), u.port()),
        Err(_) => url.to_string(),
    }
}

/// `host:port` of a configured host name, lowercased and without a
/// trailing dot.
pub(crate) fn host(host: &str, port: u16) -> String {
    format!("{}:{port}", host.trim_end_matches('.').to_lowercase())
}
