//! Proof of endpoint ownership with a real receiver, on SQLite and
//! PostgreSQL: an unverified endpoint is sent challenges and never a
//! payload, whatever the receiver answers short of the proof (nothing, a
//! plain `200`, an echo of the request, a redirect); a receiver that
//! answers the signed challenge releases the held messages, which are then
//! delivered; a manual attempt is refused while it is unverified. (With
//! the engine started, its prover challenges a new endpoint at once; the
//! receivers here answer as their tests say.)

mod common;

use std::sync::Arc;

use common::{Env, Setup, WAIT};
use relay_core::model::{EndpointState, MessageState};
use relay_core::time::Clock as _;
use relay_engine::ManualError;
use relay_receiver::{Behavior, Reply};
use relay_store::ExecutorExt as _;
use tokio::sync::{Notify, watch};

/// The endpoint, made to owe the proof of its receiver's origin.
async fn owing(e: Env) -> Env {
    let mut endpoint = e.endpoint_now().await;
    endpoint.verify_ownership = true;
    endpoint.ownership_origin = Some(format!("receiver.test:{}", e.receiver.port()));
    endpoint.updated_at = endpoint.updated_at.plus_millis(1);
    let state = relay_store::conformance::update_endpoint(e.store(), &e.scope, &endpoint, &[])
        .await
        .unwrap();
    assert_eq!(state, EndpointState::Unverified);
    // Its first challenge is due at the change's time.
    e.clock.advance_millis(1);
    e
}

async fn envs() -> Vec<Env> {
    let mut out = vec![owing(Env::start(Setup::default()).await.expect("sqlite env")).await];
    match Env::start(Setup {
        postgres: true,
        ..Setup::default()
    })
    .await
    {
        Some(pg) => out.push(owing(pg).await),
        None => eprintln!("SKIPPED on PostgreSQL: RELAY_TEST_POSTGRES_URL is not set"),
    }
    out
}

async fn states(e: &Env) -> Vec<MessageState> {
    e.messages().await.iter().map(|m| m.state).collect()
}

async fn ownership(e: &Env) -> relay_store::ownership::Status {
    let id = e.endpoint.id.clone();
    e.store()
        .read(move |mut x| {
            Box::pin(async move { relay_store::ownership::status(&mut x, &id).await })
        })
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test]
async fn an_unverified_endpoint_is_challenged_and_never_sent_a_payload_until_it_proves_ownership() {
    for e in envs().await {
        assert_eq!(e.endpoint_now().await.state, EndpointState::Unverified);
        // The prover's passes are driven by hand until the proof; the
        // engine (whose services include the prover) starts after it.
        for i in 0..3 {
            e.publish(&format!("evt_{i}"), r#"{"order_id":"1"}"#).await;
        }
        assert_eq!(states(&e).await, [MessageState::Held; 3]);

        // Receivers that do not prove it: a plain 200, an echo of the
        // request's headers, a redirect, a 404.
        e.receiver.answer_challenges(false);
        let echo = Reply::new(200).with_body(format!(
            "{{\"method\":\"OPTIONS\",\"headers\":{{\"webhook-id\":\"{}\"}}}}",
            "chal_echoed"
        ));
        let wrong = [
            (Behavior::ok(), "no_echo"),
            (Behavior::reply(echo), "no_echo"),
            (
                Behavior::redirect("https://receiver.test/elsewhere"),
                "redirect",
            ),
            (Behavior::status(404), "status"),
        ];
        for (n, (behavior, code)) in wrong.into_iter().enumerate() {
            e.receiver.set_behavior(behavior);
            // Due at once (created), then a minute after each failure.
            if n > 0 {
                let next = ownership(&e).await.next_check_at.unwrap();
                e.clock.set(next);
            }
            assert_eq!(e.dispatcher.prove_due().await.unwrap(), 0);
            let st = ownership(&e).await;
            assert_eq!(
                st.failure.as_ref().map(|f| f.code.as_str()),
                Some(code),
                "{st:?}"
            );
            assert_eq!(st.checks, n as i64 + 1);
            assert!(st.next_check_at.is_some_and(|t| t > e.clock.now()));
        }
        // Nothing is due now: the next pass sends nothing.
        assert_eq!(e.dispatcher.prove_due().await.unwrap(), 0);
        let requests = e.receiver.requests();
        assert_eq!(requests.len(), 4, "four challenges, nothing else");
        for r in &requests {
            assert_eq!(r.method, "OPTIONS");
            assert!(r.body.is_empty(), "a challenge carries no payload");
            assert!(r.header("webhook-id").unwrap().starts_with("chal_"));
            assert_eq!(r.header("webhook-request-origin"), Some("relay"));
            // Signed over an empty body with the endpoint's key (checked at
            // the challenge's own time: the test's clock moves by days).
            let headers = relay_core::signature::SignatureHeaders {
                webhook_id: r.header("webhook-id").unwrap().into(),
                webhook_timestamp: r.header("webhook-timestamp").unwrap().into(),
                webhook_signature: r.header("webhook-signature").unwrap().into(),
            };
            let at: i64 = headers.webhook_timestamp.parse().unwrap();
            relay_core::signature::verify(
                &[e.key.verification_key()],
                &headers,
                b"",
                relay_core::time::Timestamp::from_millis(at * 1000),
                0,
            )
            .expect("signed with the endpoint's key over an empty body");
        }
        let ids: std::collections::HashSet<&str> = requests
            .iter()
            .map(|r| r.header("webhook-id").unwrap())
            .collect();
        assert_eq!(ids.len(), 4, "every challenge is fresh");
        // A manual attempt is refused too.
        let message = e.messages().await[0].id.clone();
        assert!(matches!(
            e.dispatcher.resend(&e.scope, &message, "key_1").await,
            Err(ManualError::Unverified)
        ));
        assert_eq!(e.receiver.count(), 4);
        assert_eq!(states(&e).await, [MessageState::Held; 3]);

        // The receiver answers the challenge (on demand): released, delivered.
        e.receiver.set_behavior(Behavior::ok());
        e.receiver.answer_challenges(true);
        // Back to the receiver's time: it checks the signature's timestamp.
        e.clock.set(common::wall_now());
        let answer = e
            .dispatcher
            .verify_ownership(&e.scope, &e.endpoint.id)
            .await
            .unwrap();
        assert_eq!(answer, Ok(()));
        assert_eq!(e.endpoint_now().await.state, EndpointState::Active);
        let st = ownership(&e).await;
        assert!(st.proven_at.is_some() && st.failure.is_none(), "{st:?}");
        let wake = Arc::new(Notify::new());
        let (_stop, stop_rx) = watch::channel(false);
        let _engine = e.dispatcher.clone().start(wake.clone(), stop_rx).await;
        wake.notify_one();
        e.receiver.wait_for(5 + 3, WAIT).await.unwrap();
        let posts: Vec<_> = e
            .receiver
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .collect();
        assert_eq!(posts.len(), 3);
        assert!(posts.iter().all(|r| r.signature_valid == Some(true)));
    }
}
