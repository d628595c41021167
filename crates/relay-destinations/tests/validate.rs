//! Registration checks of each kind's configuration, through a real guard.

mod registration;

use std::sync::Arc;

use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::Config;
use relay_destinations::https::HttpsDestination;
use relay_destinations::nats_jetstream::NatsJetstreamDestination;
use relay_destinations::rabbitmq::RabbitMqDestination;
use relay_destinations::redis_stream::RedisStreamDestination;
use relay_net::Guard;

fn guard(allow_loopback: bool) -> Guard {
    registration::guard(&[6379, 4222, 5672], "redis.example", allow_loopback)
}

fn redis(f: impl FnOnce(&mut RedisStreamDestination)) -> Config {
    let mut r = RedisStreamDestination {
        host: "redis.example".into(),
        port: 6379,
        tls: false,
        database: None,
        stream: "events".into(),
        max_len: None,
        username: None,
        password: None,
        content_mode: Default::default(),
        wait_aof: None,
    };
    f(&mut r);
    Config::RedisStream(r)
}

#[tokio::test]
async fn redis_stream_configurations() {
    let g = guard(false);
    let code = |d: Config| {
        let g = g.clone();
        async move {
            relay_destinations::validate(&d, &g)
                .await
                .err()
                .map(|e| (e.code, e.pointer))
        }
    };
    assert_eq!(code(redis(|_| {})).await, None);
    let pw = || Some(SecretRef::Secret("redis-pw".into()));
    // Credentials never travel in clear (issue #40 point 5).
    assert_eq!(
        code(redis(|r| r.password = pw())).await,
        Some(("credentials_without_tls", "/destination/tls"))
    );
    assert_eq!(
        code(redis(|r| {
            r.password = pw();
            r.tls = true;
        }))
        .await,
        None
    );
    assert_eq!(
        code(redis(|r| {
            r.username = Some("relay".into());
            r.password = pw();
            r.tls = true;
        }))
        .await,
        None
    );
    assert_eq!(
        code(redis(|r| r.username = Some("relay".into()))).await,
        Some(("invalid_credentials", "/destination/password"))
    );
    assert_eq!(
        code(redis(|r| {
            r.username = Some("re lay".into());
            r.password = pw();
        }))
        .await,
        Some(("invalid_credentials", "/destination/username"))
    );
    assert_eq!(
        code(redis(|r| r.stream = String::new())).await,
        Some(("invalid_stream", "/destination/stream"))
    );
    assert_eq!(
        code(redis(|r| r.stream = "s".repeat(257))).await,
        Some(("invalid_stream", "/destination/stream"))
    );
    assert_eq!(
        code(redis(|r| r.database = Some(16))).await,
        Some(("invalid_database", "/destination/database"))
    );
    assert_eq!(
        code(redis(|r| r.max_len = Some(0))).await,
        Some(("invalid_max_len", "/destination/max_len"))
    );
    let wait = |local, replicas, timeout_ms| {
        redis(move |r| {
            r.wait_aof = Some(relay_destinations::redis_stream::WaitAof {
                local,
                replicas,
                timeout_ms,
            })
        })
    };
    assert_eq!(code(wait(1, 0, 1000)).await, None);
    assert_eq!(code(wait(0, 2, 60_000)).await, None);
    for (local, replicas, timeout_ms) in [(2, 0, 1000), (0, 0, 1000), (1, 0, 0), (1, 0, 60_001)] {
        assert_eq!(
            code(wait(local, replicas, timeout_ms)).await,
            Some(("invalid_wait_aof", "/destination/wait_aof")),
            "{local} {replicas} {timeout_ms}"
        );
    }
    assert_eq!(
        code(redis(|r| r.port = 6380)).await,
        Some(("port_not_allowed", "/destination/host"))
    );
    assert_eq!(
        code(redis(|r| r.host = "local.example".into())).await,
        Some(("blocked_address", "/destination/host")),
        "loopback is refused unless the operator allows it"
    );
    assert_eq!(
        relay_destinations::validate(&redis(|r| r.host = "local.example".into()), &guard(true))
            .await,
        Ok(())
    );
}

