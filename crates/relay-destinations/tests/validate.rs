//! Registration checks of each kind's configuration, through a real guard.

use std::sync::Arc;

use relay_core::model::{Destination, HttpsDestination, RedisStreamDestination};
use relay_net::{Guard, OutboundConfig, StaticResolver};

fn guard(allow_loopback: bool) -> Guard {
    let config = OutboundConfig {
        allow_ports: vec![6379],
        allow_cidrs: if allow_loopback {
            vec!["127.0.0.1/32".into()]
        } else {
            vec![]
        },
        block_cidrs: vec![],
        extra_ca_certs: vec![],
    };
    let resolver = StaticResolver::new()
        .with("redis.example", ["8.8.8.8".parse().unwrap()])
        .with("local.example", ["127.0.0.1".parse().unwrap()]);
    Guard::with_resolver(&config, Arc::new(resolver)).unwrap()
}

fn redis(f: impl FnOnce(&mut RedisStreamDestination)) -> Destination {
    let mut r = RedisStreamDestination {
        host: "redis.example".into(),
        port: 6379,
        tls: false,
        database: None,
        stream: "events".into(),
        max_len: None,
        username: None,
        password: None,
    };
    f(&mut r);
    Destination::RedisStream(r)
}

#[tokio::test]
async fn redis_stream_configurations() {
    let g = guard(false);
    let code = |d: Destination| {
        let g = g.clone();
        async move {
            relay_destinations::validate(&d, &g)
                .await
                .err()
                .map(|e| (e.code, e.pointer))
        }
    };
    assert_eq!(code(redis(|_| {})).await, None);
    assert_eq!(
        code(redis(|r| r.password = Some("hunter2".into()))).await,
        Some(("not_supported", "/destination/password"))
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
    // The refusal never echoes a credential.
    let e = relay_destinations::validate(&redis(|r| r.password = Some("hunter2".into())), &g)
        .await
        .unwrap_err();
    assert!(!format!("{e:?}").contains("hunter2"));
}

#[tokio::test]
async fn https_configurations() {
    let g = guard(false);
    let https = |url: &str| {
        Destination::Https(HttpsDestination {
            url: url.into(),
            auth: None,
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
