//! What the API asks of a destination through the dispatch, for every
//! kind: the hosts its credentials are bound to, its one line for the
//! audit log, and its literal credentials (named, redacted in reads).

mod registration;

use relay_destinations::Config;
use serde_json::json;

fn destination(value: serde_json::Value) -> Config {
    serde_json::from_value(value).expect("a valid destination")
}

/// One destination of every kind, with the hosts its credentials go to
/// and how the audit log names it.
fn every_kind() -> Vec<(Config, Vec<&'static str>, &'static str)> {
    vec![
        (
            destination(json!({
                "kind": "https",
                "url": "https://Hooks.Example/in?x=1",
                "auth": {"oauth2": {
                    "token_url": "https://auth.example:8443/token",
                    "client_id": "relay",
                    "client_secret": "secret:oauth",
                }},
            })),
            vec!["auth.example:8443", "hooks.example:443"],
            "https://Hooks.Example/in?x=1",
        ),
        (
            destination(json!({
                "kind": "redis_stream", "host": "Redis.Example.", "stream": "events",
            })),
            vec!["redis.example:6379"],
            "redis://Redis.Example.:6379/events",
        ),
        (
            destination(json!({
                "kind": "nats_jetstream", "host": "nats.example", "port": 4223,
                "subject": "orders.{event_type}",
            })),
            vec!["nats.example:4223"],
            "nats://nats.example:4223/orders.{event_type}",
        ),
        (
            destination(json!({
                "kind": "rabbitmq", "host": "mq.example", "exchange": "events",
            })),
            vec!["mq.example:5672"],
            "amqp://mq.example:5672///events",
        ),
        (
            destination(json!({
                "kind": "mqtt", "host": "mqtt.example", "port": 8883, "tls": true,
                "topic": "relay/{event_type}",
            })),
            vec!["mqtt.example:8883"],
            "mqtts://mqtt.example:8883/relay/{event_type}",
        ),
        (
            destination(json!({
                "kind": "kafka",
                "bootstrap": [{"host": "k1.example"}, {"host": "K2.example", "port": 9093}],
                "topic": "orders",
            })),
            vec!["k1.example:9092", "k2.example:9093"],
            "kafka://k1.example:9092,K2.example:9093/orders",
        ),
        (
            destination(json!({
                "kind": "s3", "bucket": "archive", "prefix": "relay/", "region": "eu-west-1",
                "access_key_id": "secret:s3-id", "secret_access_key": "secret:s3-key",
            })),
            vec!["s3.eu-west-1.amazonaws.com"],
            "s3://archive/relay/",
        ),
        (
            destination(json!({
                "kind": "s3", "bucket": "archive", "region": "auto",
                "endpoint_url": "https://storage.example:9000",
                "access_key_id": "secret:s3-id", "secret_access_key": "secret:s3-key",
            })),
            vec!["storage.example:9000"],
            "s3://archive/",
        ),
        (
            destination(json!({
                "kind": "sqs",
                "queue_url": "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo",
                "region": "eu-west-1",
                "access_key_id": "secret:sqs-id", "secret_access_key": "secret:sqs-key",
            })),
            vec!["sqs.eu-west-1.amazonaws.com:443"],
            "https://sqs.eu-west-1.amazonaws.com/123456789012/orders.fifo",
        ),
        (
            destination(json!({
                "kind": "pubsub",
                "topic": "projects/acme-prod/topics/orders",
                "endpoint": "https://europe-west1-pubsub.googleapis.com",
                "service_account_key": "secret:gcp-key",
                "ordered": true,
            })),
            vec![
                "europe-west1-pubsub.googleapis.com:443",
                "oauth2.googleapis.com:443",
            ],
            "projects/acme-prod/topics/orders at https://europe-west1-pubsub.googleapis.com",
        ),
        (
            destination(json!({
                "kind": "sns",
                "topic_arn": "arn:aws:sns:eu-west-1:123456789012:orders.fifo",
                "access_key_id": "secret:sns-id", "secret_access_key": "secret:sns-key",
            })),
            vec!["sns.eu-west-1.amazonaws.com:443"],
            "arn:aws:sns:eu-west-1:123456789012:orders.fifo",
        ),
        (
            destination(json!({
                "kind": "eventbridge",
                "event_bus": "orders",
                "region": "eu-west-1",
                "source": "com.acme.orders",
                "access_key_id": "secret:eb-id", "secret_access_key": "secret:eb-key",
            })),
            vec!["events.eu-west-1.amazonaws.com:443"],
            "orders in eu-west-1",
        ),
        (
            destination(json!({
                "kind": "azure_service_bus",
                "namespace": "acme-prod.servicebus.windows.net",
                "entity": "orders",
                "auth": {"entra": {"tenant_id": "contoso.onmicrosoft.com", "client_id": "app", "client_secret": "secret:sb"}},
            })),
            vec![
                "acme-prod.servicebus.windows.net:443",
                "login.microsoftonline.com:443",
            ],
            "orders at acme-prod.servicebus.windows.net",
        ),
    ]
}

