//! Conformance cases for the executor (`crate::executor`): transactions a
//! caller composes of several operations, reads, and the rule that an
//! operation awaits nothing but its own connection.

use relay_core::id::IdKind;
use relay_core::model::{Consumer, ConsumerKind, Environment};

use super::{
    LIMITS, T0, endpoint_value, get_consumer, get_endpoint, list_consumers, page, scope, tenant,
};
use crate::executor::AWAITED_OUTSIDE;
use crate::{Commit, ExecutorExt, Store, StoreError, consumers, endpoints, new_id};

fn customer(external_id: &str) -> Consumer {
    Consumer {
        id: new_id(IdKind::Consumer, T0),
        external_id: external_id.into(),
        kind: ConsumerKind::Customer,
        name: None,
        source: format!("/consumers/{external_id}"),
        environment: Environment::Live,
        created_at: T0,
        updated_at: T0,
    }
}

/// Operations of several aggregates composed in one transaction commit
/// together, see each other's writes, and roll back together when one
/// fails.
pub async fn composed_operations_commit_or_roll_back_together(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);

    // A consumer and its endpoint, in one transaction: the endpoint's
    // insert finds the consumer written just before it.
    let c = customer("c1");
    let e = endpoint_value(&live, &c.id, &["order.shipped"]);
    let (sc, c2, e2) = (live.clone(), c.clone(), e.clone());
    let seen = s
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                consumers::create(&mut x, &sc, &c2).await?;
                endpoints::create(&mut x, &sc, &e2, &[], LIMITS, None).await?;
                Ok(endpoints::get(&mut x, &sc, &e2.id)
                    .await?
                    .map(|e| e.consumer_id))
            })
        })
        .await
        .unwrap();
    assert_eq!(seen, Some(c.id.clone()), "its own writes are visible to it");
    assert_eq!(
        get_consumer(s, &live, &c.id).await.unwrap(),
        Some(c.clone())
    );
    assert!(get_endpoint(s, &live, &e.id).await.unwrap().is_some());

    // A failing second operation takes the first one's write with it.
    let lost = customer("c2");
    let (sc, lost2) = (live.clone(), lost.clone());
    let dangling = endpoint_value(&live, "con_missing", &["order.shipped"]);
    let failed = s
        .write(Commit::Durable, move |mut x| {
            Box::pin(async move {
                consumers::create(&mut x, &sc, &lost2).await?;
                endpoints::create(&mut x, &sc, &dangling, &[], LIMITS, None).await
            })
        })
        .await;
    assert!(
        matches!(failed, Err(StoreError::MissingReference("consumer_id"))),
        "{failed:?}"
    );
    assert_eq!(get_consumer(s, &live, &lost.id).await.unwrap(), None);
    let listed = list_consumers(s, &live, &page(10)).await.unwrap().data;
    assert_eq!(listed, vec![c], "nothing of the failed transaction remains");
}

/// An operation that awaits something other than its connection fails
/// with `Internal(AWAITED_OUTSIDE)` on either backend, in a write (rolled
/// back: nothing it wrote before remains) as in a read; the store serves
/// the next operation as before.
pub async fn an_operation_awaiting_anything_but_its_connection_fails(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = customer("c1");

    for commit in [Commit::Durable, Commit::Lease] {
        let (sc, c2) = (live.clone(), c.clone());
        let failed = s
            .write(commit, move |mut x| {
                Box::pin(async move {
                    consumers::create(&mut x, &sc, &c2).await?;
                    tokio::task::yield_now().await;
                    Ok(())
                })
            })
            .await;
        assert!(
            matches!(failed, Err(StoreError::Internal(AWAITED_OUTSIDE))),
            "{commit:?}: {failed:?}"
        );
        assert_eq!(get_consumer(s, &live, &c.id).await.unwrap(), None);
    }

    let sc = live.clone();
    let failed = s
        .read(move |mut x| {
            Box::pin(async move {
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                consumers::list(&mut x, &sc, &page(10)).await
            })
        })
        .await;
    assert!(
        matches!(failed, Err(StoreError::Internal(AWAITED_OUTSIDE))),
        "{:?}",
        failed.map(|p| p.data)
    );

    // Awaiting its own statements only, the same operations run.
    let (sc, c2) = (live.clone(), c.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { consumers::create(&mut x, &sc, &c2).await })
    })
    .await
    .unwrap();
    let sc = live.clone();
    let listed = s
        .read(move |mut x| Box::pin(async move { consumers::list(&mut x, &sc, &page(10)).await }))
        .await
        .unwrap();
    assert_eq!(listed.data, vec![c]);
}
