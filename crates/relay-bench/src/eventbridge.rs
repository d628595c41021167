//! The `eventbridge` workload, a [`Broker`] of the broker workload: E
//! events delivered to one `eventbridge` endpoint (a bus) of a private moto
//! server (`--moto-server`, [`crate::moto`]), beside the kind's client
//! alone putting as many events with the same acknowledgement (the entry's
//! `EventId` in `PutEvents`' answer) and the same concurrency on a second
//! bus, in one run. Each bus has a rule routing the run's `Source` to an
//! SQS queue: a side's count is its queue's (`GetQueueAttributes`, polled
//! every 20 ms), so an event counts once EventBridge has routed it.

use relay_destinations::eventbridge::{self, EventBridgeDestination};
use relay_destinations::{Client, Config};
use relay_net::Limits;

use super::broker::{Broker, Side};
use super::moto::{self, Moto};
use super::sqs as sqs_bench;
use super::*;

/// The `Source` of every entry, which the rules match.
const SOURCE: &str = "relay.bench";

fn destination(port: u16, bus: &str) -> EventBridgeDestination {
    EventBridgeDestination {
        event_bus: bus.into(),
        region: "us-east-1".into(),
        endpoint_url: Some(format!("https://127.0.0.1:{port}")),
        source: SOURCE.into(),
        detail_type: None,
        credentials: moto::credentials(),
    }
}

/// The bus, its rule and the queue each side's events go through (one
/// name).
const fn name(side: Side) -> &'static str {
    match side {
        Side::Relay => "relay-bench",
        Side::Raw => "raw-bench",
    }
}

/// One JSON-protocol action of the run's own (`CreateEventBus`,
/// `PutRule`, `PutTargets`), signed by the kind's client.
async fn action(client: &eventbridge::Client, action: &str, body: Value) -> anyhow::Result<()> {
    let r = client
        .post(
            &format!("AWSEvents.{action}"),
            body.to_string().into_bytes(),
            relay_destinations::aws::now(),
            Limits::default(),
        )
        .await
        .map_err(|e| anyhow::anyhow!("{action}: {e:?}"))?;
    anyhow::ensure!(r.status.is_success(), "{action}: {}", r.status);
    Ok(())
}

/// Makes `side`'s bus, queue and rule (the run's `Source` to the queue);
/// the queue's client.
async fn make_side(moto: &Moto, side: Side) -> anyhow::Result<sqs_bench::Queue> {
    let config = Config::EventBridge(destination(moto.port, name(side)));
    let Client::EventBridge(bus) = moto.client(config)? else {
        anyhow::bail!("an eventbridge destination builds an eventbridge client");
    };
    let queue = sqs_bench::client(moto, name(side))?;
    let queue_arn = sqs_bench::create_queue(&queue).await?;
    let create = json!({ "Name": name(side) });
    moto::when_up("make the bus", || {
        action(&bus, "CreateEventBus", create.clone())
    })
    .await?;
    let rule = json!({
        "Name": name(side), "EventBusName": name(side),
        "EventPattern": json!({ "source": [SOURCE] }).to_string(),
    });
    action(&bus, "PutRule", rule).await?;
    let targets = json!({
        "Rule": name(side), "EventBusName": name(side),
        "Targets": [{ "Id": "queue", "Arn": queue_arn }],
    });
    action(&bus, "PutTargets", targets).await?;
    Ok(queue)
}

pub(crate) struct EventBridge {
    moto: Moto,
    relay: sqs_bench::Queue,
    raw: sqs_bench::Queue,
}

/// The run's moto server with its two buses, rules and queues made.
pub(crate) async fn eventbridge(program: &std::path::Path) -> anyhow::Result<EventBridge> {
    let moto = moto::start(program)?;
    let relay = make_side(&moto, Side::Relay).await?;
    let raw = make_side(&moto, Side::Raw).await?;
    Ok(EventBridge { moto, relay, raw })
}

impl Broker for EventBridge {
    fn name(&self) -> &'static str {
        "eventbridge"
    }

    fn ack(&self) -> &'static str {
        "PutEvents entry EventId"
    }

    fn port(&self) -> u16 {
        self.moto.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::EventBridge(destination(self.moto.port, name(side)))
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
