//! Real deliveries of `relay serve`, judged from outside (issue 3, item 3):
//! the requests Relay sends to a `v1` (HMAC) and a `v1a` (Ed25519) endpoint
//! are captured by the test receiver and handed to `scripts/judges/`:
//! `swh_judge.py` (Standard Webhooks: the PyPI `standardwebhooks` library for
//! `v1`, `cryptography` for `v1a`) with the secret from the create
//! response or the public key from `GET /v1/endpoints/{id}/signing-keys`,
//! `ce_validate.py` (the CloudEvents SDK, the official JSON Schema and the
//! spec's rules) for the body, and `traceparent_check.py` (W3C grammar and
//! OpenTelemetry's propagator) for the delivered `traceparent`.
//!
//! The judges run in the test environment `scripts/test` makes
//! (`RELAY_TEST_PYTHON`); without it the test fails, saying so.

mod harness;

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use harness::{Settings, Sink, event_body, id_of, path_and_id, start, tenant};
use relay_receiver::{Behavior, Recorded};
use serde_json::Value;

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[test]
fn real_deliveries_satisfy_the_outside_judges() {
    let judges = harness::judges();
    let sink = Sink::start(Behavior::ok());
    let dir = tempfile::tempdir().unwrap();
    let relay = start(&Settings::new(dir.path(), &sink));
    let t = tenant(&relay.url, "judged");
    let v1 = t.endpoint(&sink.receiver.url("/judge/v1"), "v1");
    let v1a = t.endpoint(&sink.receiver.url("/judge/v1a"), "v1a");
    let secret = v1["secret"]
        .as_str()
        .expect("v1: secret in the create response");
    assert!(secret.starts_with("whsec_"), "{v1}");
    let created_pk = v1a["public_key"].as_str().expect("v1a: public_key");
    let keys = t
        .api
        .get(&format!("/v1/endpoints/{}/signing-keys", id_of(&v1a)));
    let public_key = keys["data"][0]["public_key"]
        .as_str()
        .unwrap_or_else(|| panic!("no public key in {keys}"));
    assert!(public_key.starts_with("whpk_"), "{keys}");
    assert_eq!(
        public_key, created_pk,
        "signing-keys agrees with the create response"
    );

    // One event with a generated traceparent, one continuing the publisher's.
    t.api.expect(
        "POST",
        "/v1/events",
        Some(&event_body("evt_judged_1", "order/1")),
        202,
    );
    let mut traced = event_body("evt_judged_2", "order/2");
    traced["traceparent"] = Value::String(TRACEPARENT.into());
    t.api.expect("POST", "/v1/events", Some(&traced), 202);
    let wanted: HashSet<(String, String)> = ["/judge/v1", "/judge/v1a"]
        .iter()
        .flat_map(|p| ["evt_judged_1", "evt_judged_2"].map(|e| (p.to_string(), e.to_string())))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(30);
    let requests = sink
        .wait_for_all(&wanted, path_and_id, deadline)
        .unwrap_or_else(|e| panic!("deliveries missing: {e}\n{}", relay.log_tail(20)));

    let tmp = tempfile::tempdir().unwrap();
    for (n, r) in requests.iter().enumerate() {
        let (path, id) = path_and_id(r).expect("webhook-id");
        let (key, wrong_key) = if path == "/judge/v1" {
            (secret, public_key)
        } else {
            (public_key, secret)
        };
        let file = tmp.path().join(format!("request-{n}.json"));
        r.write_judge_json(&file).expect("write judge JSON");
        let file = file.to_str().expect("UTF-8 path");

        let (ok, out) = judges.run("swh_judge.py", &["--secret", key, file]);
        assert!(
            ok,
            "{path} {id}: the signature judge rejects Relay's delivery\n{out}"
        );
        let (ok, out) = judges.run("swh_judge.py", &["--secret", wrong_key, file]);
        assert!(
            !ok,
            "{path} {id}: the judge accepts the other endpoint's key\n{out}"
        );
        let (ok, out) = judges.run("ce_validate.py", &[file]);
        assert!(
            ok,
            "{path} {id}: the CloudEvents judge rejects the body\n{out}"
        );

        let body = cloudevent(r);
        let traceparent = body["traceparent"]
            .as_str()
            .unwrap_or_else(|| panic!("{path} {id}: no traceparent in {body}"));
        let (ok, out) = judges.run("traceparent_check.py", &[traceparent]);
        assert!(ok, "{path} {id}: traceparent {traceparent} rejected\n{out}");
        if id == "evt_judged_2" {
            assert_eq!(
                &traceparent[..35],
                &TRACEPARENT[..35],
                "{path}: the publisher's trace id is kept"
            );
        }
        assert_eq!(body["id"], id.as_str(), "CloudEvents id = webhook-id");
    }
    // The judged files stay readable for whoever debugs a failure above.
    assert!(Path::new(tmp.path()).is_dir());
    relay.assert_no_panic();
}

fn cloudevent(r: &Recorded) -> Value {
    serde_json::from_slice(&r.body)
        .unwrap_or_else(|e| panic!("body is not JSON: {e}: {:?}", r.body_str()))
}
