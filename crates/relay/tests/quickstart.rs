//! Runs the README's quickstart, exactly as written, against a real
//! `relay serve`, so the README cannot drift from what works.

mod common;

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
    let relay = common::start(
        dir.path(),
        &[
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", "9443"),
        ],
    );
    let token = common::printed_token(&relay.banner).expect("token printed");
    let out = std::process::Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .env("RELAY_URL", &relay.url)
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
    assert!(stdout.contains("\"state\": \"scheduled\""), "{stdout}");
}
