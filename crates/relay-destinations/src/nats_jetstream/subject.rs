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
                t if t.starts_with('{') || t.ends_with('}') => {
                    return Err(format!(
                        "unknown placeholder `{t}`: use {{event_type}} or {{environment}} as a whole token"
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
        };
        let cases = [
            ("relay.events", Some("relay.events")),
            (
                "acme.{environment}.{event_type}",
                Some("acme.live.order.shipped"),
            ),
            ("{event_type}", Some("order.shipped")),
            ("a-b_c.D9~", Some("a-b_c.D9~")),
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
}
