//! A second endpoint beside the peer's, for the isolation case: an HTTPS
//! receiver of its own (`relay-receiver`, its own CA) under another
//! consumer, subscribed to another event type, reached through the same
//! guard (its host, port and CA added to the operator's allow list).

use relay_core::id::IdKind;
use relay_core::model::{Consumer, ConsumerKind, Endpoint, Environment, SignatureScheme, fixture};
use relay_core::sealed::MasterKey;
use relay_core::time::Timestamp;
use relay_net::{OutboundConfig, StaticResolver};
use relay_receiver::{Receiver, ReceiverConfig};
use relay_store::{EndpointLimits, Scope, Store, new_id};

/// The neighbour's host name (the guard's resolver answers 127.0.0.1).
pub const NEIGHBOUR_HOST: &str = "neighbour.compliance.test";
/// The event type only the neighbour subscribes to.
pub const NEIGHBOUR_EVENT_TYPE: &str = "order.paid";

/// The other endpoint and its receiver.
pub struct Neighbour {
    pub receiver: Receiver,
    pub endpoint: Endpoint,
}

impl Neighbour {
    /// Starts the receiver, registers its endpoint, and lets the guard
    /// reach it.
    pub(crate) async fn start(
        store: &dyn Store,
        scope: &Scope,
        master: &MasterKey,
        now: Timestamp,
        outbound: &mut OutboundConfig,
        resolver: StaticResolver,
    ) -> (Neighbour, StaticResolver) {
        let receiver = Receiver::start(ReceiverConfig {
            extra_names: vec![NEIGHBOUR_HOST.into()],
            ..Default::default()
        })
        .await
        .expect("the neighbour's receiver");
        outbound.allow_ports.push(receiver.port());
        outbound
            .extra_ca_certs
            .push(receiver.ca_pem_path().to_path_buf());
        let resolver = resolver.with(NEIGHBOUR_HOST, ["127.0.0.1".parse().unwrap()]);
        let consumer = Consumer {
            id: new_id(IdKind::Consumer, now),
            external_id: "neighbour-7".into(),
            kind: ConsumerKind::Customer,
            name: None,
            source: "https://acme.example/merchants/7".into(),
            environment: Environment::Live,
            created_at: now,
            updated_at: now,
        };
        relay_store::conformance::create_consumer(store, scope, &consumer)
            .await
            .unwrap();
        let id = new_id(IdKind::Endpoint, now);
        let (record, _) = relay_store::keys::generate(master, &id, SignatureScheme::V1, now);
        let endpoint = fixture::endpoint(id, consumer.id, now)
            .https(receiver.url_for_host(NEIGHBOUR_HOST, "/neighbour"))
            .event_types(&[NEIGHBOUR_EVENT_TYPE])
            .signature_scheme(SignatureScheme::V1)
            .build();
        relay_store::conformance::create_endpoint(
            store,
            scope,
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
        (Neighbour { receiver, endpoint }, resolver)
    }
}
