//! The container image (deploy/container/) built with podman and run: the
//! image is `relay` on `FROM scratch` with exactly the libraries it links,
//! runs as a non-root user, listens on 0.0.0.0:8080 by default, keeps its
//! data in the /data volume and checks its health with `relay healthcheck`.
//! Inside it `relay serve` answers `/readyz`, delivers a publish to the test
//! receiver outside the container (allowed through the operator's
//! `[outbound]` lists, the guard in force), and stops cleanly on SIGTERM.
//!
//! The image is built from the debug binary cargo built for this test (the
//! release build takes far longer), with podman's vfs storage in a private
//! directory and a `containers.conf` of its own (runc, cgroupfs, no default
//! ulimits: what works inside another container). Without podman the test
//! says SKIPPED (a failure under RELAY_TEST_REQUIRE_ALL=1); scripts/test
//! installs it.

mod harness;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use harness::{MASTER_KEY, OPERATOR, Sink, tenant};
use relay_receiver::Behavior;
use serde_json::Value;

/// The image's user (deploy/container/build.sh).
const UID: u32 = 10001;

/// podman with private storage and configuration.
struct Podman {
    dir: tempfile::TempDir,
    global: Vec<String>,
}

impl Podman {
    fn new() -> Podman {
        let dir = tempfile::tempdir().expect("podman's directory");
        std::fs::write(
            dir.path().join("containers.conf"),
            "[containers]\ndefault_ulimits = []\n\n[engine]\nruntime = \"runc\"\ncgroup_manager = \"cgroupfs\"\nevents_logger = \"file\"\n",
        )
        .unwrap();
        let path = |p: &str| dir.path().join(p).display().to_string();
        let global = vec![
            "--root".into(),
            path("storage"),
            "--runroot".into(),
            path("run"),
            "--storage-driver".into(),
            "vfs".into(),
        ];
        Podman { dir, global }
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("containers.conf")
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new("podman");
        cmd.args(&self.global).env("CONTAINERS_CONF", self.conf());
        cmd
    }

    /// Runs `podman <args>`; its output, whatever the exit status.
    fn run(&self, args: &[&str]) -> Output {
        self.command().args(args).output().expect("run podman")
    }

    /// Runs `podman <args>`, which must succeed; its stdout.
    #[track_caller]
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "podman {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }
}

impl Drop for Podman {
    fn drop(&mut self) {
        // Containers and images live in the private storage, removed with it.
        let _ = self.run(&["rm", "--all", "--force", "--time", "0"]);
        let _ = self.run(&["rmi", "--all", "--force"]);
    }
}

fn podman_installed() -> Result<(), String> {
    match Command::new("podman").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into_owned()),
        Err(e) => Err(format!("podman: {e}")),
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

fn chown(path: &Path, uid: u32) {
    std::os::unix::fs::chown(path, Some(uid), Some(uid))
        .unwrap_or_else(|e| panic!("chown {}: {e}", path.display()));
}

