//! The Kubernetes manifests (deploy/kubernetes/) are valid against
//! Kubernetes' own schemas (PyPI `kubernetes-validate`, strict: no unknown
//! field) and agree with Relay: the ConfigMap's relay.toml is a
//! configuration `relay config check` accepts, the probes ask the paths and
//! the port Relay serves, and the pod's termination grace covers the
//! shutdown delay plus the longer of the drain and the delivery grace.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The oldest and the newest Kubernetes the manifests are checked against.
const VERSIONS: &[&str] = &["1.30.0", "1.37.0"];

fn manifests() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../deploy/kubernetes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    files
}

fn python() -> String {
    std::env::var("RELAY_TEST_PYTHON").expect(
        "RELAY_TEST_PYTHON: the test environment's Python with kubernetes-validate (scripts/test --setup-only)",
    )
}

#[test]
fn the_manifests_are_valid_against_kubernetes_schemas() {
    let files = manifests();
    assert!(files.len() >= 4, "{files:?}");
    for version in VERSIONS {
        let out = Command::new(python())
            .args(["-m", "kubernetes_validate", "--strict", "-k", version])
            .args(&files)
            .output()
            .expect("run kubernetes-validate");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.status.success(), "Kubernetes {version}:\n{text}");
        for kind in ["configmap/", "deployment/", "secret/", "service/"] {
            assert!(text.contains(kind), "{kind} not validated:\n{text}");
        }
    }
}

/// Every document of every manifest, as JSON.
fn documents() -> Vec<Value> {
    let script = "import json, sys, yaml\n\
                  docs = [d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]\n\
                  print(json.dumps(docs))\n";
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .args(manifests())
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn of_kind<'a>(docs: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = docs.iter().filter(|d| d["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind}: {docs:?}");
    found[0]
}

#[test]
fn the_manifests_agree_with_relay() {
    let docs = documents();
    let deployment = of_kind(&docs, "Deployment");
    let config_map = of_kind(&docs, "ConfigMap");
    let secret = of_kind(&docs, "Secret");
    let service = of_kind(&docs, "Service");
    let pod = &deployment["spec"]["template"]["spec"];
    let containers = pod["containers"].as_array().expect("containers");
    assert_eq!(containers.len(), 1);
    let c = &containers[0];

    // The configuration file, checked by relay itself.
    let dir = tempfile::tempdir().unwrap();
    let toml_path = dir.path().join("relay.toml");
    let text = config_map["data"]["relay.toml"]
        .as_str()
        .expect("relay.toml");
    std::fs::write(&toml_path, text).unwrap();
    let mut check = Command::new(env!("CARGO_BIN_EXE_relay"));
    check
        .args(["config", "check", "--config"])
        .arg(&toml_path)
        .current_dir(dir.path());
    for (k, _) in std::env::vars() {
        if k.starts_with("RELAY_") {
            check.env_remove(k);
        }
    }
    let out = check.output().expect("relay config check");
    assert!(
        out.status.success(),
        "relay config check refused the ConfigMap's relay.toml: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let effective: toml::Table = String::from_utf8_lossy(&out.stdout)
        .parse()
        .expect("the effective configuration");
    let secs = |section: &str, key: &str| {
        effective[section][key]
            .as_integer()
            .unwrap_or_else(|| panic!("[{section}] {key}"))
    };
    let delay = secs("server", "shutdown_delay_seconds");
    let drain = secs("server", "shutdown_drain_seconds");
    let grace = secs("delivery", "shutdown_grace_seconds");
    assert!(delay > 0, "a delay lets load balancers drain the pod");
    let termination = pod["terminationGracePeriodSeconds"].as_i64().unwrap();
    assert!(
        termination >= delay + drain.max(grace) + 5,
        "terminationGracePeriodSeconds {termination} < delay {delay} + max(drain {drain}, grace {grace}) + 5"
    );

    // The port Relay listens on is the container's, the probes' and the Service's.
    let listen = effective["listen"].as_str().unwrap();
    assert!(listen.starts_with("0.0.0.0:"), "{listen}");
    let port: i64 = listen.rsplit(':').next().unwrap().parse().unwrap();
    let ports = c["ports"].as_array().unwrap();
    assert_eq!(ports[0]["containerPort"], port);
    let name = ports[0]["name"].as_str().unwrap();
    for (probe, path) in [
        ("livenessProbe", "/healthz"),
        ("readinessProbe", "/readyz"),
        ("startupProbe", "/healthz"),
    ] {
        assert_eq!(c[probe]["httpGet"]["path"], path, "{probe}");
        assert_eq!(c[probe]["httpGet"]["port"], name, "{probe}");
    }
    assert_eq!(service["spec"]["ports"][0]["targetPort"], name);
    assert_eq!(
        service["spec"]["selector"],
        deployment["spec"]["template"]["metadata"]["labels"]
    );

    // The configuration file is where RELAY_CONFIG says; secrets come from the Secret.
    let env = c["env"].as_array().unwrap();
    let config_env = env.iter().find(|e| e["name"] == "RELAY_CONFIG").unwrap();
    let mount = c["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "config")
        .unwrap();
    assert_eq!(
        config_env["value"].as_str().unwrap(),
        format!("{}/relay.toml", mount["mountPath"].as_str().unwrap())
    );
    assert_eq!(
        c["envFrom"][0]["secretRef"]["name"],
        secret["metadata"]["name"]
    );
    for key in [
        "RELAY_MASTER_KEY",
        "RELAY_OPERATOR_TOKEN",
        "RELAY_DATABASE_URL",
    ] {
        assert!(secret["stringData"][key].is_string(), "{key}");
    }
    assert!(
        !text.contains("master_key") && !text.contains("operator_token"),
        "no secret in the ConfigMap"
    );

    // No Kubernetes service variables (RELAY_PORT, ...) in Relay's environment.
    assert_eq!(pod["enableServiceLinks"], false);
    // Non-root, as the image.
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert_eq!(pod["securityContext"]["runAsUser"], 10001);
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);
    let data = c["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "data")
        .unwrap();
    assert_eq!(data["mountPath"], "/data");
}
