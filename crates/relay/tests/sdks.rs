//! Real deliveries from a running `relay serve`, verified with each verifier
//! SDK: `relay-verify` (Rust), `sdks/python`, `sdks/typescript`, `sdks/go`,
//! `sdks/java`, `sdks/ruby` and `sdks/php` — during a key rotation too (two
//! signatures, either key alone verifies), and a tampered body is refused by
//! all of them. Each SDK runs as a small program of its language that reads
//! the headers and the raw body and prints `ok` or `refused <code>`.
//!
//! The Python SDK runs from its source in the test environment's Python
//! (`RELAY_TEST_PYTHON`, which has its one dependency), the TypeScript SDK
//! from its build (`sdks/typescript/dist`); `scripts/test`, the README's test
//! command, makes both before it runs `cargo test`. Without either, or
//! without `node`, the test fails, saying what to run. The Go, Java, Ruby
//! and PHP SDKs run from their sources with Debian's toolchains (`go`,
//! `javac`/`java`, `ruby`, `php`), which `scripts/test` installs when it runs
//! as root; without one, that SDK says SKIPPED (a failure under
//! `RELAY_TEST_REQUIRE_ALL=1`, as in CI).

mod common;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use base64::Engine;
use common::{curl, start};
use relay_receiver::{Receiver, ReceiverConfig, Recorded};
use serde_json::{Value, json};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The interpreters and the TypeScript build the test needs; panics, saying
/// what to run, when one is missing.
fn sdks_available() -> PathBuf {
    let python = relay_receiver::judges::python();
    let ts = repo().join("sdks/typescript/dist/src/index.js");
    assert!(
        ts.exists(),
        "{} is missing: run `scripts/test` (or `npm --prefix sdks/typescript ci && \
         npm --prefix sdks/typescript run build`)",
        ts.display()
    );
    let node = Command::new("node").args(["-e", "0"]).output();
    assert!(
        node.as_ref().is_ok_and(|o| o.status.success()),
        "node is not usable ({node:?}): the TypeScript SDK needs Node.js 18 or later"
    );
    python
}

/// The request as JSON the Python and Node scripts read.
fn capture(r: &Recorded, body: &[u8]) -> Value {
    let headers: serde_json::Map<String, Value> =
        ["webhook-id", "webhook-timestamp", "webhook-signature"]
            .iter()
            .map(|h| (h.to_string(), json!(r.header(h).unwrap_or_default())))
            .collect();
    json!({
        "headers": headers,
        "body_b64": base64::engine::general_purpose::STANDARD.encode(body),
    })
}

const PYTHON: &str = r#"
import base64, json, sys
from relay_verify import Verifier
req = json.load(open(sys.argv[1]))
keys = json.loads(sys.argv[2])
try:
    Verifier(keys).verify(req["headers"], base64.b64decode(req["body_b64"]))
    print("ok")
except Exception as e:
    print("refused", type(e).__name__)
"#;

const NODE: &str = r#"
const fs = require("fs");
const { Verifier } = require(process.argv[1]);
const req = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const keys = JSON.parse(process.argv[3]);
try {
  new Verifier(keys).verify(req.headers, Buffer.from(req.body_b64, "base64"));
  console.log("ok");
} catch (e) {
  console.log("refused", e.code);
}
"#;

// The Go, Java, Ruby and PHP programs take: the raw body's file, the three
// header values, then the keys.

const GO_MOD: &str = "module relaycheck\n\ngo 1.19\n\n\
    require github.com/relay/relay-go v0.0.0\n\n\
    replace github.com/relay/relay-go => SDK\n";

const GO: &str = r#"package main

import (
	"fmt"
	"net/http"
	"os"

	relay "github.com/relay/relay-go"
)

func main() {
	body, err := os.ReadFile(os.Args[1])
	if err != nil {
		panic(err)
	}
	h := http.Header{}
	h.Set("webhook-id", os.Args[2])
	h.Set("webhook-timestamp", os.Args[3])
	h.Set("webhook-signature", os.Args[4])
	v, err := relay.NewVerifier(os.Args[5:])
	if err != nil {
		panic(err)
	}
	if err := v.Verify(h, body); err != nil {
		fmt.Println("refused", err)
		return
	}
	fmt.Println("ok")
}
"#;

const JAVA: &str = r#"import dev.relay.verify.Verifier;
import dev.relay.verify.VerifyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

