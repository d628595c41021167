//! `relay_store::seed`'s scratch databases, on the tests' PostgreSQL (the
//! seed rows themselves are a conformance case, on both backends).

use relay_core::id::IdKind;
use relay_core::time::Timestamp;
use relay_store::Operator as _;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scratch_database_is_created_usable_and_dropped() {
    let Some(server) = relay_store::testenv::postgres_url("scratch databases") else {
        return;
    };
    let name = format!(
        "relay_seed_{}",
        relay_store::new_id(IdKind::Job, Timestamp(0)).to_lowercase()
    );
    let url = relay_store::seed::create_database(&server, &name)
        .await
        .expect("create a scratch database");
    assert!(url.contains(&name), "{url} names the new database");
    {
        let store = relay_store::postgres::PgStore::connect(&url)
            .await
            .expect("connect to it");
        store.migrate().await.expect("migrate it");
        assert_eq!(store.backend(), "postgres");
    }
    relay_store::seed::drop_database(&server, &name)
        .await
        .expect("drop it, its connections closed");
    assert!(
        relay_store::postgres::PgStore::connect(&url).await.is_err(),
        "the database is gone"
    );
    assert!(
        relay_store::seed::create_database(&server, "bad name; --")
            .await
            .is_err(),
        "a name that is not plain is refused before any statement"
    );
}
