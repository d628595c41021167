//! Who may receive an event: the one rule every path that creates a message
//! (publish, Relay's operational events, replay, test sends) and every
//! attempt (so recover, bulk retry and resend too) applies.
//!
//! A message of an event goes to an endpoint only when both hold:
//!
//! - **[`subscribes`]**: the endpoint's subscriptions name the event's type,
//!   or hold `*`, which stands for every type but Relay's own
//!   ([`crate::operational`]): those are reached only by name.
//! - **[`addressed_to`]**: the event is meant for the endpoint's consumer.
//!   - Relay's own events (about the tenant's endpoints, its other
//!     customers' among them) are meant for the tenant's own consumer
//!     (kind `tenant`) only, never for a customer.
//!   - An event published with a `consumer_id` is meant for that consumer
//!     only.
//!   - An event published without one is meant for the tenant's own
//!     consumer, and for its customers only when its type's
//!     [`Audience`] is [`Audience::AllConsumers`] (the tenant's explicit
//!     choice: `PUT /v1/event-types/{name}` with `"audience":
//!     "all_consumers"`).
//!
//! The store's fan-out and replay queries express the same rule in SQL (to
//! read only the rows it allows) and then apply these functions to what
//! they read; the conformance suite checks that both agree. The dispatcher
//! checks [`addressed_to`] again before every attempt: a message the rule
//! no longer allows (one created before the rule, or whose type's audience
//! was narrowed since) ends without being sent.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::model::ConsumerKind;
use crate::operational;

/// Whom an event type's events published without a `consumer_id` are for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// The tenant's own consumer only: a customer receives the type's events
    /// only when they name it as their `consumer_id`. The default.
    #[default]
    Addressed,
    /// Every consumer subscribed to the type, customers included (an
    /// announcement meant for all of them).
    AllConsumers,
}

impl Audience {
    pub const fn as_str(self) -> &'static str {
        match self {
            Audience::Addressed => "addressed",
            Audience::AllConsumers => "all_consumers",
        }
    }

    pub fn parse(s: &str) -> Option<Audience> {
        match s {
            "addressed" => Some(Audience::Addressed),
            "all_consumers" => Some(Audience::AllConsumers),
            _ => None,
        }
    }
}

/// What the rule needs of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent<'a> {
    pub event_type: &'a str,
    /// The consumer the event was published for, if any.
    pub consumer_id: Option<&'a str>,
    /// Its type's audience (a type not in the catalog: [`Audience::Addressed`]).
    pub audience: Audience,
}

/// What the rule needs of an endpoint's consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recipient<'a> {
    pub consumer_id: &'a str,
    pub kind: ConsumerKind,
}

/// Whether `event` is meant for the consumer `to` (see the module's rule).
pub fn addressed_to(event: &Sent<'_>, to: &Recipient<'_>) -> bool {
    if operational::is_operational(event.event_type) {
        return to.kind == ConsumerKind::Tenant;
    }
    match event.consumer_id {
        Some(c) => c == to.consumer_id,
        None => to.kind == ConsumerKind::Tenant || event.audience == Audience::AllConsumers,
    }
}

/// Whether subscriptions `subscriptions` take events of `event_type`: named,
/// or `*` for any type but Relay's own.
pub fn subscribes(subscriptions: &[String], event_type: &str) -> bool {
    subscriptions
        .iter()
        .any(|s| s == event_type || (s == "*" && !operational::is_operational(event_type)))
}

/// Whether an endpoint of `to` subscribed to `subscriptions` gets a message
/// of `event`: [`subscribes`] and [`addressed_to`].
pub fn reaches(event: &Sent<'_>, to: &Recipient<'_>, subscriptions: &[String]) -> bool {
    subscribes(subscriptions, event.event_type) && addressed_to(event, to)
}

#[cfg(test)]
mod tests;
