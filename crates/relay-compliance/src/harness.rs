//! A store, the dispatcher and the guard, wired as `relay serve` wires them,
//! around one peer; the clock is injected.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use relay_core::id::IdKind;
use relay_core::model::{
    Attempt, Consumer, ConsumerKind, ContentMode, Endpoint, Environment, Message, MessageState,
    SignatureScheme, Tenant, fixture,
};
use relay_core::sealed::MasterKey;
use relay_core::signature::SigningKey;
use relay_core::time::{Clock, ManualClock, Timestamp};
use relay_engine::{Dispatcher, EngineConfig};
use relay_net::{Guard, HttpsClient, Limits};
use relay_store::conformance::TestDb;
use relay_store::{EndpointLimits, MessageFilter, NewEvent, PageRequest, Scope, Store, new_id};
use serde_json::value::RawValue;

use crate::Peer;

const MASTER: [u8; 32] = [7; 32];

/// One message as the peer received it: the body and the signature values
/// (HTTPS headers, broker properties).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Received {
    pub body: Vec<u8>,
    pub webhook_id: String,
    pub webhook_timestamp: String,
    pub webhook_signature: String,
    /// A binary-mode message's CloudEvents context attributes, named as in
    /// the specification (`id`, `datacontenttype`, …) after the peer undid
    /// its binding's naming; `None` for a structured-mode message.
    pub binary: Option<Vec<(String, String)>>,
}

/// What the harness's log subscriber wrote, for the secrets case.
#[derive(Clone, Default)]
pub struct Logs(Arc<Mutex<Vec<u8>>>);

impl Logs {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().map(|b| b.clone()).unwrap_or_default()).into_owned()
    }
}

impl std::io::Write for Logs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut b) = self.0.lock() {
            b.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Logs {
    type Writer = Logs;
    fn make_writer(&'a self) -> Logs {
        self.clone()
    }
}

/// The wiring around one peer.
pub struct Harness<P: Peer> {
    pub peer: P,
    pub db: TestDb,
    pub clock: Arc<ManualClock>,
    pub dispatcher: Arc<Dispatcher>,
    pub scope: Scope,
    pub endpoint: Endpoint,
    /// The endpoint's signing key (`v1`, an HMAC secret: the secrets case
    /// looks for it).
    pub key: SigningKey,
    pub logs: Logs,
    /// A second endpoint (HTTPS, its own receiver) when the case asked for
    /// one ([`Harness::start_with_neighbour`]).
    pub neighbour: Option<crate::neighbour::Neighbour>,
    published: Mutex<u32>,
}

/// The whole-attempt timeout of the harness (the timeout case waits this
/// long once, in real time: a peer that never answers is only noticed by
/// the client's own timer).
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_millis(1500);

impl<P: Peer> Harness<P> {
    /// `None` when the backend or the peer is not available (already said
    /// `SKIPPED`).
    pub async fn start(postgres: bool, test: &str, mode: ContentMode) -> Option<Harness<P>> {
        Harness::start_opts(postgres, test, mode, false).await
    }

    /// [`Harness::start`] with a [`crate::neighbour::Neighbour`] endpoint.
    pub async fn start_with_neighbour(postgres: bool, test: &str) -> Option<Harness<P>> {
        Harness::start_opts(postgres, test, ContentMode::Structured, true).await
    }

