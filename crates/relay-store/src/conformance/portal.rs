//! The embeddable portal: tokens stored by hash, scoped to one consumer of
//! one tenant and environment, revoked one or all of a consumer's, gone
//! with their consumer; the tenant's brand, inherited by sub-tenants.

use relay_core::id::IdKind;
use relay_core::model::{Environment, Tenant};
use relay_core::time::Timestamp;
use serde_json::json;

use super::{T0, consumer, delete_consumer, list_audit, page, scope, tenant, try_create_tenant};
use crate::portal::{self, NewPortalToken, PortalToken};
use crate::{AuditEntry, Commit, ExecutorExt as _, Result, Scope, Store, StoreError, new_id};

fn token(sc: &Scope, consumer_id: &str, hash: &str) -> NewPortalToken {
    NewPortalToken {
        token: PortalToken {
            id: new_id(IdKind::PortalToken, T0),
            tenant_id: sc.tenant_id.clone(),
            environment: sc.environment,
            consumer_id: consumer_id.into(),
            capabilities: vec!["manage_endpoints".into()],
            allowed_origins: vec!["https://app.example.com".into()],
            created_at: T0,
            expires_at: T0.plus_seconds(3600),
            revoked_at: None,
        },
        token_hash: hash.into(),
    }
}

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

async fn actions(s: &dyn Store, sc: &Scope) -> Vec<String> {
    list_audit(s, sc, &page(100))
        .await
        .unwrap()
        .data
        .into_iter()
        .map(|a| a.action)
        .collect()
}

pub async fn portal_tokens_are_found_by_hash_within_their_scope(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let new = token(&live, &c.id, "hash-1");
    create_portal_token(
        s,
        &live,
        &new,
        &entry("portal_token.created", &new.token.id),
    )
    .await
    .unwrap();
    let found = find_portal_token(s, "hash-1").await.unwrap().unwrap();
    assert_eq!(found, new.token);
    assert!(found.is_active(T0));
    assert!(
        !found.is_active(T0.plus_seconds(3600)),
        "expired at expires_at"
    );
    assert_eq!(find_portal_token(s, "hash-2").await.unwrap(), None);
    assert_eq!(actions(s, &live).await, ["portal_token.created"]);

    // Another environment's or tenant's scope does not see it.
    let test = scope(&t, Environment::Test);
    assert_eq!(
        get_portal_token(s, &test, &new.token.id).await.unwrap(),
        None
    );
    let other = tenant(s, "b").await;
    let other = scope(&other, Environment::Live);
    assert_eq!(
        get_portal_token(s, &other, &new.token.id).await.unwrap(),
        None
    );
    assert_eq!(
        get_portal_token(s, &live, &new.token.id).await.unwrap(),
        Some(new.token.clone())
    );

    // The consumer must be the scope's: another environment's is missing.
    let in_test = token(&test, &c.id, "hash-3");
    assert!(matches!(
        create_portal_token(s, &test, &in_test, &entry("portal_token.created", "x")).await,
        Err(StoreError::MissingReference("consumer"))
    ));
    // A second token with the same hash is a conflict.
    let again = token(&live, &c.id, "hash-1");
    assert!(matches!(
        create_portal_token(s, &live, &again, &entry("portal_token.created", "x")).await,
        Err(StoreError::Conflict("portal_token"))
    ));
    // Neither failure wrote its audit entry.
    assert_eq!(actions(s, &live).await, ["portal_token.created"]);
    assert!(actions(s, &test).await.is_empty());

    // Deleting the consumer leaves its tokens unfindable.
    delete_consumer(s, &live, &c.id).await.unwrap();
    assert_eq!(find_portal_token(s, "hash-1").await.unwrap(), None);
}

