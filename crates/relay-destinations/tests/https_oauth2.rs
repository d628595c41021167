//! OAuth 2.0 client credentials of an HTTPS endpoint, against a real token
//! endpoint and a real receiver that checks bearer tokens
//! (`relay-receiver`), both on loopback and reached through the guard (the
//! operator's allow list, never a bypass). Time is a `ManualClock`.

mod common;

use std::sync::Arc;

use common::message;
use relay_core::outcome::{FailureCode, HealthWarning, OAuthError, TokenFailure, Verdict};
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_core::time::{ManualClock, Timestamp};
use relay_destinations::Config;
use relay_destinations::https::Result as HttpsResult;
use relay_destinations::https::oauth2::source::TokenSource;
use relay_destinations::https::{
    ClientAuthMethod, HttpsAuth, HttpsDestination, HttpsHeader, OAuth2ClientCredentials,
};
use relay_destinations::{Client, Delivery, Shared, build, validate};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig, StaticResolver};
use relay_receiver::{Behavior, OAuthIssuer, Receiver, ReceiverConfig, Reply, TestCa};

const CLIENT_ID: &str = "relay client";
const CLIENT_SECRET: &str = "cl1ent-s3cret:&+ %";
const T0: Timestamp = Timestamp::from_millis(1_800_000_000_000);

struct Env {
    tokens: Receiver,
    hooks: Receiver,
    issuer: Arc<OAuthIssuer>,
    clock: Arc<ManualClock>,
    guard: Guard,
    _ca_dir: tempfile::TempDir,
}

async fn env(expires_in: Option<u64>) -> Env {
    let ca = Arc::new(TestCa::generate());
    let start = |names: &str| {
        Receiver::start(ReceiverConfig {
            ca: Some(ca.clone()),
            extra_names: vec![names.into()],
            ..Default::default()
        })
    };
    let tokens = start("auth.test").await.unwrap();
    let hooks = start("hooks.test").await.unwrap();
    let issuer = OAuthIssuer::new(CLIENT_ID, CLIENT_SECRET, expires_in);
    tokens.serve_token_endpoint("/oauth/token", issuer.clone());
    hooks.require_bearer(issuer.clone());
    let ca_dir = tempfile::tempdir().unwrap();
    let ca_pem = ca.write_ca_pem(ca_dir.path()).unwrap();
    let config = OutboundConfig {
        allow_ports: vec![tokens.port(), hooks.port()],
        allow_cidrs: vec!["127.0.0.1/32".into()],
        block_cidrs: vec![],
        extra_ca_certs: vec![ca_pem],
        allow_plaintext_credentials_to_loopback: false,
    };
    let resolver = StaticResolver::new()
        .with("auth.test", ["127.0.0.1".parse().unwrap()])
        .with("hooks.test", ["127.0.0.1".parse().unwrap()]);
    let guard = Guard::with_resolver(&config, Arc::new(resolver)).unwrap();
    Env {
        tokens,
        hooks,
        issuer,
        clock: Arc::new(ManualClock::new(T0)),
        guard,
        _ca_dir: ca_dir,
    }
}

fn secret_ref() -> SecretRef {
    SecretRef::Secret("oauth-client".into())
}

impl Env {
    fn oauth2(&self, method: ClientAuthMethod) -> OAuth2ClientCredentials {
        OAuth2ClientCredentials {
            token_url: self.tokens.url_for_host("auth.test", "/oauth/token"),
            client_id: CLIENT_ID.into(),
            client_secret: secret_ref(),
            scopes: vec!["hooks:write".into(), "events".into()],
            audience: Some("https://hooks.test".into()),
            method,
        }
    }

    fn destination(&self, method: ClientAuthMethod) -> Config {
        Config::Https(HttpsDestination {
            a2a_push: None,
            url: self.hooks.url_for_host("hooks.test", "/hooks"),
            auth: Some(HttpsAuth {
                oauth2: Some(self.oauth2(method)),
                ..HttpsAuth::default()
            }),
            headers: vec![HttpsHeader {
                name: "X-Tenant".into(),
                value: Some("acme".into()),
                secret: None,
            }],
        })
    }

    fn shared(&self) -> Shared {
        Shared {
            https: HttpsClient::new(self.guard.clone()),
            clock: self.clock.clone(),
        }
    }

    fn client(&self, method: ClientAuthMethod) -> Client {
        let mut secrets = Secrets::new();
        secrets.insert(secret_ref(), SecretValue::from(CLIENT_SECRET));
        build(&self.destination(method), &self.shared(), &secrets).expect("built")
    }

    fn source(&self) -> TokenSource {
        TokenSource::new(
            self.oauth2(ClientAuthMethod::ClientSecretBasic),
            SecretValue::from(CLIENT_SECRET),
            HttpsClient::new(self.guard.clone()),
            self.clock.clone(),
        )
    }
}

