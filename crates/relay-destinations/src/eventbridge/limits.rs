//! What an EventBridge bus takes, as data: one table of EventBridge's
//! limits, each with where it is written and since when. The entry's size
//! is counted as EventBridge counts it ([`entry_bytes`]): `Time` 14 bytes,
//! then the UTF-8 bytes of `Source`, `DetailType` and `Detail` (and of
//! each `Resources` entry, which Relay sends none of).

use crate::Capacity;
use crate::eventbridge::EventBridgeDestination;

/// The largest entry. AWS raised it from 256 KB to 1 MB for event buses
/// (AWS Compute Blog, "More room to build: serverless services now support
/// payloads up to 1 MB", 2026-01-29; SQS's matching change names it 1 MiB,
/// 1048576 bytes); the API reference's `PutEvents` page still says 256 KB.
pub const MAX_ENTRY_BYTES: u64 = 1024 * 1024;

/// Entries in one `PutEvents` (API reference, `PutEvents`, `Entries`:
/// 1 to 10 items). Relay sends one per request.
pub const MAX_ENTRIES: usize = 10;

/// What `Time` counts toward the entry's size (User Guide, "Calculating
/// PutEvents event entry size").
pub const TIME_BYTES: u64 = 14;

/// `DetailType`: at most 128 characters (API reference,
/// `PutEventsRequestEntry`); Relay's event type names are at most 128.
pub const MAX_DETAIL_TYPE: usize = 128;

/// `Source`: 1 to 256 characters of `A-Z a-z 0-9 . - _ /`, not beginning
/// with `aws.` (the pattern of EventBridge's `Source` in the EventBridge
/// Scheduler API reference, `EventBridgeParameters`; AWS services' events
/// are the `aws.` ones).
pub const MAX_SOURCE: usize = 256;

/// An event bus name: 1 to 256 of `A-Z a-z 0-9 . - _ /`; a name or ARN at
/// most 1600 characters (API reference, `PutEventsRequestEntry` and
/// `EventBus`).
pub const MAX_BUS_NAME: usize = 256;
pub const MAX_BUS_NAME_OR_ARN: usize = 1600;

/// `Detail` nests at most this deep (API reference, `PutEvents`); Relay's
/// API parses no deeper than serde_json's 128 levels.
pub const MAX_DETAIL_DEPTH: usize = 1100;

/// `TraceHeader`: 1 to 500 characters (API reference).
pub const MAX_TRACE_HEADER: usize = 500;

/// The bytes an entry of `detail` counts, with `detail_type` and the
/// configuration's `Source`, and a `Time`.
pub fn entry_bytes(source: &str, detail_type: &str, detail: &[u8]) -> u64 {
    TIME_BYTES + source.len() as u64 + detail_type.len() as u64 + detail.len() as u64
}

pub fn capacity(_c: &EventBridgeDestination) -> Capacity {
    Capacity {
        max_message_bytes: Some(MAX_ENTRY_BYTES),
        max_address: None,
        source: "EventBridge's largest PutEvents entry (Time, Source, DetailType and Detail)",
    }
}
