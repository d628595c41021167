//! Tenant secrets: created then replaced (keeping their creation time),
//! listed by name without their values, found only in their own tenant and
//! environment, deleted; every change audited without the value.

use super::inbound_calls as ic;
use relay_core::id::IdKind;
use relay_core::model::Environment;
use relay_core::sealed::MasterKey;
use relay_core::secret::SecretValue;
use serde_json::json;

use super::{T0, list_audit, page, scope, tenant};
use relay_core::model::Page;

use crate::secrets::{self, PutOutcome, PutSecret, SecretInfo, open, seal};
use crate::{
    AuditEntry, Commit, ExecutorExt as _, PageRequest, Result, Scope, Store, StoreError, new_id,
};

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
    let (info, outcome) = put_secret(s, &live, &a, Some(&entry("secret.put", "redis-pw")))
        .await
        .unwrap();
    assert_eq!(outcome, PutOutcome::Created);
    assert_eq!((info.created_at, info.updated_at), (T0, T0));

    let b = put(&master, &live, "redis-pw", "second value", 60);
    let (info, outcome) = put_secret(s, &live, &b, Some(&entry("secret.put", "redis-pw")))
        .await
        .unwrap();
    assert_eq!(outcome, PutOutcome::Replaced);
    assert_eq!(info.created_at, T0, "replacing keeps the creation time");
    assert_eq!(info.updated_at, T0.plus_seconds(60));
    assert_eq!(get_secret(s, &live, "redis-pw").await.unwrap(), Some(info));

    let (_, sealed) = get_sealed_secret(s, &live, "redis-pw")
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
        put_secret(s, &live, &p, None).await.unwrap();
    }
    let first = list_secrets(
        s,
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
    let rest = list_secrets(
        s,
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
    assert_eq!(get_secret(s, &test, "redis-pw").await.unwrap(), None);
    assert!(
        list_secrets(s, &test, &page(10))
            .await
            .unwrap()
            .data
            .is_empty()
    );
    let other = tenant(s, "b").await;
    let other = scope(&other, Environment::Live);
    assert_eq!(
        get_sealed_secret(s, &other, "redis-pw").await.unwrap(),
        None
    );
    assert!(matches!(
        delete_secret(s, &other, "redis-pw", None).await,
        Err(StoreError::NotFound)
    ));
    // The same name in another scope is another secret.
    let mine = put(&master, &test, "redis-pw", "test value", 2);
    let (_, outcome) = put_secret(s, &test, &mine, None).await.unwrap();
    assert_eq!(outcome, PutOutcome::Created);

    delete_secret(
        s,
        &live,
        "redis-pw",
        Some(&entry("secret.deleted", "redis-pw")),
    )
    .await
    .unwrap();
    assert_eq!(get_secret(s, &live, "redis-pw").await.unwrap(), None);
    assert!(matches!(
        delete_secret(s, &live, "redis-pw", None).await,
        Err(StoreError::NotFound)
    ));
    assert!(get_secret(s, &test, "redis-pw").await.unwrap().is_some());

    let audit = list_audit(s, &live, &page(10)).await.unwrap().data;
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
    put_secret(s, &live, &one, Some(&audit)).await.unwrap();
    let two = put(&master, &live, "two", "v", 0);
    assert!(put_secret(s, &live, &two, Some(&audit)).await.is_err());
    assert_eq!(get_secret(s, &live, "two").await.unwrap(), None);
    assert!(delete_secret(s, &live, "one", Some(&audit)).await.is_err());
    assert!(get_secret(s, &live, "one").await.unwrap().is_some());
}

/// An inbound source's signing secret may be a reference instead of a
/// sealed value; rotation keeps the other as the previous one, whichever
/// kind each is; creating, changing, rotating and deleting a source are
/// audited in their own transactions.
pub async fn inbound_sources_keep_secret_references_and_are_audited(s: &dyn Store) {
    use crate::inbound::SourcePatch;
    use relay_inbound::Preset;
    use relay_inbound::model::StoredSecret;

    let master = MasterKey::from_bytes([5; 32]);
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let (mut rec, _) = super::inbound::source_record(&live, "stripe", Preset::Stripe);
    rec.secret = StoredSecret::Reference("secret:stripe-signing".into());
    rec.source.secret = rec.secret.info();
    let id = rec.source.id.clone();
    ic::create_inbound_source(s, &rec, Some(&entry("inbound_source.created", &id)))
        .await
        .unwrap();
    let got = ic::get_inbound_source(s, &live, &id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(got, rec);
    assert_eq!(got.source.secret.kind, "reference");
    assert_eq!(
        got.source.secret.reference.as_deref(),
        Some("secret:stripe-signing")
    );

    // To a sealed value, the reference verifying beside it for an hour.
    let sealed =
        crate::inbound::seal_secret(&master, &id, &relay_inbound::SourceSecret::new("whsec_new"));
    let until = T0.plus_seconds(3600);
    let rotate = SourcePatch {
        rotate: Some((sealed.clone(), Some(until))),
        now: T0.plus_seconds(1),
        ..SourcePatch::default()
    };
    let rotated = ic::update_inbound_source(
        s,
        &live,
        &id,
        &rotate,
        Some(&entry("inbound_source.secret_rotated", &id)),
    )
    .await
    .unwrap();
    assert_eq!(rotated.secret, sealed);
    assert_eq!(
        rotated.previous,
        Some((
            StoredSecret::Reference("secret:stripe-signing".into()),
            until
        ))
    );
    // And to an `env:` reference, the sealed value now the previous one.
    let rotate = SourcePatch {
        rotate: Some((
            StoredSecret::Reference("env:APP_STRIPE".into()),
            Some(until),
        )),
        now: T0.plus_seconds(2),
        ..SourcePatch::default()
    };
    ic::update_inbound_source(s, &live, &id, &rotate, None)
        .await
        .unwrap();
    let reread = ic::get_inbound_source(s, &live, &id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        reread.secret,
        StoredSecret::Reference("env:APP_STRIPE".into())
    );
    assert_eq!(reread.previous, Some((sealed, until)));

    let rename = SourcePatch {
        name: Some("stripe (eu)".into()),
        now: T0.plus_seconds(3),
        ..SourcePatch::default()
    };
    ic::update_inbound_source(
        s,
        &live,
        &id,
        &rename,
        Some(&entry("inbound_source.updated", &id)),
    )
    .await
    .unwrap();
    ic::delete_inbound_source(
        s,
        &live,
        &id,
        T0.plus_seconds(4),
        Some(&entry("inbound_source.deleted", &id)),
    )
    .await
    .unwrap();
    let audit = list_audit(s, &live, &page(10)).await.unwrap().data;
    let actions: Vec<&str> = audit.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(
        actions,
        [
            "inbound_source.created",
            "inbound_source.secret_rotated",
            "inbound_source.updated",
            "inbound_source.deleted"
        ]
    );
    assert!(audit.iter().all(|a| a.target == id));

    // A failed audit write rolls the creation back.
    let (other, _) = super::inbound::source_record(&live, "github", Preset::Github);
    let dup = audit[0].clone();
    assert!(
        ic::create_inbound_source(s, &other, Some(&dup))
            .await
            .is_err()
    );
    assert!(
        ic::get_inbound_source(s, &live, &other.source.id)
            .await
            .unwrap()
            .is_none()
    );
}

// The cases' calls through the executor, one operation each.

pub(crate) async fn put_secret(
    s: &dyn Store,
    sc: &Scope,
    put: &PutSecret,
    audit: Option<&AuditEntry>,
) -> Result<(SecretInfo, PutOutcome)> {
    let (sc, put, audit) = (sc.clone(), put.clone(), audit.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { secrets::put(&mut x, &sc, &put, audit.as_ref()).await })
    })
    .await
}

