//! Inbound provider webhooks, continued: rejected receipts kept per
//! source, and the ledger's keyset pages and filters within a tenant.

use super::inbound_calls as ic;
use relay_core::model::Environment;
use relay_inbound::model::{LedgerEntry, REJECTED_KEPT_PER_SOURCE, Verdict};

use super::inbound::{entry, receipt, source};
use super::{T0, page, scope, tenant};
use crate::inbound::{LedgerFilter, ReceiptFilter, Received};
use crate::{PageRequest, Store};
use relay_inbound::model::SourceRecord;

pub async fn rejected_receipts_are_kept_newest_first_per_source(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let a = source(s, &live, "a").await;
    let b = source(s, &live, "b").await;
    let extra = 20;
    let n = REJECTED_KEPT_PER_SOURCE as usize + extra;
    let mut ids = Vec::new();
    for i in 0..n {
        let r = receipt(&a, Err("signature_missing"), T0.plus_millis(i as i64));
        ids.push(r.id.clone());
        ic::receive_inbound(s, &r).await.unwrap();
    }
    ic::receive_inbound(s, &receipt(&b, Err("signature_missing"), T0))
        .await
        .unwrap();
    // A verified receipt of the source is not counted against the cap.
    ic::receive_inbound(s, &receipt(&a, Ok("evt_ok"), T0))
        .await
        .unwrap();
    let filter = |source: &SourceRecord, verdict| ReceiptFilter {
        source_id: Some(source.source.id.clone()),
        verdict,
        ..ReceiptFilter::default()
    };
    let mut kept = Vec::new();
    let mut after = None;
    loop {
        let p = ic::list_receipts(
            s,
            &live,
            &filter(&a, Some(Verdict::Rejected)),
            &PageRequest { after, limit: 30 },
        )
        .await
        .unwrap();
        kept.extend(p.data.into_iter().map(|r| r.id));
        match p.next_after {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    assert_eq!(kept, ids[extra..].to_vec(), "the newest, oldest first");
    let b_kept = ic::list_receipts(s, &live, &filter(&b, None), &page(10))
        .await
        .unwrap();
    assert_eq!(b_kept.data.len(), 1);
    let verified = ic::list_receipts(s, &live, &filter(&a, Some(Verdict::Verified)), &page(10))
        .await
        .unwrap();
    assert_eq!(verified.data.len(), 1);
}

pub async fn the_ledger_pages_by_keyset_and_filters_within_its_tenant(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let src = source(s, &live, "sendgrid").await;
    let other_t = tenant(s, "b").await;
    let other = scope(&other_t, Environment::Live);
    let other_src = source(s, &other, "sendgrid").await;
    let mut now = T0;
    for (k, src) in [(0, &src), (1, &other_src)] {
        for i in 0..7 {
            now = now.plus_seconds(1);
            let ev = format!("batch_{k}_{i}");
            let Received::New { id } = ic::receive_inbound(s, &receipt(src, Ok(&ev), now))
                .await
                .unwrap()
            else {
                panic!("new")
            };
            let w = ic::claim_receipts(s, "n", now, now.plus_seconds(30), 10)
                .await
                .unwrap();
            assert_eq!(w.len(), 1);
            // A batch: three events per receipt.
            let entries: Vec<LedgerEntry> = (0..3)
                .map(|j| {
                    let kind = if j == 2 { "bounce" } else { "delivered" };
                    entry(&id, &format!("{ev}_{j}"), kind)
                })
                .collect();
            assert!(
                ic::complete_receipt(s, &id, &w[0].lease, &entries, now)
                    .await
                    .unwrap()
            );
        }
    }
    let mut all = Vec::new();
    let mut after = None;
    loop {
        let p = ic::list_ledger(
            s,
            &live,
            &LedgerFilter::default(),
            &PageRequest { after, limit: 4 },
        )
        .await
        .unwrap();
        assert!(p.data.len() <= 4);
        all.extend(p.data);
        match p.next_after {
            Some(n) => after = Some(n),
            None => break,
        }
    }
    assert_eq!(all.len(), 21, "only its own tenant's");
    let ids: Vec<&str> = all.iter().map(|e| e.id.as_str()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(ids, sorted, "in id order, no repeats");
    assert!(all.iter().all(|e| e.source_id == src.source.id));

    let bounces = ic::list_ledger(
        s,
        &live,
        &LedgerFilter {
            event_type: Some("bounce".into()),
            ..LedgerFilter::default()
        },
        &page(50),
    )
    .await
    .unwrap()
    .data;
    assert_eq!(bounces.len(), 7);
    let one = ic::list_ledger(
        s,
        &live,
        &LedgerFilter {
            message_id: Some("msg-batch_0_3_1".into()),
            ..LedgerFilter::default()
        },
        &page(50),
    )
    .await
    .unwrap()
    .data;
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].provider_event_id, "batch_0_3_1");
    let windowed = ic::list_ledger(
        s,
        &live,
        &LedgerFilter {
            received_from: Some(T0.plus_seconds(2)),
            received_until: Some(T0.plus_seconds(4)),
            ..LedgerFilter::default()
        },
        &page(50),
    )
    .await
    .unwrap()
    .data;
    assert_eq!(windowed.len(), 6);
    // The other tenant's message is not found from here.
    let theirs = ic::list_ledger(
        s,
        &live,
        &LedgerFilter {
            message_id: Some("msg-batch_1_3_1".into()),
            ..LedgerFilter::default()
        },
        &page(50),
    )
    .await
    .unwrap()
    .data;
    assert!(theirs.is_empty());
    let their_receipts = ic::list_receipts(s, &other, &ReceiptFilter::default(), &page(50))
        .await
        .unwrap()
        .data;
    assert_eq!(their_receipts.len(), 7);
    assert!(
        ic::get_receipt(s, &live, &their_receipts[0].id)
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        ic::get_inbound_source(s, &live, &other_src.source.id)
            .await
            .unwrap()
            .is_none()
    );
}

pub async fn receipts_complete_in_a_batch_each_under_its_own_lease(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let src = source(s, &live, "stripe").await;
    let mut ids = Vec::new();
    for ev in ["evt_a", "evt_b"] {
        let Received::New { id } = ic::receive_inbound(s, &receipt(&src, Ok(ev), T0))
            .await
            .unwrap()
        else {
            panic!("new")
        };
        ids.push(id);
    }
    let work = ic::claim_receipts(s, "n", T0, T0.plus_seconds(30), 10)
        .await
        .unwrap();
    assert_eq!(work.len(), 2);
    let done: Vec<(String, String, Vec<LedgerEntry>)> = work
        .iter()
        .map(|w| {
            let lease = if w.receipt.id == ids[1] {
                "999".to_owned()
            } else {
                w.lease.clone()
            };
            (
                w.receipt.id.clone(),
                lease,
                vec![entry(
                    &w.receipt.id,
                    w.receipt.provider_event_id.as_deref().unwrap(),
                    "t",
                )],
            )
        })
        .collect();
    let held = ic::complete_receipts(s, &done, T0).await.unwrap();
    let by_id: Vec<(String, bool)> = done.iter().map(|d| d.0.clone()).zip(held).collect();
    for (id, held) in &by_id {
        assert_eq!(*held, *id == ids[0], "{id}");
    }
    let ledger = ic::list_ledger(s, &live, &LedgerFilter::default(), &page(10))
        .await
        .unwrap()
        .data;
    assert_eq!(ledger.len(), 1, "only the receipt whose lease held");
    assert_eq!(ledger[0].receipt_id, ids[0]);
}
