//! Starting and stopping `relay serve` as a real process for end-to-end tests.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// A running `relay serve`, killed when dropped.
pub struct Relay {
    pub child: Child,
    pub url: String,
    /// Lines printed on stdout before "Relay listening".
    pub banner: Vec<String>,
    pub data_dir: std::path::PathBuf,
}

impl Drop for Relay {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `relay serve` in `data_dir` on a free port with extra environment.
pub fn start(data_dir: &Path, env: &[(&str, &str)]) -> Relay {
    start_logging(data_dir, env, None)
}

/// Like [`start`], writing the process's log (stderr) to `log` when given.
pub fn start_logging(data_dir: &Path, env: &[(&str, &str)], log: Option<&Path>) -> Relay {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_relay"));
    cmd.arg("serve")
        .arg("--listen")
        .arg("127.0.0.1:0")
        .arg("--data-dir")
        .arg(data_dir)
        .current_dir(data_dir)
        .env_remove("RELAY_OPERATOR_TOKEN")
        .env_remove("RELAY_DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(match log {
            Some(path) => Stdio::from(std::fs::File::create(path).expect("log file")),
            None => Stdio::null(),
        });
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("start relay serve");
    // Owned by `Relay` at once, so a failure below still kills the process.
    let mut relay = Relay {
        child,
        url: String::new(),
        banner: Vec::new(),
        data_dir: data_dir.to_path_buf(),
    };
    let stdout = relay.child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    loop {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("relay serve printed its address within 60 s");
        if let Some(rest) = line.strip_prefix("Relay listening on ") {
            relay.url = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            return relay;
        }
        relay.banner.push(line);
    }
}

/// The operator token printed in the banner, if any (only a terminal is
/// shown it; these tests' stdout is a pipe).
pub fn printed_token(banner: &[String]) -> Option<String> {
    banner.iter().find_map(|l| {
        l.trim()
            .strip_prefix("RELAY_OPERATOR_TOKEN=")
            .map(str::to_string)
    })
}

/// The file a generated operator token is written to when stdout is not a
/// terminal.
pub fn token_file(data_dir: &Path) -> std::path::PathBuf {
    data_dir.join("operator-token")
}

/// The operator token this start generated: its banner names the file it
/// was written to (and never shows the token itself); `None` when it
/// generated none.
pub fn generated_token(relay: &Relay) -> Option<String> {
    let file = token_file(&relay.data_dir);
    let announced = relay.banner.iter().any(|l| {
        l.starts_with("Generated the operator token into ") && l.contains(&*file.to_string_lossy())
    });
    if !announced {
        return None;
    }
    let token = std::fs::read_to_string(&file).expect("the generated token's file");
    let token = token.trim().to_string();
    assert!(
        relay.banner.iter().all(|l| !l.contains(&token)),
        "the token itself is printed on stdout: {:?}",
        relay.banner
    );
    Some(token)
}

/// A blocking HTTP request with curl; returns (status, body).
pub fn curl(method: &str, url: &str, token: &str, body: Option<&str>) -> (u16, String) {
    let mut cmd = Command::new("curl");
    cmd.args(["-sS", "-X", method, url, "-H"])
        .arg(format!("Authorization: Bearer {token}"))
        .args([
            "-H",
            "Content-Type: application/json",
            "-w",
            "\n%{http_code}",
        ]);
    if let Some(b) = body {
        cmd.args(["-d", b]);
    }
    let out = cmd.output().expect("run curl");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, status) = text.rsplit_once('\n').unwrap_or(("", "0"));
    (status.trim().parse().unwrap_or(0), body.to_string())
}

/// Creates a tenant with the operator token `op` and returns a live API key
/// for it.
pub fn tenant_key(url: &str, op: &str) -> String {
    let json = |s: &str| -> serde_json::Value { serde_json::from_str(s).unwrap() };
    let (_, t) = curl(
        "POST",
        &format!("{url}/v1/tenants"),
        op,
        Some(r#"{"name":"a"}"#),
    );
    let tenant = json(&t)["id"].as_str().unwrap().to_string();
    let (_, k) = curl(
        "POST",
        &format!("{url}/v1/tenants/{tenant}/api-keys"),
        op,
        Some(r#"{"environment":"live"}"#),
    );
    json(&k)["key"].as_str().unwrap().to_string()
}
