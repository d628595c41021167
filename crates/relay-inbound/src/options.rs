//! A source's options: the replay window, Twilio's signed URL, and the
//! generic HMAC preset's header, algorithm, encoding, prefix and event id.

use serde::{Deserialize, Serialize};

use crate::{MAX_TOLERANCE_SECONDS, Preset};

/// Options of one source; which apply depends on its [`Preset`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Options {
    /// Replay window in seconds either side of now, for the schemes that
    /// sign a timestamp (Standard Webhooks, Stripe, SendGrid, Mailgun);
    /// default 300, at most 86,400.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance_seconds: Option<i64>,
    /// Twilio: the exact URL configured at Twilio, when it differs from
    /// the URL the request reached (a proxy in front of Relay). The query
    /// string of the request is not added to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signed_url: Option<String>,
    /// The generic HMAC preset's scheme (required by it, refused by the others).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generic: Option<GenericOptions>,
}

/// How a provider that signs the raw body with an HMAC does it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GenericOptions {
    /// The header carrying the signature, e.g. `X-Signature`.
    pub header: String,
    /// The HMAC's hash (default `sha256`).
    #[serde(default)]
    pub algorithm: HmacAlgorithm,
    /// How the signature is written in the header (default `hex`).
    #[serde(default)]
    pub encoding: SignatureEncoding,
    /// Text before the encoded signature in the header, e.g. `sha256=`.
    #[serde(default)]
    pub prefix: String,
    /// Where the provider event id is: `header:<name>` or `json:<JSON pointer>`.
    #[schema(value_type = String, example = "json:/id")]
    pub event_id: Locator,
    /// Where the event type is (same forms); absent: the type is `event`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, example = "header:X-Event-Type")]
    pub event_type: Option<Locator>,
}

/// The hash of a generic HMAC signature.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum HmacAlgorithm {
    Sha1,
    #[default]
    Sha256,
    Sha512,
}

/// How a generic HMAC signature is written: `hex` or `base64`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignatureEncoding {
    #[default]
    Hex,
    Base64,
}

/// Where a value is in a request: a header, or a JSON pointer into the body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Locator {
    Header(String),
    Json(String),
}

impl Locator {
    pub fn parse(s: &str) -> Option<Locator> {
        if let Some(name) = s.strip_prefix("header:") {
            let ok = !name.is_empty()
                && name.len() <= 100
                && name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
            return ok.then(|| Locator::Header(name.to_owned()));
        }
        if let Some(pointer) = s.strip_prefix("json:") {
            let ok = (pointer.is_empty() || pointer.starts_with('/')) && pointer.len() <= 200;
            return ok.then(|| Locator::Json(pointer.to_owned()));
        }
        None
    }

    fn render(&self) -> String {
        match self {
            Locator::Header(n) => format!("header:{n}"),
            Locator::Json(p) => format!("json:{p}"),
        }
    }
}

impl Serialize for Locator {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.render())
    }
}

impl<'de> Deserialize<'de> for Locator {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Locator::parse(&s).ok_or_else(|| {
            serde::de::Error::custom("expected `header:<name>` or `json:<JSON pointer>`")
        })
    }
}

impl Options {
    /// The options' problems for a source of `preset`, as (field, message).
    pub fn check(&self, preset: Preset) -> Vec<(&'static str, String)> {
        let mut problems = Vec::new();
        if let Some(t) = self.tolerance_seconds {
            if !(1..=MAX_TOLERANCE_SECONDS).contains(&t) {
                problems.push((
                    "options.tolerance_seconds",
                    format!("must be 1 to {MAX_TOLERANCE_SECONDS}"),
                ));
            }
            if matches!(
                preset,
                Preset::Github | Preset::Twilio | Preset::GenericHmac
            ) {
                problems.push((
                    "options.tolerance_seconds",
                    format!("{} signs no timestamp", preset.as_str()),
                ));
            }
        }
        if let Some(url) = &self.signed_url {
            if preset != Preset::Twilio {
                problems.push(("options.signed_url", "applies to twilio only".into()));
            } else if !(url.starts_with("https://") || url.starts_with("http://"))
                || url.len() > 2048
            {
                problems.push(("options.signed_url", "must be an http(s) URL".into()));
            }
        }
        match (&self.generic, preset) {
            (None, Preset::GenericHmac) => {
                problems.push(("options.generic", "required by generic_hmac".into()))
            }
            (Some(_), p) if p != Preset::GenericHmac => {
                problems.push(("options.generic", "applies to generic_hmac only".into()))
            }
            (Some(g), _) => {
                let header_ok = !g.header.is_empty()
                    && g.header.len() <= 100
                    && g.header
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
                if !header_ok {
                    problems.push(("options.generic.header", "must be a header name".into()));
                }
                if g.prefix.len() > 64 {
                    problems.push(("options.generic.prefix", "at most 64 characters".into()));
                }
            }
            (None, _) => {}
        }
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(o: &Options, p: Preset) -> Vec<&'static str> {
        o.check(p).into_iter().map(|(f, _)| f).collect()
    }

    #[test]
    fn options_apply_to_their_presets_only() {
        assert!(fields(&Options::default(), Preset::Stripe).is_empty());
        let window = Options {
            tolerance_seconds: Some(0),
            ..Default::default()
        };
        assert_eq!(
            fields(&window, Preset::Stripe),
            ["options.tolerance_seconds"]
        );
        let window = Options {
            tolerance_seconds: Some(60),
            ..Default::default()
        };
        assert!(fields(&window, Preset::Mailgun).is_empty());
        assert_eq!(
            fields(&window, Preset::Github),
            ["options.tolerance_seconds"]
        );
        let url = Options {
            signed_url: Some("ftp://x".into()),
            ..Default::default()
        };
        assert_eq!(fields(&url, Preset::Twilio), ["options.signed_url"]);
        assert_eq!(fields(&url, Preset::Stripe), ["options.signed_url"]);
        assert_eq!(
            fields(&Options::default(), Preset::GenericHmac),
            ["options.generic"]
        );
        let generic: Options =
            serde_json::from_str(r#"{"generic":{"header":"X Sig","event_id":"json:/id"}}"#)
                .unwrap_or_default();
        assert_eq!(
            fields(&generic, Preset::GenericHmac),
            ["options.generic.header"]
        );
        assert!(
            serde_json::from_str::<Options>(r#"{"generic":{"header":"X","event_id":"body"}}"#)
                .is_err()
        );
        assert!(serde_json::from_str::<Options>(r#"{"unknown":1}"#).is_err());
    }

    #[test]
    fn secrets_are_checked_for_the_presets_that_have_a_shape() {
        assert!(
            Preset::StandardWebhooks
                .check_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
                .is_ok()
        );
        assert!(Preset::StandardWebhooks.check_secret("not a key").is_err());
        assert!(Preset::Sendgrid.check_secret("bm90IGEga2V5").is_err());
        assert!(Preset::Github.check_secret("anything").is_ok());
        assert!(Preset::Github.check_secret("").is_err());
        for p in Preset::ALL {
            assert_eq!(Preset::parse(p.as_str()), Some(p));
        }
    }
}
