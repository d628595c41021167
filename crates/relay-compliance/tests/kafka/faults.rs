//! Faults in the middle of a burst, through the whole engine (the
//! compliance harness: store, dispatcher, retries, circuit breaker): every
//! accepted event ends up on the topic, and a record is there twice only
//! where an attempt's outcome was unknown (`possibly_persisted`). Each test
//! prints its counts (`kafka fault …: N events, N records, N duplicates`).

use std::collections::BTreeMap;
use std::time::Duration;

use rdkafka::types::RDKafkaRespErr as E;
use relay_compliance::{ContentMode, Harness};
use relay_core::model::MessageState;
use relay_core::outcome::{AttemptOutcome, FailureCode, Refusal};

use super::KafkaPeer;
use super::cluster::{Got, Reader};

const BURST: usize = 40;

async fn start(test: &str) -> Harness<KafkaPeer> {
    Harness::<KafkaPeer>::start(false, test, ContentMode::Structured)
        .await
        .expect("SQLite and the mock cluster are always there")
}

/// One event delivered first, so that the burst meets a producer that is
/// connected and has its producer id (the fault strikes records in
/// flight, not the start-up).
async fn warm_up(h: &Harness<KafkaPeer>) -> String {
    let id = h.publish().await;
    assert_eq!(h.round().await, 1);
    assert_eq!(h.only_message().await.state, MessageState::Delivered);
    id
}

async fn publish(h: &Harness<KafkaPeer>, n: usize) -> Vec<String> {
    let mut ids = Vec::with_capacity(n);
    for _ in 0..n {
        ids.push(h.publish().await);
    }
    ids
}

/// Runs `round` of the dispatcher while `fault` waits until a Produce
/// request reached a broker (records in flight), then strikes.
async fn round_with(h: &Harness<KafkaPeer>, fault: impl FnOnce(&Harness<KafkaPeer>)) {
    h.peer.cluster.track_requests();
    let strike = async {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while h.peer.cluster.produce_requests() == 0 {
            assert!(tokio::time::Instant::now() < deadline, "no Produce request");
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        fault(h);
    };
    let (n, ()) = tokio::join!(h.round(), strike);
    assert!(n > 0);
}

/// Rounds, moving the clock past every retry time and the breaker's
/// cool-down, until every message is delivered.
async fn deliver_all(h: &Harness<KafkaPeer>) {
    h.retry_until_delivered(30).await;
    let mut left = Vec::new();
    for m in h.messages().await {
        if m.state != MessageState::Delivered {
            let last = h.attempts(&m).await.pop();
            left.push(format!(
                "{} {:?}: {:?}",
                m.event_id,
                m.state,
                last.map(|a| (a.error_kind, a.error_code, a.detail))
            ));
        }
    }
    assert!(left.is_empty(), "not everything was delivered: {left:#?}");
}

/// What reached the topic: every accepted event at least once (none lost),
/// and each event found twice had an attempt whose outcome was unknown,
/// or (`resent`) librdkafka sent its unanswered request again within the
/// attempt. A real broker drops such a resend (the idempotent producer's
/// sequence numbers); the mock cluster checks them only for transactional
/// producers (`rd_kafka_mock_validate_records`), so it writes the resend.
/// Returns (records, duplicates, attempts with an unknown outcome).
async fn account(h: &Harness<KafkaPeer>, ids: &[String], resent: bool) -> (usize, usize, usize) {
    let messages = h.messages().await;
    assert_eq!(messages.len(), ids.len());
    assert!(
        messages.iter().all(|m| m.state == MessageState::Delivered),
        "{messages:?}"
    );
    let mut unknown: BTreeMap<String, usize> = BTreeMap::new();
    // The highest offset Relay saw acknowledged, per partition.
    let mut high: BTreeMap<i64, i64> = BTreeMap::new();
    for m in &messages {
        let attempts = h.attempts(m).await;
        let n = attempts
            .iter()
            .filter(|a| a.detail["persisted"] == "possibly_persisted")
            .count();
        unknown.insert(m.event_id.clone(), n);
        for a in attempts
            .iter()
            .filter(|a| a.outcome == AttemptOutcome::Delivered)
        {
            let (p, o) = (a.detail["partition"].as_i64(), a.detail["offset"].as_i64());
            let (p, o) = (p.expect("a partition"), o.expect("an offset"));
            let e = high.entry(p).or_insert(o);
            *e = (*e).max(o);
        }
    }
    // The reader reads each partition in offset order: once it has the
    // highest acknowledged offset of each, it has every copy written
    // before.
    let got = read_up_to(&h.peer.reader, &high).await;
    let mut copies: BTreeMap<String, usize> = BTreeMap::new();
    for g in &got {
        *copies.entry(g.header("webhook-id").unwrap()).or_default() += 1;
    }
    for id in ids {
        let n = copies.get(id).copied().unwrap_or(0);
        assert!(n >= 1, "{id} was lost");
        assert!(
            n <= 1 + unknown[id] + usize::from(resent),
            "{id} is there {n} times with {} attempts of unknown outcome",
            unknown[id]
        );
    }
    let duplicates = got.len() - copies.len();
    (got.len(), duplicates, unknown.values().sum())
}

/// What the reader has once it read every partition of `high` up to its
/// offset (10 s at most).
async fn read_up_to(reader: &Reader, high: &BTreeMap<i64, i64>) -> Vec<Got> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let got = reader.got();
        let done = high.iter().all(|(p, o)| {
            got.iter()
                .any(|g| i64::from(g.partition) == *p && g.offset >= *o)
        });
        if done || tokio::time::Instant::now() >= deadline {
            return got;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The leader of the partition goes down while a burst is in flight, and
/// the cluster moves the leadership to another broker (as a controller
/// does): librdkafka sends the unanswered request again to the new leader
/// within the attempt, and every attempt succeeds. A real broker takes the
/// resent records once (their sequence numbers); the mock cluster writes
/// them again, which the counts show as duplicates.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broker_down_mid_burst_loses_nothing() {
    let h = start("broker_down_mid_burst").await;
    let c = &h.peer.cluster;
    c.leader(-1, 1);
    let mut ids = vec![warm_up(&h).await];
    c.rtt(1, Duration::from_millis(300));
    ids.extend(publish(&h, BURST).await);
    round_with(&h, |h| {
        h.peer.cluster.down(1);
        h.peer.cluster.leader(-1, 2);
    })
    .await;
    deliver_all(&h).await;
    let (records, duplicates, unknown) = account(&h, &ids, true).await;
    println!(
        "kafka fault broker down mid-burst: {} events, {records} records, {duplicates} duplicates, {unknown} attempts of unknown outcome",
        ids.len()
    );
}

/// Every broker goes down while a burst is in flight and stays down past
/// the attempts' timeout: each record in flight times out in the client
/// (`possibly_persisted`: its Produce was sent, its answer lost); Relay
/// retries them once the cluster is back. Nothing is lost; a record the
/// broker had written before it went down is there twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_down_mid_burst_loses_nothing() {
    let h = start("cluster_down_mid_burst").await;
    let c = &h.peer.cluster;
    c.leader(-1, 1);
    let mut ids = vec![warm_up(&h).await];
    c.rtt(1, Duration::from_millis(300));
    ids.extend(publish(&h, BURST).await);
    round_with(&h, |h| h.peer.cluster.down(-1)).await;
    let failed = h
        .messages()
        .await
        .iter()
        .filter(|m| m.state == MessageState::Scheduled)
        .count();
    assert!(failed > 0, "the attempts in flight failed");
    c.rtt(1, Duration::ZERO);
    c.up(-1);
    deliver_all(&h).await;
    let (records, duplicates, unknown) = account(&h, &ids, false).await;
    assert!(unknown > 0, "some outcomes were unknown");
    println!(
        "kafka fault cluster down mid-burst: {} events, {records} records, {duplicates} duplicates, {unknown} attempts of unknown outcome",
        ids.len()
    );
}

