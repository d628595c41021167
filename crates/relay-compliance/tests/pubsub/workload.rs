//! The installation's Google workload identity (`[gcp] workload_identity`):
//! tokens from the metadata server (the front's, checked first against
//! google-auth's own Compute Engine client by `pubsub_front.py
//! --selftest`), reached through the operator client while the tenant's
//! guard refuses its address; only for the projects the operator lists.

use std::sync::Arc;

use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::Secrets;
use relay_core::time::ManualClock;
use relay_destinations::gcp::{Installation, MetadataServer};
use relay_destinations::pubsub::PubsubDestination;
use relay_destinations::{Config, Shared, Tenancy};
use relay_net::HttpsClient;
use relay_net::operator::{OperatorClient, OperatorUrl};

use crate::emulator::{Front, PROJECT};

fn installation(f: &Front, projects: &[&str]) -> Arc<Installation> {
    Arc::new(Installation::new(
        MetadataServer {
            endpoint: OperatorUrl::parse(&format!("http://127.0.0.1:{}", f.metadata_port)).unwrap(),
            client: OperatorClient::new(&crate::guard(f)),
        },
        projects.iter().map(|p| p.to_string()),
        Arc::new(ManualClock::default()),
    ))
}

fn workload_destination(f: &Front) -> PubsubDestination {
    PubsubDestination {
        service_account_key: None,
        workload_identity: true,
        ..crate::destination(f, &f.topic, ContentMode::Structured, false)
    }
}

/// A Pub/Sub endpoint with `workload_identity` publishes with the metadata
/// server's token (asked with `Metadata-Flavor: Google` and Pub/Sub's
/// scope, once for every endpoint sharing the installation, again after
/// Pub/Sub refuses it); registration refuses it where the operator offers
/// no identity or not for the topic's project, and such a client sends
/// nothing and retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_publishes_as_the_installations_workload_identity() {
    let Some(f) = crate::front().await else {
        return;
    };
    // The metadata server answers google-auth's own Compute Engine client.
    relay_receiver::judges::Judges::find().selftest("pubsub_front.py");
    let d = Config::Pubsub(workload_destination(&f));
    let shared = Shared {
        https: HttpsClient::new(crate::guard(&f)),
        clock: Arc::new(ManualClock::default()),
    };
    let gcp = installation(&f, &[PROJECT]);
    let tenancy = Tenancy {
        tenant: "ten_1",
        aws: None,
        gcp: Some(&gcp),
    };
    relay_destinations::check_access(&d, &shared, tenancy)
        .await
        .expect("the project is allowed");
    // Two endpoints (two built clients) share the installation's token.
    let a = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
    let b = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
    for (i, c) in [&a, &b, &a].into_iter().enumerate() {
        let id = format!("evt_wi_{i}");
        let (verdict, record) =
            crate::send(c, &crate::message(&id, None, ContentMode::Structured)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
        for token in f.issued() {
            assert!(!format!("{record:?}").contains(&token));
        }
    }
    let got = f.drain();
    assert_eq!(got.len(), 3);
    let asked = f.metadata_requests();
    assert_eq!(asked.len(), 1, "one token for both endpoints: {asked:?}");
    assert!(
        asked[0].contains("scopes=https%3A%2F%2Fwww.googleapis.com%2Fauth%2Fpubsub"),
        "{asked:?}"
    );
    // Pub/Sub refuses the token: the next publish asks the metadata server
    // again and succeeds in the same attempt.
    f.revoke_tokens();
    let (verdict, record) = crate::send(
        &b,
        &crate::message("evt_wi_3", None, ContentMode::Structured),
    )
    .await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(f.metadata_requests().len(), 2);
    assert_eq!(f.drain().len(), 1);

    // Another project's topic, or no identity at all: refused at
    // registration; a client built anyway sends nothing and retries.
    let elsewhere = installation(&f, &["another-project"]);
    for (gcp, code) in [
        (Some(&elsewhere), "project_not_allowed"),
        (None, "gcp_workload_identity_unavailable"),
    ] {
        let tenancy = Tenancy {
            tenant: "ten_1",
            aws: None,
            gcp,
        };
        let e = relay_destinations::check_access(&d, &shared, tenancy)
            .await
            .expect_err(code);
        assert_eq!(
            (e.code, e.pointer),
            (code, "/destination/workload_identity")
        );
        let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
        let (verdict, record) = crate::send(
            &c,
            &crate::message("evt_wi_no", None, ContentMode::Structured),
        )
        .await;
        assert_eq!(
            verdict,
            Verdict::Retry {
                code: FailureCode::Refused(Refusal::AuthRefused),
                not_before: None
            },
            "{code}: {record:?}"
        );
        assert_eq!(
            record.detail["error"]["code"], "workload_identity_unavailable",
            "{record:?}"
        );
    }
    assert!(f.drain().is_empty());
    assert_eq!(f.metadata_requests().len(), 2);
}

/// A tenant cannot reach the metadata server: a Pub/Sub endpoint or token
/// URL at its address is refused by the guard, whatever the installation.
#[tokio::test]
async fn a_tenant_endpoint_at_the_metadata_server_is_refused() {
    let guard = relay_net::Guard::from_config(&relay_net::OutboundConfig {
        // Even an operator who opens link-local and unique-local ranges
        // does not open the metadata services' addresses.
        allow_cidrs: vec![
            "127.0.0.0/8".into(),
            "169.254.0.0/16".into(),
            "fd00::/8".into(),
        ],
        allow_ports: vec![80, 443],
        ..Default::default()
    })
    .unwrap();
    let base = PubsubDestination {
        topic: format!("projects/{PROJECT}/topics/events"),
        endpoint: relay_destinations::pubsub::GLOBAL_ENDPOINT.into(),
        service_account_key: None,
        workload_identity: true,
        token_url: relay_destinations::pubsub::GOOGLE_TOKEN_URL.into(),
        ordered: false,
        content_mode: ContentMode::Structured,
    };
    for d in [
        PubsubDestination {
            endpoint: "https://169.254.169.254".into(),
            ..base.clone()
        },
        PubsubDestination {
            endpoint: "https://metadata.google.internal".into(),
            ..base.clone()
        },
        PubsubDestination {
            token_url:
                "https://169.254.169.254/computeMetadata/v1/instance/service-accounts/default/token"
                    .into(),
            ..base.clone()
        },
    ] {
        let e = relay_destinations::validate(&Config::Pubsub(d.clone()), &guard)
            .await
            .expect_err(&d.endpoint);
        assert!(
            ["blocked_address", "dns", "invalid_url"].contains(&e.code),
            "{d:?}: {e:?}"
        );
    }
}