public class Check {
    public static void main(String[] a) throws Exception {
        byte[] body = Files.readAllBytes(Path.of(a[0]));
        Map<String, String> h = Map.of("webhook-id", a[1], "webhook-timestamp", a[2], "webhook-signature", a[3]);
        try {
            new Verifier(Arrays.asList(a).subList(4, a.length)).verify(h, body);
            System.out.println("ok");
        } catch (VerifyException e) {
            System.out.println("refused " + e.code());
        }
    }
}
"#;

const RUBY: &str = r#"
require "relay/verify"
body = File.binread(ARGV[0])
h = { "webhook-id" => ARGV[1], "webhook-timestamp" => ARGV[2], "webhook-signature" => ARGV[3] }
begin
  Relay::Verify::Verifier.new(ARGV[4..]).verify(h, body)
  puts "ok"
rescue Relay::Verify::VerifyError => e
  puts "refused #{e.code}"
end
"#;

const PHP: &str = r#"
spl_autoload_register(function (string $class): void {
    $prefix = 'Relay\\Verify\\';
    if (str_starts_with($class, $prefix)) {
        require getenv('RELAY_PHP_SDK') . '/src/' . substr($class, strlen($prefix)) . '.php';
    }
});
$h = ['webhook-id' => $argv[2], 'webhook-timestamp' => $argv[3], 'webhook-signature' => $argv[4]];
try {
    (new Relay\Verify\Verifier(array_slice($argv, 5)))->verify($h, file_get_contents($argv[1]));
    echo "ok\n";
} catch (Relay\Verify\VerifyException $e) {
    echo 'refused ', $e->code(), "\n";
}
"#;

