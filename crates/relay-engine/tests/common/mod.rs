//! A store, a dispatcher and a real HTTPS receiver on loopback, wired the way
//! `relay serve` wires them; the outbound guard is opened for the receiver
//! through operator settings (`allow_ports`, `allow_cidrs`, `extra_ca_certs`),
//! never bypassed.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use relay_core::id::IdKind;
use relay_core::model::{
    Consumer, Endpoint, Environment, Message, SignatureScheme, Tenant, fixture,
};
use relay_core::sealed::MasterKey;
use relay_core::signature::SigningKey;
use relay_core::time::{Clock, ManualClock, Timestamp};
use relay_engine::{Dispatcher, EngineConfig};
use relay_net::{Guard, HttpsClient, OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, Receiver, ReceiverConfig};
use relay_store::conformance::TestDb;
use relay_store::{EndpointLimits, MessageFilter, NewEvent, PageRequest, Scope, Store, new_id};
use serde_json::value::RawValue;

pub const MASTER: [u8; 32] = [9; 32];

/// The wall clock, for tests that run the background loop.
pub struct WallClock;

impl Clock for WallClock {
    fn now(&self) -> Timestamp {
        Timestamp(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
        )
    }
}

pub fn wall_now() -> Timestamp {
    WallClock.now()
}

pub struct Env {
    pub db: TestDb,
    pub clock: Arc<ManualClock>,
    pub dispatcher: Arc<Dispatcher>,
    pub receiver: Receiver,
    pub scope: Scope,
    pub consumer: Consumer,
    pub endpoint: Endpoint,
    pub key: SigningKey,
    pub config: EngineConfig,
}

pub struct Setup {
    pub behavior: Behavior,
    pub scheme: SignatureScheme,
    pub verify: bool,
    pub postgres: bool,
    /// Host used in the endpoint URL (resolved by a static resolver).
    pub host: &'static str,
    /// Address the static resolver answers for `host`.
    pub resolves_to: &'static str,
    /// Whether 127.0.0.1 is allowed by the operator's settings.
    pub allow_loopback: bool,
    pub tune: fn(&mut EngineConfig),
    pub wall_clock: bool,
    /// Changes the endpoint before it is created (its limits, …).
    pub endpoint: fn(&mut Endpoint),
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            behavior: Behavior::ok(),
            scheme: SignatureScheme::V1a,
            verify: true,
            postgres: false,
            host: "receiver.test",
            resolves_to: "127.0.0.1",
            allow_loopback: true,
            tune: |_| {},
            wall_clock: false,
            endpoint: |_| {},
        }
    }
}

pub fn guard_for(
    receiver: &Receiver,
    host: &str,
    resolves_to: &str,
    allow_loopback: bool,
) -> Guard {
    let config = OutboundConfig {
        allow_ports: vec![receiver.port()],
        allow_cidrs: if allow_loopback {
            vec!["127.0.0.1/32".into()]
        } else {
            vec![]
        },
        block_cidrs: vec![],
        extra_ca_certs: vec![receiver.ca_pem_path().to_path_buf()],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new().with(host, [resolves_to.parse().expect("ip")]);
    Guard::with_resolver(&config, Arc::new(resolver)).expect("guard")
}

impl Env {
    /// `None` when PostgreSQL was asked for and is not configured (skipped).
    pub async fn start(setup: Setup) -> Option<Env> {
        let db = if setup.postgres {
            TestDb::postgres("engine").await?
        } else {
            TestDb::sqlite().await
        };
        let store = db.store.clone();
        let master = MasterKey::from_bytes(MASTER);
        let now = wall_now();
        let clock = Arc::new(ManualClock::new(now));
        // Create the endpoint first so the receiver can verify with its key.
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
            kind: relay_core::model::ConsumerKind::Customer,
            name: None,
            source: "https://acme.example/merchants/42".into(),
            environment: Environment::Live,
            created_at: now,
            updated_at: now,
        };
        relay_store::conformance::create_consumer(&*store, &scope, &consumer)
            .await
            .unwrap();
        let endpoint_id = new_id(IdKind::Endpoint, now);
        let (record, key) = relay_store::keys::generate(&master, &endpoint_id, setup.scheme, now);
        let receiver = Receiver::start(ReceiverConfig {
            behavior: setup.behavior,
            verify: setup.verify.then(|| vec![key.verification_key()]),
            extra_names: vec![setup.host.to_string()],
            ..Default::default()
        })
        .await
        .expect("receiver");
        let endpoint = fixture::endpoint(endpoint_id, consumer.id.clone(), now)
            .https(receiver.url_for_host(setup.host, "/hooks"))
            .event_types(&["order.shipped"])
            .signature_scheme(setup.scheme)
            .build();
        let mut endpoint = endpoint;
        (setup.endpoint)(&mut endpoint);
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
        let guard = guard_for(
            &receiver,
            setup.host,
            setup.resolves_to,
            setup.allow_loopback,
        );
        let mut config = EngineConfig::new("test");
        (setup.tune)(&mut config);
        let engine_clock: Arc<dyn Clock> = if setup.wall_clock {
            Arc::new(WallClock)
        } else {
            clock.clone()
        };
        let dispatcher = Dispatcher::new(
            store,
            engine_clock,
            HttpsClient::new(guard),
            master,
            config.clone(),
        );
        Some(Env {
            db,
            clock,
            dispatcher,
            receiver,
            scope,
            consumer,
            endpoint,
            key,
            config,
        })
    }

    pub fn store(&self) -> &dyn Store {
        &*self.db.store
    }

    pub async fn publish(&self, id: &str, data: &str) -> relay_store::PublishOutcome {
        self.publish_with(id, data, None).await
    }

    pub async fn publish_with(
        &self,
        id: &str,
        data: &str,
        expires_at: Option<Timestamp>,
    ) -> relay_store::PublishOutcome {
        self.store()
            .publish(
                &self.scope,
                NewEvent {
                    id: id.into(),
                    event_type: "order.shipped".into(),
                    type_version: 1,
                    subject: Some("order/1042".into()),
                    data: RawValue::from_string(data.into()).unwrap(),
                    // An order of this consumer's (an event for no one
                    // reaches the tenant's own consumer only).
                    consumer_id: Some(self.consumer.id.clone()),
                    ordering_key: None,
                    traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".into(),
                    expires_at,
                    time: self.clock.now(),
                    now: self.clock.now(),
                },
            )
            .await
            .unwrap()
    }

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

    /// The message's attempts, by number.
    pub async fn attempts(&self, message_id: &str) -> Vec<relay_core::model::Attempt> {
        relay_store::conformance::list_attempts(
            self.store(),
            &self.scope,
            message_id,
            &PageRequest::first(250),
        )
        .await
        .unwrap()
        .data
    }

    pub async fn only_message(&self) -> Message {
        let m = self.messages().await;
        assert_eq!(m.len(), 1, "{m:?}");
        m.into_iter().next().unwrap()
    }

    pub async fn endpoint_now(&self) -> Endpoint {
        relay_store::conformance::get_endpoint(self.store(), &self.scope, &self.endpoint.id)
            .await
            .unwrap()
            .unwrap()
    }
}

pub const WAIT: Duration = Duration::from_secs(20);
