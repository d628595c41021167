//! `relay bench` as a CI smoke run: small workloads that must finish in
//! seconds with every delivery arrived. Never asserts timing.

use std::process::Command;

use serde_json::Value;

fn bench(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_relay"))
        .arg("bench")
        .args(args)
        .env("RELAY_LOG", "error")
        .output()
        .expect("relay bench runs");
    assert!(
        out.status.success(),
        "relay bench {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "relay bench {args:?} printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

fn number(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("no number at {pointer} in {v:#}"))
}

#[test]
fn throughput_delivers_every_message() {
    let v = bench(&[
        "throughput",
        "--events",
        "200",
        "--endpoints",
        "2",
        "--json",
    ]);
    assert_eq!(v["workload"], "throughput");
    assert_eq!(v["backend"], "sqlite");
    assert_eq!(v["events"], 200);
    assert_eq!(v["endpoints"], 2);
    assert_eq!(v["expected_deliveries"], 400);
    assert_eq!(v["deliveries"], 400, "every delivery arrived: {v:#}");
    assert_eq!(v["complete"], true);
    assert_eq!(v["publish_errors"], 0);
    assert_eq!(v["invalid_signatures"], 0);
    for field in [
        "/deliveries_per_s",
        "/elapsed_s",
        "/latency_ms/p50",
        "/latency_ms/p99",
        "/latency_ms/max",
        "/relay_cpu_s_per_1000",
        "/peak_rss_mib",
        "/limit/requests_per_s",
        "/ratio_of_limit",
        "/cpu_ratio_to_limit",
    ] {
        number(&v, field);
    }
    assert_eq!(number(&v, "/latency_ms/samples"), 400.0);
}

#[test]
fn limit_sends_every_request() {
    let v = bench(&["limit", "--requests", "500", "--json"]);
    assert_eq!(v["workload"], "limit");
    assert_eq!(v["requests"], 500);
    assert_eq!(v["errors"], 0);
    // The 1-connection run (500 requests) and the loaded run (500).
    assert_eq!(v["received_total"], 1000);
    for field in [
        "/requests_per_s",
        "/latency_ms/p50",
        "/latency_ms/p99",
        "/unloaded_latency_ms/p50",
        "/process_cpu_s_per_1000",
    ] {
        number(&v, field);
    }
}

/// `targets` runs every workload behind the targets (small here) and judges
/// each target; on PostgreSQL too when the tests have one
/// (`relay_store::testenv::postgres_url`).
/// Whether a target is met is timing, so it is not asserted; that each one
/// was measured and judged is.
#[test]
fn targets_measures_and_judges_every_target() {
    let pg = relay_store::testenv::postgres_url("targets_measures_and_judges_every_target");
    let mut args = vec![
        "targets",
        "--events",
        "200",
        "--messages",
        "2000",
        "--seconds",
        "1",
        "--idle-seconds",
        "1",
        "--queued",
        "200",
        "--limit-requests",
        "500",
        "--history",
        "2000",
        "--json",
    ];
    if let Some(url) = &pg {
        args.extend(["--database-url", url.as_str()]);
    }
    let v = bench(&args);
    assert_eq!(v["workload"], "targets");
    let targets = v["targets"].as_array().expect("a list of targets");
    let names: Vec<&str> = targets
        .iter()
        .map(|t| t["target"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "throughput on SQLite",
            "throughput on SQLite, share of limit",
            "throughput on PostgreSQL",
            "latency at 1,000 events/s (SQLite), p50",
            "latency at 1,000 events/s (SQLite), p99",
            "backlog: idle CPU",
            "backlog: fresh-message latency p50 / empty database",
            "isolation: healthy p99 with / without the bad endpoint",
            "peak RSS in throughput",
            "throughput on SQLite, share of limit (issue 47)",
            "Relay CPU per delivery on SQLite / the limit's",
            "throughput on PostgreSQL / on SQLite",
            "Relay CPU per delivery, redis_stream / https",
            "Relay CPU per delivery, nats_jetstream / https",
            "Relay CPU per delivery, mqtt / https",
            "Relay CPU per delivery, rabbitmq / https",
            "Relay CPU per delivery, kafka / https",
            "scale (SQLite): throughput, empty database / beside the history",
            "scale (PostgreSQL): throughput, empty database / beside the history",
            "scale (SQLite): the API's reads beside the history, worst p99",
            "scale (PostgreSQL): the API's reads beside the history, worst p99",
            "scale (SQLite): the retention purge's cost to throughput",
            "scale (PostgreSQL): the retention purge's cost to throughput",
            "scale (SQLite): bytes on disk per delivery",
            "scale (PostgreSQL): bytes on disk per delivery",
        ]
    );
    for t in targets {
        let name = t["target"].as_str().unwrap_or_default();
        if name.contains("PostgreSQL") && pg.is_none() {
            assert_eq!(t["met"], Value::Null, "{t:#}");
            assert_eq!(t["shown"], "not run");
            continue;
        }
        // A broker that is not running here is not measured, and says why.
        if name.contains(" / https") && t["shown"] == "not run" {
            assert!(!t["note"].as_str().unwrap_or_default().is_empty(), "{t:#}");
            continue;
        }
        assert!(t["measured"].is_f64(), "measured: {t:#}");
        if name.contains("bytes on disk") {
            assert_eq!(t["met"], Value::Null, "reported, not judged: {t:#}");
            continue;
        }
        assert!(t["met"].is_boolean(), "judged: {t:#}");
    }
    let runs = &v["runs"];
    assert_eq!(runs["throughput"]["deliveries"], 400, "{runs:#}");
    assert_eq!(runs["throughput"]["complete"], true);
    number(runs, "/throughput/ratio_of_limit");
    assert_eq!(runs["latency"]["complete"], true);
    assert_eq!(runs["isolation"]["with"]["complete"], true);
    assert_eq!(runs["backlog"]["messages"], 2000);
    assert_eq!(runs["https_one_endpoint"]["deliveries"], 200);
    assert_eq!(runs["scale"]["history"], 2000);
    assert_eq!(runs["scale"]["complete"], true, "{:#}", runs["scale"]);
    number(runs, "/scale/reads/worst_p99_ms");
    number(runs, "/scale/purge/cost");
    assert_eq!(v["peak_rss_reset"], true);
    if pg.is_some() {
        assert_eq!(runs["throughput_postgres"]["backend"], "postgres");
        assert_eq!(runs["throughput_postgres"]["deliveries"], 400);
        assert_eq!(runs["scale_postgres"]["backend"], "postgres");
        assert_eq!(runs["scale_postgres"]["complete"], true);
    }
}

/// `--nodes 3`: three nodes on one PostgreSQL database, publishers spread
/// over their APIs; every delivery arrives once and every node delivers.
#[test]
fn throughput_on_three_nodes_delivers_every_message() {
    let Some(pg) =
        relay_store::testenv::postgres_url("throughput_on_three_nodes_delivers_every_message")
    else {
        return;
    };
    let v = bench(&[
        "throughput",
        "--nodes",
        "3",
        "--database-url",
        &pg,
        "--events",
        "300",
        "--endpoints",
        "2",
        "--no-limit",
        "--json",
    ]);
    assert_eq!(v["nodes"], 3);
    assert_eq!(v["backend"], "postgres");
    assert_eq!(v["deliveries"], 600, "every delivery arrived: {v:#}");
    assert_eq!(v["complete"], true);
    let by_node: Vec<u64> = v["delivered_by_node"]
        .as_array()
        .unwrap_or_else(|| panic!("no delivered_by_node in {v:#}"))
        .iter()
        .map(|n| n.as_u64().unwrap_or(0))
        .collect();
    assert_eq!(by_node.len(), 3, "{v:#}");
    assert_eq!(by_node.iter().sum::<u64>(), 600, "{v:#}");
    assert!(
        by_node.iter().all(|n| *n > 0),
        "every node delivered: {v:#}"
    );
}

/// `--nodes` needs a PostgreSQL database to share.
#[test]
fn several_nodes_need_postgres() {
    let out = Command::new(env!("CARGO_BIN_EXE_relay"))
        .args(["bench", "throughput", "--nodes", "2", "--json"])
        .env("RELAY_LOG", "error")
        .output()
        .expect("relay bench runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--nodes needs --database-url"), "{err}");
}

