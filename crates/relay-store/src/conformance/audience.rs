//! Conformance cases for who may receive an event (`relay_core::audience`,
//! `crate::audience`): publish's fan-out, replay and the test action create
//! exactly the messages the pure rule allows, pair by pair, and the shape
//! source tells the dispatcher whom a message may be sent to.

use std::collections::BTreeSet;

use relay_core::audience::{self, Audience, Recipient, Sent};
use relay_core::model::ConsumerKind;

use super::*;

async fn consumer_of(s: &dyn Store, sc: &Scope, external_id: &str, kind: ConsumerKind) -> Consumer {
    let c = Consumer {
        id: new_id(IdKind::Consumer, T0),
        external_id: external_id.into(),
        kind,
        name: None,
        source: format!("/consumers/{external_id}"),
        environment: sc.environment,
        created_at: T0,
        updated_at: T0,
    };
    create_consumer(s, sc, &c).await.expect("create consumer");
    c
}

async fn event_type(s: &dyn Store, sc: &Scope, name: &str, audience: Audience) {
    put_event_type(
        s,
        sc,
        &PutEventType {
            name: name.into(),
            description: String::new(),
            schema: json!({"type": "object"}),
            sample: None,
            thin_fields: Vec::new(),
            personal_data_fields: Vec::new(),
            audience,
            now: T0,
        },
    )
    .await
    .expect("put event type");
}

