//! The engine: the dispatcher's services ([`crate::service`]) started in one
//! function ([`Engine::start`]) and stopped in another ([`Engine::shutdown`]),
//! each in an order read top to bottom.
//!
//! Start: leasing at publish on, the endpoint-notice follower and the
//! store's wake-up listener (so a publish right after `start` cannot be
//! missed), a first measurement of the clock's offset to the database's
//! (when the dispatcher follows it, [`crate::clock_sync`]), a first lease
//! rescue (what a crashed process left is claimable at the first claim), on
//! PostgreSQL a first circuit sync (an endpoint whose circuit the cluster
//! holds open is held from the first claim), the completer, the claimer,
//! then the services beside it (circuit sync, batch writer, lease rescue,
//! window sweep, retention purge, job runner, clock sync, ledger writer),
//! and on PostgreSQL the share keeper.
//!
//! Stop (on the stop signal, which every service sees at once): the
//! claimer's attempts drain, the batch writer's write in hand ends, the
//! completer flushes, the circuit sync pushes what the last attempts said,
//! the leases still held are released, the share keeper gives this node's
//! shares back, then the rest ends; see
//! [`Engine::shutdown`] for why in that order.

use std::sync::Arc;
use std::time::Duration;

use relay_store::{Commit, ExecutorExt as _, claims};
use tokio::sync::{Notify, mpsc, watch};

use crate::Dispatcher;
use crate::batch_writer::BatchWriter;
use crate::circuit_sync::CircuitSync;
use crate::claim::Claimer;
use crate::completer::Completer;
use crate::inbound::LedgerWriter;
use crate::jobs::JobRunner;
use crate::purge::Purger;
use crate::rescue::Rescuer;
use crate::service::{Running, Service, spawn};
use crate::shares::ShareKeeper;
use crate::sweep::Sweeper;

/// The running services of one dispatcher.
pub struct Engine {
    dispatcher: Arc<Dispatcher>,
    stop: watch::Receiver<bool>,
    claimer: Running,
    batch_writer: Running,
    completer: Running,
    /// The circuit sync (PostgreSQL), and its own stop signal: it ends after
    /// the completer.
    circuit_sync: Option<(Running, watch::Sender<bool>)>,
    /// The share keeper (PostgreSQL) and its own stop signal: it renews
    /// until the attempts drained, then gives the shares back.
    keeper: Option<(Running, watch::Sender<bool>)>,
    /// Lease rescue, window sweep, retention purge, job runner, clock sync,
    /// ledger writer: they end after the pass in hand.
    beside: Vec<Running>,
    /// The store's wake-up listener (PostgreSQL), ending on the stop signal.
    listener: Option<tokio::task::JoinHandle<()>>,
    /// Applies the endpoint changes the listener hears; ends with it.
    follower: tokio::task::JoinHandle<()>,
}

impl Engine {
    /// An API-only node (`[server] role = "api"`): none of the delivery
    /// services (no claim, no rescue, no purge; the store's intake is not
    /// set, so nothing is leased at publish), but what the attempts it does
    /// make (resends and test sends, answered with the attempt) need to
    /// meet the cluster as any node's do: the clock sync (what its API
    /// stamps follows the database's clock), and on PostgreSQL the circuit
    /// sync (they meet the cluster's circuits and count in them) and the
    /// share keeper (they take this node's share of the endpoints' limits,
    /// renewed while it has any, given back after). They run until `stop`;
    /// the circuit sync and the keeper give back what they hold then.
    pub async fn start_api_only(
        dispatcher: Arc<Dispatcher>,
        wake: Arc<Notify>,
        stop: watch::Receiver<bool>,
    ) -> tokio::task::JoinHandle<()> {
        let clock_sync = first_clock_sync(&dispatcher).await;
        let mut running: Vec<Running> = Vec::new();
        if let Some(sync) = clock_sync {
            running.push(spawn(sync, stop.clone()));
        }
        if let Some(sync) = CircuitSync::join(&dispatcher, wake).await {
            running.push(spawn(sync, stop.clone()));
        }
        if dispatcher.lanes.shares.is_cluster() {
            dispatcher.lanes.shares.claims_no_recovery();
            running.push(spawn(ShareKeeper::new(dispatcher.clone()), stop.clone()));
        }
        tokio::spawn(async move {
            let mut stop = stop;
            let _ = stop.wait_for(|s| *s).await;
            for service in running {
                service.join().await;
            }
        })
    }