/// Publishes Relay refuses (each body over its 1 MiB request limit) end the
/// run at once: no deliveries are awaited for them, so the run does not
/// wait out `--timeout-seconds`, and it says it is incomplete.
#[test]
fn refused_publishes_end_the_run_without_waiting() {
    let v = bench(&[
        "throughput",
        "--events",
        "5",
        "--payload-bytes",
        "1100000",
        "--no-limit",
        "--timeout-seconds",
        "120",
        "--json",
    ]);
    assert_eq!(v["publish_errors"], 5, "{v:#}");
    assert_eq!(v["expected_deliveries"], 10);
    assert_eq!(v["deliveries"], 0);
    assert_eq!(v["complete"], false);
    assert_eq!(
        v["timed_out"], false,
        "it waited for deliveries that cannot come"
    );
}

/// Inbound receipts at a small rate: every one accepted and processed.
#[test]
fn receipts_are_accepted_and_processed() {
    let v = bench(&[
        "receipts",
        "--rate",
        "50",
        "--seconds",
        "2",
        "--timeout-seconds",
        "60",
        "--json",
    ]);
    assert_eq!(v["workload"], "receipts");
    assert_eq!(v["receipts"], 100);
    assert_eq!(v["accepted"], 100, "every receipt answered 2xx: {v:#}");
    assert_eq!(v["errors"], 0);
    assert_eq!(v["processed"], true, "{v:#}");
    for field in [
        "/receipts_per_s",
        "/latency_2xx_ms/p50",
        "/latency_2xx_ms/p99",
    ] {
        assert!(number(&v, field) > 0.0, "{field} in {v:#}");
    }
}

