//! The tenant's own side: its consumer (kind `tenant`, the only one whose
//! endpoints receive operational events), and audit entries that commit
//! with the change they record or not at all.

use relay_core::id::IdKind;
use relay_core::model::{Consumer, ConsumerKind, Environment, MessageState};

use super::{
    LIMITS, T0, audit, cancel_message, change_endpoint_state, consumer, create_consumer,
    create_endpoint, delete_endpoint, endpoint, endpoint_value, get_consumer, get_endpoint,
    get_message, list_audit, list_consumers, list_messages, new_event, page, scope, tenant,
    update_endpoint,
};
use crate::{Scope, Store, StoreError, new_id};

/// The tenant's own consumer in `sc`.
pub(crate) async fn tenant_consumer(s: &dyn Store, sc: &Scope) -> Consumer {
    let c = Consumer {
        id: new_id(IdKind::Consumer, T0),
        external_id: "ourselves".into(),
        kind: ConsumerKind::Tenant,
        name: Some("Our own systems".into()),
        source: "/ops".into(),
        environment: sc.environment,
        created_at: T0,
        updated_at: T0,
    };
    create_consumer(s, sc, &c)
        .await
        .expect("create the tenant consumer");
    c
}

pub async fn a_tenant_has_at_most_one_tenant_consumer_per_environment(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let customer = super::customer(s, &live, "merchant-1").await;
    let own = tenant_consumer(s, &live).await;
    assert_eq!(
        get_consumer(s, &live, &own.id).await.unwrap().unwrap().kind,
        ConsumerKind::Tenant
    );
    assert_eq!(
        get_consumer(s, &live, &customer.id)
            .await
            .unwrap()
            .unwrap()
            .kind,
        ConsumerKind::Customer
    );
    let second = Consumer {
        id: new_id(IdKind::Consumer, T0),
        external_id: "ourselves-again".into(),
        ..own.clone()
    };
    assert!(matches!(
        create_consumer(s, &live, &second).await,
        Err(StoreError::Conflict("tenant_consumer_exists"))
    ));
    // Another environment has its own.
    let test = scope(&t, Environment::Test);
    create_consumer(
        s,
        &test,
        &Consumer {
            environment: Environment::Test,
            ..second
        },
    )
    .await
    .expect("one in each environment");
    let listed = list_consumers(s, &live, &page(10)).await.unwrap().data;
    assert_eq!(
        listed
            .iter()
            .filter(|c| c.kind == ConsumerKind::Tenant)
            .count(),
        1
    );
}

async fn entries(s: &dyn Store, sc: &Scope) -> usize {
    list_audit(s, sc, &page(50)).await.unwrap().data.len()
}

pub async fn an_audit_entry_commits_with_its_change_or_not_at_all(s: &dyn Store) {
    let t = tenant(s, "a").await;
    let live = scope(&t, Environment::Live);
    let c = consumer(s, &live, "c").await;
    let e = endpoint(s, &live, &c.id, &["order.shipped"]).await;
    // An entry already written: writing it again fails (same id), and so
    // must the change it comes with.
    let taken = audit("endpoint.paused", &e.id, T0);
    use relay_core::lifecycle::{EndpointAction, decide};
    use relay_core::model::EndpointState;
    change_endpoint_state(
        s,
        &live,
        &e.id,
        &decide(EndpointState::Active, EndpointAction::Pause).unwrap(),
        &taken,
    )
    .await
    .unwrap();
    change_endpoint_state(
        s,
        &live,
        &e.id,
        &decide(EndpointState::Paused, EndpointAction::Resume).unwrap(),
        &audit("endpoint.resumed", &e.id, T0),
    )
    .await
    .unwrap();
    let before = entries(s, &live).await;

    // Creating an endpoint.
    let other = endpoint_value(&live, &c.id, &["order.shipped"]);
    assert!(
        create_endpoint(s, &live, &other, &[], LIMITS, Some(&taken))
            .await
            .is_err()
    );
    assert!(get_endpoint(s, &live, &other.id).await.unwrap().is_none());
    // Turning automatic disabling off (from the endpoint as it is now).
    let mut changed = get_endpoint(s, &live, &e.id).await.unwrap().unwrap();
    changed.auto_disable = false;
    assert!(
        update_endpoint(s, &live, &changed, std::slice::from_ref(&taken))
            .await
            .is_err()
    );
    assert!(
        get_endpoint(s, &live, &e.id)
            .await
            .unwrap()
            .unwrap()
            .auto_disable
    );
    // Cancelling a message.
    s.publish(&live, new_event("evt_a", "order.shipped", None))
        .await
        .unwrap();
    let m = &list_messages(s, &live, &Default::default(), &page(10))
        .await
        .unwrap()
        .data[0];
    assert!(
        cancel_message(s, &live, &m.id, T0, Some(&taken))
            .await
            .is_err()
    );
    assert_eq!(
        get_message(s, &live, &m.id).await.unwrap().unwrap().state,
        MessageState::Scheduled
    );
    // Removing an endpoint.
    assert!(
        delete_endpoint(s, &live, &e.id, T0, Some(&taken))
            .await
            .is_err()
    );
    assert!(get_endpoint(s, &live, &e.id).await.unwrap().is_some());
    assert_eq!(
        entries(s, &live).await,
        before,
        "no entry without its change"
    );

    // With fresh entries, each change and its entry appear together.
    let auto = audit("endpoint.auto_disable_changed", &e.id, T0);
    update_endpoint(s, &live, &changed, std::slice::from_ref(&auto))
        .await
        .unwrap();
    assert!(
        !get_endpoint(s, &live, &e.id)
            .await
            .unwrap()
            .unwrap()
            .auto_disable
    );
    cancel_message(
        s,
        &live,
        &m.id,
        T0,
        Some(&audit("message.cancelled", &m.id, T0)),
    )
    .await
    .unwrap();
    create_endpoint(
        s,
        &live,
        &other,
        &[],
        LIMITS,
        Some(&audit("endpoint.created", &other.id, T0)),
    )
    .await
    .unwrap();
    delete_endpoint(
        s,
        &live,
        &other.id,
        T0,
        Some(&audit("endpoint.deleted", &other.id, T0)),
    )
    .await
    .unwrap();
    let actions: Vec<String> = list_audit(s, &live, &page(50))
        .await
        .unwrap()
        .data
        .into_iter()
        .skip(before)
        .map(|a| a.action)
        .collect();
    assert_eq!(
        actions,
        [
            "endpoint.auto_disable_changed",
            "message.cancelled",
            "endpoint.created",
            "endpoint.deleted"
        ]
    );
}
