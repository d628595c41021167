//! The subject an endpoint publishes to: a literal subject, or a template
//! whose placeholders are whole tokens. Pure.
//!
//! A subject is dot-separated tokens. A literal token is 1 or more
//! printable ASCII characters other than `.`, `*`, `>`, `{` and `}` (so a
//! subject never holds a wildcard, which a publish cannot use); a
//! placeholder token is one of:
//!
//! | placeholder | becomes |
//! |---|---|
//! | `{event_type}` | the event type, one token per segment (`order.shipped` → `order.shipped`) |
//! | `{environment}` | `live` or `test` |
//! | `{ordering_key}` | the event's ordering key (its subject when published without one) as **one** token: each byte that a token may not hold (`.`, `*`, `>`, `{`, `}`, `%`, space, anything outside printable ASCII) is written `%XX` (upper-case hex), so one key is always the same token; `_` when the event has neither |
//!
//! With the ordering key as one token, a server-side subject mapping
//! partitions by it: `{{partition(N,k)}}` over the token's wildcard puts
//! every event of one key in the same partition (docs/destinations.md).
//!
//! The first token may not start with `$` (`$JS.API.…`, `$SYS.…` are the
//! server's own API: a publish there is a command, not a message).

use relay_core::model::Environment;

/// The longest subject template accepted.
pub const MAX_SUBJECT: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    EventType,
    Environment,
    OrderingKey,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(String),
    Placeholder(Part),
}

/// A checked subject template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    tokens: Vec<Token>,
}

/// What a message's subject is made of.
#[derive(Debug, Clone, Copy)]
pub struct Values<'a> {
    pub event_type: &'a str,
    pub environment: Environment,
    pub ordering_key: Option<&'a str>,
}

/// The token an ordering key becomes when none is set.
pub const NO_ORDERING_KEY: &str = "_";

/// Appends `key` as one subject token (see the module's table).
pub fn push_key_token(out: &mut String, key: Option<&str>) {
    match key {
        None | Some("") => out.push_str(NO_ORDERING_KEY),
        Some(k) => {
            for b in k.bytes() {
                if b.is_ascii_graphic() && !matches!(b, b'.' | b'*' | b'>' | b'{' | b'}' | b'%') {
                    out.push(char::from(b));
                } else {
                    out.push_str(&format!("%{b:02X}"));
                }
            }
        }
    }
}

fn literal_ok(token: &str) -> bool {
    !token.is_empty()
        && token
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'.' | b'*' | b'>' | b'{' | b'}'))
}

impl Template {
    /// Checks a template; the error says what is wrong (never echoes more
    /// than the offending token).
    pub fn parse(template: &str) -> Result<Template, String> {
        if template.is_empty() || template.len() > MAX_SUBJECT {
            return Err(format!("the subject must be 1 to {MAX_SUBJECT} bytes"));
        }
        let mut tokens = Vec::new();
        for (i, raw) in template.split('.').enumerate() {
            let token = match raw {
                "{event_type}" => Token::Placeholder(Part::EventType),
                "{environment}" => Token::Placeholder(Part::Environment),
                "{ordering_key}" => Token::Placeholder(Part::OrderingKey),
                t if t.starts_with('{') || t.ends_with('}') => {
                    return Err(format!(
                        "unknown placeholder `{t}`: use {{event_type}}, {{environment}} or {{ordering_key}} as a whole token"
                    ));
                }
                "" => {
                    return Err(
                        "the subject has an empty token (`..`, or a leading or trailing `.`)"
                            .into(),
                    );
                }
                t if !literal_ok(t) => {
                    return Err(format!(
                        "token `{t}` must be printable ASCII without `*`, `>`, `{{`, `}}` or spaces"
                    ));
                }
                t if i == 0 && t.starts_with('$') => {
                    return Err("subjects starting with `$` are the server's own API".into());
                }
                t => Token::Literal(t.to_string()),
            };
            tokens.push(token);
        }
        Ok(Template { tokens })
    }

    /// The subject of one message.
    pub fn render(&self, v: &Values<'_>) -> String {
        let mut out = String::with_capacity(64);
        for (i, t) in self.tokens.iter().enumerate() {
            if i > 0 {
                out.push('.');
            }
            match t {
                Token::Literal(s) => out.push_str(s),
                Token::Placeholder(Part::EventType) => out.push_str(v.event_type),
                Token::Placeholder(Part::Environment) => out.push_str(v.environment.as_str()),
                Token::Placeholder(Part::OrderingKey) => push_key_token(&mut out, v.ordering_key),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates() {
        let v = Values {
            event_type: "order.shipped",
            environment: Environment::Live,
            ordering_key: Some("customer-42"),
        };
        let cases = [
            ("relay.events", Some("relay.events")),
            (
                "acme.{environment}.{event_type}",
                Some("acme.live.order.shipped"),
            ),
            ("{event_type}", Some("order.shipped")),
            ("a-b_c.D9~", Some("a-b_c.D9~")),
            ("orders.{ordering_key}", Some("orders.customer-42")),
            (
                "{environment}.{event_type}.{ordering_key}",
                Some("live.order.shipped.customer-42"),
            ),
            ("a.{ordering_key}x", None),
            ("", None),
            ("a..b", None),
            (".a", None),
            ("a.", None),
            ("a.*", None),
            ("a.>", None),
            ("a b", None),
            ("a.{ordering}", None),
            ("a.x{event_type}", None),
            ("$JS.API.STREAM.DELETE.X", None),
            ("ünïcode", None),
        ];
        for (template, want) in cases {
            let got = Template::parse(template).map(|t| t.render(&v));
            assert_eq!(got.ok().as_deref(), want, "{template}");
        }
        assert!(Template::parse("a.$b").is_ok(), "only the first token");
        assert!(Template::parse(&"a".repeat(MAX_SUBJECT + 1)).is_err());
        let test = Values {
            environment: Environment::Test,
            ..v
        };
        assert_eq!(
            Template::parse("x.{environment}").unwrap().render(&test),
            "x.test"
        );
    }

    #[test]
    fn an_ordering_key_is_one_token() {
        let t = Template::parse("o.{ordering_key}").unwrap();
        let render = |key| {
            t.render(&Values {
                event_type: "a",
                environment: Environment::Live,
                ordering_key: key,
            })
        };
        let cases = [
            (None, "o._"),
            (Some(""), "o._"),
            (Some("customer-42"), "o.customer-42"),
            (Some("a.b"), "o.a%2Eb"),
            (Some("*>"), "o.%2A%3E"),
            (Some("{x}"), "o.%7Bx%7D"),
            (Some("50% off"), "o.50%25%20off"),
            (Some("é"), "o.%C3%A9"),
            (Some("tab\t"), "o.tab%09"),
        ];
        for (key, want) in cases {
            let got = render(key);
            assert_eq!(got, want, "{key:?}");
            // One token, and a valid literal one.
            let token = got.strip_prefix("o.").unwrap();
            assert!(!token.contains('.'), "{got}");
            assert!(Template::parse(&got).is_ok(), "{got}");
        }
    }
}