/// A broker workload against the broker on `port`: every event stored
/// once on each side, the raw client's publishes all acknowledged, the
/// same JSON keys for every kind.
fn broker_delivers_every_message(workload: &str, port: u16, kind: &str) {
    if std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        relay_store::testenv::skip(
            &format!("relay bench {workload}"),
            &format!("nothing listens on 127.0.0.1:{port} (.ci/run starts it)"),
        );
        return;
    }
    check_broker_run(workload, kind);
}

/// `relay bench <workload> --events 200`: every event stored once on each
/// side, the raw client's publishes all acknowledged. Returns the JSON.
fn check_broker_run(workload: &str, kind: &str) -> Value {
    let v = bench(&[workload, "--events", "200", "--json"]);
    assert_eq!(v["workload"], workload);
    assert_eq!(v["broker"], kind);
    assert_eq!(v["delivered"], 200, "{v:#}");
    assert_eq!(v["relay_stored"], 200, "{v:#}");
    assert_eq!(v["raw_failures"], 0, "{v:#}");
    assert_eq!(v["raw_stored"], 200, "{v:#}");
    assert_eq!(v["complete"], true, "{v:#}");
    assert!(v["ack"].is_string(), "{v:#}");
    // The event sent first, outside the clock, is not counted.
    assert!(
        v["leased_at_publish"].as_u64().is_some_and(|n| n <= 200),
        "{v:#}"
    );
    for field in ["/relay_deliveries_per_s", "/raw_publishes_per_s", "/ratio"] {
        assert!(number(&v, field) > 0.0, "{field} in {v:#}");
    }
    v
}

/// NATS JetStream against the server on 4222 (PubAck).
#[test]
fn nats_delivers_every_message() {
    broker_delivers_every_message("nats", 4222, "nats_jetstream");
}

/// Redis Streams against the server on 6379 (the XADD entry id).
#[test]
fn redis_delivers_every_message() {
    broker_delivers_every_message("redis", 6379, "redis_stream");
}

/// RabbitMQ against the broker on 5672 (publisher confirms).
#[test]
fn rabbitmq_delivers_every_message() {
    broker_delivers_every_message("rabbitmq", 5672, "rabbitmq");
}

/// MQTT against the broker on 1883 (the PUBACK of each packet identifier;
/// the bench's own subscriber counts what the broker hands on).
#[test]
fn mqtt_delivers_every_message() {
    broker_delivers_every_message("mqtt", 1883, "mqtt");
}

