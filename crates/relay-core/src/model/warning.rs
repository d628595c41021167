//! What an endpoint health warning is about: [`WarningKind`], every kind
//! Relay writes, named once.

use std::fmt;

use super::ErrorKind;

/// The kind of an endpoint health warning (`GET /v1/endpoints/{id}/health`,
/// `warnings[].kind`). Who writes each:
/// - [`WarningKind::BlockedAddress`]: an attempt the outbound guard refused
///   (the engine, from the attempt's [`ErrorKind::BlockedAddress`]);
/// - [`WarningKind::RedirectNotFollowed`], [`WarningKind::OauthTokenRefused`]:
///   a destination's `crate::outcome::HealthWarning`
///   (`HealthWarning::kind`);
/// - [`WarningKind::SecretUnresolved`]: a secret reference of the
///   destination that did not resolve (the engine; the attempt's code is
///   `crate::outcome::FailureCode::SecretUnresolved`, the same text);
/// - [`WarningKind::FailingFor72Hours`]: the automatic-disable clock's
///   warning (`crate::autodisable`, written by the store).
///
/// The store keeps the code as text; a row written by another Relay version
/// may hold one this build does not know, which reads back as
/// [`WarningKind::Other`] with the text as stored (a read never fails, and
/// the API shows what was stored). Written as the bare code either way.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum WarningKind {
    BlockedAddress,
    RedirectNotFollowed,
    OauthTokenRefused,
    SecretUnresolved,
    FailingFor72Hours,
    /// A stored code that is none of the above, kept verbatim.
    Other(String),
}

impl WarningKind {
    /// Every kind Relay writes.
    pub const KNOWN: [WarningKind; 5] = [
        WarningKind::BlockedAddress,
        WarningKind::RedirectNotFollowed,
        WarningKind::OauthTokenRefused,
        WarningKind::SecretUnresolved,
        WarningKind::FailingFor72Hours,
    ];

    /// The stable code, as stored and as the API shows it.
    pub fn as_str(&self) -> &str {
        match self {
            WarningKind::BlockedAddress => ErrorKind::BlockedAddress.as_str(),
            WarningKind::RedirectNotFollowed => "redirect_not_followed",
            WarningKind::OauthTokenRefused => "oauth_token_refused",
            WarningKind::SecretUnresolved => "secret_unresolved",
            WarningKind::FailingFor72Hours => "failing_for_72_hours",
            WarningKind::Other(s) => s,
        }
    }

    /// Reads a stored code; never fails (an unknown one is
    /// [`WarningKind::Other`]).
    pub fn parse(s: &str) -> Self {
        Self::KNOWN
            .into_iter()
            .find(|k| k.as_str() == s)
            .unwrap_or_else(|| WarningKind::Other(s.to_owned()))
    }
}

impl fmt::Display for WarningKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for WarningKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for WarningKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(WarningKind::parse(&s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::{FailureCode, HealthWarning, TokenFailure};

    #[test]
    fn every_known_kind_reads_back_from_its_code() {
        for k in WarningKind::KNOWN {
            assert_eq!(WarningKind::parse(k.as_str()), k);
            assert_eq!(
                serde_json::to_string(&k).unwrap(),
                format!("\"{}\"", k.as_str())
            );
        }
    }

    #[test]
    fn the_codes_are_the_ones_of_their_sources() {
        assert_eq!(WarningKind::BlockedAddress.as_str(), "blocked_address");
        assert_eq!(
            WarningKind::SecretUnresolved.as_str(),
            FailureCode::SecretUnresolved.to_string()
        );
        let redirect = HealthWarning::RedirectNotFollowed {
            status: 301,
            location: None,
        };
        assert_eq!(redirect.kind().as_str(), "redirect_not_followed");
        let refused = HealthWarning::TokenRefused {
            failure: TokenFailure::InvalidResponse,
        };
        assert_eq!(refused.kind().as_str(), "oauth_token_refused");
        assert_eq!(
            WarningKind::FailingFor72Hours.as_str(),
            "failing_for_72_hours"
        );
    }

    #[test]
    fn an_unknown_stored_code_is_kept_as_it_was() {
        let k = WarningKind::parse("gone");
        assert_eq!(k, WarningKind::Other("gone".into()));
        assert_eq!(serde_json::to_string(&k).unwrap(), r#""gone""#);
        let back: WarningKind = serde_json::from_str(r#""gone""#).unwrap();
        assert_eq!(back, k);
    }
}
