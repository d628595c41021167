//! Destination name templates (an MQTT topic, a RabbitMQ routing key):
//! literal text with `{event_type}`, `{environment}` and `{ordering_key}`
//! filled in per message; `{{` and `}}` stand for literal braces, and any
//! other brace is refused. Pure. Each kind checks the filled-in name by its
//! own rules.

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Type,
    Environment,
    OrderingKey,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholders(Vec<Part>);

impl Placeholders {
    /// Parses a template; the error says what is wrong with it.
    pub fn parse(t: &str) -> Result<Placeholders, String> {
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
        Ok(Placeholders(parts))
    }

    /// The template with the placeholders filled in.
    pub fn fill(&self, event_type: &str, environment: &str, ordering_key: &str) -> String {
        let mut out = String::new();
        for part in &self.0 {
            out.push_str(match part {
                Part::Literal(s) => s,
                Part::Type => event_type,
                Part::Environment => environment,
                Part::OrderingKey => ordering_key,
            });
        }
        out
    }
}
