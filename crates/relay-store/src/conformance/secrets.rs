//! Tenant secrets: created then replaced (keeping their creation time),
//! listed by name without their values, found only in their own tenant and
//! environment, deleted; every change audited without the value.

use relay_core::id::IdKind;
use relay_core::model::Environment;
use relay_core::sealed::MasterKey;
use relay_core::secret::SecretValue;
use serde_json::json;

use super::{T0, page, scope, tenant};
use crate::secrets::{PutOutcome, PutSecret, open, seal};
use crate::{AuditEntry, PageRequest, Scope, Store, StoreError, new_id};

fn entry(action: &str, target: &str) -> AuditEntry {
    AuditEntry {
        id: new_id(IdKind::Audit, T0),
        actor: "key_1".into(),
        action: action.into(),
        target: target.into(),
        parameters: json!({}),
        at: T0,
    }
}

fn put(master: &MasterKey, sc: &Scope, name: &str, value: &str, at: i64) -> PutSecret {
    PutSecret {
        name: name.into(),
        sealed_value: seal(master, sc, name, &SecretValue::from(value)),
        now: T0.plus_seconds(at),
    }
}

pub async fn tenant_secrets_are_sealed_replaced_listed_and_deleted(s: &dyn Store) {
    let master = MasterKey::from_bytes([5; 32]);
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);

    let a = put(&master, &live, "redis-pw", "first value", 0);
    let (info, outcome) = s
        .put_secret(&live, &a, Some(&entry("secret.put", "redis-pw")))
        .await
        .unwrap();
    assert_eq!(outcome, PutOutcome::Created);
    assert_eq!((info.created_at, info.updated_at), (T0, T0));

    let b = put(&master, &live, "redis-pw", "second value", 60);
    let (info, outcome) = s
        .put_secret(&live, &b, Some(&entry("secret.put", "redis-pw")))
        .await
        .unwrap();
    assert_eq!(outcome, PutOutcome::Replaced);
    assert_eq!(info.created_at, T0, "replacing keeps the creation time");
    assert_eq!(info.updated_at, T0.plus_seconds(60));
    assert_eq!(s.get_secret(&live, "redis-pw").await.unwrap(), Some(info));

    let (_, sealed) = s
        .get_sealed_secret(&live, "redis-pw")
        .await
        .unwrap()
        .unwrap();
    assert!(!sealed.contains("second value"), "stored sealed");
    assert_eq!(
        open(&master, &live, "redis-pw", &sealed).unwrap().expose(),
        b"second value"
    );

    // Listed by name, in pages, without a value.
    for name in ["b-token", "a-key"] {
        let p = put(&master, &live, name, "x", 1);
        s.put_secret(&live, &p, None).await.unwrap();
    }
    let first = s
        .list_secrets(
            &live,
            &PageRequest {
                after: None,
                limit: 2,
            },
        )
        .await
        .unwrap();
    let names: Vec<&str> = first.data.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["a-key", "b-token"]);
    let rest = s
        .list_secrets(
            &live,
            &PageRequest {
                after: first.next_after.clone(),
                limit: 2,
            },
        )
        .await
        .unwrap();
    let names: Vec<&str> = rest.data.iter().map(|i| i.name.as_str()).collect();
    assert_eq!(names, ["redis-pw"]);
    assert_eq!(rest.next_after, None);

    // Another environment or tenant has none of them.
    let test = scope(&t, Environment::Test);
    assert_eq!(s.get_secret(&test, "redis-pw").await.unwrap(), None);
    assert!(
        s.list_secrets(&test, &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    let other = tenant(s, "b").await;
    let other = scope(&other, Environment::Live);
    assert_eq!(s.get_sealed_secret(&other, "redis-pw").await.unwrap(), None);
    assert!(matches!(
        s.delete_secret(&other, "redis-pw", None).await,
        Err(StoreError::NotFound)
    ));
    // The same name in another scope is another secret.
    let mine = put(&master, &test, "redis-pw", "test value", 2);
    let (_, outcome) = s.put_secret(&test, &mine, None).await.unwrap();
    assert_eq!(outcome, PutOutcome::Created);

    s.delete_secret(
        &live,
        "redis-pw",
        Some(&entry("secret.deleted", "redis-pw")),
    )
    .await
    .unwrap();
    assert_eq!(s.get_secret(&live, "redis-pw").await.unwrap(), None);
    assert!(matches!(
        s.delete_secret(&live, "redis-pw", None).await,
        Err(StoreError::NotFound)
    ));
    assert!(s.get_secret(&test, "redis-pw").await.unwrap().is_some());

    let audit = s.list_audit(&live, &page(10)).await.unwrap().data;
    let actions: Vec<&str> = audit.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(
        actions,
        ["secret.created", "secret.updated", "secret.deleted"]
    );
}

/// A failed audit write (a duplicate entry id) rolls the change back.
pub async fn a_secret_change_commits_with_its_audit_entry(s: &dyn Store) {
    let master = MasterKey::from_bytes([5; 32]);
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let audit = entry("secret.created", "one");
    let one = put(&master, &live, "one", "v", 0);
    s.put_secret(&live, &one, Some(&audit)).await.unwrap();
    let two = put(&master, &live, "two", "v", 0);
    assert!(s.put_secret(&live, &two, Some(&audit)).await.is_err());
    assert_eq!(s.get_secret(&live, "two").await.unwrap(), None);
    assert!(s.delete_secret(&live, "one", Some(&audit)).await.is_err());
    assert!(s.get_secret(&live, "one").await.unwrap().is_some());
}
