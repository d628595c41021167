//! Pause and disable stop new attempts at once.
//!
//! The store holds an endpoint's `scheduled` messages when it is paused or
//! disabled (`relay_store::lifecycle`), but this process may have some of
//! its messages leased already: claimed and about to start, queued ahead in
//! its lane, or leased at publish. [`Dispatcher::endpoint_changed`] (the API
//! calls it after the change commits) marks the endpoint stopped and gives
//! those back unattempted; they land `held` (the store's
//! `SETTLED_STATE_SQL`). Nothing of a stopped endpoint starts: not from the
//! look-ahead queue, not from a claim that raced with the change. An attempt
//! already on the wire finishes; its completion lands `held` too.
//!
//! Other nodes sharing the PostgreSQL database are told too: the change's
//! transaction sends `relay_endpoint`, and each dispatcher's listener hands
//! it to [`Dispatcher::follow_endpoints`], which calls `endpoint_changed`
//! for a pause or a disable.
//! When the listening connection was lost, changes may have been missed:
//! everything queued ahead is given back, its endpoints marked stopped
//! until a claim reads them active again.
//!
//! A claim also gives back whatever it leased of an endpoint it read as not
//! active, and clears a stop mark older than itself for an endpoint it read
//! as active (resumed or enabled through another node).

use std::sync::Arc;

use relay_core::model::EndpointState;
use relay_store::{Claimed, EndpointNotice};

use crate::Dispatcher;
use crate::claim::release_claims;

impl Dispatcher {
    /// The endpoint's state changed to `state` (committed): when it is
    /// paused or disabled, nothing more of it starts here, and what this
    /// process leased ahead of it is given back now.
    pub async fn endpoint_changed(&self, endpoint_id: &str, state: EndpointState) {
        if state == EndpointState::Active {
            if let Ok(mut s) = self.ahead.lock() {
                s.stopped.remove(endpoint_id);
            }
            return;
        }
        self.stop(endpoint_id);
        // An object storage endpoint's open batch: nothing of it was written.
        let open = self.attempter.batches.take_endpoint(endpoint_id);
        if !open.is_empty() {
            self.give_back(&open).await;
        }
        let queued: Vec<crate::Ahead> = match self.ahead.lock() {
            Ok(mut s) => {
                let q = s.queues.remove(endpoint_id).unwrap_or_default();
                s.queued -= q.len();
                q.into_iter().collect()
            }
            Err(_) => Vec::new(),
        };
        if queued.is_empty() {
            return;
        }
        self.attempter
            .metrics
            .ahead_given_back
            .fetch_add(queued.len() as u64, std::sync::atomic::Ordering::Relaxed);
        let ids: Vec<String> = queued
            .iter()
            .map(|a| a.claimed.message.id.clone())
            .collect();
        self.give_back(&ids).await;
        // Their permits go with them.
        drop(queued);
    }

    /// Applies the endpoint changes the store's listener tells (see the
    /// module's docs), until it stops.
    pub(crate) async fn follow_endpoints(
        self: Arc<Self>,
        mut notices: tokio::sync::mpsc::UnboundedReceiver<EndpointNotice>,
    ) {
        while let Some(notice) = notices.recv().await {
            match notice {
                // Active again: the next claim that reads it so clears the
                // stop mark. Not cleared here, where a resume's notice could
                // arrive after this process's API applied a later pause.
                EndpointNotice::Changed {
                    state: EndpointState::Active,
                    ..
                } => {}
                EndpointNotice::Changed { endpoint_id, state } => {
                    self.endpoint_changed(&endpoint_id, state).await;
                }
                EndpointNotice::Reconnected => {
                    let queued: Vec<String> = match self.ahead.lock() {
                        Ok(s) => s.queues.keys().cloned().collect(),
                        Err(_) => Vec::new(),
                    };
                    for endpoint_id in queued {
                        self.endpoint_changed(&endpoint_id, EndpointState::Paused)
                            .await;
                    }
                }
            }
        }
    }

    /// Marks the endpoint stopped (see [`crate::AheadState::stopped`]).
    pub(crate) fn stop(&self, endpoint_id: &str) {
        if let Ok(mut s) = self.ahead.lock() {
            s.marks += 1;
            let mark = s.marks;
            s.stopped.insert(endpoint_id.to_string(), mark);
        }
    }

    /// Whether the endpoint is stopped in this process.
    pub(crate) fn is_stopped(&self, endpoint_id: &str) -> bool {
        self.ahead
            .lock()
            .is_ok_and(|s| s.stopped.contains_key(endpoint_id))
    }

    /// Releases leases of this process unattempted (they land `held` if
    /// their endpoint is not active).
    pub(crate) async fn give_back(&self, ids: &[String]) {
        let now = self.attempter.clock.now();
        if let Err(e) = release_claims(self.store(), &self.config().owner, ids, now).await {
            tracing::warn!(error = %e, "giving back leased messages failed; their leases expire");
        }
    }

    /// What a claim that started at mark `marks_seen` took, less what it took
    /// of endpoints it read as not active (given back). Clears the stop mark
    /// of endpoints it read as active, when the mark is older than the claim.
    pub(crate) async fn drop_stopped(
        &self,
        claimed: Vec<Claimed>,
        marks_seen: u64,
    ) -> Result<Vec<Claimed>, relay_store::StoreError> {
        let (keep, inactive): (Vec<_>, Vec<_>) = claimed
            .into_iter()
            .partition(|c| c.endpoint.state == EndpointState::Active);
        if let Ok(mut s) = self.ahead.lock()
            && !s.stopped.is_empty()
        {
            for c in &keep {
                if s.stopped
                    .get(&c.endpoint.id)
                    .is_some_and(|m| *m <= marks_seen)
                {
                    s.stopped.remove(&c.endpoint.id);
                }
            }
        }
        if !inactive.is_empty() {
            let ids: Vec<String> = inactive.iter().map(|c| c.message.id.clone()).collect();
            let now = self.attempter.clock.now();
            release_claims(self.store(), &self.config().owner, &ids, now).await?;
        }
        Ok(keep)
    }
}
