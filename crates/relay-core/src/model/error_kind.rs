//! The kinds of failure without a usable answer: [`ErrorKind`], the one
//! enum `relay-net` refuses targets and fails connections with (it
//! re-exports it as `relay_net::ErrorKind`), and [`AttemptErrorKind`], an
//! attempt record's `error_kind` as stored and shown.

use std::fmt;

/// Every way an outbound target can be refused or a connection can fail:
/// the stable kinds of `relay_net::UrlRejection` and `relay_net::GuardError`,
/// one enum so a destination's classification matches on it instead of on
/// strings, and so an attempt record holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The text is not a URL or its host is not a valid host.
    InvalidUrl,
    /// A scheme other than the allowed one.
    SchemeNotAllowed,
    /// A user name or password in the URL.
    CredentialsInUrl,
    /// A port the operator does not allow.
    PortNotAllowed,
    /// The host is, or every address it resolves to is, blocked.
    BlockedAddress,
    /// The name does not resolve.
    Dns,
    /// Every verified address refused the TCP connection.
    Connect,
    /// A deadline passed.
    Timeout,
    /// The TLS handshake failed.
    Tls,
    /// The peer broke HTTP.
    Http,
    /// The peer broke another protocol (a broker's), or the connection
    /// broke off mid-exchange.
    Protocol,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 11] = [
        ErrorKind::InvalidUrl,
        ErrorKind::SchemeNotAllowed,
        ErrorKind::CredentialsInUrl,
        ErrorKind::PortNotAllowed,
        ErrorKind::BlockedAddress,
        ErrorKind::Dns,
        ErrorKind::Connect,
        ErrorKind::Timeout,
        ErrorKind::Tls,
        ErrorKind::Http,
        ErrorKind::Protocol,
    ];

    /// The stable code (API `422` codes, attempt records' `error_kind`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidUrl => "invalid_url",
            ErrorKind::SchemeNotAllowed => "scheme_not_allowed",
            ErrorKind::CredentialsInUrl => "credentials_in_url",
            ErrorKind::PortNotAllowed => "port_not_allowed",
            ErrorKind::BlockedAddress => "blocked_address",
            ErrorKind::Dns => "dns",
            ErrorKind::Connect => "connect",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Tls => "tls",
            ErrorKind::Http => "http",
            ErrorKind::Protocol => "protocol",
        }
    }

    /// The kind from its stable code ([`ErrorKind::as_str`]).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// True for the refusals of the target itself (nothing was tried, and
    /// trying again cannot help until the destination is changed).
    pub const fn is_refused_target(self) -> bool {
        matches!(
            self,
            ErrorKind::InvalidUrl
                | ErrorKind::SchemeNotAllowed
                | ErrorKind::CredentialsInUrl
                | ErrorKind::PortNotAllowed
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An attempt record's `error_kind`: the [`ErrorKind`] of the failure, or
/// the text of one this build does not know. The store keeps the code as
/// text; a row written by another Relay version may hold a code that is not
/// (or no longer) an [`ErrorKind`], and reading it must neither fail nor
/// change what the API shows, so [`AttemptErrorKind::Other`] keeps the text
/// as it was stored. Relay itself only ever records [`AttemptErrorKind::Known`].
/// Written (JSON, the store) as the bare code either way.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum AttemptErrorKind {
    Known(ErrorKind),
    /// A stored code that is not an [`ErrorKind`], kept verbatim.
    Other(String),
}

impl AttemptErrorKind {
    /// The stable code, as stored and as the API shows it.
    pub fn as_str(&self) -> &str {
        match self {
            AttemptErrorKind::Known(k) => k.as_str(),
            AttemptErrorKind::Other(s) => s,
        }
    }

    /// Reads a stored code; never fails (an unknown one is
    /// [`AttemptErrorKind::Other`]).
    pub fn parse(s: &str) -> Self {
        ErrorKind::parse(s).map_or_else(|| AttemptErrorKind::Other(s.to_owned()), Self::Known)
    }

    /// The known kind, if it is one.
    pub fn known(&self) -> Option<ErrorKind> {
        match self {
            AttemptErrorKind::Known(k) => Some(*k),
            AttemptErrorKind::Other(_) => None,
        }
    }
}

impl From<ErrorKind> for AttemptErrorKind {
    fn from(k: ErrorKind) -> Self {
        AttemptErrorKind::Known(k)
    }
}

impl PartialEq<ErrorKind> for AttemptErrorKind {
    fn eq(&self, other: &ErrorKind) -> bool {
        self.known() == Some(*other)
    }
}

impl fmt::Display for AttemptErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for AttemptErrorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for AttemptErrorKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(AttemptErrorKind::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_code() {
        for k in ErrorKind::ALL {
            assert_eq!(ErrorKind::parse(k.as_str()), Some(k));
            assert_eq!(
                AttemptErrorKind::parse(k.as_str()),
                AttemptErrorKind::Known(k)
            );
            assert_eq!(k.to_string(), k.as_str());
        }
        assert_eq!(ErrorKind::parse("Connect"), None);
    }

    #[test]
    fn an_unknown_stored_code_is_kept_as_it_was() {
        let k = AttemptErrorKind::parse("carrier_pigeon_lost");
        assert_eq!(k, AttemptErrorKind::Other("carrier_pigeon_lost".into()));
        assert_eq!(k.known(), None);
        assert_eq!(
            serde_json::to_string(&k).unwrap(),
            r#""carrier_pigeon_lost""#
        );
        let back: AttemptErrorKind = serde_json::from_str(r#""carrier_pigeon_lost""#).unwrap();
        assert_eq!(back, k);
    }

    #[test]
    fn json_is_the_bare_code() {
        let k = AttemptErrorKind::from(ErrorKind::BlockedAddress);
        assert_eq!(serde_json::to_string(&k).unwrap(), r#""blocked_address""#);
        let back: AttemptErrorKind = serde_json::from_str(r#""blocked_address""#).unwrap();
        assert_eq!(back, ErrorKind::BlockedAddress);
        assert_eq!(
            serde_json::to_string(&Some(k)).unwrap(),
            serde_json::to_string(&Some("blocked_address")).unwrap()
        );
    }
}