    async fn start_opts(
        postgres: bool,
        test: &str,
        mode: ContentMode,
        neighbour: bool,
    ) -> Option<Harness<P>> {
        let db = if postgres {
            TestDb::postgres(&format!("compliance {} {test}", P::KIND)).await?
        } else {
            TestDb::sqlite().await
        };
        let peer = P::start().await?;
        let store = db.store.clone();
        let master = MasterKey::from_bytes(MASTER);
        let now = Timestamp::from_millis(1_800_000_000_000);
        let clock = Arc::new(ManualClock::new(now));
        let tenant = Tenant {
            id: new_id(IdKind::Tenant, now),
            name: "acme".into(),
            parent_id: None,
            created_at: now,
        };
        relay_store::conformance::create_tenant(&*store, &tenant).await;
        let scope = Scope {
            tenant_id: tenant.id.clone(),
            environment: Environment::Live,
        };
        let consumer = Consumer {
            id: new_id(IdKind::Consumer, now),
            external_id: "merchant-42".into(),
            kind: ConsumerKind::Customer,
            name: None,
            source: "https://acme.example/merchants/42".into(),
            environment: Environment::Live,
            created_at: now,
            updated_at: now,
        };
        relay_store::conformance::create_consumer(&*store, &scope, &consumer)
            .await
            .unwrap();
        // The cases publish for no consumer: their types are meant for
        // every consumer (`relay_core::audience`), the neighbour's too.
        for name in ["order.shipped", crate::neighbour::NEIGHBOUR_EVENT_TYPE] {
            relay_store::conformance::put_event_type(
                &*store,
                &scope,
                &relay_store::PutEventType {
                    name: name.into(),
                    description: String::new(),
                    schema: serde_json::json!({"type": "object"}),
                    sample: None,
                    thin_fields: Vec::new(),
                    personal_data_fields: Vec::new(),
                    audience: relay_core::audience::Audience::AllConsumers,
                    now,
                },
            )
            .await
            .unwrap();
        }
        let endpoint_id = new_id(IdKind::Endpoint, now);
        let (record, key) =
            relay_store::keys::generate(&master, &endpoint_id, SignatureScheme::V1, now);
        let endpoint = fixture::endpoint(endpoint_id, consumer.id.clone(), now)
            .destination(
                peer.destination()
                    .with_content_mode(mode)
                    .expect("the kind has this content mode")
                    .into(),
            )
            .event_types(&["order.shipped"])
            .signature_scheme(SignatureScheme::V1)
            .build();
        relay_store::conformance::create_endpoint(
            &*store,
            &scope,
            &endpoint,
            &[record],
            EndpointLimits {
                per_tenant: 100,
                per_consumer: 100,
            },
            None,
        )
        .await
        .unwrap();
        let (mut outbound, resolver) = peer.outbound();
        let (neighbour, resolver) = if neighbour {
            let (n, r) = crate::neighbour::Neighbour::start(
                &*store,
                &scope,
                &master,
                now,
                &mut outbound,
                resolver,
            )
            .await;
            (Some(n), r)
        } else {
            (None, resolver)
        };
        let guard = Guard::with_resolver(&outbound, Arc::new(resolver)).expect("guard");
        let mut config = EngineConfig::new("compliance");
        config.secrets = relay_core::secret::SecretPolicy::default()
            .grant(scope.tenant_id.clone(), peer.secret_grant());
        config.limits = Limits {
            connect_timeout: ATTEMPT_TIMEOUT,
            total_timeout: ATTEMPT_TIMEOUT,
            ..Limits::default()
        };
        let dispatcher = Dispatcher::new(
            store,
            clock.clone(),
            HttpsClient::new(guard),
            master,
            config,
        );
        Some(Harness {
            peer,
            db,
            clock,
            dispatcher,
            scope,
            endpoint,
            key,
            logs: Logs::default(),
            neighbour,
            published: Mutex::new(0),
        })
    }

    pub fn store(&self) -> &dyn Store {
        &*self.db.store
    }

    /// Publishes one `order.shipped` event; returns its id.
    pub async fn publish(&self) -> String {
        self.publish_as("evt_compliance", "order.shipped").await
    }

    /// Publishes one event only the neighbour subscribes to.
    pub async fn publish_to_neighbour(&self) -> String {
        self.publish_as("evt_neighbour", crate::neighbour::NEIGHBOUR_EVENT_TYPE)
            .await
    }

    /// Publishes one `order.shipped` event whose `data` is `data` (JSON);
    /// returns its id.
    pub async fn publish_data(&self, data: &str) -> String {
        self.publish_with("evt_compliance", "order.shipped", data)
            .await
    }

