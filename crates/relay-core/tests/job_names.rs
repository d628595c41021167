//! A job's kind and state are enums whose names are the ones stored and
//! answered since jobs exist: the same text through `as_str`, `parse` and
//! serde, and nothing else parses.

use relay_core::model::{JobKind, JobState};

#[test]
fn job_kinds_and_states_keep_their_names() {
    let kinds = [(JobKind::BulkRetry, "bulk_retry")];
    for (kind, name) in kinds {
        assert_eq!(kind.as_str(), name);
        assert_eq!(JobKind::parse(name), Some(kind));
        assert_eq!(serde_json::to_value(kind).unwrap(), name);
        assert_eq!(
            serde_json::from_value::<JobKind>(name.into()).unwrap(),
            kind
        );
    }
    assert_eq!(JobKind::ALL.len(), kinds.len());
    let states = [
        (JobState::Queued, "queued"),
        (JobState::Running, "running"),
        (JobState::Done, "done"),
    ];
    for (state, name) in states {
        assert_eq!(state.as_str(), name);
        assert_eq!(JobState::parse(name), Some(state));
        assert_eq!(serde_json::to_value(state).unwrap(), name);
        assert_eq!(
            serde_json::from_value::<JobState>(name.into()).unwrap(),
            state
        );
    }
    assert_eq!(JobState::ALL.len(), states.len());
    for other in ["", "Bulk_Retry", "bulk-retry", "QUEUED", "failed", "done "] {
        assert_eq!(JobKind::parse(other), None, "{other:?}");
        assert_eq!(JobState::parse(other), None, "{other:?}");
    }
}
