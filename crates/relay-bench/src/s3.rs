//! The `s3` workload: E events delivered to one `s3` endpoint with the
//! default batch (500 events, 4 MiB, 10 s: E a multiple of 500 fills every
//! batch) into a private moto server (`--moto-server`, PyPI `moto[server]`,
//! the test environment's by default) on 127.0.0.1 over TLS with a CA of
//! the run's own, beside the kind's client alone writing the same number
//! of objects of the same size (E / 500 objects of 500 CloudEvents lines,
//! signed, `endpoint_concurrency` writes at a time), in one run.
//!
//! Relay's rate is from the first publish to the moment the bucket lists
//! every object of Relay's prefix (listed every 50 ms); the lines of those
//! objects are counted afterwards (`relay_stored`). The raw rate is from
//! the first write to the last acknowledgement. Both as events/s and
//! objects/s; `ratio` is Relay's events/s over the raw client's.

use relay_core::secret::SecretRef;
use relay_destinations::Config;
use relay_destinations::s3;
use relay_destinations::s3::{S3Addressing, S3Batch, S3Compression, S3Destination};
use relay_destinations::{Client, Delivery};
use relay_net::{HttpsClient, Limits, Method};

use super::moto::{self, KEY_ID, Moto, SECRET};
use super::*;

const BUCKET: &str = "relay-bench";

fn destination(port: u16, prefix: &str, key_id: SecretRef, secret: SecretRef) -> S3Destination {
    S3Destination {
        bucket: BUCKET.into(),
        prefix: prefix.into(),
        region: "us-east-1".into(),
        endpoint_url: Some(format!("https://127.0.0.1:{port}")),
        addressing: S3Addressing::Path,
        access_key_id: key_id,
        secret_access_key: secret,
        session_token: None,
        batch: S3Batch::default(),
        compression: S3Compression::None,
    }
}

/// The bench's own guarded client of moto (trusting the run's CA) and the
/// kind's client built on it.
fn clients(moto: &Moto) -> anyhow::Result<(HttpsClient, s3::Client)> {
    let https = moto.shared()?.https;
    let d = destination(moto.port, "raw/", moto::key_id_ref(), moto::secret_ref());
    let Client::S3(client) = moto.client(Config::S3(d))? else {
        anyhow::bail!("an s3 destination builds an s3 client");
    };
    Ok((https, client))
}

/// Makes the bucket once moto answers (within 30 s).
async fn create_bucket(client: &s3::Client) -> anyhow::Result<()> {
    let r = moto::when_up("answer", || async move {
        client
            .create_bucket(Limits::default())
            .await
            .map_err(|e| anyhow::anyhow!("{e:?}"))
    })
    .await?;
    anyhow::ensure!(
        r.status.is_success(),
        "moto refused the bucket: {}",
        r.status
    );
    Ok(())
}