/// Object storage against a moto server the bench starts itself (the test
/// environment's `moto_server`, beside its Python): 1000 events, two full
/// objects on each side, every line read back.
#[test]
fn s3_writes_every_message() {
    let moto = relay_receiver::judges::python().with_file_name("moto_server");
    if !moto.is_file() {
        relay_store::testenv::skip(
            "relay bench s3",
            &format!(
                "{} is missing (scripts/test installs moto[server])",
                moto.display()
            ),
        );
        return;
    }
    let moto = moto.display().to_string();
    let v = bench(&["s3", "--events", "1000", "--moto-server", &moto, "--json"]);
    assert_eq!(v["workload"], "s3");
    assert_eq!(v["objects"], 2, "{v:#}");
    assert_eq!(v["relay_objects"], 2, "{v:#}");
    assert_eq!(v["relay_stored"], 1000, "{v:#}");
    assert_eq!(v["raw_failures"], 0, "{v:#}");
    assert_eq!(v["raw_stored"], 1000, "{v:#}");
    assert_eq!(v["complete"], true, "{v:#}");
    for field in [
        "/relay_events_per_s",
        "/relay_objects_per_s",
        "/raw_events_per_s",
        "/ratio",
    ] {
        assert!(number(&v, field) > 0.0, "{field} in {v:#}");
    }
}

/// Amazon SQS against a private moto server (the test environment's, as
/// `s3`'s): 100 events each side, every message in its queue (moto answers
/// a few dozen sends a second: a small run).
#[test]
fn sqs_sends_every_message() {
    moto_queue_run("sqs");
}

/// Amazon SNS against a private moto server: 100 events each side, every
/// message handed on to the queue subscribed to its topic.
#[test]
fn sns_publishes_every_message() {
    moto_queue_run("sns");
}

/// Amazon EventBridge against a private moto server: 100 events each
/// side, every event routed by its bus's rule to the queue it targets.
#[test]
fn eventbridge_puts_every_event() {
    moto_queue_run("eventbridge");
}

/// The judges' directory of the repository (the `pubsub` front door, the
/// Service Bus judge).
fn judges() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/judges").to_string()
}

/// Azure Service Bus against the tests' judge (SAS checked on every send):
/// 100 events each side, every message in its queue's file.
#[test]
fn service_bus_sends_every_message() {
    let python = relay_receiver::judges::python().display().to_string();
    let v = bench(&[
        "service-bus",
        "--events",
        "100",
        "--python",
        &python,
        "--judges",
        &judges(),
        "--json",
    ]);
    assert_eq!(v["broker"], "azure_service_bus");
    complete(&v);
}

/// Google Cloud Pub/Sub against the Google Cloud CLI's emulator behind the
/// tests' front door (which verifies the service account's JWT): 100
/// events each side, every message pulled from its subscription. The
/// emulator comes from no registry: a machine without it fails here.
#[test]
fn pubsub_publishes_every_message() {
    let python = relay_receiver::judges::python().display().to_string();
    let v = bench(&[
        "pubsub",
        "--events",
        "100",
        "--python",
        &python,
        "--judges",
        &judges(),
        "--json",
    ]);
    assert_eq!(v["broker"], "pubsub");
    complete(&v);
}

/// Every message of both sides stored, and a rate and ratio measured.
fn complete(v: &Value) {
    assert_eq!(v["relay_stored"], 100, "{v:#}");
    assert_eq!(v["raw_failures"], 0, "{v:#}");
    assert_eq!(v["raw_stored"], 100, "{v:#}");
    assert_eq!(v["complete"], true, "{v:#}");
    for field in ["/relay_deliveries_per_s", "/raw_publishes_per_s", "/ratio"] {
        assert!(number(v, field) > 0.0, "{field} in {v:#}");
    }
}

fn moto_queue_run(workload: &str) {
    let moto = relay_receiver::judges::python().with_file_name("moto_server");
    if !moto.is_file() {
        relay_store::testenv::skip(
            &format!("relay bench {workload}"),
            &format!(
                "{} is missing (scripts/test installs moto[server])",
                moto.display()
            ),
        );
        return;
    }
    let moto = moto.display().to_string();
    let v = bench(&[
        workload,
        "--events",
        "100",
        "--moto-server",
        &moto,
        "--json",
    ]);
    assert_eq!(v["workload"], workload);
    assert_eq!(v["broker"], workload);
    complete(&v);
}

/// Kafka against librdkafka's mock cluster, which the bench starts itself
/// (the delivery report with `acks=all`), and librdkafka's producer alone
/// with every record handed over at once.
#[test]
fn kafka_delivers_every_message() {
    let v = check_broker_run("kafka", "kafka");
    assert_eq!(v["producer_alone_failures"], 0, "{v:#}");
    for field in ["/producer_alone_per_s", "/producer_alone_ratio"] {
        assert!(number(&v, field) > 0.0, "{field} in {v:#}");
    }
}
