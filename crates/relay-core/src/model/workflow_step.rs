//! A workflow step as the API shows it: the delivery's outcome, nothing of
//! the receiver's answer but its status code (`crate::workflow`).

use super::*;

/// A workflow step: one event delivered to one registered endpoint on
/// behalf of a workflow engine, and what the engine learns of it: the
/// delivery's state, the last attempt's status code, how many attempts were
/// made and when. Never the receiver's body, headers or redirect target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkflowStep {
    /// The step's key, chosen by the workflow engine (unique per tenant and
    /// environment).
    pub step_key: String,
    /// The endpoint the event is delivered to.
    pub endpoint_id: String,
    /// The event the step published (`evt_…`).
    pub event_id: String,
    /// The message that delivers it (`msg_…`).
    pub message_id: String,
    /// Where the delivery is (the message's state).
    pub state: MessageState,
    /// The status code of the last attempt's answer (HTTPS); `null` before
    /// any answer, after a failure without one, or for other kinds.
    pub status_code: Option<i64>,
    /// How many attempts were made (scheduled and manual alike).
    pub attempts: i64,
    /// When the last attempt started; `null` before the first.
    pub last_attempt_at: Option<Timestamp>,
    /// When the step was created.
    pub created_at: Timestamp,
    /// When its message last changed.
    pub updated_at: Timestamp,
}
