//! The topic template: literal text with placeholders filled in per
//! message. Pure.
//!
//! | placeholder | value |
//! |---|---|
//! | `{event_type}` | the event type (`order.shipped`) |
//! | `{environment}` | `live` or `test` |
//! | `{ordering_key}` | the event's ordering key (its subject when published without one; empty when it has neither) |
//!
//! `{{` and `}}` stand for literal braces; any other brace is refused at
//! registration, as are the wildcards `+` and `#`, NUL, and a leading `$`
//! (topics starting with `$` belong to the broker, MQTT §4.7.2). A filled-in
//! topic must still be a topic name: not empty, at most [`MAX_TOPIC`] bytes,
//! without wildcards or NUL (an ordering key may hold them; such a message
//! is dead-lettered as `invalid_destination`).

use crate::template::Placeholders;

/// The longest topic accepted (MQTT allows 65535 bytes; brokers often
/// fewer).
pub const MAX_TOPIC: usize = 1024;

/// A parsed topic template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template(Placeholders);

/// Why a topic name is not one MQTT can publish to.
fn topic_error(t: &str) -> Option<String> {
    if t.contains(['+', '#']) {
        return Some("a topic name has no wildcards (`+`, `#`)".into());
    }
    if t.contains('\0') {
        return Some("a topic name has no NUL character".into());
    }
    if t.len() > MAX_TOPIC {
        return Some(format!(
            "the topic is {} bytes, more than {MAX_TOPIC}",
            t.len()
        ));
    }
    None
}

impl Template {
    /// Parses a template; the error says what is wrong with it.
    pub fn parse(t: &str) -> Result<Template, String> {
        if t.is_empty() {
            return Err("the topic is empty".into());
        }
        if t.starts_with('$') {
            return Err("topics starting with `$` belong to the broker".into());
        }
        let t = Template(Placeholders::parse(t)?);
        match topic_error(&t.fill("", "", "")) {
            Some(e) => Err(e),
            None => Ok(t),
        }
    }

    /// The template filled in, checked for nothing.
    pub(crate) fn fill(&self, event_type: &str, environment: &str, ordering_key: &str) -> String {
        self.0.fill(event_type, environment, ordering_key)
    }

    /// The topic of one message, or why it is not a topic name.
    pub fn expand(
        &self,
        event_type: &str,
        environment: &str,
        ordering_key: &str,
    ) -> Result<String, String> {
        let t = self.fill(event_type, environment, ordering_key);
        if t.is_empty() {
            return Err("the topic is empty once filled in".into());
        }
        if t.starts_with('$') {
            return Err("the topic starts with `$` once filled in".into());
        }
        match topic_error(&t) {
            Some(e) => Err(e),
            None => Ok(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_expand() {
        let t = Template::parse("relay/{environment}/{event_type}").unwrap();
        assert_eq!(
            t.expand("order.shipped", "live", "").unwrap(),
            "relay/live/order.shipped"
        );
        assert_eq!(
            Template::parse("{{x}}/{ordering_key}")
                .unwrap()
                .expand("a", "live", "order/1042")
                .unwrap(),
            "{x}/order/1042"
        );
    }

    #[test]
    fn bad_templates_are_refused() {
        for bad in [
            "",
            "{nope}",
            "{event_type",
            "a}b",
            "a/+/b",
            "a/#",
            "$SYS/x",
            "a\0b",
            "{ event_type }",
        ] {
            assert!(Template::parse(bad).is_err(), "{bad:?}");
        }
        assert!(Template::parse(&"t".repeat(MAX_TOPIC + 1)).is_err());
        assert!(Template::parse(&"t".repeat(MAX_TOPIC)).is_ok());
    }

    #[test]
    fn a_filled_in_topic_must_be_a_topic_name() {
        let t = Template::parse("{ordering_key}").unwrap();
        assert!(t.expand("t", "live", "").is_err(), "empty");
        assert!(t.expand("t", "live", "a/+").is_err(), "a wildcard");
        assert!(t.expand("t", "live", "$SYS").is_err(), "the broker's");
        assert!(t.expand("t", "live", &"k".repeat(MAX_TOPIC + 1)).is_err());
        assert_eq!(t.expand("t", "live", "order/1").unwrap(), "order/1");
    }
}