pub async fn portal_tokens_are_revoked_one_or_all_of_a_consumer(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let a = consumer(s, &live, "a").await;
    let b = consumer(s, &live, "b").await;
    let a1 = token(&live, &a.id, "a1");
    let a2 = token(&live, &a.id, "a2");
    let a3 = token(&live, &a.id, "a3");
    let b1 = token(&live, &b.id, "b1");
    for n in [&a1, &a2, &a3, &b1] {
        create_portal_token(s, &live, n, &entry("portal_token.created", &n.token.id))
            .await
            .unwrap();
    }
    let later = T0.plus_seconds(60);
    revoke_portal_token(
        s,
        &live,
        &a1.token.id,
        later,
        &entry("portal_token.revoked", "a1"),
    )
    .await
    .unwrap();
    let got = find_portal_token(s, "a1").await.unwrap().unwrap();
    assert_eq!(got.revoked_at, Some(later));
    assert!(!got.is_active(later));
    // Again: nothing changes, no second entry.
    revoke_portal_token(
        s,
        &live,
        &a1.token.id,
        later.plus_seconds(1),
        &entry("portal_token.revoked", "a1"),
    )
    .await
    .unwrap();
    assert_eq!(
        find_portal_token(s, "a1")
            .await
            .unwrap()
            .unwrap()
            .revoked_at,
        Some(later)
    );
    // Another tenant cannot revoke it: not found.
    let other = tenant(s, "b").await;
    let other = scope(&other, Environment::Live);
    assert!(matches!(
        revoke_portal_token(s, &other, &a2.token.id, later, &entry("x", "y")).await,
        Err(StoreError::NotFound)
    ));
    assert!(
        find_portal_token(s, "a2")
            .await
            .unwrap()
            .unwrap()
            .is_active(later)
    );

    // All of a's: the two still active, not b's.
    let n = revoke_consumer_portal_tokens(
        s,
        &live,
        &a.id,
        later,
        &entry("portal_tokens.revoked", &a.id),
    )
    .await
    .unwrap();
    assert_eq!(n, 2);
    for h in ["a2", "a3"] {
        assert!(
            !find_portal_token(s, h)
                .await
                .unwrap()
                .unwrap()
                .is_active(later)
        );
    }
    assert!(
        find_portal_token(s, "b1")
            .await
            .unwrap()
            .unwrap()
            .is_active(later)
    );
    let log = list_audit(s, &live, &page(100)).await.unwrap().data;
    let all = log
        .iter()
        .find(|e| e.action == "portal_tokens.revoked")
        .unwrap();
    assert_eq!(all.parameters["revoked"], 2);
    assert_eq!(
        log.iter()
            .filter(|e| e.action == "portal_token.revoked")
            .count(),
        1
    );
    // None left to revoke: 0, and no entry.
    assert_eq!(
        revoke_consumer_portal_tokens(
            s,
            &live,
            &a.id,
            later,
            &entry("portal_tokens.revoked", &a.id)
        )
        .await
        .unwrap(),
        0
    );
    assert_eq!(
        list_audit(s, &live, &page(100)).await.unwrap().data.len(),
        log.len()
    );
}