/// The partition's leadership moves to another broker while a burst is in
/// flight: the old leader answers `NOT_LEADER_OR_FOLLOWER`, librdkafka
/// finds the new one and sends there. Nothing lost, nothing twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_change_mid_burst_loses_nothing() {
    let h = start("leader_change_mid_burst").await;
    let c = &h.peer.cluster;
    c.leader(-1, 1);
    let mut ids = vec![warm_up(&h).await];
    c.rtt(-1, Duration::from_millis(100));
    ids.extend(publish(&h, BURST).await);
    round_with(&h, |h| h.peer.cluster.leader(-1, 3)).await;
    c.rtt(-1, Duration::ZERO);
    deliver_all(&h).await;
    let (records, duplicates, unknown) = account(&h, &ids, false).await;
    assert_eq!(duplicates, 0);
    println!(
        "kafka fault leader change mid-burst: {} events, {records} records, {duplicates} duplicates, {unknown} attempts of unknown outcome",
        ids.len()
    );
}

/// Produce requests answered with errors in the middle of a burst: the
/// retriable ones (`NOT_LEADER_OR_FOLLOWER`, `REQUEST_TIMED_OUT`,
/// `NOT_ENOUGH_REPLICAS`, `KAFKA_STORAGE_ERROR`) are retried by librdkafka
/// within the attempt; `TOPIC_AUTHORIZATION_FAILED` reaches Relay, which
/// retries the attempt later (`auth_refused`). Nothing lost, nothing
/// twice (a refused request wrote nothing).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn injected_produce_errors_lose_nothing() {
    let h = start("injected_produce_errors").await;
    let mut ids = vec![warm_up(&h).await];
    ids.extend(publish(&h, BURST).await);
    h.peer.cluster.push_produce_errors(&[
        E::RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        E::RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
        E::RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
        E::RD_KAFKA_RESP_ERR_KAFKA_STORAGE_ERROR,
        E::RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
        E::RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED,
    ]);
    while h.round().await > 0 {}
    let refused = {
        let mut n = 0;
        for m in h.messages().await {
            n += h
                .attempts(&m)
                .await
                .iter()
                .filter(|a| a.error_code == Some(FailureCode::Refused(Refusal::AuthRefused)))
                .count();
        }
        n
    };
    assert!(refused > 0, "the authorization errors reached Relay");
    deliver_all(&h).await;
    let (records, duplicates, unknown) = account(&h, &ids, false).await;
    assert_eq!(duplicates, 0);
    println!(
        "kafka fault injected produce errors: {} events, {records} records, {duplicates} duplicates, {refused} attempts refused, {unknown} of unknown outcome",
        ids.len()
    );
}
