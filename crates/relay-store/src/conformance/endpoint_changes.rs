//! An endpoint update is a compare-and-set on the revision its caller
//! read: under every interleaving with a state change or another update,
//! a change decided from a stale read writes nothing (not its settings, not
//! its endpoint version, not its audit entry), and an audit entry exists
//! exactly when its change committed.

use relay_core::lifecycle::{EndpointAction, decide};
use relay_core::model::{Endpoint, EndpointState, Environment};

use super::{
    T0, audit, change_endpoint_state, consumer, delete_endpoint, endpoint, endpoint_versions,
    get_endpoint, list_audit, page, scope, tenant, update_endpoint,
};
use crate::{AuditEntry, Scope, Store, StoreError};

async fn audit_ids(s: &dyn Store, sc: &Scope) -> Vec<String> {
    list_audit(s, sc, &page(250))
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|a| a.id)
        .collect()
}

/// `read` with a new snapshot allow list: the next endpoint version.
fn payload_change(read: &Endpoint, field: &str) -> Endpoint {
    let mut e = read.clone();
    e.snapshot_fields = vec![field.to_string()];
    e.version = read.version + 1;
    e.version_started_at = T0.plus_seconds(read.version);
    e.updated_at = e.version_started_at;
    e
}

fn is_changed<T>(r: &Result<T, StoreError>) -> bool {
    matches!(r, Err(StoreError::Conflict("endpoint_changed")))
}

pub async fn an_endpoint_update_applies_only_at_the_revision_read(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    assert_eq!(e.revision, 1);

    // Read, then a pause commits, then the change decided from the read.
    let read = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    let paused = change_endpoint_state(
        s,
        &live,
        &e.id,
        &decide(EndpointState::Active, EndpointAction::Pause).unwrap(),
        &audit("endpoint.paused", &e.id, T0),
    )
    .await
    .unwrap();
    assert_eq!(paused.revision, 2, "a state change is a new revision");
    let mut stale = read.clone();
    stale.description = Some("decided before the pause".into());
    let entry = audit("endpoint.updated", &e.id, T0);
    let r = update_endpoint(s, &live, &stale, std::slice::from_ref(&entry)).await;
    assert!(is_changed(&r), "{r:?}");
    let now = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(now, paused, "the pause stands; nothing of the stale change");
    assert!(!audit_ids(s, &live).await.contains(&entry.id));

    // From the current revision the change applies, the state untouched.
    let mut fresh = now.clone();
    fresh.description = Some("after the pause".into());
    let entry = audit("endpoint.updated", &e.id, T0);
    update_endpoint(s, &live, &fresh, std::slice::from_ref(&entry))
        .await
        .unwrap();
    let now = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(now.revision, 3);
    assert_eq!(now.state, EndpointState::Paused);
    assert_eq!(now.description.as_deref(), Some("after the pause"));
    assert!(audit_ids(s, &live).await.contains(&entry.id));

    // Two payload changes decided from one read, one after the other: the
    // second opens no second "version 2".
    let (a, b) = (payload_change(&now, "/a"), payload_change(&now, "/b"));
    let (entry_a, entry_b) = (
        audit("endpoint.updated", &e.id, T0),
        audit("endpoint.updated", &e.id, T0),
    );
    update_endpoint(s, &live, &a, std::slice::from_ref(&entry_a))
        .await
        .unwrap();
    let r = update_endpoint(s, &live, &b, std::slice::from_ref(&entry_b)).await;
    assert!(is_changed(&r), "{r:?}");
    let versions = endpoint_versions(s, &live, &e.id, &crate::PageRequest::first(250))
        .await
        .unwrap()
        .unwrap()
        .data;
    assert_eq!(
        versions.iter().map(|v| v.version).collect::<Vec<_>>(),
        [1, 2]
    );
    assert_eq!(versions[1].snapshot_fields, ["/a"]);
    let ids = audit_ids(s, &live).await;
    assert!(ids.contains(&entry_a.id) && !ids.contains(&entry_b.id));

    // The same race run concurrently: of eight changes decided from one
    // read, exactly one commits, with its version and its audit entry.
    let read = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    let tries: Vec<(Endpoint, AuditEntry)> = (0..8)
        .map(|i| {
            (
                payload_change(&read, &format!("/f{i}")),
                audit("endpoint.updated", &e.id, T0),
            )
        })
        .collect();
    let results = futures_util::future::join_all(
        tries
            .iter()
            .map(|(c, a)| update_endpoint(s, &live, c, std::slice::from_ref(a))),
    )
    .await;
    let won: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_ok())
        .map(|(i, _)| i)
        .collect();
    assert_eq!(won.len(), 1, "{results:?}");
    assert!(
        results.iter().filter(|r| r.is_err()).all(is_changed),
        "{results:?}"
    );
    let winner = won[0];
    let versions = endpoint_versions(s, &live, &e.id, &crate::PageRequest::first(250))
        .await
        .unwrap()
        .unwrap()
        .data;
    assert_eq!(
        versions.iter().map(|v| v.version).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(versions[2].snapshot_fields, [format!("/f{winner}")]);
    let now = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    assert_eq!(now.snapshot_fields, [format!("/f{winner}")]);
    assert_eq!(now.revision, read.revision + 1);
    let ids = audit_ids(s, &live).await;
    for (i, (_, a)) in tries.iter().enumerate() {
        assert_eq!(ids.contains(&a.id), i == winner, "entry {i}");
    }

    // A change whose audit entry cannot be written does not commit.
    let mut change = now.clone();
    change.event_types = vec!["order.created".into()];
    let taken = tries[winner].1.clone();
    assert!(
        update_endpoint(s, &live, &change, std::slice::from_ref(&taken))
            .await
            .is_err()
    );
    assert_eq!(get_endpoint(s, &live, &e.id).await.unwrap().unwrap(), now);
    // A deleted endpoint is not found, whatever the revision.
    delete_endpoint(s, &live, &e.id, T0, None).await.unwrap();
    assert!(matches!(
        update_endpoint(s, &live, &change, &[]).await,
        Err(StoreError::NotFound)
    ));
}