#[test]
fn every_kind_names_its_credential_hosts_and_describes_itself() {
    let guard = registration::guard(&[443, 8443, 9000], "hooks.example", false);
    let mut kinds = std::collections::BTreeSet::new();
    for (d, hosts, line) in every_kind() {
        kinds.insert(d.kind());
        let found: Vec<String> = relay_destinations::credential_hosts(&d, &guard)
            .into_iter()
            .collect();
        assert_eq!(found, hosts, "{}", d.kind());
        assert_eq!(relay_destinations::describe(&d), line, "{}", d.kind());
        assert!(
            relay_destinations::literal_credentials(&d).is_empty(),
            "{}",
            d.kind()
        );
    }
    assert_eq!(kinds.len(), 12, "one destination of every kind: {kinds:?}");
    // Each kind's name is the `kind` tag of its configuration.
    use relay_destinations::{
        Kind, eventbridge, https, kafka, mqtt, nats_jetstream, pubsub, rabbitmq, redis_stream, s3,
        service_bus, sns, sqs,
    };
    let names = std::collections::BTreeSet::from([
        https::Https::NAME,
        redis_stream::RedisStream::NAME,
        nats_jetstream::NatsJetstream::NAME,
        rabbitmq::RabbitMq::NAME,
        mqtt::Mqtt::NAME,
        s3::S3::NAME,
        kafka::Kafka::NAME,
        sqs::Sqs::NAME,
        pubsub::Pubsub::NAME,
        sns::Sns::NAME,
        eventbridge::EventBridge::NAME,
        service_bus::ServiceBus::NAME,
    ]);
    assert_eq!(names, kinds);
}

#[test]
fn a_url_that_does_not_parse_is_its_own_host() {
    let guard = registration::guard(&[443], "hooks.example", false);
    let d = destination(json!({"kind": "https", "url": "not a url"}));
    let found: Vec<String> = relay_destinations::credential_hosts(&d, &guard)
        .into_iter()
        .collect();
    assert_eq!(found, vec!["not a url"]);
}

#[test]
fn literal_credential_headers_are_named_and_redacted_never_shown() {
    let mut d = destination(json!({
        "kind": "https",
        "url": "https://hooks.example/in",
        "headers": [
            {"name": "Authorization", "value": "Bearer stored-in-clear"},
            {"name": "X-Tenant", "value": "acme"},
            {"name": "X-Api-Key", "secret": "secret:api-key"},
        ],
    }));
    assert_eq!(
        relay_destinations::literal_credentials(&d),
        vec![("/destination/headers", "Authorization")]
    );
    relay_destinations::redact(&mut d);
    let shown = serde_json::to_string(&d).unwrap();
    assert!(!shown.contains("stored-in-clear"), "{shown}");
    assert!(shown.contains("acme"), "other headers stay: {shown}");
    assert!(shown.contains("secret:api-key"), "references stay: {shown}");
    // Redacting changes the value, not which headers are literal credentials.
    assert_eq!(
        relay_destinations::literal_credentials(&d),
        vec![("/destination/headers", "Authorization")]
    );
}

#[test]
fn the_portal_moves_an_https_destination_only() {
    use relay_destinations::https::portal;
    let created = portal::destination("https://hooks.example/a".into());
    assert_eq!(
        created,
        destination(json!({"kind": "https", "url": "https://hooks.example/a"}))
    );
    let with_headers = destination(json!({
        "kind": "https",
        "url": "https://hooks.example/a",
        "headers": [{"name": "X-Api-Key", "secret": "secret:api-key"}],
    }));
    let moved = portal::with_url(&(&with_headers).into(), "https://hooks.example/b").unwrap();
    assert_eq!(
        moved,
        destination(json!({
            "kind": "https",
            "url": "https://hooks.example/b",
            "headers": [{"name": "X-Api-Key", "secret": "secret:api-key"}],
        }))
    );
    let broker = destination(json!({"kind": "mqtt", "host": "mqtt.example", "topic": "t"}));
    assert_eq!(
        portal::with_url(&(&broker).into(), "https://hooks.example/b"),
        None
    );
}