    async fn publish_as(&self, prefix: &str, event_type: &str) -> String {
        self.publish_with(prefix, event_type, r#"{"order_id":"1042","carrier":"DHL"}"#)
            .await
    }

    async fn publish_with(&self, prefix: &str, event_type: &str, data: &str) -> String {
        let n = {
            let mut p = self.published.lock().unwrap();
            *p += 1;
            *p
        };
        let id = format!("{prefix}_{n}");
        let now = self.clock.now();
        let outcome = self
            .store()
            .publish(
                &self.scope,
                NewEvent {
                    id: id.clone(),
                    event_type: event_type.into(),
                    type_version: 1,
                    subject: Some("order/1042".into()),
                    data: RawValue::from_string(data.into()).unwrap(),
                    consumer_id: None,
                    ordering_key: None,
                    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                    expires_at: None,
                    time: now,
                    now,
                },
            )
            .await
            .unwrap();
        assert_eq!(outcome.messages_created, 1, "one endpoint subscribes");
        id
    }

    /// One round of the dispatcher: claims what is due, attempts it,
    /// completes it. Returns how many messages it attempted.
    pub async fn round(&self) -> usize {
        self.dispatcher
            .run_once()
            .await
            .expect("a dispatcher round")
    }

    /// The clock moves to the message's next attempt.
    pub fn advance_to_next_attempt(&self, message: &Message) {
        let next = message.next_attempt_at.expect("the message is scheduled");
        if next > self.clock.now() {
            self.clock.set(next);
        }
    }

    /// Rounds until nothing is due, then, at most `passes` times, the clock
    /// past every retry time and the circuit breaker's cool-down (failures
    /// opened it; its probe succeeds and closes it) and rounds again, until
    /// no message waits. Every message that still waits meanwhile is
    /// scheduled for a retry (none is given up on).
    pub async fn retry_until_delivered(&self, passes: usize) {
        while self.round().await > 0 {}
        for _ in 0..passes {
            let waiting: Vec<_> = self
                .messages()
                .await
                .into_iter()
                .filter(|m| m.state != MessageState::Delivered)
                .collect();
            let Some(latest) = waiting.iter().filter_map(|m| m.next_attempt_at).max() else {
                return;
            };
            assert!(
                waiting.iter().all(|m| m.state == MessageState::Scheduled),
                "unacknowledged messages are retried: {waiting:?}"
            );
            let cool_down = relay_core::circuit::BreakerConfig::default().cool_down_millis;
            self.clock
                .set(latest.max(self.clock.now()).plus_millis(cool_down + 1_000));
            while self.round().await > 0 {}
        }
    }

    /// Every message, oldest first.
    pub async fn messages(&self) -> Vec<Message> {
        relay_store::conformance::list_messages(
            self.store(),
            &self.scope,
            &MessageFilter::default(),
            &PageRequest {
                after: None,
                limit: 250,
            },
        )
        .await
        .unwrap()
        .data
    }

    pub async fn only_message(&self) -> Message {
        let page = relay_store::conformance::list_messages(
            self.store(),
            &self.scope,
            &MessageFilter::default(),
            &PageRequest {
                after: None,
                limit: 10,
            },
        )
        .await
        .unwrap();
        assert_eq!(page.data.len(), 1, "{:?}", page.data);
        page.data.into_iter().next().unwrap()
    }

    pub async fn attempts(&self, message: &Message) -> Vec<Attempt> {
        relay_store::conformance::list_attempts(
            self.store(),
            &self.scope,
            &message.id,
            &PageRequest::first(250),
        )
        .await
        .unwrap()
        .data
    }

    /// The signing secret as a consumer holds it (`whsec_…`).
    pub fn whsec(&self) -> String {
        match &self.key {
            SigningKey::Hmac(h) => h.expose_whsec(),
            SigningKey::Ed25519(_) => unreachable!("the harness signs with v1"),
        }
    }
}

/// The received messages once the peer has `n`, or what it has at the
/// deadline (the peer may take a moment to make a message readable).
pub async fn wait_received<P: Peer>(peer: &P, n: usize) -> Vec<crate::Received> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let got = peer.received().await;
        if got.len() >= n || tokio::time::Instant::now() >= deadline {
            return got;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
