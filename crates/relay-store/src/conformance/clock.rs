//! The database's clock (`crate::clock`): PostgreSQL's server time, read
//! fresh at every statement; nothing on SQLite.

use relay_core::time::Timestamp;

use crate::{ExecutorExt, Store};

fn system_now() -> Timestamp {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the system clock is after 1970");
    Timestamp::from_millis(d.as_millis() as i64)
}

/// PostgreSQL answers its server's clock (the tests' server runs on this
/// machine, so it agrees with ours to within a few seconds), and two reads
/// in one transaction move on (`clock_timestamp()`, not the transaction's
/// start); SQLite reads nothing.
pub async fn the_database_clock_is_the_servers_own(store: &dyn Store) {
    let before = system_now();
    let (first, second) = store
        .read(|mut x| {
            Box::pin(async move {
                let first = crate::clock::database_now(&mut x).await?;
                let second = crate::clock::database_now(&mut x).await?;
                Ok((first, second))
            })
        })
        .await
        .unwrap();
    let after = system_now();
    if store.backend() == "sqlite" {
        assert_eq!((first, second), (None, None));
        return;
    }
    let (first, second) = (first.expect("PostgreSQL's clock"), second.unwrap());
    assert!(
        first.millis() >= before.millis() - 5_000 && first.millis() <= after.millis() + 5_000,
        "the server's clock {first:?} is far from this machine's [{before:?}, {after:?}]"
    );
    assert!(second >= first, "{second:?} before {first:?}");
}