pub async fn portal_brands_are_kept_per_tenant_and_inherited(s: &dyn Store) {
    let parent = tenant(s, "acme").await;
    let child = Tenant {
        id: new_id(IdKind::Tenant, T0),
        name: "acme-eu".into(),
        parent_id: Some(parent.id.clone()),
        created_at: T0,
    };
    try_create_tenant(s, &child).await.unwrap();
    let (p_live, c_live) = (
        scope(&parent, Environment::Live),
        scope(&child, Environment::Live),
    );
    let p_test = scope(&parent, Environment::Test);
    assert_eq!(get_portal_brand(s, &p_live).await.unwrap(), None);
    assert_eq!(effective_portal_brand(s, &c_live).await.unwrap(), None);

    let brand = json!({"name": "Acme", "primary_color": "#0044cc"});
    put_portal_brand(s, &p_live, &brand, T0).await.unwrap();
    assert_eq!(
        get_portal_brand(s, &p_live).await.unwrap(),
        Some(brand.clone())
    );
    // Per environment: the test portal has none.
    assert_eq!(get_portal_brand(s, &p_test).await.unwrap(), None);
    assert_eq!(effective_portal_brand(s, &p_test).await.unwrap(), None);
    // The sub-tenant inherits its parent's.
    assert_eq!(get_portal_brand(s, &c_live).await.unwrap(), None);
    assert_eq!(
        effective_portal_brand(s, &c_live).await.unwrap(),
        Some((parent.id.clone(), brand.clone()))
    );

    let own = json!({"name": "Acme EU", "theme": "dark"});
    put_portal_brand(s, &c_live, &own, Timestamp(T0.millis() + 1))
        .await
        .unwrap();
    assert_eq!(
        effective_portal_brand(s, &c_live).await.unwrap(),
        Some((child.id.clone(), own.clone()))
    );
    // Replaced, not merged; the parent's is untouched.
    let replaced = json!({"name": "Acme EU 2"});
    put_portal_brand(s, &c_live, &replaced, Timestamp(T0.millis() + 2))
        .await
        .unwrap();
    assert_eq!(get_portal_brand(s, &c_live).await.unwrap(), Some(replaced));
    assert_eq!(
        get_portal_brand(s, &p_live).await.unwrap(),
        Some(brand.clone())
    );
    let missing = Scope {
        tenant_id: "ten_missing".into(),
        environment: Environment::Live,
    };
    assert!(matches!(
        put_portal_brand(s, &missing, &brand, T0).await,
        Err(StoreError::MissingReference("tenant"))
    ));
}

// The cases' calls through the executor, one operation each.

async fn create_portal_token(
    s: &dyn Store,
    sc: &Scope,
    token: &NewPortalToken,
    audit: &AuditEntry,
) -> Result<()> {
    let (sc, token, audit) = (sc.clone(), token.clone(), audit.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { portal::create_token(&mut x, &sc, &token, &audit).await })
    })
    .await
}

async fn find_portal_token(s: &dyn Store, hash: &str) -> Result<Option<PortalToken>> {
    let hash = hash.to_string();
    s.read(move |mut x| Box::pin(async move { portal::find_token(&mut x, &hash).await }))
        .await
}

async fn get_portal_token(s: &dyn Store, sc: &Scope, id: &str) -> Result<Option<PortalToken>> {
    let (sc, id) = (sc.clone(), id.to_string());
    s.read(move |mut x| Box::pin(async move { portal::get_token(&mut x, &sc, &id).await }))
        .await
}

async fn revoke_portal_token(
    s: &dyn Store,
    sc: &Scope,
    id: &str,
    now: Timestamp,
    audit: &AuditEntry,
) -> Result<()> {
    let (sc, id, audit) = (sc.clone(), id.to_string(), audit.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { portal::revoke_token(&mut x, &sc, &id, now, &audit).await })
    })
    .await
}

async fn revoke_consumer_portal_tokens(
    s: &dyn Store,
    sc: &Scope,
    consumer_id: &str,
    now: Timestamp,
    audit: &AuditEntry,
) -> Result<u64> {
    let (sc, consumer_id, audit) = (sc.clone(), consumer_id.to_string(), audit.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move {
            portal::revoke_consumer_tokens(&mut x, &sc, &consumer_id, now, &audit).await
        })
    })
    .await
}

async fn put_portal_brand(
    s: &dyn Store,
    sc: &Scope,
    brand: &serde_json::Value,
    now: Timestamp,
) -> Result<()> {
    let (sc, brand) = (sc.clone(), brand.clone());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { portal::put_brand(&mut x, &sc, &brand, now).await })
    })
    .await
}

async fn get_portal_brand(s: &dyn Store, sc: &Scope) -> Result<Option<serde_json::Value>> {
    let sc = sc.clone();
    s.read(move |mut x| Box::pin(async move { portal::get_brand(&mut x, &sc).await }))
        .await
}

async fn effective_portal_brand(
    s: &dyn Store,
    sc: &Scope,
) -> Result<Option<(String, serde_json::Value)>> {
    let sc = sc.clone();
    s.read(move |mut x| Box::pin(async move { portal::effective_brand(&mut x, &sc).await }))
        .await
}