fn https(d: &Delivery) -> &HttpsResult {
    match d {
        Delivery::Https(r) => r,
        _ => panic!("not HTTPS"),
    }
}

#[tokio::test]
async fn both_client_authentication_methods_get_a_token_that_the_endpoint_accepts() {
    let e = env(Some(3600)).await;
    for method in [
        ClientAuthMethod::ClientSecretBasic,
        ClientAuthMethod::ClientSecretPost,
    ] {
        let client = e.client(method);
        let d = client.deliver(&message(), Limits::default()).await;
        assert_eq!(
            d.classify(T0),
            Verdict::Delivered,
            "{method:?}: {:?}",
            d.record()
        );
        assert_eq!(d.record().detail["oauth2"]["token_fetched"], true);
        // The second delivery reuses the cached token.
        let d = client.deliver(&message(), Limits::default()).await;
        assert_eq!(d.classify(T0), Verdict::Delivered);
        assert_eq!(d.record().detail["oauth2"]["token_fetched"], false);
    }
    let requests = e.issuer.requests();
    assert_eq!(e.issuer.token_requests(), 2, "{requests:?}");
    assert_eq!(requests[0].method, "client_secret_basic");
    assert_eq!(requests[1].method, "client_secret_post");
    for r in &requests {
        assert!(r.authenticated, "{r:?}");
        assert_eq!(r.grant_type.as_deref(), Some("client_credentials"));
        assert_eq!(r.scope.as_deref(), Some("hooks:write events"));
        assert_eq!(r.audience.as_deref(), Some("https://hooks.test"));
    }
    let hooks = e.hooks.requests();
    assert_eq!(hooks.len(), 4);
    assert!(
        hooks
            .iter()
            .all(|r| r.header("authorization").unwrap().starts_with("Bearer at-"))
    );
    assert!(hooks.iter().all(|r| r.header("x-tenant") == Some("acme")));
}

