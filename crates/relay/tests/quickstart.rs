//! Runs the README's quickstart, exactly as written, against a real
//! `relay receive` and `relay serve`, so the README cannot drift from what
//! works: the delivery arrives and its signature verifies.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Kills the receiver when the test ends, however it ends.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_readme_quickstart_works_as_written() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let block = readme
        .split("<!-- quickstart:begin -->")
        .nth(1)
        .and_then(|rest| rest.split("<!-- quickstart:end -->").next())
        .expect("README.md has a quickstart block");
    let script = block
        .trim()
        .strip_prefix("```bash")
        .and_then(|s| s.strip_suffix("```"))
        .expect("the quickstart block is one bash code block");

    let dir = tempfile::tempdir().unwrap();
    // The receiver, as in the README's first terminal (on a free port).
    let mut receiver = Killed(
        Command::new(env!("CARGO_BIN_EXE_relay"))
            .args([
                "receive",
                "--listen",
                "127.0.0.1:0",
                "--ca-file",
                "receiver-ca.pem",
            ])
            .args(["--verify-key-file", "endpoint-key.txt"])
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start relay receive"),
    );
    let (tx, lines) = mpsc::channel();
    let stdout = receiver.0.stdout.take().expect("stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = lines
        .recv_timeout(Duration::from_secs(60))
        .expect("relay receive started");
    let receiver_url = first
        .strip_prefix("Receiving on ")
        .and_then(|r| r.split_whitespace().next())
        .expect("the receiver prints its URL")
        .trim_end_matches('/')
        .to_string();
    let port = receiver_url.rsplit(':').next().unwrap().to_string();

    // Relay, as in the second terminal.
    let ca = dir.path().join("receiver-ca.pem");
    let relay = common::start(
        dir.path(),
        &[
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", &port),
            ("RELAY_OUTBOUND__EXTRA_CA_CERTS", ca.to_str().unwrap()),
        ],
    );
    // A person at a terminal is shown the token; this test's stdout is a
    // pipe, so Relay wrote it to its data directory, as the README says.
    let token = common::generated_token(&relay).expect("token generated");

    // The script, as in the third terminal.
    let out = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir.path())
        .env("RELAY_URL", &relay.url)
        .env("RECEIVER_URL", &receiver_url)
        .env("RELAY_OPERATOR_TOKEN", &token)
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "quickstart failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("\"messages_created\": 1"), "{stdout}");
    assert!(stdout.contains("\"state\": \"delivered\""), "{stdout}");
    assert!(stdout.contains("\"status_code\": 200"), "{stdout}");

    // The receiver saw the delivery and verified its signature.
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut seen = Vec::new();
    while Instant::now() < deadline {
        match lines.recv_timeout(Duration::from_millis(500)) {
            Ok(line) => {
                let done = line.contains("signature: valid");
                seen.push(line);
                if done {
                    return;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(e) => panic!("receiver output ended: {e}; saw {seen:?}"),
        }
    }
    panic!("the receiver never printed a verified delivery; saw {seen:?}");
}
