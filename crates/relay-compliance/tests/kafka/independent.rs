//! What Relay wrote, read back by a client Relay does not use:
//! `kafka-python` (pure Python, no librdkafka), through
//! `scripts/judges/kafka_judge.py`, which also judges every signature with
//! the `standardwebhooks` library.

use std::collections::BTreeMap;
use std::time::Duration;

use relay_core::model::ContentMode;
use relay_core::outcome::Verdict;
use relay_destinations::Config;
use relay_receiver::judges::Judges;

use super::answers::{NOW, client, deliver, prepared, whsec};
use super::cluster::Cluster;
use super::destination;

/// Ten records in structured mode and ten in binary mode, on three
/// partitions: the independent client reads all twenty where Relay's
/// attempt records say they are (partition and offset), each keyed by its
/// ordering key, each signature verifies, and the binary ones carry the
/// binding's `ce_` headers with the data as the value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_independent_client_reads_what_relay_wrote() {
    let judges = Judges::find();
    let cluster = Cluster::start(3, "independent", 3);
    let structured = client(
        &cluster.ports(),
        Config::Kafka(destination(&cluster, ContentMode::Structured)),
    );
    let binary = client(
        &cluster.ports(),
        Config::Kafka(destination(&cluster, ContentMode::Binary)),
    );
    let mut written: BTreeMap<String, (i64, i64, ContentMode, String)> = BTreeMap::new();
    for i in 0..20 {
        let (c, mode) = if i % 2 == 0 {
            (&structured, ContentMode::Structured)
        } else {
            (&binary, ContentMode::Binary)
        };
        let id = format!("evt_ind_{i:02}");
        let key = format!("customer-{}", i % 5);
        let (verdict, record) =
            deliver(c, &prepared(&id, Some(&key), mode), Duration::from_secs(10)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
        let partition = record.detail["partition"].as_i64().unwrap();
        let offset = record.detail["offset"].as_i64().unwrap();
        written.insert(id, (partition, offset, mode, key));
    }
    let now = NOW.unix_seconds().to_string();
    let secret = whsec();
    let (ok, out) = judges.run(
        "kafka_judge.py",
        &[
            "--bootstrap",
            &cluster.bootstrap,
            "--topic",
            "independent",
            "--count",
            "20",
            "--secret",
            &secret,
            "--now",
            &now,
            "--timeout",
            "60",
        ],
    );
    assert!(ok, "{out}");
    let json = out
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("the judge's JSON");
    let doc: serde_json::Value = serde_json::from_str(json).unwrap();
    let records = doc["records"].as_array().unwrap();
    assert_eq!(records.len(), 20, "{out}");
    for r in records {
        let h = &r["headers"];
        let id = h["webhook-id"].as_str().unwrap();
        let (partition, offset, mode, key) = written.get(id).unwrap_or_else(|| panic!("{id}"));
        assert_eq!(r["partition"].as_i64(), Some(*partition), "{id}");
        assert_eq!(r["offset"].as_i64(), Some(*offset), "{id}");
        assert_eq!(r["key"].as_str(), Some(key.as_str()), "{id}");
        assert_eq!(r["verified"], true, "{id}: {}", r["why"]);
        let value = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            r["value_b64"].as_str().unwrap(),
        )
        .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&value).unwrap();
        match mode {
            ContentMode::Structured => {
                assert_eq!(h["content-type"], "application/cloudevents+json", "{id}");
                assert_eq!(value["id"], id);
                assert_eq!(value["data"]["order_id"], "1042");
                assert!(h.get("ce_id").is_none(), "{id}");
            }
            ContentMode::Binary => {
                assert_eq!(h["content-type"], "application/json", "{id}");
                assert_eq!(h["ce_id"], id);
                assert_eq!(h["ce_specversion"], "1.0");
                assert_eq!(h["ce_type"], "order.shipped");
                assert_eq!(h["ce_subject"], "order/1042");
                assert_eq!(value["order_id"], "1042");
            }
        }
    }
}
