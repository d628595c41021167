//! What a bulk retry selects: the API's request body, and the job's
//! parameters as stored and read back by the engine, one type for both.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::MessageState;
use crate::time::Timestamp;

/// The messages a bulk retry restarts; every field narrows the selection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BulkRetry {
    /// Only this endpoint's messages.
    pub endpoint_id: Option<String>,
    /// Only messages of this event type.
    pub event_type: Option<String>,
    /// One of the failed states (`failed_permanent`, `exhausted`, `window_exceeded`, `dead_lettered`, `cancelled`).
    pub state: Option<MessageState>,
    /// Only messages whose last failure had this code (`last_error_code`).
    pub error_code: Option<String>,
    /// Created at or after; within the retention period (else
    /// `outside_retention`). Default: the start of the retention period
    /// (messages whose event is older are never restarted).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub since: Option<Timestamp>,
    /// Created before; within the retention period.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub until: Option<Timestamp>,
}

impl BulkRetry {
    /// The selection a job was started with, from its stored parameters;
    /// `None` when they do not read as one (the job then fails).
    pub fn from_parameters(parameters: &serde_json::Value) -> Option<BulkRetry> {
        BulkRetry::deserialize(parameters).ok()
    }

    /// The job's parameters.
    pub fn to_parameters(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_read_back_as_they_were_written() {
        let full = BulkRetry {
            endpoint_id: Some("ep_1".into()),
            event_type: Some("order.paid".into()),
            state: Some(MessageState::Exhausted),
            error_code: Some("timeout".into()),
            since: Timestamp::parse_rfc3339("2026-12-01T00:00:00Z"),
            until: Timestamp::parse_rfc3339("2026-12-02T00:00:00.5Z"),
        };
        for b in [full, BulkRetry::default()] {
            assert_eq!(BulkRetry::from_parameters(&b.to_parameters()), Some(b));
        }
        // What the API stored before this type was shared reads the same.
        let stored = serde_json::json!({"endpoint_id": null, "event_type": null,
            "state": "dead_lettered", "error_code": null,
            "since": "2026-12-01T00:00:00Z", "until": null});
        let read = BulkRetry::from_parameters(&stored).unwrap();
        assert_eq!(read.state, Some(MessageState::DeadLettered));
        assert!(read.since.is_some() && read.until.is_none());
        // Not a selection: refused, not read as "everything".
        assert_eq!(
            BulkRetry::from_parameters(&serde_json::json!({"state": "nope"})),
            None
        );
        assert_eq!(
            BulkRetry::from_parameters(&serde_json::json!({"stat": "exhausted"})),
            None
        );
    }
}
