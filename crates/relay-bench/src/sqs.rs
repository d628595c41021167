//! The `sqs` workload: E events delivered to one `sqs` endpoint (a
//! standard queue) of a private moto server (`--moto-server`, started on
//! 127.0.0.1 over TLS with a CA of the run's own, as `s3`'s), beside the
//! kind's client alone sending as many messages with the same
//! acknowledgement (`SendMessage`'s `MessageId` with matching MD5 digests)
//! and the same concurrency to a second queue, in one run.
//!
//! Relay's rate is from the first publish to the moment its queue holds
//! every message (`GetQueueAttributes`, polled every 20 ms); the raw rate
//! is from the first send to the last acknowledgement. `ratio` is Relay's
//! over the raw client's.

use std::sync::atomic::AtomicUsize;

use relay_core::model::ContentMode;
use relay_core::secret::{SecretRef, SecretValue, Secrets};
use relay_destinations::sqs::{self, SqsDestination};
use relay_destinations::{Client, Config, Shared};
use relay_net::{Guard, HttpsClient, Limits, OutboundConfig, StaticResolver};

use super::s3::start_moto;
use super::*;

/// moto is run without authentication: any well-formed credentials pass.
const KEY_ID: &str = "AKIARELAYBENCH000000";
const SECRET: &str = "relay-bench-secret-access-key-0000000000";

fn destination(port: u16, queue: &str, key_id: SecretRef, secret: SecretRef) -> SqsDestination {
    SqsDestination {
        queue_url: format!("https://127.0.0.1:{port}/123456789012/{queue}"),
        region: "us-east-1".into(),
        access_key_id: Some(key_id),
        secret_access_key: Some(secret),
        session_token: None,
        role_arn: None,
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
    }
}

/// The kind's client of queue `queue` (trusting the run's CA).
fn client(port: u16, ca: &std::path::Path, queue: &str) -> anyhow::Result<sqs::Client> {
    let guard = Guard::with_resolver(
        &OutboundConfig {
            allow_ports: vec![port],
            allow_cidrs: vec!["127.0.0.1/32".into()],
            block_cidrs: vec![],
            extra_ca_certs: vec![ca.to_path_buf()],
            allow_plaintext_credentials_to_loopback: false,
        },
        Arc::new(StaticResolver::new()),
    )?;
    let d = destination(
        port,
        queue,
        SecretRef::Secret("key-id".into()),
        SecretRef::Secret("secret".into()),
    );
    let mut secrets = Secrets::new();
    let (Some(id), Some(key)) = (&d.access_key_id, &d.secret_access_key) else {
        anyhow::bail!("the bench's destination has keys");
    };
    secrets.insert(id.clone(), SecretValue::from(KEY_ID));
    secrets.insert(key.clone(), SecretValue::from(SECRET));
    let shared = Shared {
        https: HttpsClient::new(guard),
        clock: Arc::new(crate::broker::WallClock),
    };
    let Client::Sqs(client) = relay_destinations::build(&Config::Sqs(d), &shared, &secrets)
        .map_err(|e| anyhow::anyhow!("unresolved: {}", e.0))?
    else {
        anyhow::bail!("an sqs destination builds an sqs client");
    };
    Ok(client)
}

/// One JSON-protocol action of the run's own (`CreateQueue`,
/// `GetQueueAttributes`), signed by the kind's client; its answer.
async fn action(client: &sqs::Client, action: &str, body: Value) -> anyhow::Result<Value> {
    let keys = client
        .keys(Limits::default())
        .await
        .map_err(|e| anyhow::anyhow!("{action}: {e:?}"))?;
    let r = client
        .post(
            &format!("AmazonSQS.{action}"),
            body.to_string().into_bytes(),
            &keys,
            relay_destinations::aws::now(),
            Limits::default(),
        )
        .await
        .map_err(|e| anyhow::anyhow!("{action}: {e:?}"))?;
    anyhow::ensure!(r.status.is_success(), "{action}: {}", r.status);
    Ok(serde_json::from_slice(&r.body_prefix)?)
}

/// Makes queue `name` once moto answers (within 30 s).
async fn create_queue(client: &sqs::Client, name: &str) -> anyhow::Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match action(client, "CreateQueue", json!({ "QueueName": name })).await {
            Ok(_) => return Ok(()),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => anyhow::bail!("moto did not make the queue within 30 s: {e}"),
        }
    }
}

/// How many messages the client's queue holds.
async fn stored(client: &sqs::Client) -> anyhow::Result<u64> {
    let a = action(
        client,
        "GetQueueAttributes",
        json!({
            "QueueUrl": client.config().queue_url,
            "AttributeNames": ["ApproximateNumberOfMessages"],
        }),
    )
    .await?;
    Ok(a["Attributes"]["ApproximateNumberOfMessages"]
        .as_str()
        .unwrap_or("0")
        .parse()?)
}