pub(crate) async fn get_secret(
    s: &dyn Store,
    sc: &Scope,
    name: &str,
) -> Result<Option<SecretInfo>> {
    let (sc, name) = (sc.clone(), name.to_string());
    s.read(move |mut x| Box::pin(async move { secrets::get(&mut x, &sc, &name).await }))
        .await
}

pub(crate) async fn get_sealed_secret(
    s: &dyn Store,
    sc: &Scope,
    name: &str,
) -> Result<Option<(SecretInfo, String)>> {
    let (sc, name) = (sc.clone(), name.to_string());
    s.read(move |mut x| Box::pin(async move { secrets::get_sealed(&mut x, &sc, &name).await }))
        .await
}

async fn list_secrets(s: &dyn Store, sc: &Scope, page: &PageRequest) -> Result<Page<SecretInfo>> {
    let (sc, page) = (sc.clone(), page.clone());
    s.read(move |mut x| Box::pin(async move { secrets::list(&mut x, &sc, &page).await }))
        .await
}

async fn delete_secret(
    s: &dyn Store,
    sc: &Scope,
    name: &str,
    audit: Option<&AuditEntry>,
) -> Result<()> {
    let (sc, name, audit) = (sc.clone(), name.to_string(), audit.cloned());
    s.write(Commit::Durable, move |mut x| {
        Box::pin(async move { secrets::delete(&mut x, &sc, &name, audit.as_ref()).await })
    })
    .await
}
