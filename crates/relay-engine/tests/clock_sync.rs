//! The clock sync (`relay_engine::clock_sync`): an `OffsetClock` over the
//! injected clock is brought to the database's time, and still moves with
//! the injected clock (a test advancing it still expires leases).

mod common;

use std::sync::Arc;

use common::{Env, Setup, wall_now};
use relay_core::time::{Clock, OffsetClock};
use relay_engine::{ClockSync, Service};

#[tokio::test]
async fn on_postgres_the_clock_is_brought_to_the_databases_and_moves_with_the_injected_one() {
    let Some(e) = Env::start(Setup {
        postgres: true,
        ..Setup::default()
    })
    .await
    else {
        return;
    };
    // The node's own clock, an hour behind.
    e.clock.advance_millis(-3_600_000);
    let clock = Arc::new(OffsetClock::new(e.clock.clone()));
    let sync = ClockSync::new(&e.dispatcher, clock.clone());
    assert_eq!(sync.run_once().await.unwrap(), 1);
    // The test's PostgreSQL runs on this machine: its clock is ours.
    let off = (clock.now().millis() - wall_now().millis()).abs();
    assert!(off < 5_000, "{off} ms from the database's time");
    assert!((clock.offset_millis() - 3_600_000).abs() < 5_000);
    let before = clock.now();
    e.clock.advance_millis(60_000);
    assert_eq!(clock.now(), before.plus_millis(60_000));
    let metrics = e.dispatcher.metrics().render();
    let offset_line = metrics
        .lines()
        .find(|l| l.starts_with("relay_clock_offset_milliseconds "))
        .expect("the offset gauge");
    let shown: i64 = offset_line.rsplit(' ').next().unwrap().parse().unwrap();
    assert_eq!(shown, clock.offset_millis());
    e.db.cleanup().await;
}

#[tokio::test]
async fn on_sqlite_nothing_is_read_and_the_offset_stays_zero() {
    let e = Env::start(Setup::default()).await.unwrap();
    let clock = Arc::new(OffsetClock::new(e.clock.clone()));
    let sync = ClockSync::new(&e.dispatcher, clock.clone());
    assert_eq!(sync.run_once().await.unwrap(), 0);
    assert_eq!(clock.offset_millis(), 0);
    assert_eq!(clock.now(), e.clock.now());
}
