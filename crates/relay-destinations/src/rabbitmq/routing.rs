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

use crate::template::Placeholders;

/// The longest routing key AMQP carries.
pub const MAX_ROUTING_KEY: usize = 255;

/// A parsed routing key template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Placeholders);

impl Template {
    /// Parses a template; the error says what is wrong with it.
    pub fn parse(t: &str) -> Result<Template, String> {
        let t = Template(Placeholders::parse(t)?);
        if t.expand("", "", "").len() > MAX_ROUTING_KEY {
            return Err(format!(
                "the routing key's fixed text is longer than {MAX_ROUTING_KEY} bytes"
            ));
        }
        Ok(t)
    }

    /// The key of one message.
    pub fn expand(&self, event_type: &str, environment: &str, ordering_key: &str) -> String {
        self.0.fill(event_type, environment, ordering_key)
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
