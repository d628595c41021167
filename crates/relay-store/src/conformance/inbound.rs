//! Inbound provider webhooks: sources (scoped, sealed secrets, rotation),
//! receipts (durable deduplication, rejected ones capped per source), the
//! queue of verified receipts (leased, completed exactly once) and the
//! ledger (keyset pages, filters).

use super::inbound_calls as ic;
use std::collections::BTreeMap;

use relay_core::id::IdKind;
use relay_core::model::Environment;
use relay_core::sealed::MasterKey;
use relay_core::time::Timestamp;
use relay_inbound::model::{InboundSource, LedgerEntry, ReceiptState, SourceRecord, Verdict};
use relay_inbound::{Options, Preset, SourceSecret};

use super::{T0, page, scope, tenant};
use crate::inbound::{
    LedgerFilter, NewReceipt, ReceiptFilter, Received, SourcePatch, new_token, open_secret,
    seal_secret,
};
use crate::{Scope, Store, StoreError, new_id};

const MASTER: [u8; 32] = [7; 32];

pub(super) fn source_record(
    sc: &Scope,
    name: &str,
    preset: Preset,
) -> (SourceRecord, SourceSecret) {
    let id = new_id(IdKind::InboundSource, T0);
    let secret = SourceSecret::new(format!("shh-{name}"));
    let stored = seal_secret(&MasterKey::from_bytes(MASTER), &id, &secret);
    let rec = SourceRecord {
        source: InboundSource {
            id,
            environment: sc.environment,
            name: name.into(),
            preset,
            provider: preset.as_str().into(),
            options: Options::default(),
            secret: stored.info(),
            previous_secret_expires_at: None,
            rate_limit_per_second: 100,
            max_body_bytes: 65_536,
            path: InboundSource::path_of(&new_token()),
            url: None,
            created_at: T0,
            updated_at: T0,
        },
        tenant_id: sc.tenant_id.clone(),
        secret: stored,
        previous: None,
    };
    (rec, secret)
}

pub(super) async fn source(s: &dyn Store, sc: &Scope, name: &str) -> SourceRecord {
    let (rec, _) = source_record(sc, name, Preset::Stripe);
    ic::create_inbound_source(s, &rec, None)
        .await
        .expect("create source");
    rec
}

pub(super) fn receipt(
    src: &SourceRecord,
    verdict: Result<&str, &str>,
    at: Timestamp,
) -> NewReceipt {
    NewReceipt {
        id: new_id(IdKind::Receipt, at),
        tenant_id: src.tenant_id.clone(),
        environment: src.source.environment,
        source_id: src.source.id.clone(),
        provider: src.source.provider.clone(),
        preset: src.source.preset,
        verdict: verdict.map(str::to_owned).map_err(str::to_owned),
        url: format!("https://relay.example.com{}", src.source.path),
        headers: BTreeMap::from([("content-type".to_owned(), "application/json".to_owned())]),
        body: br#"{"id":"evt_1","type":"charge.succeeded"}"#.to_vec(),
        now: at,
    }
}

pub(super) fn entry(receipt_id: &str, event_id: &str, kind: &str) -> LedgerEntry {
    LedgerEntry {
        id: new_id(IdKind::LedgerEntry, T0),
        source_id: String::new(),
        provider: String::new(),
        event_type: kind.into(),
        provider_event_id: event_id.into(),
        occurred_at: Some(T0),
        received_at: T0,
        receipt_id: receipt_id.into(),
        message_id: Some(format!("msg-{event_id}")),
        recipient: Some("a@example.com".into()),
        status: Some("delivered".into()),
        recorded_at: T0,
    }
}

