use super::*;
use ConsumerKind::{Customer, Tenant};

const OWN: Recipient<'static> = Recipient {
    consumer_id: "con_own",
    kind: Tenant,
};
const ALICE: Recipient<'static> = Recipient {
    consumer_id: "con_alice",
    kind: Customer,
};
const BOB: Recipient<'static> = Recipient {
    consumer_id: "con_bob",
    kind: Customer,
};

fn sent(
    event_type: &'static str,
    consumer_id: Option<&'static str>,
    audience: Audience,
) -> Sent<'static> {
    Sent {
        event_type,
        consumer_id,
        audience,
    }
}

fn subs(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn who_an_event_is_addressed_to() {
    use Audience::{Addressed, AllConsumers};
    // (event, recipient, addressed?)
    let table = [
        // Addressed to a consumer: that consumer only, whatever the audience.
        (
            sent("order.paid", Some("con_alice"), Addressed),
            ALICE,
            true,
        ),
        (sent("order.paid", Some("con_alice"), Addressed), BOB, false),
        (sent("order.paid", Some("con_alice"), Addressed), OWN, false),
        (
            sent("order.paid", Some("con_alice"), AllConsumers),
            BOB,
            false,
        ),
        (sent("order.paid", Some("con_own"), AllConsumers), OWN, true),
        (
            sent("order.paid", Some("con_own"), AllConsumers),
            ALICE,
            false,
        ),
        // Addressed to no one: the tenant's own consumer, customers only
        // when the type is for all consumers.
        (sent("order.paid", None, Addressed), OWN, true),
        (sent("order.paid", None, Addressed), ALICE, false),
        (sent("order.paid", None, AllConsumers), ALICE, true),
        (sent("order.paid", None, AllConsumers), OWN, true),
        // Relay's own events: the tenant's own consumer only, whatever
        // the event says.
        (
            sent("webhook.attempt_exhausted", None, AllConsumers),
            ALICE,
            false,
        ),
        (
            sent("webhook.attempt_exhausted", None, Addressed),
            OWN,
            true,
        ),
        (
            sent("webhook_endpoint.disabled", Some("con_alice"), AllConsumers),
            ALICE,
            false,
        ),
        (sent("email.bounced", None, AllConsumers), BOB, false),
        (sent("email.bounced", None, Addressed), OWN, true),
    ];
    for (event, to, want) in table {
        assert_eq!(addressed_to(&event, &to), want, "{event:?} → {to:?}");
    }
}

#[test]
fn a_wildcard_never_takes_relays_own_events() {
    let table = [
        (subs(&["*"]), "order.paid", true),
        (subs(&["*"]), "webhook.attempt_exhausted", false),
        (subs(&["*"]), "delivery.status_changed", false),
        (
            subs(&["*", "webhook.attempt_exhausted"]),
            "webhook.attempt_exhausted",
            true,
        ),
        (
            subs(&["*", "webhook.attempt_exhausted"]),
            "email.bounced",
            false,
        ),
        (subs(&["order.paid"]), "order.paid", true),
        (subs(&["order.paid"]), "order.shipped", false),
        (subs(&[]), "order.paid", false),
    ];
    for (subscriptions, event_type, want) in table {
        assert_eq!(
            subscribes(&subscriptions, event_type),
            want,
            "{subscriptions:?} ← {event_type}"
        );
    }
}

#[test]
fn reaching_needs_both() {
    let everything = subs(&["*"]);
    let event = sent("order.paid", None, Audience::AllConsumers);
    assert!(reaches(&event, &ALICE, &everything));
    assert!(!reaches(&event, &ALICE, &subs(&["order.shipped"])));
    let event = sent("order.paid", None, Audience::Addressed);
    assert!(!reaches(&event, &ALICE, &everything));
    assert!(reaches(&event, &OWN, &everything));
    // Every built-in type, to a customer subscribed to everything and to
    // it by name (which registration refuses, but the rule does not rely
    // on that): never.
    for t in operational::all() {
        let event = sent(t, None, Audience::AllConsumers);
        assert!(!reaches(&event, &ALICE, &everything), "{t}");
        assert!(!reaches(&event, &ALICE, &subs(&[t])), "{t}");
        assert!(!reaches(&event, &OWN, &everything), "{t}");
        assert!(reaches(&event, &OWN, &subs(&[t])), "{t}");
    }
}

#[test]
fn audience_names_round_trip() {
    for a in [Audience::Addressed, Audience::AllConsumers] {
        assert_eq!(Audience::parse(a.as_str()), Some(a));
        assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
    }
    assert_eq!(Audience::parse("everyone"), None);
    assert_eq!(Audience::default(), Audience::Addressed);
}