#[test]
fn the_image_runs_relay_as_a_non_root_user_and_delivers_outside() {
    if let Err(why) = podman_installed() {
        relay_store::testenv::skip("container: the image test", &why);
        return;
    }
    let podman = Podman::new();
    let tag = format!("localhost/relay-test:{}", std::process::id());
    let started = Instant::now();
    let build = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/container/build.sh"))
        .args(["--binary", env!("CARGO_BIN_EXE_relay"), "--tag", &tag])
        .env("PODMAN", format!("podman {}", podman.global.join(" ")))
        .env("CONTAINERS_CONF", podman.conf())
        .output()
        .expect("run build.sh");
    assert!(
        build.status.success(),
        "build.sh failed:\n{}{}",
        String::from_utf8_lossy(&build.stdout),
        String::from_utf8_lossy(&build.stderr)
    );
    let built_in = started.elapsed();

    // What the image says of itself.
    let inspect: Value = serde_json::from_str(&podman.ok(&["image", "inspect", &tag])).unwrap();
    let config = &inspect[0]["Config"];
    assert_eq!(config["User"], format!("{UID}:{UID}"), "{config}");
    let env: Vec<&str> = config["Env"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(env.contains(&"RELAY_LISTEN=0.0.0.0:8080"), "{env:?}");
    assert!(env.contains(&"RELAY_DATA_DIR=/data"), "{env:?}");
    assert!(config["Volumes"].get("/data").is_some(), "{config}");
    assert!(config["ExposedPorts"].get("8080/tcp").is_some(), "{config}");
    assert_eq!(
        inspect[0]["Healthcheck"]["Test"],
        serde_json::json!(["CMD", "/usr/local/bin/relay", "healthcheck"]),
        "{}",
        inspect[0]
    );
    let size = inspect[0]["Size"].as_u64().unwrap_or(0);
    println!(
        "image built in {built_in:?}, {:.1} MB",
        size as f64 / 1_000_000.0
    );

    // Run it: host network (the receiver is on this machine's loopback,
    // allowed by the operator's lists), data in a volume owned by its user.
    let sink = Sink::start(Behavior::ok());
    let work = tempfile::tempdir().unwrap();
    let data = work.path().join("data");
    std::fs::create_dir(&data).unwrap();
    chown(&data, UID);
    let ca = work.path().join("receiver-ca.pem");
    std::fs::copy(sink.receiver.ca_pem_path(), &ca).unwrap();
    let port = free_port();
    let name = format!("relay-test-{}", std::process::id());
    let volume = format!("{}:/data", data.display());
    let ca_mount = format!("{}:/etc/relay/receiver-ca.pem:ro", ca.display());
    let envs = [
        format!("RELAY_LISTEN=0.0.0.0:{port}"),
        format!("RELAY_OPERATOR_TOKEN={OPERATOR}"),
        format!("RELAY_MASTER_KEY={MASTER_KEY}"),
        format!("RELAY_OUTBOUND__ALLOW_PORTS={}", sink.receiver.port()),
        "RELAY_OUTBOUND__ALLOW_CIDRS=127.0.0.1/32".into(),
        "RELAY_OUTBOUND__EXTRA_CA_CERTS=/etc/relay/receiver-ca.pem".into(),
    ];
    let mut run: Vec<&str> = vec![
        "run",
        "--detach",
        "--name",
        &name,
        "--network",
        "host",
        "--volume",
        &volume,
        "--volume",
        &ca_mount,
    ];
    for e in &envs {
        run.extend(["--env", e]);
    }
    run.push(&tag);
    podman.ok(&run);
    let logs = || {
        let out = podman.run(&["logs", &name]);
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    };

    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    harness::eventually("/readyz inside the container", deadline, || {
        let (status, _) = harness::http("GET", &format!("{url}/readyz"), None, None).ok()?;
        (status == 200).then_some(())
    });
    println!("ready {:?} after the build", started.elapsed() - built_in);

    // Its process runs as the image's user, not root.
    let pid = podman.ok(&["inspect", "--format", "{{.State.Pid}}", &name]);
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let uid_line = status.lines().find(|l| l.starts_with("Uid:")).unwrap();
    assert!(
        uid_line
            .split_whitespace()
            .skip(1)
            .all(|u| u == UID.to_string()),
        "{uid_line}"
    );

    // A publish is delivered to the receiver outside the container.
    let t = tenant(&url, "container");
    let consumer = t.consumer("outside");
    t.endpoint_for(&consumer, &sink.receiver.url("/hook"), "v1a");
    t.api.publish_to(&consumer, "evt_container");
    sink.wait_count(1, Instant::now() + Duration::from_secs(30))
        .unwrap_or_else(|e| panic!("no delivery from the container: {e}\n{}", logs()));
    let got = sink.receiver.requests_to("/hook");
    assert_eq!(got.len(), 1);
    assert!(
        String::from_utf8_lossy(&got[0].body).contains("evt_container"),
        "{:?}",
        got[0]
    );

    // The image's own health check, and the data in the volume.
    let check = podman.run(&["healthcheck", "run", &name]);
    assert!(
        check.status.success(),
        "podman healthcheck run: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(data.join("relay.db").exists(), "the database is in /data");
    // Every file of the image but relay's own comes from a Debian package.
    let packages = work.path().join("packages");
    podman.ok(&[
        "cp",
        &format!("{name}:/usr/share/doc/relay-image/packages"),
        &packages.display().to_string(),
    ]);
    let packages = std::fs::read_to_string(&packages).unwrap();
    for package in [" libc6 ", " ca-certificates "] {
        assert!(packages.contains(package), "{packages}");
    }
    assert!(
        !packages.contains("not from a Debian package"),
        "{packages}"
    );

    // SIGTERM (podman stop): a clean exit, well before podman's kill.
    let stop = Instant::now();
    podman.ok(&["stop", "--time", "30", &name]);
    let exit = podman.ok(&["inspect", "--format", "{{.State.ExitCode}}", &name]);
    assert_eq!(exit, "0", "{}", logs());
    assert!(
        stop.elapsed() < Duration::from_secs(30),
        "{:?}",
        stop.elapsed()
    );
    let log = logs();
    assert!(log.contains("relay stopped"), "{log}");
    assert!(
        !log.contains(OPERATOR) && !log.contains(MASTER_KEY),
        "{log}"
    );
}