    /// Starts the services (in the order of the module's docs); returns once
    /// wake-ups from other nodes are being listened for (PostgreSQL). They
    /// run until `stop` turns true.
    pub async fn start(
        dispatcher: Arc<Dispatcher>,
        wake: Arc<Notify>,
        stop: watch::Receiver<bool>,
    ) -> Engine {
        let store = dispatcher.store();
        // New messages of this process's publishes may come leased (see
        // `intake`); until the claimer stops.
        store.set_intake(Some(dispatcher.intake()));
        // Endpoint state changes committed by other nodes (PostgreSQL).
        let (endpoints, notices) = mpsc::unbounded_channel();
        let follower = tokio::spawn(dispatcher.clone().follow_endpoints(notices));
        let listener = match store
            .listen_for_wakeups(wake.clone(), endpoints, stop.clone())
            .await
        {
            Ok(listener) => listener,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for wake-ups from other nodes; polling instead");
                None
            }
        };
        // On the database's clock before anything is stamped or judged (the
        // first rescue, the first claim); measured again in the loop.
        let clock_sync = first_clock_sync(&dispatcher).await;
        // Expired leases (a crashed process's) are claimable from the first
        // claim on; the rescuer's loop makes the next pass an interval later.
        let rescuer = Rescuer::new(dispatcher.clone());
        if let Err(e) = rescuer.run_once().await {
            tracing::error!(error = %e, "lease rescue failed");
        }
        // A permit is held until the attempt's completion is committed, so
        // `max_in_flight` also bounds what a crash can leave attempted but
        // unrecorded (the duplicates after a restart), and a slow database
        // slows claiming instead of growing a queue of unwritten completions.
        // Several nodes share each endpoint's circuit: join the cluster's
        // before the first claim.
        let circuit_sync = CircuitSync::join(&dispatcher, wake.clone())
            .await
            .map(|sync| {
                let (stop_sync, stopped) = watch::channel(false);
                (spawn(sync, stopped), stop_sync)
            });
        // Shares of the endpoints' limits (PostgreSQL) before the first
        // claim, so it does not meet every endpoint without one.
        let keeper = dispatcher.lanes.shares.is_cluster().then(|| {
            let (stop_keeper, keeper_stop) = watch::channel(false);
            (
                spawn(ShareKeeper::new(dispatcher.clone()), keeper_stop),
                stop_keeper,
            )
        });
        let (tx, rx) = mpsc::channel(dispatcher.config().max_in_flight.max(1));
        let completer = spawn(Completer::new(dispatcher.clone(), rx), stop.clone());
        let claimer = spawn(
            Claimer::new(dispatcher.clone(), wake.clone(), tx),
            stop.clone(),
        );
        let batch_writer = spawn(BatchWriter::new(dispatcher.clone()), stop.clone());
        let mut beside = vec![
            spawn(rescuer, stop.clone()),
            spawn(Sweeper::new(dispatcher.clone()), stop.clone()),
            spawn(crate::Prover::new(dispatcher.clone()), stop.clone()),
            spawn(Purger::new(dispatcher.clone()), stop.clone()),
            spawn(JobRunner::new(dispatcher.clone(), wake), stop.clone()),
        ];
        if let Some(sync) = clock_sync {
            beside.push(spawn(sync, stop.clone()));
        }
        let ledger = LedgerWriter::new(dispatcher.clone());
        if ledger.config().enabled {
            beside.push(spawn(ledger, stop.clone()));
        }
        Engine {
            dispatcher,
            stop,
            claimer,
            batch_writer,
            completer,
            circuit_sync,
            keeper,
            beside,
            listener,
            follower,
        }
    }

    /// Waits for the stop signal, then [`Engine::shutdown`]. With no stop
    /// signal possible any more (its sender gone), runs on.
    pub async fn run_until_stopped(mut self) {
        crate::service::stopped(&mut self.stop).await;
        self.shutdown().await;
    }

    /// Stops the services, once the stop signal was sent (every service has
    /// seen it and is ending), in this order:
    ///
    /// 1. the claimer: it claims nothing more (nor leases at publish), gives
    ///    up what is leased ahead, and lets the attempts in flight finish
    ///    within `shutdown_grace` (then cuts them short). First, because
    ///    every attempt that finishes sends a completion the next steps
    ///    write;
    /// 2. the batch writer: a batch write in hand finishes within what is
    ///    left of the grace, so its members' completions land while their
    ///    leases hold;
    /// 3. the completer: the claimer's end dropped the last sender of its
    ///    queue; it writes what it holds and ends. Only now is every
    ///    completion of this process written;
    /// 4. the circuit sync makes its last pass: what the last attempts said
    ///    reaches the cluster, the probe permits held go back;
    /// 5. the leases still held (leased ahead, in open batches, attempts cut
    ///    short) are released: their messages are due again at once on
    ///    another node instead of after their lease. After the completer,
    ///    or a completion would find its lease gone;
    /// 6. the share keeper (PostgreSQL): it renewed this node's shares
    ///    while the attempts drained (their slots are held until they
    ///    end); now it gives them back, so the other nodes take them at
    ///    their next renewal instead of after the ttl;
    /// 7. the rest: lease rescue, window sweep, retention purge, the job
    ///    runner, the clock sync (after the release, which reads the clock)
    ///    and the ledger writer end after the pass in hand (nothing
    ///    above waits for them); then the store's wake-up listener, and the
    ///    endpoint-notice follower that its end ends.
    pub async fn shutdown(self) {
        let grace_ends = tokio::time::Instant::now() + self.dispatcher.config().shutdown_grace;
        // 1.
        self.claimer.join().await;
        // 2.
        let left = grace_ends.saturating_duration_since(tokio::time::Instant::now());
        self.batch_writer
            .join_within(left.max(Duration::from_millis(1)))
            .await;
        // 3.
        self.completer.join().await;
        // 4.
        if let Some((sync, stop)) = self.circuit_sync {
            let _ = stop.send(true);
            sync.join().await;
        }
        // 5.
        let owner = self.dispatcher.config().owner.clone();
        let now = self.dispatcher.attempter.clock.now();
        let released = self
            .dispatcher
            .store()
            .write(Commit::Durable, move |mut x| {
                Box::pin(async move { claims::release_leases(&mut x, &owner, now).await })
            });
        match released.await {
            Ok(n) if n > 0 => tracing::info!(released = n, "released unfinished leases"),
            Ok(_) => {}
            Err(e) => tracing::error!(error = %e, "releasing leases failed; they will expire"),
        }
        // 6.
        if let Some((keeper, stop)) = self.keeper {
            let _ = stop.send(true);
            keeper.join().await;
        }
        // 7.
        for service in self.beside {
            service.join().await;
        }
        for (name, task) in [
            ("wake-up listener", self.listener),
            ("endpoint notices", Some(self.follower)),
        ] {
            if let Some(Err(e)) = match task {
                Some(task) => Some(task.await),
                None => None,
            } {
                tracing::error!(error = %e, task = name, "a dispatcher task failed");
            }
        }
        tracing::info!("dispatcher stopped");
    }
}

/// The node's clock sync, after its first measurement: on the database's
/// clock before anything is stamped or judged (a failure is logged, and
/// the node's own clock is used until a later measurement succeeds).
async fn first_clock_sync(dispatcher: &Dispatcher) -> Option<crate::clock_sync::ClockSync> {
    let clock_sync = dispatcher.clock_sync();
    if let Some(sync) = &clock_sync
        && let Err(e) = sync.sync().await
    {
        tracing::error!(error = %e, "measuring the clock offset to the database failed; this node's own clock is used until it succeeds");
    }
    clock_sync
}
