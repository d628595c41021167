//! Each kind's limits as stated in its `limits.rs`, through [`crate::admit`]
//! and [`crate::capacity_warning`] as the engine and the API call them.

use crate::https::HttpsDestination;
use crate::kafka::{KafkaBroker, KafkaDestination};
use crate::mqtt::{MqttDestination, MqttVersion};
use crate::rabbitmq::RabbitMqDestination;
use bytes::Bytes;
use relay_core::model::ContentMode;

use crate::test_message::prepared;
use crate::{Unfit, admit, capacity_warning};

/// Relay's default delivery limit (`[limits] max_request_bytes`).
const DELIVERY_LIMIT: u64 = 1024 * 1024;

fn kafka() -> crate::Config {
    crate::Config::Kafka(KafkaDestination {
        bootstrap: vec![KafkaBroker {
            host: "kafka.example".into(),
            port: 9092,
        }],
        topic: "orders".into(),
        content_mode: ContentMode::Structured,
        tls: false,
        client_certificate: None,
        client_key: None,
        sasl: None,
    })
}

fn rabbitmq(routing_key: &str) -> crate::Config {
    crate::Config::RabbitMq(RabbitMqDestination {
        host: "rabbit.example".into(),
        port: 5672,
        tls: false,
        virtual_host: "/".into(),
        exchange: "events".into(),
        routing_key: routing_key.into(),
        username: None,
        password: None,
        content_mode: ContentMode::Structured,
    })
}

fn mqtt() -> crate::Config {
    crate::Config::Mqtt(MqttDestination {
        host: "mqtt.example".into(),
        port: 1883,
        tls: false,
        topic: "relay/{environment}/{ordering_key}".into(),
        protocol_version: MqttVersion::V5,
        client_id: None,
        username: None,
        password: None,
        content_mode: ContentMode::Structured,
    })
}

#[test]
fn kinds_whose_default_limit_is_below_the_delivery_limit_warn_at_registration() {
    let w = capacity_warning(&kafka(), DELIVERY_LIMIT).expect("Kafka warns");
    assert!(w.contains("1000000 bytes"), "{w}");
    assert!(w.contains("message.max.bytes"), "{w}");
    let nats = crate::nats_jetstream::limits::CAPACITY;
    assert!(super::warning(&nats, DELIVERY_LIMIT).is_some());
    // With a lower delivery limit they carry every body.
    assert_eq!(capacity_warning(&kafka(), 512 * 1024), None);
    for d in [rabbitmq("{event_type}"), mqtt()] {
        assert_eq!(capacity_warning(&d, DELIVERY_LIMIT), None, "{d:?}");
    }
    for c in [
        crate::https::limits::CAPACITY,
        crate::redis_stream::limits::CAPACITY,
        crate::s3::limits::CAPACITY,
    ] {
        assert_eq!(super::warning(&c, DELIVERY_LIMIT), None, "{c:?}");
    }
    let https = crate::Config::Https(HttpsDestination {
        a2a_push: None,
        url: "https://example.com/hook".into(),
        auth: None,
        headers: Vec::new(),
    });
    assert_eq!(capacity_warning(&https, DELIVERY_LIMIT), None);
}

#[test]
fn a_kafka_record_counts_its_key_and_headers_against_message_max_bytes() {
    let mut p = prepared(ContentMode::Structured);
    let small = crate::kafka::limits::record_bytes(&p);
    assert!(small > p.body.len() as u64 + 100, "headers count: {small}");
    assert_eq!(admit(&kafka(), &p), Ok(()));
    // A body that fits alone but not with its headers.
    p.body = Bytes::from(vec![b'x'; 999_990]);
    match admit(&kafka(), &p) {
        Err(Unfit::TooLarge { size, max }) => {
            assert_eq!(max, 1_000_000);
            assert_eq!(size, crate::kafka::limits::record_bytes(&p));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_address_longer_than_the_kind_carries_is_refused_before_the_attempt() {
    let mut p = prepared(ContentMode::Structured);
    let d = rabbitmq("relay.{environment}.{ordering_key}");
    p.ordering_key = Some("k".repeat(200));
    assert_eq!(admit(&d, &p), Ok(()), "relay.live. + 200 bytes fits");
    p.ordering_key = Some("k".repeat(250));
    assert_eq!(
        admit(&d, &p),
        Err(Unfit::AddressTooLong {
            name: "routing_key",
            len: "relay.live.".len() + 250,
            max: 255,
        })
    );
    assert_eq!(
        admit(&d, &p).unwrap_err().reason().as_str(),
        "address_too_long"
    );
    // An MQTT topic: 1,024 bytes (Relay's bound).
    p.ordering_key = Some("k".repeat(1_000));
    assert_eq!(admit(&mqtt(), &p), Ok(()));
    p.ordering_key = Some("k".repeat(1_100));
    assert_eq!(
        admit(&mqtt(), &p),
        Err(Unfit::AddressTooLong {
            name: "topic",
            len: "relay/live/".len() + 1_100,
            max: 1_024,
        })
    );
}