/// A `GET` of the bucket's `path` with `query`, signed (SigV4, the kind's
/// own signing code) with the run's credentials.
async fn get(
    https: &HttpsClient,
    port: u16,
    path: &str,
    query: &[(&str, &str)],
) -> anyhow::Result<Bytes> {
    let path = format!("/{BUCKET}{path}");
    let mut url = format!(
        "https://127.0.0.1:{port}{}",
        s3::sigv4::uri_encode(&path, true)
    );
    for (i, (k, v)) in query.iter().enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        url.push_str(&format!("{k}={}", s3::sigv4::uri_encode(v, false)));
    }
    let url = https.guard().parse_url(&url)?;
    let host = url.host_header();
    let now = Timestamp::from_millis(i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis(),
    )?);
    let amz_date = s3::sigv4::amz_date(now);
    // SHA-256 of the empty body.
    let empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    let headers = [
        ("host", host.as_str()),
        ("x-amz-content-sha256", empty),
        ("x-amz-date", amz_date.as_str()),
    ];
    let signed = s3::sigv4::sign(
        &s3::sigv4::Request {
            method: "GET",
            path: &path,
            query,
            headers: &headers,
            payload_sha256: empty,
        },
        &s3::sigv4::Credentials {
            access_key_id: KEY_ID,
            secret_access_key: SECRET.as_bytes(),
        },
        &amz_date,
        "us-east-1",
        s3::SERVICE,
    );
    let mut sent = Vec::new();
    for (name, value) in headers.iter().skip(1) {
        sent.push((
            relay_net::HeaderName::from_static(name),
            relay_net::HeaderValue::from_str(value)?,
        ));
    }
    sent.push((
        relay_net::HeaderName::from_static("authorization"),
        relay_net::HeaderValue::from_str(&signed.authorization)?,
    ));
    let limits = Limits {
        max_response_body: 64 << 20,
        ..Limits::default()
    };
    let r = https
        .send(Method::GET, &url, sent, Bytes::new(), limits)
        .await
        .map_err(|e| anyhow::anyhow!("GET {path}: {e}"))?;
    anyhow::ensure!(r.status.is_success(), "GET {path}: {}", r.status);
    Ok(r.body_prefix)
}

/// The keys under `prefix` (at most 1000: one listing page).
async fn keys(https: &HttpsClient, port: u16, prefix: &str) -> anyhow::Result<Vec<String>> {
    let body = get(https, port, "", &[("list-type", "2"), ("prefix", prefix)]).await?;
    let text = String::from_utf8_lossy(&body);
    Ok(text
        .split("<Key>")
        .skip(1)
        .filter_map(|s| s.split_once("</Key>").map(|(k, _)| k.to_string()))
        .collect())
}

/// The lines of every object under `prefix`.
async fn lines(https: &HttpsClient, port: u16, prefix: &str) -> anyhow::Result<u64> {
    let mut n = 0;
    for key in keys(https, port, prefix).await? {
        let body = get(https, port, &format!("/{key}"), &[]).await?;
        n += body.iter().filter(|b| **b == b'\n').count() as u64;
    }
    Ok(n)
}