/// The events of the world, as published: (id, type, consumer).
struct World {
    live: Scope,
    consumers: Vec<Consumer>,
    events: Vec<(String, &'static str, Option<String>)>,
    subscriptions: Vec<Vec<&'static str>>,
}

const TYPES: [(&str, Audience); 2] = [
    ("order.paid", Audience::Addressed),
    ("catalog.updated", Audience::AllConsumers),
];

fn audience_of(event_type: &str) -> Audience {
    TYPES
        .iter()
        .find(|(t, _)| *t == event_type)
        .map_or(Audience::Addressed, |(_, a)| *a)
}

/// The endpoints (each consumer × each subscription list) `publish` and
/// `replay` are judged on.
async fn endpoints(s: &dyn Store, w: &World) -> Vec<(Endpoint, ConsumerKind)> {
    let mut out = Vec::new();
    for c in &w.consumers {
        for types in &w.subscriptions {
            out.push((endpoint(s, &w.live, &c.id, types).await, c.kind));
        }
    }
    out
}

/// The events the rule gives `e` of a consumer of `kind`.
fn expected(w: &World, e: &Endpoint, kind: ConsumerKind) -> BTreeSet<String> {
    w.events
        .iter()
        .filter(|(_, t, c)| {
            audience::reaches(
                &Sent {
                    event_type: t,
                    consumer_id: c.as_deref(),
                    audience: audience_of(t),
                },
                &Recipient {
                    consumer_id: &e.consumer_id,
                    kind,
                },
                &e.event_types,
            )
        })
        .map(|(id, _, _)| id.clone())
        .collect()
}

async fn received(s: &dyn Store, sc: &Scope, endpoint_id: &str) -> BTreeSet<String> {
    list_messages(
        s,
        sc,
        &MessageFilter {
            endpoint_id: Some(endpoint_id.into()),
            ..Default::default()
        },
        &page(250),
    )
    .await
    .unwrap()
    .data
    .into_iter()
    .map(|m| m.event_id)
    .collect()
}

pub async fn publish_and_replay_give_each_endpoint_what_the_audience_rule_allows(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    for (name, audience) in TYPES {
        event_type(s, &live, name, audience).await;
    }
    let own = consumer_of(s, &live, "itself", ConsumerKind::Tenant).await;
    let alice = consumer_of(s, &live, "alice", ConsumerKind::Customer).await;
    let bob = consumer_of(s, &live, "bob", ConsumerKind::Customer).await;
    let mut w = World {
        live: live.clone(),
        consumers: vec![own.clone(), alice.clone(), bob.clone()],
        events: Vec::new(),
        // Naming a built-in type is refused to a customer at registration;
        // the store's rule does not rely on it.
        subscriptions: vec![
            vec!["*"],
            vec!["order.paid"],
            vec!["catalog.updated", "unlisted.type"],
            vec!["webhook_endpoint.disabled", "email.bounced"],
            vec!["*", "email.bounced"],
        ],
    };
    let at_publish = endpoints(s, &w).await;
    let mut n = 0;
    for event_type in [
        "order.paid",
        "catalog.updated",
        "unlisted.type",
        "email.bounced",
        "webhook_endpoint.disabled",
    ] {
        for to in [None, Some(&own.id), Some(&alice.id), Some(&bob.id)] {
            n += 1;
            let id = format!("evt_{n}");
            let mut ev = new_event(&id, event_type, None);
            ev.consumer_id = to.cloned();
            s.publish(&live, ev).await.unwrap();
            w.events.push((id, event_type, to.cloned()));
        }
    }
    let mut reached = 0;
    for (e, kind) in &at_publish {
        let want = expected(&w, e, *kind);
        reached += want.len();
        assert_eq!(
            received(s, &live, &e.id).await,
            want,
            "publish: {kind:?} subscribed to {:?}",
            e.event_types
        );
    }
    // The matrix is not trivially empty, nor everything.
    assert!(
        reached > 10 && reached < w.events.len() * at_publish.len() / 2,
        "{reached}"
    );

    // Endpoints created afterwards get, by replay, what publish would have
    // given them, however the replay is narrowed.
    let later = endpoints(s, &w).await;
    let audit = |id: &str| crate::AuditEntry {
        id: new_id(IdKind::Audit, T0),
        actor: "test".into(),
        action: "endpoint.replayed".into(),
        target: id.into(),
        parameters: json!({}),
        at: T0.plus_millis(1),
    };
    let every_type: Vec<String> = [
        "*",
        "order.paid",
        "catalog.updated",
        "unlisted.type",
        "email.bounced",
        "webhook_endpoint.disabled",
    ]
    .iter()
    .map(|t| t.to_string())
    .collect();
    for (i, (e, kind)) in later.iter().enumerate() {
        // Half the endpoints name every type outright.
        let narrowed = (i % 2 == 1).then_some(every_type.as_slice());
        let created = crate::recovery::replay(
            s,
            &live,
            &e.id,
            T0,
            T0.plus_millis(1),
            narrowed,
            &audit(&e.id),
        )
        .await
        .unwrap();
        let want = expected(&w, e, *kind);
        assert_eq!(created, want.len() as u64, "replay of {:?}", e.event_types);
        assert_eq!(
            received(s, &live, &e.id).await,
            want,
            "replay: {kind:?} subscribed to {:?}",
            e.event_types
        );
    }

    // The test action: a test event is one like any other.
    let alices = &later
        .iter()
        .find(|(e, _)| e.consumer_id == alice.id && e.event_types == ["*"])
        .unwrap()
        .0;
    for (event_type, to, allowed) in [
        ("order.paid", Some(&alice.id), true),
        ("order.paid", Some(&bob.id), false),
        ("order.paid", None, false),
        ("catalog.updated", None, true),
        ("email.bounced", None, false),
    ] {
        let mut ev = new_event(&new_id(IdKind::Event, T0), event_type, None);
        ev.consumer_id = to.cloned();
        let got =
            publish_to_endpoint(s, &live, &alices.id, ev, "node-1", T0.plus_millis(30_000)).await;
        match (allowed, got) {
            (true, Ok(c)) => assert_eq!(c.endpoint.id, alices.id),
            (false, Err(StoreError::Conflict("not_addressed"))) => {}
            (_, other) => panic!(
                "test of {event_type} to {to:?}: {:?}",
                other.map(|c| c.message.id)
            ),
        }
    }

    // The shape source says whom the endpoint's messages of a type may go to.
    for (e, kind) in [&at_publish[0], &at_publish[5]] {
        for (name, audience) in TYPES {
            let source = shape_source(
                s,
                &ShapeKey {
                    tenant_id: t.id.clone(),
                    environment: Environment::Live,
                    endpoint_id: e.id.clone(),
                    endpoint_version: 1,
                    event_type: name.into(),
                },
            )
            .await
            .unwrap()
            .unwrap();
            assert_eq!(
                (
                    source.consumer_id.as_str(),
                    source.consumer_kind,
                    source.audience
                ),
                (e.consumer_id.as_str(), *kind, audience)
            );
        }
    }
}