/// One SDK as a program: a command and its leading arguments, then the
/// body's file, the three header values and the keys.
struct Program {
    name: &'static str,
    command: OsString,
    args: Vec<OsString>,
    env: Vec<(&'static str, OsString)>,
}

/// Whether `command args…` runs and succeeds.
fn runs(command: &str, args: &[&str]) -> bool {
    Command::new(command)
        .args(args)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Runs a build step; panics with its output when it fails.
fn build(what: &str, command: &mut Command) {
    let out = command.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Go, Java, Ruby and PHP SDKs whose toolchain is installed, each built
/// into `dir` when it needs a build; the others say SKIPPED.
fn toolchain_sdks(dir: &Path) -> Vec<Program> {
    let sdks = repo().join("sdks");
    let install = "scripts/test installs it when it runs as root";
    let skip = |sdk: &str, why: String| {
        relay_store::testenv::skip(&format!("the {sdk} verifier in sdks.rs"), &why);
    };
    let mut out = Vec::new();
    if runs("go", &["version"]) {
        let src = dir.join("go-check");
        std::fs::create_dir_all(&src).unwrap();
        let sdk = sdks.join("go").canonicalize().unwrap();
        std::fs::write(
            src.join("go.mod"),
            GO_MOD.replace("SDK", sdk.to_str().unwrap()),
        )
        .unwrap();
        std::fs::write(src.join("main.go"), GO).unwrap();
        let bin = dir.join("go-check-bin");
        build(
            "go build (sdks/go)",
            Command::new("go")
                .arg("build")
                .arg("-o")
                .arg(&bin)
                .arg(".")
                .current_dir(&src)
                .env("GOPROXY", "off")
                .env("GOFLAGS", "-mod=mod"),
        );
        out.push(Program {
            name: "go",
            command: bin.into(),
            args: vec![],
            env: vec![],
        });
    } else {
        skip(
            "Go",
            format!("go is not installed (Debian's golang-go; {install})"),
        );
    }
    if runs("javac", &["-version"]) && runs("java", &["-version"]) {
        let classes = dir.join("java-classes");
        std::fs::write(dir.join("Check.java"), JAVA).unwrap();
        let mut javac = Command::new("javac");
        javac.arg("-d").arg(&classes).arg(dir.join("Check.java"));
        let main = sdks.join("java/src/main/java/dev/relay/verify");
        for entry in std::fs::read_dir(&main).unwrap() {
            javac.arg(entry.unwrap().path());
        }
        build("javac (sdks/java)", &mut javac);
        out.push(Program {
            name: "java",
            command: "java".into(),
            args: vec!["-cp".into(), classes.into(), "Check".into()],
            env: vec![],
        });
    } else {
        skip(
            "Java",
            format!("javac or java is not installed (Debian's default-jdk; {install})"),
        );
    }
    if runs("ruby", &["-e", "require 'openssl'"]) {
        out.push(Program {
            name: "ruby",
            command: "ruby".into(),
            args: vec![
                "-I".into(),
                sdks.join("ruby/lib").into(),
                "-e".into(),
                RUBY.into(),
            ],
            env: vec![],
        });
    } else {
        skip(
            "Ruby",
            format!("ruby is not installed (Debian's ruby; {install})"),
        );
    }
    if runs(
        "php",
        &[
            "-r",
            "exit(function_exists('sodium_crypto_sign_verify_detached') ? 0 : 1);",
        ],
    ) {
        out.push(Program {
            name: "php",
            command: "php".into(),
            args: vec!["-r".into(), PHP.into(), "--".into()],
            env: vec![("RELAY_PHP_SDK", sdks.join("php").into())],
        });
    } else {
        skip(
            "PHP",
            format!("php with sodium is not installed (Debian's php-cli; {install})"),
        );
    }
    out
}

/// Verifies one captured request with every SDK; returns each one's answer.
fn verify_all(
    python: &Path,
    programs: &[Program],
    dir: &Path,
    r: &Recorded,
    body: &[u8],
    keys: &[&str],
) -> Vec<(&'static str, bool)> {
    let file = dir.join(format!("req-{}.json", r.seq));
    std::fs::write(&file, capture(r, body).to_string()).unwrap();
    let body_file = dir.join(format!("req-{}.body", r.seq));
    std::fs::write(&body_file, body).unwrap();
    let keys_json = serde_json::to_string(keys).unwrap();
    let header = |name: &str| r.header(name).unwrap_or_default().to_string();
    let rust = relay_verify::Verifier::new(keys.iter().copied())
        .unwrap()
        .verify(
            &relay_verify::SignatureHeaders {
                id: r.header("webhook-id").unwrap(),
                timestamp: r.header("webhook-timestamp").unwrap(),
                signature: r.header("webhook-signature").unwrap(),
            },
            body,
        )
        .is_ok();
    let py = Command::new(python)
        .args(["-c", PYTHON])
        .arg(&file)
        .arg(&keys_json)
        .env("PYTHONPATH", repo().join("sdks/python/src"))
        .output()
        .unwrap();
    let node = Command::new("node")
        .args(["-e", NODE])
        .arg(repo().join("sdks/typescript/dist/src/index.js"))
        .arg(&file)
        .arg(&keys_json)
        .output()
        .unwrap();
    let said_ok = |name: &str, o: &std::process::Output| {
        assert!(
            o.status.success(),
            "{name}: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout).trim() == "ok"
    };
    let mut answers = vec![
        ("rust", rust),
        ("python", said_ok("python", &py)),
        ("typescript", said_ok("typescript", &node)),
    ];
    for p in programs {
        let out = Command::new(&p.command)
            .args(&p.args)
            .arg(&body_file)
            .args(["webhook-id", "webhook-timestamp", "webhook-signature"].map(header))
            .args(keys)
            .envs(p.env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", p.name));
        answers.push((p.name, said_ok(p.name, &out)));
    }
    answers
}

/// Every answer is `want`; the message names the SDKs that differ.
fn assert_all(answers: &[(&str, bool)], want: bool, what: &str) {
    let wrong: Vec<_> = answers.iter().filter(|(_, ok)| *ok != want).collect();
    assert!(
        wrong.is_empty(),
        "{what}: every SDK should say {}, but {wrong:?} did not ({answers:?})",
        if want { "ok" } else { "refused" }
    );
}

#[test]
fn every_sdk_verifies_real_deliveries_including_a_rotation() {
    let python = sdks_available();
    let build_dir = tempfile::tempdir().unwrap();
    let programs = toolchain_sdks(build_dir.path());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let receiver = rt
        .block_on(Receiver::start(ReceiverConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let port = receiver.port().to_string();
    let ca = receiver.ca_pem_path().to_str().unwrap().to_string();
    let relay = start(
        dir.path(),
        &[
            (
                "RELAY_OPERATOR_TOKEN",
                "rop_sdk_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
            ),
            ("RELAY_OUTBOUND__ALLOW_CIDRS", "127.0.0.1/32"),
            ("RELAY_OUTBOUND__ALLOW_PORTS", &port),
            ("RELAY_OUTBOUND__EXTRA_CA_CERTS", &ca),
        ],
    );
    let api = |method: &str, path: &str, token: &str, body: Option<Value>| -> Value {
        let (status, text) = curl(
            method,
            &format!("{}{path}", relay.url),
            token,
            body.map(|b| b.to_string()).as_deref(),
        );
        assert!(
            (200..300).contains(&status),
            "{method} {path}: {status} {text}"
        );
        serde_json::from_str(&text).unwrap_or(Value::Null)
    };
    let tenant = api(
        "POST",
        "/v1/tenants",
        "rop_sdk_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
        Some(json!({"name": "acme"})),
    );
    let key = api(
        "POST",
        &format!("/v1/tenants/{}/api-keys", tenant["id"].as_str().unwrap()),
        "rop_sdk_0f3c9a1e5b7d2f4a6c8e0b1d3f5a",
        Some(json!({"environment": "live"})),
    )["key"]
        .as_str()
        .unwrap()
        .to_string();
    api(
        "PUT",
        "/v1/event-types/order.shipped",
        &key,
        Some(json!({"schema": {"type": "object"}})),
    );
    let consumer = api(
        "POST",
        "/v1/consumers",
        &key,
        Some(json!({"external_id": "m"})),
    )["id"]
        .as_str()
        .unwrap()
        .to_string();
    let endpoint = |scheme: &str, path: &str| {
        api(
            "POST",
            "/v1/endpoints",
            &key,
            Some(json!({
                "consumer_id": consumer,
                "signature_scheme": scheme,
                "event_types": ["order.shipped"],
                "destination": {"kind": "https", "url": receiver.url(path)},
            })),
        )
    };
    let ed = endpoint("v1a", "/ed25519");
    let hmac = endpoint("v1", "/hmac");
    let old_pk = ed["public_key"].as_str().unwrap().to_string();
    let secret = hmac["secret"].as_str().unwrap().to_string();
    // Rotate the Ed25519 endpoint with an overlap: both keys sign, new first.
    let rotated = api(
        "POST",
        &format!("/v1/endpoints/{}/rotate-key", ed["id"].as_str().unwrap()),
        &key,
        Some(json!({"overlap_hours": 1})),
    );
    let new_pk = rotated["keys"][0]["public_key"]
        .as_str()
        .unwrap()
        .to_string();
    api(
        "POST",
        "/v1/events",
        &key,
        Some(json!({"type": "order.shipped", "consumer_id": consumer,
                    "data": {"order_id": "1042", "note": "ünïcødé"}})),
    );
    let got = rt
        .block_on(receiver.wait_for(2, Duration::from_secs(30)))
        .expect("both deliveries arrive");
    let by_path = |p: &str| got.iter().find(|r| r.path == p).unwrap().clone();
    let ed_req = by_path("/ed25519");
    let hmac_req = by_path("/hmac");
    let sig = ed_req.header("webhook-signature").unwrap();
    assert_eq!(
        sig.split(' ').count(),
        2,
        "two signatures during the overlap: {sig}"
    );
    assert!(sig.split(' ').all(|s| s.starts_with("v1a,")));

    let d = dir.path();
    let all =
        |r: &Recorded, body: &[u8], keys: &[&str]| verify_all(&python, &programs, d, r, body, keys);
    for (label, keys) in [
        ("new key", vec![new_pk.as_str()]),
        ("old key", vec![old_pk.as_str()]),
        ("both keys", vec![new_pk.as_str(), old_pk.as_str()]),
    ] {
        assert_all(
            &all(&ed_req, &ed_req.body, &keys),
            true,
            &format!("v1a, {label}"),
        );
    }
    assert_all(&all(&hmac_req, &hmac_req.body, &[&secret]), true, "v1");
    let mut tampered = hmac_req.body.to_vec();
    tampered[10] ^= 1;
    assert_all(&all(&hmac_req, &tampered, &[&secret]), false, "tampered v1");
    let mut tampered = ed_req.body.to_vec();
    tampered.push(b' ');
    assert_all(
        &all(&ed_req, &tampered, &[&new_pk, &old_pk]),
        false,
        "tampered v1a",
    );
    // A key of the other endpoint never verifies.
    assert_all(
        &all(&hmac_req, &hmac_req.body, &[&new_pk]),
        false,
        "the other endpoint's key",
    );
}
