//! The installation's own credentials from AWS's link-local services
//! (`[aws] credential_source`): EC2 instance metadata (IMDSv2) and the
//! container credentials of ECS and EKS Pod Identity, served by
//! `scripts/judges/aws_metadata_judge.py` (checked first against
//! botocore's own fetchers) with the keys of moto's `relay` user, so
//! moto's SigV4 and IAM checks prove the fetched keys are what signed the
//! `AssumeRole` and the send. The services are reached through the
//! operator client, while the tenant's guard refuses their addresses.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use relay_compliance::process::free_port;
use relay_core::model::ContentMode;
use relay_core::outcome::{FailureCode, Refusal, Verdict};
use relay_core::secret::{SecretValue, Secrets};
use relay_destinations::aws::metadata::Source;
use relay_destinations::aws::{self, identity};
use relay_destinations::sqs::SqsDestination;
use relay_destinations::{Config, Shared, Tenancy};
use relay_net::HttpsClient;
use relay_net::operator::{OperatorClient, OperatorUrl};

use crate::listening::listening;
use crate::moto::{self, Key, Moto, QUEUE};
use crate::moto_server::{message, send};

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/judges/aws_metadata_judge.py")
}

/// The judge, serving `key` as the credentials, and its request log.
struct Judge {
    port: u16,
    dir: tempfile::TempDir,
    child: Child,
}

impl Drop for Judge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Judge {
    async fn start(python: &Path, key: &Key) -> Judge {
        // The judge serves what botocore's own fetchers take.
        relay_receiver::judges::Judges::find().selftest("aws_metadata_judge.py");
        let dir = tempfile::tempdir().expect("a directory");
        let port = free_port();
        let creds = dir.path().join("creds.json");
        write_key(&creds, key);
        let token_file = dir.path().join("token");
        std::fs::write(&token_file, "eks-pod-identity-token\n").unwrap();
        let child = Command::new(python)
            .arg(script())
            .args(["--port", &port.to_string()])
            .arg("--credentials")
            .arg(&creds)
            .arg("--container-token-file")
            .arg(&token_file)
            .arg("--log")
            .arg(dir.path().join("log.jsonl"))
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("aws_metadata_judge.py starts");
        listening("aws_metadata_judge.py", port, Duration::from_secs(30)).await;
        Judge { port, dir, child }
    }

    fn token_file(&self) -> PathBuf {
        self.dir.path().join("token")
    }

    fn url(&self, path: &str) -> OperatorUrl {
        OperatorUrl::parse(&format!("http://127.0.0.1:{}{path}", self.port)).unwrap()
    }

    /// The requests it has served: (method, path, carried a session token).
    fn log(&self) -> Vec<(String, String, bool)> {
        std::fs::read_to_string(self.dir.path().join("log.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (
                    v["method"].as_str().unwrap().to_string(),
                    v["path"].as_str().unwrap().to_string(),
                    v["session_token"].as_bool().unwrap(),
                )
            })
            .collect()
    }
}

/// The credentials document the judge serves: `key`, for a day.
fn write_key(file: &Path, key: &Key) {
    let doc = serde_json::json!({
        "AccessKeyId": key.id, "SecretAccessKey": key.secret,
        "Token": null, "Expiration": "2099-01-01T00:00:00Z",
    });
    std::fs::write(file, doc.to_string()).unwrap();
}

fn installation(
    m: &Moto,
    source: Source,
    clock: &std::sync::Arc<relay_core::time::ManualClock>,
) -> std::sync::Arc<identity::Installation> {
    std::sync::Arc::new(identity::Installation::new(
        SecretValue::from("an-installation-secret-of-32-characters-or-more"),
        identity::Identity::Metadata {
            source,
            client: OperatorClient::new(&m.server.guard()),
        },
        Some(format!("{}/", m.url())),
        "us-east-1".into(),
        clock.clone(),
    ))
}

