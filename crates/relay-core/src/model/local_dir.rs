//! A test-only batching destination (feature `test-kinds`): a local
//! directory where each batch is one file. It exists so tests show that
//! the engine batches any kind that batches, with no change of its own
//! (`relay_destinations::local_dir`); it is never compiled into Relay.

use serde::{Deserialize, Serialize};

/// A local directory; each closed batch is written as one file in it
/// (which the directory must already exist for: a missing directory is a
/// failed write, retried).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalDirDestination {
    pub dir: String,
    pub max_events: u32,
    pub max_bytes: u64,
    pub max_wait_seconds: u32,
}
