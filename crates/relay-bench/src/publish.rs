//! The publisher: events over keep-alive connections to the public API.

use super::*;

/// The `data` of every event: a JSON object of about `bytes` bytes.
pub(crate) fn payload(bytes: usize) -> String {
    let pad = bytes.saturating_sub(12).max(1);
    format!("{{\"pad\":\"{}\"}}", "x".repeat(pad))
}

/// Publishes `phase.sends.len()` events of `event_type` over `concurrency`
/// keep-alive connections, as fast as possible or at `rate` per second.
pub(crate) async fn publish(
    env: &Env,
    phase: &Arc<Phase>,
    event_type: &'static str,
    data: &Arc<str>,
    concurrency: usize,
    rate: Option<f64>,
) -> anyhow::Result<Published> {
    let total = phase.sends.len();
    let next = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for c in 0..concurrency.max(1) {
        // Spread over the nodes' APIs (`--nodes`).
        let mut conn = Conn::plain(env.api_addrs[c % env.api_addrs.len()]).await?;
        let auth = format!("Bearer {}", env.api_key);
        let (phase, next, errors, data) =
            (phase.clone(), next.clone(), errors.clone(), data.clone());
        workers.spawn(async move {
            let mut api_micros = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                if i >= total {
                    break;
                }
                if let Some(rate) = rate {
                    let due = started + Duration::from_secs_f64(i as f64 / rate);
                    tokio::time::sleep_until(due.into()).await;
                }
                let body = format!(
                    "{{\"id\":\"{}{i}\",\"type\":\"{event_type}\",\"data\":{data}}}",
                    phase.prefix
                );
                let sent = Instant::now();
                phase.sent(i, sent);
                let result = conn
                    .send(
                        Method::POST,
                        "/v1/events",
                        &[
                            ("authorization", &auth),
                            ("content-type", "application/json"),
                        ],
                        Bytes::from(body),
                    )
                    .await;
                api_micros.push(micros(sent.elapsed()));
                match result {
                    Ok((status, _)) if status.as_u16() == 202 => {}
                    Ok((status, answer)) => {
                        phase.failed.fetch_add(1, Ordering::Release);
                        if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                            eprintln!(
                                "publish failed: {status}: {}",
                                String::from_utf8_lossy(&answer)
                            );
                        }
                    }
                    Err(e) => {
                        phase.failed.fetch_add(1, Ordering::Release);
                        if errors.fetch_add(1, Ordering::Relaxed) < 3 {
                            eprintln!("publish failed: {e:#}");
                        }
                        match Conn::plain(conn.addr()).await {
                            Ok(c) => conn = c,
                            Err(_) => break,
                        }
                    }
                }
            }
            api_micros
        });
    }
    let mut all = Vec::with_capacity(total);
    while let Some(done) = workers.join_next().await {
        all.extend(done?);
    }
    Ok(Published {
        started,
        finished: Instant::now(),
        errors: errors.load(Ordering::Relaxed),
        api: Percentiles::of(all),
    })
}
