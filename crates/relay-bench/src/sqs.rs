//! The `sqs` workload, a [`Broker`] of the broker workload: E events
//! delivered to one `sqs` endpoint (a standard queue) of a private moto
//! server (`--moto-server`, [`crate::moto`]), beside the kind's client
//! alone sending as many messages with the same acknowledgement
//! (`SendMessage`'s `MessageId` with matching MD5 digests) and the same
//! concurrency to a second queue, in one run. A queue's count is
//! `GetQueueAttributes`' `ApproximateNumberOfMessages`, polled every 20 ms.

use relay_core::model::ContentMode;
use relay_destinations::sqs::{self, SqsDestination};
use relay_destinations::{Client, Config};
use relay_net::Limits;

use super::broker::{Broker, Side};

/// A queue's client (the kind's), which counts and makes it.
pub(crate) type Queue = sqs::Client;
use super::moto::{self, Moto};
use super::*;

fn destination(port: u16, queue: &str) -> SqsDestination {
    SqsDestination {
        queue_url: format!("https://127.0.0.1:{port}/123456789012/{queue}"),
        region: "us-east-1".into(),
        credentials: moto::credentials(),
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
    }
}

/// The kind's client of queue `queue`.
pub(crate) fn client(moto: &Moto, queue: &str) -> anyhow::Result<sqs::Client> {
    let Client::Sqs(client) = moto.client(Config::Sqs(destination(moto.port, queue)))? else {
        anyhow::bail!("an sqs destination builds an sqs client");
    };
    Ok(client)
}

/// One JSON-protocol action of the run's own (`CreateQueue`,
/// `GetQueueAttributes`), signed by the kind's client; its answer.
async fn action(client: &sqs::Client, action: &str, body: Value) -> anyhow::Result<Value> {
    let r = client
        .post(
            &format!("AmazonSQS.{action}"),
            body.to_string().into_bytes(),
            relay_destinations::aws::now(),
            Limits::default(),
        )
        .await
        .map_err(|e| anyhow::anyhow!("{action}: {e:?}"))?;
    anyhow::ensure!(r.status.is_success(), "{action}: {}", r.status);
    Ok(serde_json::from_slice(&r.body_prefix)?)
}

/// Makes the client's queue once moto answers; its ARN.
pub(crate) async fn create_queue(client: &sqs::Client) -> anyhow::Result<String> {
    let url = &client.config().queue_url;
    let name = url.rsplit('/').next().unwrap_or_default();
    moto::when_up("make the queue", || {
        action(client, "CreateQueue", json!({ "QueueName": name }))
    })
    .await?;
    let a = action(
        client,
        "GetQueueAttributes",
        json!({"QueueUrl": url, "AttributeNames": ["QueueArn"]}),
    )
    .await?;
    Ok(a["Attributes"]["QueueArn"]
        .as_str()
        .unwrap_or_default()
        .to_string())
}

/// How many messages the client's queue holds.
pub(crate) async fn stored(client: &sqs::Client) -> anyhow::Result<u64> {
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

/// The queue each side sends to.
const fn queue(side: Side) -> &'static str {
    match side {
        Side::Relay => "relay-bench",
        Side::Raw => "raw-bench",
    }
}

pub(crate) struct Sqs {
    moto: Moto,
    relay: sqs::Client,
    raw: sqs::Client,
}

/// The run's moto server with its two queues made.
pub(crate) async fn sqs(program: &std::path::Path) -> anyhow::Result<Sqs> {
    let moto = moto::start(program)?;
    let relay = client(&moto, queue(Side::Relay))?;
    let raw = client(&moto, queue(Side::Raw))?;
    create_queue(&relay).await?;
    create_queue(&raw).await?;
    Ok(Sqs { moto, relay, raw })
}

impl Broker for Sqs {
    fn name(&self) -> &'static str {
        "sqs"
    }

    fn ack(&self) -> &'static str {
        "SendMessage MessageId, MD5s checked"
    }

    fn port(&self) -> u16 {
        self.moto.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::Sqs(destination(self.moto.port, queue(side)))
    }

    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        stored(match side {
            Side::Relay => &self.relay,
            Side::Raw => &self.raw,
        })
        .await
    }

    /// The server ends with the run.
    async fn clean_up(&mut self) {}

    fn moto(&self) -> Option<&Moto> {
        Some(&self.moto)
    }
}
