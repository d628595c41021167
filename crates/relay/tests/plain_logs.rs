//! Logs carry no ANSI colour codes when they do not go to a terminal
//! (issue 21, part 7): a log file, a pipe or a log collector gets plain text.

mod common;

use common::{curl, start_logging};

#[test]
fn a_log_that_is_not_a_terminal_has_no_colour_codes() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("relay.log");
    // An empty `NO_COLOR` counts as unset: only the terminal check can keep
    // the colours out.
    let relay = start_logging(
        dir.path(),
        &[
            (
                "RELAY_OPERATOR_TOKEN",
                "rop_plain_logs_0f3c9a1e5b7d2f4a6c8e0",
            ),
            ("RELAY_LOG", "debug"),
            ("NO_COLOR", ""),
        ],
        Some(&log),
    );
    let (status, _) = curl(
        "GET",
        &format!("{}/v1/tenants", relay.url),
        "rop_plain_logs_0f3c9a1e5b7d2f4a6c8e0",
        None,
    );
    assert_eq!(status, 200);
    let banner = relay.banner.join("\n");
    drop(relay);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.lines()
            .any(|l| l.contains("WARN") || l.contains("INFO")),
        "the log has event lines to look at:\n{text}"
    );
    for (what, text) in [
        ("the log (stderr, a file)", &text),
        ("stdout (a pipe)", &banner),
    ] {
        assert!(
            !text.contains('\u{1b}'),
            "{what} holds ANSI escape codes:\n{}",
            text.escape_debug()
        );
    }
}