pub(crate) async fn s3(args: &BenchArgs, relay: Host, data: &Arc<str>) -> anyhow::Result<Report> {
    let events = args.events.unwrap_or(10_000);
    let concurrency = args.endpoint_concurrency.unwrap_or(10);
    let per_object = u64::from(S3Batch::default().max_events);
    let objects = events.div_ceil(per_object);
    let moto = moto::start(&args.moto_server)?;
    let (https, raw_client) = clients(&moto)?;
    create_bucket(&raw_client).await?;

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
    for (name, value) in moto::tenant_secrets() {
        api.call(
            Method::PUT,
            &format!("/v1/secrets/{name}"),
            Some(json!({ "value": value })),
        )
        .await?;
    }
    let d = destination(moto.port, "relay/", moto::key_id_ref(), moto::secret_ref());
    broker::subscribe(&mut api, "s3", &Config::S3(d), concurrency).await?;
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
    let mut written = 0;
    while written < objects && Instant::now() < deadline {
        written = keys(&https, moto.port, "relay/").await?.len() as u64;
        if written < objects {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    let relay_s = published.started.elapsed().as_secs_f64();
    let relay_cpu = cpu0.relay_since(&Cpu::now());
    let backend = env.backend;
    env.finish().await;
    let stored = lines(&https, moto.port, "relay/").await?;

    // The kind's client alone: the same objects, `concurrency` at a time.
    let messages = broker::raw_messages(events, data)?;
    let key = SigningKey::generate(SignatureScheme::V1, random_bytes::<32>());
    let now = Timestamp::from_millis(i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_millis(),
    )?);
    let batches: Vec<(String, s3::batch::Sealed)> = messages
        .chunks(per_object as usize)
        .enumerate()
        .map(|(i, chunk)| {
            let id = format!("bat_raw{i:06}");
            let object = s3::batch::lines(chunk.iter().map(|m| &m.body[..]));
            let sealed = s3::batch::seal(&id, now, object.into(), std::slice::from_ref(&key));
            let name = s3::config::object_key("raw/", &id, &now.to_rfc3339(), S3Compression::None);
            (name, sealed)
        })
        .collect();
    let batches = Arc::new(batches);
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let failures = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let (client, batches, next, failures) = (
            raw_client.clone(),
            batches.clone(),
            next.clone(),
            failures.clone(),
        );
        workers.spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((name, sealed)) = batches.get(i) else {
                    break;
                };
                let written = client
                    .write(
                        &s3::Object {
                            key: name,
                            bytes: sealed.object.clone(),
                            content_type: "application/x-ndjson",
                            batch_id: &sealed.batch_id,
                            webhook_timestamp: &sealed.webhook_timestamp,
                            webhook_signature: &sealed.webhook_signature,
                        },
                        Limits::default(),
                    )
                    .await;
                if Delivery::S3(written).classify(Timestamp::from_millis(0))
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
    let raw_stored = lines(&https, moto.port, "raw/").await?;
    drop(moto);

    let relay_events = stored as f64 / relay_s.max(1e-9);
    let relay_objects = written as f64 / relay_s.max(1e-9);
    let raw_events = raw_stored as f64 / raw_s.max(1e-9);
    let raw_objects = (objects - raw_failures) as f64 / raw_s.max(1e-9);
    let ratio = relay_events / raw_events.max(1e-9);
    let complete = stored == events && written == objects && raw_stored == events;

    let mut m = common_json(args, backend);
    m.insert("events".into(), json!(events));
    m.insert("events_per_object".into(), json!(per_object));
    m.insert("objects".into(), json!(objects));
    m.insert("endpoint_concurrency".into(), json!(concurrency));
    m.insert("publish_errors".into(), json!(published.errors));
    m.insert("relay_objects".into(), json!(written));
    m.insert("relay_stored".into(), json!(stored));
    m.insert("relay_seconds".into(), json!(round(relay_s)));
    m.insert("relay_events_per_s".into(), json!(round(relay_events)));
    m.insert("relay_objects_per_s".into(), json!(round(relay_objects)));
    m.insert("relay_cpu_s".into(), json!(round(relay_cpu)));
    m.insert("raw_failures".into(), json!(raw_failures));
    m.insert("raw_seconds".into(), json!(round(raw_s)));
    m.insert("raw_events_per_s".into(), json!(round(raw_events)));
    m.insert("raw_objects_per_s".into(), json!(round(raw_objects)));
    m.insert("raw_stored".into(), json!(raw_stored));
    m.insert("ratio".into(), json!(round(ratio)));
    m.insert("complete".into(), json!(complete));
    let rows = vec![
        row(
            "events",
            events.to_string(),
            format!("{objects} objects of {per_object} (the default batch)"),
        ),
        row(
            "relay events/s",
            format!("{relay_events:.0}"),
            format!("{stored} lines in {written} objects, {relay_s:.2} s (publish → listed)"),
        ),
        row("relay objects/s", format!("{relay_objects:.1}"), ""),
        row(
            "raw client events/s",
            format!("{raw_events:.0}"),
            format!(
                "{raw_failures} failed, {raw_stored} lines, {raw_s:.2} s ({concurrency} writes at a time)"
            ),
        ),
        row("raw client objects/s", format!("{raw_objects:.1}"), ""),
        row(
            "ratio",
            format!("{:.0} %", ratio * 100.0),
            "relay events/s ÷ raw",
        ),
        row("relay cpu", format!("{relay_cpu:.2} s"), ""),
    ];
    Ok(Report {
        title: format!(
            "relay bench s3: {events} events to one s3 endpoint (moto) vs the raw client ({backend})"
        ),
        third: "note",
        rows,
        json: Value::Object(m),
    })
}