#[test]
fn a_plain_password_is_not_a_reference_and_is_never_echoed() {
    let body = serde_json::json!({
        "kind": "redis_stream", "host": "redis.example", "stream": "s", "password": "hunter2"
    });
    let e = serde_json::from_value::<Config>(body)
        .unwrap_err()
        .to_string();
    assert!(e.contains("secret reference"), "{e}");
    assert!(!e.contains("hunter2"), "{e}");
}

#[test]
fn building_a_client_needs_every_reference_resolved() {
    let shared = relay_destinations::Shared {
        https: relay_net::HttpsClient::new(guard(false)),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let r = SecretRef::Env("RELAY_SECRET_REDIS".into());
    let d = redis(|c| c.password = Some(r.clone()));
    assert_eq!(d.secret_refs(), vec![("/destination/password", &r)]);
    assert_eq!(
        relay_destinations::build(&d, &shared, &Secrets::new()).err(),
        Some(relay_core::secret::Unresolved(r.clone()))
    );
    let mut s = Secrets::new();
    s.insert(r, SecretValue::from("hunter2"));
    assert!(relay_destinations::build(&d, &shared, &s).is_ok());
    assert!(relay_destinations::build(&redis(|_| {}), &shared, &Secrets::new()).is_ok());
}

fn rabbitmq(f: impl FnOnce(&mut RabbitMqDestination)) -> Config {
    let mut r = RabbitMqDestination {
        host: "redis.example".into(),
        port: 5672,
        tls: false,
        virtual_host: "/".into(),
        exchange: "events".into(),
        routing_key: "{environment}.{event_type}".into(),
        username: None,
        password: None,
        content_mode: Default::default(),
    };
    f(&mut r);
    Config::RabbitMq(r)
}

#[tokio::test]
async fn rabbitmq_configurations() {
    let g = guard(false);
    let code = |d: Config| {
        let g = g.clone();
        async move {
            relay_destinations::validate(&d, &g)
                .await
                .err()
                .map(|e| (e.code, e.pointer))
        }
    };
    assert_eq!(code(rabbitmq(|_| {})).await, None);
    assert_eq!(
        code(rabbitmq(|r| r.exchange = String::new())).await,
        None,
        "the default exchange"
    );
    let pw = SecretRef::Env("RELAY_SECRET_AMQP".into());
    assert_eq!(
        code(rabbitmq(|r| r.password = Some(pw.clone()))).await,
        Some(("invalid_credentials", "/destination/username"))
    );
    assert_eq!(
        code(rabbitmq(|r| r.username = Some("relay".into()))).await,
        Some(("invalid_credentials", "/destination/password"))
    );
    assert_eq!(
        code(rabbitmq(|r| {
            r.username = Some("relay".into());
            r.password = Some(pw.clone());
        }))
        .await,
        Some(("credentials_without_tls", "/destination/tls"))
    );
    assert_eq!(
        code(rabbitmq(|r| {
            r.username = Some("relay".into());
            r.password = Some(pw.clone());
            r.tls = true;
        }))
        .await,
        None
    );
    assert_eq!(
        code(rabbitmq(|r| {
            r.username = Some("a\u{0}b".into());
            r.password = Some(pw.clone());
        }))
        .await,
        Some(("invalid_credentials", "/destination/username"))
    );
    assert_eq!(
        code(rabbitmq(|r| r.virtual_host = String::new())).await,
        Some(("invalid_virtual_host", "/destination/virtual_host"))
    );
    assert_eq!(
        code(rabbitmq(|r| r.exchange = "e".repeat(256))).await,
        Some(("invalid_exchange", "/destination/exchange"))
    );
    assert_eq!(
        code(rabbitmq(|r| r.exchange = "a\nb".into())).await,
        Some(("invalid_exchange", "/destination/exchange"))
    );
    for bad in ["{nope}", "{type", "a}", &"k".repeat(256)] {
        assert_eq!(
            code(rabbitmq(|r| r.routing_key = bad.into())).await,
            Some(("invalid_routing_key", "/destination/routing_key")),
            "{bad}"
        );
    }
    assert_eq!(
        code(rabbitmq(|r| r.port = 5671)).await,
        Some(("port_not_allowed", "/destination/host"))
    );
    assert_eq!(
        code(rabbitmq(|r| r.host = "local.example".into())).await,
        Some(("blocked_address", "/destination/host")),
        "loopback is refused unless the operator allows it"
    );
    assert_eq!(
        relay_destinations::validate(&rabbitmq(|r| r.host = "local.example".into()), &guard(true))
            .await,
        Ok(())
    );
    // The client needs the password's resolved value.
    let shared = relay_destinations::Shared {
        https: relay_net::HttpsClient::new(guard(false)),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let d = rabbitmq(|r| {
        r.username = Some("relay".into());
        r.password = Some(pw.clone());
    });
    assert_eq!(d.secret_refs(), vec![("/destination/password", &pw)]);
    assert!(relay_destinations::build(&d, &shared, &Secrets::new()).is_err());
    let mut s = Secrets::new();
    s.insert(pw, SecretValue::from("hunter2"));
    assert!(relay_destinations::build(&d, &shared, &s).is_ok());
}

#[tokio::test]
async fn https_configurations() {
    let g = guard(false);
    let https = |url: &str| {
        Config::Https(HttpsDestination {
            a2a_push: None,
            url: url.into(),
            auth: None,
            headers: Vec::new(),
        })
    };
    assert_eq!(
        relay_destinations::validate(&https("http://redis.example/x"), &g)
            .await
            .unwrap_err()
            .code,
        "scheme_not_allowed"
    );
    assert_eq!(
        relay_destinations::validate(&https("https://local.example/x"), &g)
            .await
            .unwrap_err()
            .code,
        "blocked_address"
    );
}

fn nats(f: impl FnOnce(&mut NatsJetstreamDestination)) -> Config {
    let mut n = NatsJetstreamDestination {
        host: "redis.example".into(),
        port: 4222,
        tls: false,
        subject: "orders.{environment}.{event_type}".into(),
        stream: Some("ORDERS".into()),
        username: None,
        password: None,
        token: None,
        content_mode: Default::default(),
    };
    f(&mut n);
    Config::NatsJetstream(n)
}

#[tokio::test]
async fn nats_jetstream_configurations() {
    let g = guard(false);
    let code = |d: Config| {
        let g = g.clone();
        async move {
            relay_destinations::validate(&d, &g)
                .await
                .err()
                .map(|e| (e.code, e.pointer))
        }
    };
    assert_eq!(code(nats(|_| {})).await, None);
    assert_eq!(code(nats(|n| n.stream = None)).await, None);
    assert_eq!(code(nats(|n| n.subject = "orders".into())).await, None);
    assert_eq!(
        code(nats(
            |n| n.subject = "orders.{environment}.{ordering_key}".into()
        ))
        .await,
        None
    );
    let pw = || Some(SecretRef::Secret("nats-pw".into()));
    assert_eq!(
        code(nats(|n| {
            n.username = Some("relay".into());
            n.password = pw();
        }))
        .await,
        Some(("credentials_without_tls", "/destination/tls"))
    );
    assert_eq!(
        code(nats(|n| {
            n.username = Some("relay".into());
            n.password = pw();
            n.tls = true;
        }))
        .await,
        None
    );
    assert_eq!(
        code(nats(|n| n.token = pw())).await,
        Some(("credentials_without_tls", "/destination/tls"))
    );
    assert_eq!(
        code(nats(|n| n.username = Some("relay".into()))).await,
        Some(("invalid_credentials", "/destination/password"))
    );
    assert_eq!(
        code(nats(|n| n.password = pw())).await,
        Some(("invalid_credentials", "/destination/username"))
    );
    assert_eq!(
        code(nats(|n| {
            n.username = Some("relay".into());
            n.password = pw();
            n.token = pw();
        }))
        .await,
        Some(("invalid_credentials", "/destination/token"))
    );
    assert_eq!(
        code(nats(|n| {
            n.username = Some("re lay".into());
            n.password = pw();
        }))
        .await,
        Some(("invalid_credentials", "/destination/username"))
    );
    for subject in [
        "",
        "a..b",
        "a.*",
        "a.>",
        "a b",
        "$JS.API.STREAM.DELETE.X",
        "a.{nope}",
    ] {
        assert_eq!(
            code(nats(|n| n.subject = subject.into())).await,
            Some(("invalid_subject", "/destination/subject")),
            "{subject}"
        );
    }
    for stream in ["", "a.b", "a b", "a*"] {
        assert_eq!(
            code(nats(|n| n.stream = Some(stream.into()))).await,
            Some(("invalid_stream", "/destination/stream")),
            "{stream}"
        );
    }
    assert_eq!(
        code(nats(|n| n.port = 4223)).await,
        Some(("port_not_allowed", "/destination/host"))
    );
    assert_eq!(
        code(nats(|n| n.host = "local.example".into())).await,
        Some(("blocked_address", "/destination/host")),
        "loopback is refused unless the operator allows it"
    );
    assert_eq!(
        relay_destinations::validate(&nats(|n| n.host = "local.example".into()), &guard(true))
            .await,
        Ok(())
    );
    // A plain token is not a reference, and is never echoed.
    let e = serde_json::from_value::<Config>(serde_json::json!({
        "kind": "nats_jetstream", "host": "redis.example", "subject": "s", "token": "hunter2"
    }))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("secret reference") && !e.contains("hunter2"),
        "{e}"
    );
    // Building needs both references resolved.
    let shared = relay_destinations::Shared {
        https: relay_net::HttpsClient::new(guard(false)),
        clock: Arc::new(relay_core::time::ManualClock::default()),
    };
    let (p, t) = (
        SecretRef::Secret("nats-pw".into()),
        SecretRef::Secret("nats-token".into()),
    );
    let d = nats(|n| {
        n.username = Some("relay".into());
        n.password = Some(p.clone());
    });
    assert_eq!(d.secret_refs(), vec![("/destination/password", &p)]);
    assert!(relay_destinations::build(&d, &shared, &Secrets::new()).is_err());
    let mut s = Secrets::new();
    s.insert(p, SecretValue::from("hunter2"));
    assert!(relay_destinations::build(&d, &shared, &s).is_ok());
    let d = nats(|n| n.token = Some(t.clone()));
    assert_eq!(d.secret_refs(), vec![("/destination/token", &t)]);
    assert!(relay_destinations::build(&d, &shared, &s).is_err());
}

/// Plaintext credentials only where the operator allowed them, and only to
/// a host that is this machine.
#[tokio::test]
async fn plaintext_credentials_reach_only_a_loopback_host_the_operator_allowed() {
    let config = |allow: bool| relay_net::OutboundConfig {
        allow_ports: vec![6379],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        allow_plaintext_credentials_to_loopback: allow,
        ..Default::default()
    };
    let resolver = || {
        Arc::new(
            relay_net::StaticResolver::new()
                .with("redis.example", ["8.8.8.8".parse().unwrap()])
                .with("local.example", ["127.0.0.1".parse().unwrap()]),
        )
    };
    let on = |host: &str| {
        redis(|r| {
            r.host = host.into();
            r.password = Some(SecretRef::Secret("redis-pw".into()));
        })
    };
    let allowed = Guard::with_resolver(&config(true), resolver()).unwrap();
    let refused = Guard::with_resolver(&config(false), resolver()).unwrap();
    for host in ["local.example", "127.0.0.1", "localhost"] {
        assert!(
            relay_destinations::credentials_in_clear(&on(host), &allowed)
                .await
                .is_ok(),
            "{host}"
        );
        let e = relay_destinations::credentials_in_clear(&on(host), &refused)
            .await
            .unwrap_err();
        assert_eq!(
            (e.code, e.pointer),
            ("credentials_without_tls", "/destination/tls")
        );
    }
    let e = relay_destinations::credentials_in_clear(&on("redis.example"), &allowed)
        .await
        .unwrap_err();
    assert_eq!(e.code, "credentials_without_tls", "a public host never");
}