pub(crate) async fn sqs(args: &BenchArgs, relay: Host, data: &Arc<str>) -> anyhow::Result<Report> {
    let events = args.events.unwrap_or(10_000);
    let concurrency = args.endpoint_concurrency.unwrap_or(10);
    let moto = start_moto(&args.moto_server)?;
    let relay_queue = client(moto.port, &moto.ca_pem, "relay-bench")?;
    let raw_queue = client(moto.port, &moto.ca_pem, "raw-bench")?;
    create_queue(&relay_queue, "relay-bench").await?;
    create_queue(&raw_queue, "raw-bench").await?;

    // Relay's side.
    let env = Env::start_trusting(
        args,
        relay,
        &[moto.port],
        std::slice::from_ref(&moto.ca_pem),
    )
    .await?;
    let mut api = http::Api {
        conn: Conn::plain(env.api_addr).await?,
        token: env.api_key.clone(),
    };
    for (name, value) in [("bench-sqs-key-id", KEY_ID), ("bench-sqs-secret", SECRET)] {
        api.call(
            Method::PUT,
            &format!("/v1/secrets/{name}"),
            Some(json!({ "value": value })),
        )
        .await?;
    }
    let d = destination(
        moto.port,
        "relay-bench",
        SecretRef::Secret("bench-sqs-key-id".into()),
        SecretRef::Secret("bench-sqs-secret".into()),
    );
    broker::subscribe(&mut api, "sqs", &Config::Sqs(d), concurrency).await?;
    let phase = env.tracker.begin(events);
    let cpu0 = Cpu::now();
    let published = publish(
        &env,
        &phase,
        "bench.published",
        data,
        args.concurrency,
        None,
    )
    .await?;
    let deadline = Instant::now() + Duration::from_secs(args.timeout_seconds);
    let mut relay_stored = 0;
    while relay_stored < events && Instant::now() < deadline {
        relay_stored = stored(&relay_queue).await?;
        if relay_stored < events {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let relay_s = published.started.elapsed().as_secs_f64();
    let relay_cpu = cpu0.relay_since(&Cpu::now());
    let backend = env.backend;
    env.finish().await;

    // The kind's client alone, `concurrency` sends at a time.
    let messages = Arc::new(broker::raw_messages(events, data)?);
    let next = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let (client, messages, next, failures) = (
            raw_queue.clone(),
            messages.clone(),
            next.clone(),
            failures.clone(),
        );
        workers.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(m) = messages.get(i) else { break };
                let sent = client.send(m, Limits::default()).await;
                if relay_destinations::Delivery::Sqs(sent).classify(Timestamp::from_millis(0))
                    != relay_core::outcome::Verdict::Delivered
                {
                    failures.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    while workers.join_next().await.is_some() {}
    let raw_s = started.elapsed().as_secs_f64();
    let raw_failures = failures.load(Ordering::Relaxed);
    let raw_stored = stored(&raw_queue).await?;
    drop(moto);

    let relay_rate = relay_stored as f64 / relay_s.max(1e-9);
    let raw_rate = (events - raw_failures) as f64 / raw_s.max(1e-9);
    let ratio = relay_rate / raw_rate.max(1e-9);
    let complete = relay_stored == events && raw_failures == 0 && raw_stored == events;
    let ack = "SendMessage MessageId, MD5s checked";

    let mut m = common_json(args, backend);
    m.insert("broker".into(), json!("sqs"));
    m.insert("ack".into(), json!(ack));
    m.insert("events".into(), json!(events));
    m.insert("endpoint_concurrency".into(), json!(concurrency));
    m.insert("publish_errors".into(), json!(published.errors));
    m.insert("relay_stored".into(), json!(relay_stored));
    m.insert("relay_seconds".into(), json!(round(relay_s)));
    m.insert("relay_deliveries_per_s".into(), json!(round(relay_rate)));
    m.insert("relay_cpu_s".into(), json!(round(relay_cpu)));
    m.insert("raw_failures".into(), json!(raw_failures));
    m.insert("raw_seconds".into(), json!(round(raw_s)));
    m.insert("raw_publishes_per_s".into(), json!(round(raw_rate)));
    m.insert("raw_stored".into(), json!(raw_stored));
    m.insert("ratio".into(), json!(round(ratio)));
    m.insert("complete".into(), json!(complete));
    let rows = vec![
        row(
            "events",
            events.to_string(),
            format!("{concurrency} in flight"),
        ),
        row(
            "relay deliveries/s",
            format!("{relay_rate:.0}"),
            format!("{relay_stored} in the queue in {relay_s:.2} s (publish → {ack})"),
        ),
        row(
            "raw client sends/s",
            format!("{raw_rate:.0}"),
            format!(
                "{raw_failures} failed, {raw_stored} in the queue, {raw_s:.2} s (the kind's client alone)"
            ),
        ),
        row(
            "ratio",
            format!("{:.0} %", ratio * 100.0),
            "relay deliveries/s ÷ raw",
        ),
        row("relay cpu", format!("{relay_cpu:.2} s"), ""),
    ];
    Ok(Report {
        title: format!(
            "relay bench sqs: {events} events to one sqs endpoint (moto) vs the raw client ({backend})"
        ),
        third: "note",
        rows,
        json: Value::Object(m),
    })
}
