//! Tidy: only `relay-net` opens outbound sockets.
//!
//! Scans the library and binary sources (`crates/*/src/**/*.rs`) of every
//! workspace crate except relay-net and fails on any way of opening a
//! socket, resolving a name, or an HTTP client that bypasses the guard.
//! Test code under `tests/` may start loopback servers and is not scanned.

use std::path::{Path, PathBuf};

/// Spellings that open outbound sockets, resolve names or bring their own
/// HTTP client. Matched as plain substrings, comments included: a comment
/// that needs one of these words can say so differently.
const FORBIDDEN: &[&str] = &[
    "TcpStream::connect",
    "TcpSocket",
    "UdpSocket",
    "std::net::TcpStream",
    "tokio::net::TcpStream",
    "socket2",
    "reqwest",
    "hyper_util::client",
    "isahc",
    "ureq::",
    "surf::",
    "lookup_host",
    "to_socket_addrs",
    "hickory",
    "trust_dns",
];

/// The crate that is allowed to do all of the above.
const GUARD_CRATE: &str = "relay-net";

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `(line number, pattern)` for every forbidden spelling in `text`.
fn violations(text: &str) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for (index, line) in text.lines().enumerate() {
        for pattern in FORBIDDEN {
            if line.contains(pattern) {
                found.push((index + 1, *pattern));
            }
        }
    }
    found
}

#[test]
fn only_relay_net_opens_outbound_sockets() {
    let crates = workspace_root().join("crates");
    let mut scanned = 0;
    let mut failures = Vec::new();
    let entries = std::fs::read_dir(&crates).expect("crates/ directory");
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == GUARD_CRATE {
            continue;
        }
        let mut files = Vec::new();
        rust_files(&entry.path().join("src"), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            scanned += 1;
            for (line, pattern) in violations(&text) {
                failures.push(format!(
                    "{}:{line}: `{pattern}` (outbound connections go through relay-net)",
                    file.display()
                ));
            }
        }
    }
    assert!(
        scanned > 0,
        "no source files found under {}",
        crates.display()
    );
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn the_patterns_catch_what_they_should() {
    let sample = "let s = tokio::net::TcpStream::connect(addr).await?;\n\
                  let c = reqwest::Client::new();\n\
                  let u = std::net::UdpSocket::bind(a)?;\n\
                  use hyper_util::client::legacy::Client;\n";
    let lines: Vec<usize> = violations(sample).iter().map(|(l, _)| *l).collect();
    for expected in 1..=4 {
        assert!(
            lines.contains(&expected),
            "line {expected} not caught: {lines:?}"
        );
    }
    assert!(violations("let listener = TcpListener::bind(addr).await?;").is_empty());
}
