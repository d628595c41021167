//! The A2A update rule, table-tested: what is accepted, and for each
//! refusal the member at fault.

use serde_json::{Value, json};

use super::*;

fn status(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": "task-1", "contextId": "ctx-1",
        "status": {"state": state, "timestamp": "2026-12-06T10:00:00.123Z"}}})
}

fn artifact() -> Value {
    json!({"artifactUpdate": {"taskId": "task-1", "contextId": "ctx-1",
        "artifact": {"artifactId": "a-1", "name": "report", "parts": [{"text": "hello"}]},
        "append": false, "lastChunk": true}})
}

/// `base` with the member at `pointer` set to `value` (`None`: removed).
fn with(mut base: Value, pointer: &str, value: Option<Value>) -> Value {
    let (parent, key) = pointer.rsplit_once('/').unwrap();
    let target = base.pointer_mut(parent).unwrap();
    match (target, value) {
        (Value::Object(m), Some(v)) => {
            m.insert(key.to_string(), v);
        }
        (Value::Object(m), None) => {
            m.remove(key);
        }
        (Value::Array(a), Some(v)) => a[key.parse::<usize>().unwrap()] = v,
        (other, _) => panic!("{pointer}: {other}"),
    }
    base
}

#[test]
fn valid_updates_are_accepted_with_their_task() {
    let full_message = with(
        status("TASK_STATE_INPUT_REQUIRED"),
        "/statusUpdate/status/message",
        Some(
            json!({"messageId": "m-1", "role": "ROLE_AGENT", "taskId": "task-1",
            "contextId": "ctx-1", "parts": [{"text": "which city?", "mediaType": "text/plain"},
            {"data": {"choices": [1, 2]}}, {"raw": "aGVsbG8=", "filename": "a.txt"},
            {"url": "https://files.example/a"}],
            "metadata": {"k": null}, "extensions": ["https://ext.example"], "referenceTaskIds": []}),
        ),
    );
    let offset = with(
        status("TASK_STATE_WORKING"),
        "/statusUpdate/status/timestamp",
        Some(json!("2026-12-06T10:00:00+02:00")),
    );
    let no_time = with(
        status("TASK_STATE_WORKING"),
        "/statusUpdate/status/timestamp",
        None,
    );
    let cases: Vec<(&str, &str, Value, Option<TaskState>)> = vec![
        (
            "working",
            STATUS_UPDATE,
            status("TASK_STATE_WORKING"),
            Some(TaskState::Working),
        ),
        (
            "completed",
            STATUS_UPDATE,
            status("TASK_STATE_COMPLETED"),
            Some(TaskState::Completed),
        ),
        (
            "a message",
            STATUS_UPDATE,
            full_message,
            Some(TaskState::InputRequired),
        ),
        ("an offset", STATUS_UPDATE, offset, Some(TaskState::Working)),
        (
            "no timestamp",
            STATUS_UPDATE,
            no_time,
            Some(TaskState::Working),
        ),
        ("artifact", ARTIFACT_UPDATE, artifact(), None),
    ];
    for (name, event_type, data, state) in cases {
        let got = check(event_type, &data).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(got.task_id, "task-1", "{name}");
        assert_eq!(got.context_id, "ctx-1", "{name}");
        assert_eq!(got.state, state, "{name}");
    }
}

