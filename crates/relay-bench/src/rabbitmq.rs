//! `rabbitmq`: the broker workload ([`super::broker`]) against the RabbitMQ
//! broker on `127.0.0.1:--rabbitmq-port` (`guest`/`guest`), success on the
//! publisher confirm of a persistent, mandatory publish. The run declares a
//! durable direct exchange and one durable queue per side (bound with the
//! side's name as routing key), counted with a passive `queue.declare` and
//! deleted after the run. The bench's own AMQP connection is the kind's
//! client (`relay_destinations::rabbitmq::conn`) over a loopback stream
//! from `relay-net`.

use relay_core::model::ContentMode;
use relay_destinations::Config;
use relay_destinations::rabbitmq::RabbitMqDestination;
use relay_destinations::rabbitmq::conn::{Connection, Login};
use relay_destinations::rabbitmq::wire::{Args, Table, id};

use super::broker::{Broker, Side};
use super::*;

fn soon() -> tokio::time::Instant {
    tokio::time::Instant::now() + Duration::from_secs(10)
}

/// The broker with the run's exchange and queues.
pub(crate) struct RabbitMq {
    admin: Connection,
    port: u16,
    tag: String,
}

impl RabbitMq {
    fn exchange(&self) -> String {
        format!("relay-bench-{}", self.tag)
    }

    fn queue(&self, side: Side) -> String {
        format!("relay-bench-{}-{}", self.tag, side.as_str())
    }

    async fn call(
        &mut self,
        what: &str,
        method: (u16, u16),
        args: Args,
        reply: (u16, u16),
    ) -> anyhow::Result<relay_destinations::rabbitmq::wire::Frame> {
        self.admin
            .call(method, args, reply, soon())
            .await
            .map_err(|e| anyhow::anyhow!("{what}: {e:?}"))
    }
}

/// Connects as `guest` and declares the run's exchange and queues.
pub(crate) async fn rabbitmq(port: u16) -> anyhow::Result<RabbitMq> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let tcp = relay_net::loopback::connect_loopback(addr)
        .await
        .with_context(|| format!("no RabbitMQ broker at 127.0.0.1:{port}"))?;
    let login = Login {
        username: "guest",
        password: b"guest",
        virtual_host: "/",
    };
    let admin = Connection::open(Box::new(tcp), addr, &login, soon())
        .await
        .map_err(|e| anyhow::anyhow!("cannot log in to RabbitMQ as guest: {e:?}"))?;
    let mut r = RabbitMq {
        admin,
        port,
        tag: hex::encode(random_bytes::<4>()),
    };
    let exchange = r.exchange();
    // exchange.declare: direct, durable.
    let args = Args::new()
        .short(0)
        .shortstr(exchange.as_bytes())
        .shortstr(b"direct")
        .bits(&[false, true, false, false, false])
        .table(&Table::new());
    r.call(
        "exchange.declare",
        id::EXCHANGE_DECLARE,
        args,
        id::EXCHANGE_DECLARE_OK,
    )
    .await?;
    for side in [Side::Relay, Side::Raw] {
        let queue = r.queue(side);
        let args = Args::new()
            .short(0)
            .shortstr(queue.as_bytes())
            .bits(&[false, true, false, false, false])
            .table(&Table::new());
        r.call(
            "queue.declare",
            id::QUEUE_DECLARE,
            args,
            id::QUEUE_DECLARE_OK,
        )
        .await?;
        let args = Args::new()
            .short(0)
            .shortstr(queue.as_bytes())
            .shortstr(exchange.as_bytes())
            .shortstr(side.as_str().as_bytes())
            .bits(&[false])
            .table(&Table::new());
        r.call("queue.bind", id::QUEUE_BIND, args, id::QUEUE_BIND_OK)
            .await?;
    }
    Ok(r)
}

impl Broker for RabbitMq {
    fn name(&self) -> &'static str {
        "rabbitmq"
    }

    fn ack(&self) -> &'static str {
        "publisher confirm"
    }

    fn port(&self) -> u16 {
        self.port
    }

    fn destination(&self, side: Side) -> Config {
        Config::RabbitMq(RabbitMqDestination {
            host: "127.0.0.1".into(),
            port: self.port,
            tls: false,
            virtual_host: "/".into(),
            exchange: self.exchange(),
            routing_key: side.as_str().into(),
            username: None,
            password: None,
            content_mode: ContentMode::Structured,
        })
    }

    async fn stored(&mut self, side: Side) -> anyhow::Result<u64> {
        let queue = self.queue(side);
        // A passive declare answers the queue's message count.
        let args = Args::new()
            .short(0)
            .shortstr(queue.as_bytes())
            .bits(&[true, false, false, false, false])
            .table(&Table::new());
        let frame = self
            .call(
                "queue.declare",
                id::QUEUE_DECLARE,
                args,
                id::QUEUE_DECLARE_OK,
            )
            .await?;
        let (_, mut r) = frame
            .method()
            .ok_or_else(|| anyhow::anyhow!("a malformed queue.declare-ok"))?;
        let count = (|| {
            r.shortstr()?;
            r.long()
        })()
        .map_err(|_| anyhow::anyhow!("a malformed queue.declare-ok"))?;
        Ok(u64::from(count))
    }

    async fn clean_up(&mut self) {
        for side in [Side::Relay, Side::Raw] {
            let queue = self.queue(side);
            let args = Args::new()
                .short(0)
                .shortstr(queue.as_bytes())
                .bits(&[false, false, false]);
            let _ = self
                .call("queue.delete", id::QUEUE_DELETE, args, id::QUEUE_DELETE_OK)
                .await;
        }
        let exchange = self.exchange();
        let args = Args::new()
            .short(0)
            .shortstr(exchange.as_bytes())
            .bits(&[false, false]);
        let _ = self
            .call(
                "exchange.delete",
                id::EXCHANGE_DELETE,
                args,
                id::EXCHANGE_DELETE_OK,
            )
            .await;
    }
}
