//! The `sns` workload, a [`Broker`] of the broker workload: E events
//! delivered to one `sns` endpoint (a standard topic) of a private moto
//! server (`--moto-server`, [`crate::moto`]), beside the kind's client
//! alone publishing as many messages with the same acknowledgement
//! (`Publish`'s `MessageId`; SNS answers no digest) and the same
//! concurrency to a second topic, in one run. Each topic has an SQS queue
//! subscribed (raw message delivery): a side's count is its queue's
//! (`GetQueueAttributes`, polled every 20 ms), so a message counts once SNS
//! has handed it on.

use relay_core::model::ContentMode;
use relay_destinations::sns::{self, SnsDestination};
use relay_destinations::{Client, Config};
use relay_net::Limits;

use super::broker::{Broker, Side};
use super::moto::{self, Moto};
use super::sqs as sqs_bench;

/// moto's account.
const ACCOUNT: &str = "123456789012";

fn topic_arn(name: &str) -> String {
    format!("arn:aws:sns:us-east-1:{ACCOUNT}:{name}")
}

fn destination(port: u16, topic: &str) -> SnsDestination {
    SnsDestination {
        topic_arn: topic_arn(topic),
        endpoint_url: Some(format!("https://127.0.0.1:{port}")),
        credentials: moto::credentials(),
        content_mode: ContentMode::Structured,
        max_message_bytes: 256 * 1024,
    }
}

/// The topic and the queue each side's messages go through (one name).
const fn name(side: Side) -> &'static str {
    match side {
        Side::Relay => "relay-bench",
        Side::Raw => "raw-bench",
    }
}

/// One query-protocol action of the run's own (`CreateTopic`,
/// `Subscribe`), signed by the kind's client: `params` are form pairs of
/// safe characters (`:` is encoded).
async fn action(client: &sns::Client, params: &[(&str, &str)]) -> anyhow::Result<()> {
    let form: Vec<String> = params
        .iter()
        .chain(&[("Version", sns::wire::VERSION)])
        .map(|(k, v)| format!("{k}={}", v.replace(':', "%3A")))
        .collect();
    let r = client
        .post(
            form.join("&").into_bytes(),
            relay_destinations::aws::now(),
            Limits::default(),
        )
        .await
        .map_err(|e| anyhow::anyhow!("{params:?}: {e:?}"))?;
    anyhow::ensure!(r.status.is_success(), "{params:?}: {}", r.status);
    Ok(())
}

/// Makes `side`'s topic and queue, the queue subscribed with raw message
/// delivery; the topic's client and the queue's.
async fn make_side(moto: &Moto, side: Side) -> anyhow::Result<(sns::Client, sqs_bench::Queue)> {
    let Client::Sns(topic) = moto.client(Config::Sns(destination(moto.port, name(side))))? else {
        anyhow::bail!("an sns destination builds an sns client");
    };
    let queue = sqs_bench::client(moto, name(side))?;
    let queue_arn = sqs_bench::create_queue(&queue).await?;
    let create = [("Action", "CreateTopic"), ("Name", name(side))];
    moto::when_up("make the topic", || action(&topic, &create)).await?;
    action(
        &topic,
        &[
            ("Action", "Subscribe"),
            ("TopicArn", &topic_arn(name(side))),
            ("Protocol", "sqs"),
            ("Endpoint", &queue_arn),
            ("Attributes.entry.1.key", "RawMessageDelivery"),
            ("Attributes.entry.1.value", "true"),
        ],
    )
    .await?;
    Ok((topic, queue))
}

pub(crate) struct Sns {
    moto: Moto,
    relay: sqs_bench::Queue,
    raw: sqs_bench::Queue,
}

/// The run's moto server with its two topics and queues made.
pub(crate) async fn sns(program: &std::path::Path) -> anyhow::Result<Sns> {
    let moto = moto::start(program)?;
    let (_, relay) = make_side(&moto, Side::Relay).await?;
    let (_, raw) = make_side(&moto, Side::Raw).await?;
    Ok(Sns { moto, relay, raw })
}

impl Broker for Sns {
    fn name(&self) -> &'static str {
        "sns"
    }

    fn ack(&self) -> &'static str {
        "Publish MessageId (SNS answers no digest)"
    }

    fn port(&self) -> u16 {
        self.moto.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::Sns(destination(self.moto.port, name(side)))
    }

    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        sqs_bench::stored(match side {
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