#[test]
fn invalid_updates_are_refused_at_the_member_at_fault() {
    let s = || status("TASK_STATE_WORKING");
    let long = "t".repeat(MAX_TASK_ID + 1);
    let cases: Vec<(&str, &str, Value, &str)> = vec![
        ("not an object", STATUS_UPDATE, json!([1]), "/data"),
        (
            "the other member",
            STATUS_UPDATE,
            artifact(),
            "/data/artifactUpdate",
        ),
        (
            "a task",
            STATUS_UPDATE,
            json!({"task": {"id": "t"}}),
            "/data/task",
        ),
        ("empty", STATUS_UPDATE, json!({}), "/data"),
        (
            "two members",
            ARTIFACT_UPDATE,
            json!({"artifactUpdate": {}, "statusUpdate": {}}),
            "/data/statusUpdate",
        ),
        (
            "v0.3 kind",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/kind", Some(json!("status-update"))),
            "/data/statusUpdate/kind",
        ),
        (
            "snake case",
            STATUS_UPDATE,
            with(
                with(s(), "/statusUpdate/taskId", None),
                "/statusUpdate/task_id",
                Some(json!("t")),
            ),
            "/data/statusUpdate/task_id",
        ),
        (
            "no task id",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/taskId", None),
            "/data/statusUpdate/taskId",
        ),
        (
            "empty task id",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/taskId", Some(json!(""))),
            "/data/statusUpdate/taskId",
        ),
        (
            "long task id",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/taskId", Some(json!(long))),
            "/data/statusUpdate/taskId",
        ),
        (
            "numeric task id",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/taskId", Some(json!(7))),
            "/data/statusUpdate/taskId",
        ),
        (
            "no context",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/contextId", None),
            "/data/statusUpdate/contextId",
        ),
        (
            "no status",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/status", None),
            "/data/statusUpdate/status",
        ),
        (
            "no state",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/status/state", None),
            "/data/statusUpdate/status/state",
        ),
        (
            "v0.3 state",
            STATUS_UPDATE,
            status("working"),
            "/data/statusUpdate/status/state",
        ),
        (
            "unspecified",
            STATUS_UPDATE,
            status("TASK_STATE_UNSPECIFIED"),
            "/data/statusUpdate/status/state",
        ),
        (
            "null state",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/status/state", Some(Value::Null)),
            "/data/statusUpdate/status/state",
        ),
        (
            "lower-case t",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/timestamp",
                Some(json!("2026-12-06t10:00:00Z")),
            ),
            "/data/statusUpdate/status/timestamp",
        ),
        (
            "no seconds",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/timestamp",
                Some(json!("2026-12-06T10:00Z")),
            ),
            "/data/statusUpdate/status/timestamp",
        ),
        (
            "no zone",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/timestamp",
                Some(json!("2026-12-06T10:00:00")),
            ),
            "/data/statusUpdate/status/timestamp",
        ),
        (
            "ten digits",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/timestamp",
                Some(json!("2026-12-06T10:00:00.1234567890Z")),
            ),
            "/data/statusUpdate/status/timestamp",
        ),
        (
            "february 30",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/timestamp",
                Some(json!("2026-02-30T10:00:00Z")),
            ),
            "/data/statusUpdate/status/timestamp",
        ),
        (
            "metadata array",
            STATUS_UPDATE,
            with(s(), "/statusUpdate/metadata", Some(json!([]))),
            "/data/statusUpdate/metadata",
        ),
        (
            "message without parts",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/message",
                Some(json!({"messageId": "m", "role": "ROLE_AGENT"})),
            ),
            "/data/statusUpdate/status/message/parts",
        ),
        (
            "message of another task",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/message",
                Some(
                    json!({"messageId": "m", "role": "ROLE_AGENT", "taskId": "task-2", "parts": [{"text": "x"}]}),
                ),
            ),
            "/data/statusUpdate/status/message/taskId",
        ),
        (
            "v0.3 role",
            STATUS_UPDATE,
            with(
                s(),
                "/statusUpdate/status/message",
                Some(json!({"messageId": "m", "role": "agent", "parts": [{"text": "x"}]})),
            ),
            "/data/statusUpdate/status/message/role",
        ),
        (
            "no artifact",
            ARTIFACT_UPDATE,
            with(artifact(), "/artifactUpdate/artifact", None),
            "/data/artifactUpdate/artifact",
        ),
        (
            "no artifact id",
            ARTIFACT_UPDATE,
            with(artifact(), "/artifactUpdate/artifact/artifactId", None),
            "/data/artifactUpdate/artifact/artifactId",
        ),
        (
            "no parts",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/parts",
                Some(json!([])),
            ),
            "/data/artifactUpdate/artifact/parts",
        ),
        (
            "two contents",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/parts/0",
                Some(json!({"text": "a", "url": "b"})),
            ),
            "/data/artifactUpdate/artifact/parts/0",
        ),
        (
            "no content",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/parts/0",
                Some(json!({"filename": "a"})),
            ),
            "/data/artifactUpdate/artifact/parts/0",
        ),
        (
            "v0.3 part kind",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/parts/0",
                Some(json!({"kind": "text", "text": "a"})),
            ),
            "/data/artifactUpdate/artifact/parts/0/kind",
        ),
        (
            "bad base64",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/parts/0",
                Some(json!({"raw": "aGVsbG8"})),
            ),
            "/data/artifactUpdate/artifact/parts/0/raw",
        ),
        (
            "null data",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/parts/0",
                Some(json!({"data": null})),
            ),
            "/data/artifactUpdate/artifact/parts/0/data",
        ),
        (
            "append as text",
            ARTIFACT_UPDATE,
            with(artifact(), "/artifactUpdate/append", Some(json!("true"))),
            "/data/artifactUpdate/append",
        ),
        (
            "extensions of numbers",
            ARTIFACT_UPDATE,
            with(
                artifact(),
                "/artifactUpdate/artifact/extensions",
                Some(json!([1])),
            ),
            "/data/artifactUpdate/artifact/extensions",
        ),
        ("not an A2A type", "order.paid", s(), "/type"),
    ];
    for (name, event_type, data, pointer) in cases {
        match check(event_type, &data) {
            Ok(u) => panic!("{name}: accepted as {u:?}"),
            Err(e) => assert_eq!(e.pointer, pointer, "{name}: {}", e.message),
        }
    }
}

#[test]
fn final_states_are_the_four_terminal_ones() {
    let cases = [
        ("TASK_STATE_SUBMITTED", false),
        ("TASK_STATE_WORKING", false),
        ("TASK_STATE_INPUT_REQUIRED", false),
        ("TASK_STATE_AUTH_REQUIRED", false),
        ("TASK_STATE_COMPLETED", true),
        ("TASK_STATE_FAILED", true),
        ("TASK_STATE_CANCELED", true),
        ("TASK_STATE_REJECTED", true),
    ];
    for (name, terminal) in cases {
        assert_eq!(
            TaskState::parse(name).map(TaskState::is_final),
            Some(terminal),
            "{name}"
        );
    }
    assert_eq!(TaskState::parse("TASK_STATE_UNSPECIFIED"), None);
    assert!(is_update_type(STATUS_UPDATE) && is_update_type(ARTIFACT_UPDATE));
    assert!(!is_update_type("a2a.task") && !is_update_type("*"));
}
