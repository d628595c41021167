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