pub async fn inbound_sources_are_scoped_and_keep_their_secret_sealed(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let (rec, secret) = source_record(&live, "payments", Preset::Stripe);
    ic::create_inbound_source(s, &rec, None).await.unwrap();
    let master = MasterKey::from_bytes(MASTER);

    let got = ic::get_inbound_source(s, &live, &rec.source.id)
        .await
        .unwrap()
        .expect("found in its scope");
    assert_eq!(got, rec);
    assert_eq!(
        open_secret(&master, &got.source.id, &got.secret).unwrap(),
        secret
    );
    assert!(
        open_secret(&master, "ins_other", &got.secret).is_err(),
        "a sealed secret opens for its own source only"
    );
    assert!(!format!("{got:?}").contains(secret.expose()));
    let token = got.source.path.trim_start_matches("/inbound/").to_owned();
    assert_eq!(token.len(), 32);
    assert_eq!(
        ic::inbound_source_by_token(s, &token)
            .await
            .unwrap()
            .unwrap(),
        rec
    );
    assert!(
        ic::inbound_source_by_token(s, "nope")
            .await
            .unwrap()
            .is_none()
    );

    // Another environment does not see it.
    let test = scope(&t, Environment::Test);
    assert!(
        ic::get_inbound_source(s, &test, &rec.source.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        ic::list_inbound_sources(s, &test, &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );

    // Rotation: the old secret verifies until the overlap ends.
    let new_secret = SourceSecret::new("the new one");
    let until = T0.plus_seconds(3600);
    let patch = SourcePatch {
        name: Some("payments (eu)".into()),
        rate_limit_per_second: Some(5),
        rotate: Some((
            seal_secret(&master, &rec.source.id, &new_secret),
            Some(until),
        )),
        now: T0.plus_seconds(1),
        ..SourcePatch::default()
    };
    let rotated = ic::update_inbound_source(s, &live, &rec.source.id, &patch, None)
        .await
        .unwrap();
    assert_eq!(rotated.source.name, "payments (eu)");
    assert_eq!(rotated.source.rate_limit_per_second, 5);
    assert_eq!(rotated.source.previous_secret_expires_at, Some(until));
    let reread = ic::get_inbound_source(s, &live, &rec.source.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(reread, rotated);
    assert_eq!(
        open_secret(&master, &rec.source.id, &reread.secret).unwrap(),
        new_secret
    );
    let (previous, at) = reread.previous.clone().expect("the previous secret");
    assert_eq!(at, until);
    assert_eq!(
        open_secret(&master, &rec.source.id, &previous).unwrap(),
        secret
    );
    // A rotation without overlap drops the previous one.
    let patch = SourcePatch {
        rotate: Some((seal_secret(&master, &rec.source.id, &secret), None)),
        now: T0.plus_seconds(2),
        ..SourcePatch::default()
    };
    let again = ic::update_inbound_source(s, &live, &rec.source.id, &patch, None)
        .await
        .unwrap();
    assert!(again.previous.is_none());
    assert!(matches!(
        ic::update_inbound_source(s, &test, &rec.source.id, &patch, None).await,
        Err(StoreError::NotFound)
    ));

    // Delete: gone from reads and from its path.
    assert!(matches!(
        ic::delete_inbound_source(s, &test, &rec.source.id, T0, None).await,
        Err(StoreError::NotFound)
    ));
    ic::delete_inbound_source(s, &live, &rec.source.id, T0.plus_seconds(3), None)
        .await
        .unwrap();
    assert!(
        ic::inbound_source_by_token(s, &token)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        ic::get_inbound_source(s, &live, &rec.source.id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        ic::list_inbound_sources(s, &live, &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );
}

pub async fn a_repeated_provider_event_is_one_receipt_counted(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let src = source(s, &live, "stripe").await;
    let first = ic::receive_inbound(s, &receipt(&src, Ok("evt_1"), T0))
        .await
        .unwrap();
    let Received::New { id } = first else {
        panic!("the first is new: {first:?}")
    };
    let again = ic::receive_inbound(s, &receipt(&src, Ok("evt_1"), T0.plus_seconds(1)))
        .await
        .unwrap();
    assert_eq!(
        again,
        Received::Duplicate {
            id: id.clone(),
            received_count: 2
        }
    );
    // Concurrent repeats: every one counted, none new.
    let repeats = (0..30).map(|i| {
        let r = receipt(&src, Ok("evt_1"), T0.plus_seconds(2 + i));
        async move { ic::receive_inbound(s, &r).await }
    });
    for o in futures_util::future::join_all(repeats).await {
        assert!(matches!(o, Ok(Received::Duplicate { .. })), "{o:?}");
    }
    let got = ic::get_receipt(s, &live, &id).await.unwrap().unwrap();
    assert_eq!(got.received_count, 32);
    assert_eq!(got.verdict, Verdict::Verified);
    assert_eq!(got.state, ReceiptState::Pending);
    assert_eq!(got.provider_event_id.as_deref(), Some("evt_1"));
    assert_eq!(got.last_received_at, T0.plus_seconds(31));
    assert_eq!(got.received_at, T0);
    // The same event id in another environment, or of another provider,
    // is another receipt.
    let test = scope(&t, Environment::Test);
    let other_env = source(s, &test, "stripe").await;
    assert!(matches!(
        ic::receive_inbound(s, &receipt(&other_env, Ok("evt_1"), T0))
            .await
            .unwrap(),
        Received::New { .. }
    ));
    let (mut gh, _) = source_record(&live, "gh", Preset::Github);
    gh.source.provider = "github".into();
    ic::create_inbound_source(s, &gh, None).await.unwrap();
    assert!(matches!(
        ic::receive_inbound(s, &receipt(&gh, Ok("evt_1"), T0))
            .await
            .unwrap(),
        Received::New { .. }
    ));
    let listed = ic::list_receipts(s, &live, &ReceiptFilter::default(), &page(10))
        .await
        .unwrap()
        .data;
    assert_eq!(listed.len(), 2);
}

pub async fn receipts_are_leased_and_written_to_the_ledger_once(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let src = source(s, &live, "stripe").await;
    let Received::New { id } = ic::receive_inbound(s, &receipt(&src, Ok("evt_1"), T0))
        .await
        .unwrap()
    else {
        panic!("new")
    };
    // A rejected receipt is never leased.
    ic::receive_inbound(s, &receipt(&src, Err("signature_no_match"), T0))
        .await
        .unwrap();

    let lease = T0.plus_seconds(30);
    let work = ic::claim_receipts(s, "node-a", T0, lease, 10)
        .await
        .unwrap();
    assert_eq!(work.len(), 1);
    let w = &work[0];
    assert_eq!(w.receipt.id, id);
    assert_eq!(w.tenant_id, t.id);
    assert_eq!(w.environment, Environment::Live);
    assert_eq!(w.body, br#"{"id":"evt_1","type":"charge.succeeded"}"#);
    assert_eq!(w.receipt.attempts, 1);
    assert_eq!(w.receipt.state, ReceiptState::Processing);
    // Leased: nobody else takes it until the lease expires.
    assert!(
        ic::claim_receipts(s, "node-b", T0.plus_seconds(29), lease, 10)
            .await
            .unwrap()
            .is_empty()
    );
    // The lease expires (the process died): another takes it.
    let retaken = ic::claim_receipts(s, "node-b", lease, lease.plus_seconds(30), 10)
        .await
        .unwrap();
    assert_eq!(retaken.len(), 1);
    assert_ne!(retaken[0].lease, w.lease);
    assert_eq!(retaken[0].receipt.attempts, 2);
    // The first processor's completion no longer holds: nothing written.
    let entries = [entry(&id, "evt_1", "charge.succeeded")];
    assert!(
        !ic::complete_receipt(s, &id, &w.lease, &entries, T0)
            .await
            .unwrap()
    );
    let ledger = |f: LedgerFilter| {
        let live = live.clone();
        async move { ic::list_ledger(s, &live, &f, &page(50)).await.unwrap().data }
    };
    assert!(ledger(LedgerFilter::default()).await.is_empty());
    // The holder's completes, once.
    let now = lease.plus_seconds(1);
    assert!(
        ic::complete_receipt(s, &id, &retaken[0].lease, &entries, now)
            .await
            .unwrap()
    );
    assert!(
        !ic::complete_receipt(s, &id, &retaken[0].lease, &entries, now)
            .await
            .unwrap()
    );
    let written = ledger(LedgerFilter::default()).await;
    assert_eq!(written.len(), 1);
    let e = &written[0];
    assert_eq!(
        (e.source_id.as_str(), e.provider.as_str()),
        (src.source.id.as_str(), "stripe")
    );
    assert_eq!(e.received_at, T0);
    assert_eq!(e.recorded_at, now);
    assert_eq!(e.message_id.as_deref(), Some("msg-evt_1"));
    let r = ic::get_receipt(s, &live, &id).await.unwrap().unwrap();
    assert_eq!(r.state, ReceiptState::Processed);
    assert_eq!(r.processed_at, Some(now));

    // Reprocessing writes no entry twice.
    let again = ic::reprocess_receipt(s, &live, &id, now).await.unwrap();
    assert_eq!(again.state, ReceiptState::Pending);
    let work = ic::claim_receipts(s, "node-a", now, now.plus_seconds(30), 10)
        .await
        .unwrap();
    assert_eq!(work.len(), 1);
    let fresh = [entry(&id, "evt_1", "charge.succeeded")];
    assert!(
        ic::complete_receipt(s, &id, &work[0].lease, &fresh, now)
            .await
            .unwrap()
    );
    assert_eq!(ledger(LedgerFilter::default()).await.len(), 1);

    // A rejected receipt cannot be reprocessed; another tenant's is not found.
    let rejected = ic::list_receipts(
        s,
        &live,
        &ReceiptFilter {
            verdict: Some(Verdict::Rejected),
            ..ReceiptFilter::default()
        },
        &page(10),
    )
    .await
    .unwrap()
    .data;
    assert_eq!(rejected.len(), 1);
    assert_eq!(rejected[0].refusal.as_deref(), Some("signature_no_match"));
    assert!(matches!(
        ic::reprocess_receipt(s, &live, &rejected[0].id, now).await,
        Err(StoreError::Conflict("receipt_rejected"))
    ));
    let other = scope(&tenant(s, "b").await, Environment::Live);
    assert!(matches!(
        ic::reprocess_receipt(s, &other, &id, now).await,
        Err(StoreError::NotFound)
    ));

    // A failed attempt: retried when asked, else failed until reprocessed.
    let Received::New { id: second } = ic::receive_inbound(s, &receipt(&src, Ok("evt_2"), now))
        .await
        .unwrap()
    else {
        panic!("new")
    };
    let w = ic::claim_receipts(s, "node-a", now, now.plus_seconds(30), 10)
        .await
        .unwrap();
    assert_eq!(w.len(), 1);
    let retry_at = now.plus_seconds(10);
    assert!(
        ic::fail_receipt(s, &second, &w[0].lease, "boom", Some(retry_at))
            .await
            .unwrap()
    );
    assert!(
        ic::claim_receipts(s, "node-a", now.plus_seconds(9), now.plus_seconds(60), 10)
            .await
            .unwrap()
            .is_empty()
    );
    let w = ic::claim_receipts(s, "node-a", retry_at, retry_at.plus_seconds(30), 10)
        .await
        .unwrap();
    assert!(
        ic::fail_receipt(s, &second, &w[0].lease, "body_malformed", None)
            .await
            .unwrap()
    );
    let r = ic::get_receipt(s, &live, &second).await.unwrap().unwrap();
    assert_eq!(r.state, ReceiptState::Failed);
    assert_eq!(r.last_error.as_deref(), Some("body_malformed"));
    assert!(
        ic::claim_receipts(s, "node-a", retry_at.plus_seconds(999), retry_at, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

pub async fn a_receipt_whose_leases_keep_expiring_is_left_failed(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let src = source(s, &live, "stripe").await;
    let Received::New { id } = ic::receive_inbound(s, &receipt(&src, Ok("evt_1"), T0))
        .await
        .unwrap()
    else {
        panic!("new")
    };
    let mut now = T0;
    for attempt in 1..=relay_inbound::model::MAX_PROCESSING_ATTEMPTS {
        let w = ic::claim_receipts(s, "n", now, now.plus_seconds(30), 10)
            .await
            .unwrap();
        assert_eq!(w.len(), 1, "attempt {attempt}");
        now = now.plus_seconds(30);
    }
    assert!(
        ic::claim_receipts(s, "n", now, now.plus_seconds(30), 10)
            .await
            .unwrap()
            .is_empty()
    );
    let r = ic::get_receipt(s, &live, &id).await.unwrap().unwrap();
    assert_eq!(r.state, ReceiptState::Failed);
    assert_eq!(r.last_error.as_deref(), Some("processing_abandoned"));
}
