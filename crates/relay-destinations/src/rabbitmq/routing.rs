//! The routing key template: literal text with placeholders filled in per
//! message. Pure.
//!
//! | placeholder | value |
//! |---|---|
//! | `{event_type}` | the event type (`order.shipped`) |
//! | `{environment}` | `live` or `test` |
//! | `{ordering_key}` | the event's ordering key (its subject when published without one; empty when it has neither): with a consistent-hash exchange, the partition key |
//!
//! `{{` and `}}` stand for literal braces; any other brace is refused at
//! registration. The expanded key must fit AMQP's short string (255 bytes).

/// The longest routing key AMQP carries.
pub const MAX_ROUTING_KEY: usize = 255;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Type,
    Environment,
    OrderingKey,
}

/// A parsed routing key template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Vec<Part>);

impl Template {
    /// Parses a template; the error says what is wrong with it.
    pub fn parse(t: &str) -> Result<Template, String> {
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = t;
        while let Some(c) = rest.chars().next() {
            if let Some(r) = rest.strip_prefix("{{") {
                literal.push('{');
                rest = r;
            } else if let Some(r) = rest.strip_prefix("}}") {
                literal.push('}');
                rest = r;
            } else if c == '{' {
                let end = rest.find('}').ok_or_else(|| {
                    "an unclosed `{` (write `{{` for a literal brace)".to_string()
                })?;
                let part = match &rest[1..end] {
                    "event_type" => Part::Type,
                    "environment" => Part::Environment,
                    "ordering_key" => Part::OrderingKey,
                    other => {
                        return Err(format!(
                            "unknown placeholder `{{{other}}}` (known: `{{event_type}}`, `{{environment}}`, `{{ordering_key}}`)"
                        ));
                    }
                };
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                parts.push(part);
                rest = &rest[end + 1..];
            } else if c == '}' {
                return Err("a lone `}` (write `}}` for a literal brace)".into());
            } else {
                literal.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        let t = Template(parts);
        if t.expand("", "", "").len() > MAX_ROUTING_KEY {
            return Err(format!(
                "the routing key's fixed text is longer than {MAX_ROUTING_KEY} bytes"
            ));
        }
        Ok(t)
    }

    /// The key of one message.
    pub fn expand(&self, event_type: &str, environment: &str, ordering_key: &str) -> String {
        let mut key = String::new();
        for part in &self.0 {
            key.push_str(match part {
                Part::Literal(s) => s,
                Part::Type => event_type,
                Part::Environment => environment,
                Part::OrderingKey => ordering_key,
            });
        }
        key
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_expand() {
        let t = Template::parse("relay.{environment}.{event_type}").unwrap();
        assert_eq!(
            t.expand("order.shipped", "live", ""),
            "relay.live.order.shipped"
        );
        assert_eq!(
            Template::parse("orders").unwrap().expand("x", "test", ""),
            "orders"
        );
        assert_eq!(Template::parse("").unwrap().expand("x", "test", ""), "");
        assert_eq!(
            Template::parse("{{literal}}.{event_type}")
                .unwrap()
                .expand("a", "live", ""),
            "{literal}.a"
        );
    }

    #[test]
    fn the_ordering_key_is_a_placeholder() {
        let t = Template::parse("{ordering_key}").unwrap();
        assert_eq!(t.expand("t", "live", "order/1042"), "order/1042");
    }

    #[test]
    fn bad_templates_are_refused() {
        for bad in [
            "{nope}",
            "{event_type",
            "a}b",
            "{",
            "{ event_type }",
            "{type}",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad}");
        }
        assert!(Template::parse(&"k".repeat(256)).is_err());
        assert!(Template::parse(&"k".repeat(255)).is_ok());
    }
}