/// An installation on EC2 takes its instance profile's credentials from
/// IMDSv2 (a session token first; never a request without it), assumes
/// the tenant's role with them and sends; the credentials are fetched
/// once and kept until shortly before they expire. The same with ECS / EKS
/// Pod Identity container credentials, whose token file is read at every
/// fetch: a wrong token is refused and nothing is sent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_installation_takes_its_credentials_from_the_link_local_services() {
    let Some(python) = crate::moto_server::python_or_skip("sqs") else {
        return;
    };
    let m = Moto::start(python.clone()).await;
    let judge = Judge::start(&python, &m.relay).await;
    let clock = std::sync::Arc::new(relay_core::time::ManualClock::default());
    clock.set(aws::now());
    let d = Config::Sqs(SqsDestination {
        credentials: aws::Credentials::role(moto::ROLE_ARN),
        ..crate::destination(&m, QUEUE, ContentMode::Structured)
    });
    let shared = Shared {
        https: HttpsClient::new(crate::guard(&m)),
        clock: clock.clone(),
    };

    // EC2: IMDSv2.
    let ec2 = installation(
        &m,
        Source::InstanceMetadata {
            endpoint: judge.url(""),
        },
        &clock,
    );
    let tenancy = Tenancy {
        tenant: "ten_1",
        aws: Some(&ec2),
        gcp: None,
    };
    relay_destinations::check_access(&d, &shared, tenancy)
        .await
        .expect("the role is assumed with the instance profile's keys");
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
    for i in 0..2 {
        let id = format!("evt_imds_{i}");
        let (verdict, record) = send(&c, &message(&id, None, ContentMode::Structured)).await;
        assert_eq!(verdict, Verdict::Delivered, "{record:?}");
        let got = m.drain(QUEUE);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].attributes["webhook-id"], id);
        assert!(!format!("{record:?} {ec2:?}").contains(&m.relay.secret));
    }
    let log = judge.log();
    assert!(!log.is_empty());
    for (method, path, token) in &log {
        if method == "PUT" {
            assert_eq!(path, "/latest/api/token");
        } else {
            assert!(token, "IMDSv1 (a GET without a session token): {path}");
        }
    }
    // Registration's check, then one fetch for both sends: 2 × (PUT, GET
    // the role, GET its credentials) at most, since the check's own
    // assumed role is not cached but the installation's keys are.
    assert_eq!(log.len(), 3, "the instance's keys are cached: {log:?}");

    // ECS / EKS Pod Identity: the container credentials with the token.
    let container = |token_file| {
        installation(
            &m,
            Source::Container {
                url: judge.url("/v1/credentials"),
                token_file,
            },
            &clock,
        )
    };
    let pod = container(Some(judge.token_file()));
    let tenancy = Tenancy {
        tenant: "ten_1",
        aws: Some(&pod),
        gcp: None,
    };
    let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
    let (verdict, record) = send(&c, &message("evt_pod", None, ContentMode::Structured)).await;
    assert_eq!(verdict, Verdict::Delivered, "{record:?}");
    assert_eq!(m.drain(QUEUE).len(), 1);

    // Without the token (or with another) the service refuses: nothing is
    // sent, the attempt is retried, and the text names the source, not a
    // value.
    for (name, token_file) in [
        ("none", None),
        ("wrong", Some(judge.dir.path().join("wrong"))),
    ] {
        if let Some(f) = &token_file {
            std::fs::write(f, "not-the-token").unwrap();
        }
        let refused = container(token_file);
        let tenancy = Tenancy {
            tenant: "ten_1",
            aws: Some(&refused),
            gcp: None,
        };
        let e = relay_destinations::check_access(&d, &shared, tenancy)
            .await
            .expect_err(name);
        assert_eq!(e.code, "invalid_role", "{name}");
        assert!(
            e.message
                .contains("container credentials at http://127.0.0.1"),
            "{name}: {}",
            e.message
        );
        assert!(e.message.contains("answered 401"), "{name}: {}", e.message);
        let c = relay_destinations::build_for(&d, &shared, &Secrets::new(), tenancy).unwrap();
        let (verdict, record) =
            send(&c, &message("evt_refused", None, ContentMode::Structured)).await;
        assert_eq!(
            verdict,
            Verdict::Retry {
                code: FailureCode::Refused(Refusal::Unavailable),
                not_before: None
            },
            "{name}: {record:?}"
        );
        assert!(!format!("{record:?}").contains("eks-pod-identity-token"));
    }
    assert!(m.drain(QUEUE).is_empty());
}

/// A tenant cannot reach the credential services: an endpoint whose queue
/// URL is the instance metadata's or the container credentials' address
/// is refused at registration, whatever the installation's source, and
/// the guard refuses the connection at delivery too.
#[tokio::test]
async fn a_tenant_endpoint_at_a_credential_service_is_refused() {
    let guard = relay_net::Guard::from_config(&relay_net::OutboundConfig {
        // Even an operator who opens link-local and unique-local ranges
        // does not open the metadata services' addresses.
        allow_cidrs: vec![
            "127.0.0.0/8".into(),
            "169.254.0.0/16".into(),
            "fd00::/8".into(),
        ],
        allow_ports: vec![80, 443],
        ..Default::default()
    })
    .unwrap();
    for url in [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "https://169.254.169.254/123456789012/q",
        "https://169.254.170.2/v2/credentials/x",
        "https://169.254.170.23/v1/credentials",
        "https://[fd00:ec2::254]/latest/api/token",
        "https://[fd00:ec2::23]/v1/credentials",
    ] {
        let d = Config::Sqs(SqsDestination {
            queue_url: url.into(),
            region: "us-east-1".into(),
            credentials: aws::Credentials::role(moto::ROLE_ARN),
            content_mode: ContentMode::Structured,
            max_message_bytes: 256 * 1024,
        });
        let e = relay_destinations::validate(&d, &guard)
            .await
            .expect_err(url);
        assert!(
            [
                "blocked_address",
                "scheme_not_allowed",
                "invalid_url",
                "port_not_allowed"
            ]
            .contains(&e.code),
            "{url}: {e:?}"
        );
    }
}