#[tokio::test]
async fn concurrent_misses_make_one_token_request() {
    let e = env(Some(3600)).await;
    let source = e.source();
    // Sixteen calls polled together in one task: each misses on its first
    // poll, before any token request can have been answered.
    let mut calls: Vec<_> = (0..16)
        .map(|_| Box::pin(source.bearer(Limits::default())))
        .collect();
    let mut done: Vec<Option<u64>> = vec![None; calls.len()];
    std::future::poll_fn(|cx| {
        for (call, slot) in calls.iter_mut().zip(done.iter_mut()) {
            if slot.is_none()
                && let std::task::Poll::Ready(r) = call.as_mut().poll(cx)
            {
                let (bearer, fetched) = r.expect("a token");
                assert!(fetched, "every call waited for the one fetch");
                *slot = Some(bearer.generation);
            }
        }
        if done.iter().all(Option::is_some) {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    assert_eq!(e.issuer.token_requests(), 1);
    assert!(done.iter().all(|g| *g == done[0]));
}

#[tokio::test]
async fn a_token_is_fetched_again_shortly_before_it_expires() {
    let e = env(Some(600)).await;
    let source = e.source();
    let (first, fetched) = source.bearer(Limits::default()).await.unwrap();
    assert!(fetched);
    // 600 s less the earlier of 60 s and 10 %: reused until 540 s.
    e.clock.advance_millis(539_999);
    let (again, fetched) = source.bearer(Limits::default()).await.unwrap();
    assert!(!fetched);
    assert_eq!(again.generation, first.generation);
    assert_eq!(e.issuer.token_requests(), 1);
    e.clock.advance_millis(1);
    let (renewed, fetched) = source.bearer(Limits::default()).await.unwrap();
    assert!(fetched);
    assert_ne!(renewed.generation, first.generation);
    assert_ne!(renewed.authorization, first.authorization);
    assert_eq!(e.issuer.token_requests(), 2);
    // No expires_in: the default lifetime (300 s, fetched again at 270 s).
    e.issuer.set_expires_in(None);
    e.clock.advance_millis(540_000);
    source.bearer(Limits::default()).await.unwrap();
    assert_eq!(e.issuer.token_requests(), 3);
    e.clock.advance_millis(269_999);
    source.bearer(Limits::default()).await.unwrap();
    assert_eq!(e.issuer.token_requests(), 3);
    e.clock.advance_millis(1);
    source.bearer(Limits::default()).await.unwrap();
    assert_eq!(e.issuer.token_requests(), 4);
}

#[tokio::test]
async fn a_401_forgets_the_token_fetches_once_and_posts_once_more() {
    let e = env(Some(3600)).await;
    let client = e.client(ClientAuthMethod::ClientSecretBasic);
    let d = client.deliver(&message(), Limits::default()).await;
    assert_eq!(d.classify(T0), Verdict::Delivered);
    // The endpoint stops accepting the cached token.
    e.issuer.revoke_all();
    let d = client.deliver(&message(), Limits::default()).await;
    assert_eq!(d.classify(T0), Verdict::Delivered, "{:?}", d.record());
    let record = d.record();
    assert_eq!(record.detail["status_code"], 200);
    assert_eq!(record.detail["oauth2"]["retried_with_new_token"], true);
    assert_eq!(e.issuer.token_requests(), 2);
    let hooks = e.hooks.requests();
    assert_eq!(hooks.len(), 3, "one, then a 401 and its retry");
    assert_ne!(
        hooks[1].header("authorization"),
        hooks[2].header("authorization")
    );
    // A second 401 with the new token is the attempt's answer: retried on
    // the schedule, no third POST.
    e.hooks.set_behavior(Behavior::status(401));
    let d = client.deliver(&message(), Limits::default()).await;
    assert_eq!(
        d.classify(T0),
        Verdict::Retry {
            code: FailureCode::HttpStatus(401),
            not_before: None
        }
    );
    assert_eq!(e.hooks.requests().len(), 5);
    assert_eq!(e.issuer.token_requests(), 3);
}

#[tokio::test]
async fn a_refused_client_is_retried_with_a_health_warning_and_no_post() {
    let e = env(Some(3600)).await;
    let client = e.client(ClientAuthMethod::ClientSecretPost);
    e.issuer.refuse(Some((401, "invalid_client")));
    let d = client.deliver(&message(), Limits::default()).await;
    let failure = TokenFailure::OAuth(OAuthError::InvalidClient);
    assert_eq!(
        d.classify(T0),
        Verdict::Retry {
            code: FailureCode::Token(failure),
            not_before: None
        }
    );
    assert_eq!(
        d.health_warning(),
        Some(HealthWarning::TokenRefused { failure })
    );
    let record = d.record();
    assert_eq!(record.detail["oauth2"]["token_fetch_failed"], true);
    assert_eq!(record.detail["oauth2"]["status_code"], 401);
    assert_eq!(record.detail["oauth2"]["error"], "invalid_client");
    assert_eq!(
        record.detail.get("status_code"),
        None,
        "the endpoint was not tried"
    );
    assert_eq!(record.destination.map(|a| a.port()), Some(e.tokens.port()));
    assert!(e.hooks.requests().is_empty());
    // A 5xx: retried, no warning.
    e.issuer.refuse(None);
    e.issuer.fail_with_status(Some(503));
    let d = client.deliver(&message(), Limits::default()).await;
    assert_eq!(
        d.classify(T0),
        Verdict::Retry {
            code: FailureCode::Token(TokenFailure::HttpStatus(503)),
            not_before: None
        }
    );
    assert_eq!(d.health_warning(), None);
    // Wrong credentials: the real refusal of the issuer.
    e.issuer.fail_with_status(None);
    let mut secrets = Secrets::new();
    secrets.insert(secret_ref(), SecretValue::from("not-the-secret"));
    let wrong = build(
        &e.destination(ClientAuthMethod::ClientSecretBasic),
        &e.shared(),
        &secrets,
    )
    .unwrap();
    let d = wrong.deliver(&message(), Limits::default()).await;
    assert_eq!(
        d.classify(T0),
        Verdict::Retry {
            code: FailureCode::Token(failure),
            not_before: None
        }
    );
    assert!(e.hooks.requests().is_empty());
}

#[tokio::test]
async fn an_unreachable_token_endpoint_is_a_retried_attempt() {
    let mut e = env(Some(3600)).await;
    let client = e.client(ClientAuthMethod::ClientSecretBasic);
    let port = e.tokens.port();
    // Stop the token endpoint (its port stays allowed, nothing listens).
    e.tokens = Receiver::start(ReceiverConfig::default()).await.unwrap();
    tokio::task::yield_now().await;
    let d = client.deliver(&message(), Limits::default()).await;
    assert_eq!(
        d.classify(T0),
        Verdict::Retry {
            code: FailureCode::Token(TokenFailure::Unreachable),
            not_before: None
        },
        "{:?}",
        d.record()
    );
    assert_eq!(d.health_warning(), None);
    let record = d.record();
    let (kind, text) = record.error.expect("the transport error");
    assert_eq!(kind.as_str(), "connect", "{text}");
    assert!(text.starts_with("token endpoint:"), "{text}");
    assert!(text.contains(&port.to_string()), "{text}");
    assert!(e.hooks.requests().is_empty());
}

#[tokio::test]
async fn registration_checks_the_credentials_and_the_token_url_through_the_guard() {
    let e = env(Some(3600)).await;
    let ok = e.destination(ClientAuthMethod::ClientSecretBasic);
    assert_eq!(validate(&ok, &e.guard).await, Ok(()));
    assert_eq!(
        ok.secret_refs(),
        vec![("/destination/auth/oauth2/client_secret", &secret_ref())]
    );
    let with = |change: &dyn Fn(&mut OAuth2ClientCredentials, &mut Vec<HttpsHeader>)| {
        let Config::Https(mut h) = ok.clone() else {
            unreachable!()
        };
        let mut o = h.auth.as_ref().unwrap().oauth2.clone().unwrap();
        change(&mut o, &mut h.headers);
        h.auth = Some(HttpsAuth {
            oauth2: Some(o),
            ..HttpsAuth::default()
        });
        Config::Https(h)
    };
    let cases: Vec<(Config, &str, &str)> = vec![
        (
            with(&|o, _| o.token_url = o.token_url.replace("https://", "http://")),
            "scheme_not_allowed",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with(&|o, _| o.token_url = "https://auth.test:1/oauth/token".into()),
            "port_not_allowed",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with(&|o, _| o.token_url = o.token_url.replace("https://", "https://u:p@")),
            "credentials_in_url",
            "/destination/auth/oauth2/token_url",
        ),
        (
            with(&|o, _| o.client_id = "bad\u{7f}".into()),
            "invalid_client_id",
            "/destination/auth/oauth2/client_id",
        ),
        (
            with(&|_, h| {
                h.push(HttpsHeader {
                    name: "Authorization".into(),
                    value: None,
                    secret: Some(relay_core::secret::SecretRef::Secret("bearer".into())),
                })
            }),
            "authorization_header_conflict",
            "/destination/headers",
        ),
    ];
    for (d, code, pointer) in cases {
        let err = validate(&d, &e.guard).await.unwrap_err();
        assert_eq!((err.code, err.pointer), (code, pointer), "{}", err.message);
    }
}

#[tokio::test]
async fn the_secret_and_the_token_never_show_in_debug_or_records() {
    let e = env(Some(3600)).await;
    // A receiver that echoes what it was sent, then refuses.
    let client = e.client(ClientAuthMethod::ClientSecretBasic);
    let d = client.deliver(&message(), Limits::default()).await;
    assert_eq!(d.classify(T0), Verdict::Delivered);
    let tokens = e.issuer.issued_tokens();
    assert_eq!(tokens.len(), 1);
    let token = tokens[0].clone();
    e.hooks.set_behavior(Behavior::reply(
        Reply::new(400).with_body(format!("you sent Bearer {token} and {token}")),
    ));
    let d = client.deliver(&message(), Limits::default()).await;
    let record = d.record();
    let body = record.detail["response_body"].as_str().unwrap();
    assert_eq!(body, "you sent [redacted] and [redacted]");
    // A token endpoint that echoes the secret in its description.
    e.issuer.refuse(Some((400, "invalid_request")));
    let source = e.source();
    let err = source.bearer(Limits::default()).await.unwrap_err();
    let Client::Https(https_client) = &client else {
        unreachable!()
    };
    let shown = [
        format!("{https_client:?}"),
        format!("{source:?}"),
        format!("{:?}", https(&d)),
        format!("{record:?}"),
        format!("{err:?}"),
        format!("{:?}", d.record().detail),
        format!(
            "{:?}",
            client.deliver(&message(), Limits::default()).await.record()
        ),
    ];
    for s in &shown {
        assert!(!s.contains(&token), "the token in {s}");
        assert!(!s.contains(CLIENT_SECRET), "the secret in {s}");
        assert!(!s.contains("cl1ent-s3cret"), "the secret in {s}");
    }
    assert!(shown[0].contains("oauth2"), "{}", shown[0]);
}

/// The token fetches and both `POST`s of an attempt share one deadline,
/// `total_timeout`: an endpoint that answers `401` slowly leaves the second
/// `POST` only what is left of it, so the attempt never outlasts its limit
/// (nor its lease).
#[tokio::test]
async fn one_deadline_covers_the_whole_attempt() {
    use std::time::{Duration, Instant};
    let e = env(Some(3600)).await;
    let client = e.client(ClientAuthMethod::ClientSecretBasic);
    e.hooks.set_behavior(Behavior::delay(
        Duration::from_millis(400),
        Behavior::status(401),
    ));
    let limits = Limits {
        total_timeout: Duration::from_millis(700),
        ..Limits::default()
    };
    let started = Instant::now();
    let d = client.deliver(&message(), limits).await;
    let elapsed = started.elapsed();
    assert_eq!(
        d.classify(T0),
        Verdict::Retry {
            code: FailureCode::Transport(relay_core::outcome::TransportError::Timeout),
            not_before: None
        },
        "{:?}",
        d.record()
    );
    assert_eq!(d.record().detail["oauth2"]["retried_with_new_token"], true);
    assert!(elapsed < Duration::from_millis(1_000), "{elapsed:?}");
    assert_eq!(e.issuer.token_requests(), 2);
}
