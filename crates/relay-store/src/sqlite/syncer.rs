//! The SQLite log's flusher: makes committed writer cycles durable off the
//! writer's thread, then answers them (see the parent module).

use std::sync::Arc;

use super::writer::{Outcome, copy_of};
use crate::StoreError;

pub(crate) type SyncFn = Arc<dyn Fn(&std::path::Path) -> std::io::Result<()> + Send + Sync>;

/// The store's own flush of its log ([`sync_wal`]), remembering which
/// WAL file it flushed last.
pub(crate) fn wal_flush() -> SyncFn {
    let seen = std::sync::Mutex::new(None);
    Arc::new(move |wal: &std::path::Path| sync_wal(wal, &seen))
}

/// Flushes the WAL file at `wal` to disk (`fdatasync`), and its directory
/// when that file is not the one last flushed (`seen`: its device and
/// inode), since a new file's name is on disk only once its directory is.
/// Opened by path each time: if the last connection closed, SQLite
/// checkpointed the log into the database, flushed that and deleted the
/// file, and a later one is another file. So no file means nothing waits
/// in a log.
pub(crate) fn sync_wal(
    wal: &std::path::Path,
    seen: &std::sync::Mutex<Option<(u64, u64)>>,
) -> std::io::Result<()> {
    let file = match std::fs::File::open(wal) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    file.sync_data()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let meta = file.metadata()?;
        let id = (meta.dev(), meta.ino());
        let mut seen = seen
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if *seen != Some(id) {
            if let Some(dir) = wal.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::File::open(dir)?.sync_all()?;
            }
            *seen = Some(id);
        }
    }
    Ok(())
}

/// Makes committed cycles durable off the writer, then answers them (see
/// the module docs): one thread, flushing the log once for every cycle
/// committed while the previous flush ran.
pub(crate) struct Syncer {
    wal: std::path::PathBuf,
    sync: SyncFn,
    state: std::sync::Mutex<SyncState>,
    wake: std::sync::Condvar,
}

#[derive(Default)]
pub(crate) struct SyncState {
    /// Committed cycles to answer, oldest first: whether each needs the
    /// flush, and its replies.
    waiting: Vec<(bool, Vec<Outcome>)>,
    /// A flush, or the answers after it, in progress.
    busy: bool,
    closed: bool,
}

impl Syncer {
    pub(crate) fn start(wal: std::path::PathBuf, sync: SyncFn) -> Arc<Self> {
        let syncer = Arc::new(Syncer {
            wal,
            sync,
            state: std::sync::Mutex::default(),
            wake: std::sync::Condvar::new(),
        });
        let thread = syncer.clone();
        let started = std::thread::Builder::new()
            .name("relay-sqlite-sync".into())
            .spawn(move || thread.run());
        if let Err(e) = started {
            // Without the thread, cycles are flushed and answered on the
            // writer's (see `committed`).
            tracing::warn!(error = %e, "could not start the SQLite log's flusher thread");
            syncer.lock().closed = true;
        }
        syncer
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SyncState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A cycle committed: answers it at once if it needs no flush and none
    /// is owed to an earlier cycle, else queues it for the thread.
    pub(crate) fn committed(&self, durable: bool, replies: Vec<Outcome>) {
        let mut state = self.lock();
        if state.closed {
            // No thread (it could not start, or the store is going away).
            drop(state);
            let failed = if durable { self.flush() } else { None };
            answer(replies, failed.as_ref());
            return;
        }
        if !durable && !state.busy && state.waiting.is_empty() {
            drop(state);
            answer(replies, None);
            return;
        }
        state.waiting.push((durable, replies));
        drop(state);
        self.wake.notify_one();
    }

    /// Flushes the log; the error each caller is given if that failed.
    pub(crate) fn flush(&self) -> Option<StoreError> {
        match (self.sync)(&self.wal) {
            Ok(()) => None,
            Err(e) => {
                tracing::error!(error = %e, "flushing the SQLite log failed");
                Some(StoreError::Durability(e.to_string()))
            }
        }
    }

    /// The thread: waits for committed cycles, flushes once for all that
    /// are waiting, answers them in order; ends once closed and empty.
    fn run(&self) {
        loop {
            let cycles = {
                let mut state = self.lock();
                state.busy = false;
                while state.waiting.is_empty() && !state.closed {
                    state = self
                        .wake
                        .wait(state)
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                }
                if state.waiting.is_empty() {
                    return;
                }
                state.busy = true;
                std::mem::take(&mut state.waiting)
            };
            // The cycles before the first durable one need no flush: what
            // they follow was flushed already.
            let mut cycles = cycles.into_iter().peekable();
            while let Some((_, replies)) = cycles.next_if(|(durable, _)| !durable) {
                answer(replies, None);
            }
            if cycles.peek().is_some() {
                let failed = self.flush();
                for (_, replies) in cycles {
                    answer(replies, failed.as_ref());
                }
            }
        }
    }

    pub(crate) fn close(&self) {
        self.lock().closed = true;
        self.wake.notify_all();
    }
}

/// Answers a committed cycle's callers: each with its value, or all with
/// `failed`.
pub(crate) fn answer(replies: Vec<Outcome>, failed: Option<&StoreError>) {
    for outcome in replies {
        (outcome.reply)(failed.map(copy_of));
    }
}

/// Closes the [`Syncer`] when dropped.
pub(crate) struct CloseOnDrop(pub(crate) Arc<Syncer>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}
