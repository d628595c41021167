use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex as StdMutex};
use std::time::Duration;

use crate::mqtt::MqttVersion;

use super::*;
use crate::{mqtt, nats_jetstream, rabbitmq, redis_stream};

/// A fake connection: its number (the order it was opened in) and whether
/// it still works.
struct Fake {
    n: usize,
    live: Arc<AtomicBool>,
    shared: bool,
}

impl Link for Fake {
    fn share(&self) -> Option<Fake> {
        self.shared.then(|| Fake {
            n: self.n,
            live: Arc::clone(&self.live),
            shared: true,
        })
    }
    fn is_live(&self) -> bool {
        self.live.load(Ordering::SeqCst)
    }
    fn retire(&self) {
        self.live.store(false, Ordering::SeqCst);
    }
}

#[derive(Debug, PartialEq)]
enum Got {
    /// The exchange's answer: on which connection.
    On(usize),
    Failed(ErrorKind),
}

impl Outcome for Got {
    fn failed(kind: ErrorKind, _text: String, _addr: Option<SocketAddr>) -> Got {
        Got::Failed(kind)
    }
    fn failure(&self) -> Option<ErrorKind> {
        match self {
            Got::Failed(k) => Some(*k),
            Got::On(_) => None,
        }
    }
}

/// Opens numbered fakes; each run answers with the next scripted failure
/// (then with its connection's number).
struct Script {
    shared: bool,
    opened: AtomicUsize,
    fail_open: AtomicBool,
    failures: StdMutex<Vec<ErrorKind>>,
    runs: StdMutex<Vec<usize>>,
    open_delay: Duration,
}

impl Script {
    fn new(shared: bool) -> Script {
        Script {
            shared,
            opened: AtomicUsize::new(0),
            fail_open: AtomicBool::new(false),
            failures: StdMutex::new(Vec::new()),
            runs: StdMutex::new(Vec::new()),
            open_delay: Duration::ZERO,
        }
    }
    fn fail_next(&self, kind: ErrorKind) {
        self.failures.lock().unwrap().push(kind);
    }
    fn runs(&self) -> Vec<usize> {
        self.runs.lock().unwrap().clone()
    }
}

impl Exchange for Script {
    type Conn = Fake;
    type Result = Got;

    async fn open(&self) -> Result<Fake, Got> {
        tokio::time::sleep(self.open_delay).await;
        if self.fail_open.load(Ordering::SeqCst) {
            return Err(Got::Failed(ErrorKind::Connect));
        }
        Ok(Fake {
            n: self.opened.fetch_add(1, Ordering::SeqCst) + 1,
            live: Arc::new(AtomicBool::new(true)),
            shared: self.shared,
        })
    }

    async fn run(&self, conn: &mut Fake) -> Got {
        self.runs.lock().unwrap().push(conn.n);
        match self.failures.lock().unwrap().pop() {
            Some(kind) => Got::Failed(kind),
            None => Got::On(conn.n),
        }
    }
}

fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

#[tokio::test]
async fn an_exclusive_connection_is_reused_and_a_failed_one_is_not_kept() {
    let kept = Kept::exclusive(16);
    let s = Script::new(false);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(1));
    assert_eq!(kept.with(deadline(), &s).await, Got::On(1));
    assert_eq!(kept.kept().await, 1);
    // A timeout on the kept one: no second try, and the connection goes.
    s.fail_next(ErrorKind::Timeout);
    assert_eq!(
        kept.with(deadline(), &s).await,
        Got::Failed(ErrorKind::Timeout)
    );
    assert_eq!(kept.kept().await, 0);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(2));
    assert_eq!(s.runs(), vec![1, 1, 1, 2]);
}

#[tokio::test]
async fn a_reused_connection_that_broke_is_tried_once_more_on_a_fresh_one() {
    let kept = Kept::exclusive(16);
    let s = Script::new(false);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(1));
    s.fail_next(ErrorKind::Protocol);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(2));
    assert_eq!(s.runs(), vec![1, 1, 2]);
    // Only once: the fresh one failing too is the result.
    s.fail_next(ErrorKind::Protocol);
    s.fail_next(ErrorKind::Protocol);
    assert_eq!(
        kept.with(deadline(), &s).await,
        Got::Failed(ErrorKind::Protocol)
    );
    assert_eq!(s.runs(), vec![1, 1, 2, 2, 3]);
    assert_eq!(kept.kept().await, 0);
}

#[tokio::test]
async fn a_fresh_connection_that_broke_is_not_tried_again() {
    let kept = Kept::exclusive(16);
    let s = Script::new(false);
    s.fail_next(ErrorKind::Protocol);
    assert_eq!(
        kept.with(deadline(), &s).await,
        Got::Failed(ErrorKind::Protocol)
    );
    assert_eq!(s.runs(), vec![1]);
}

#[tokio::test]
async fn a_failed_open_is_the_result() {
    let kept = Kept::<Fake>::exclusive(16);
    let s = Script::new(false);
    s.fail_open.store(true, Ordering::SeqCst);
    assert_eq!(
        kept.with(deadline(), &s).await,
        Got::Failed(ErrorKind::Connect)
    );
    assert!(s.runs().is_empty());
}

#[tokio::test]
async fn no_more_than_max_idle_are_kept() {
    let kept = Arc::new(Kept::exclusive(2));
    let s = Arc::new(Script {
        open_delay: Duration::from_millis(20),
        ..Script::new(false)
    });
    let attempts: Vec<_> = (0..4)
        .map(|_| {
            let (kept, s) = (Arc::clone(&kept), Arc::clone(&s));
            tokio::spawn(async move { kept.with(deadline(), &*s).await })
        })
        .collect();
    for a in attempts {
        assert!(matches!(a.await.unwrap(), Got::On(_)));
    }
    assert_eq!(s.opened.load(Ordering::SeqCst), 4);
    assert_eq!(kept.kept().await, 2);
}

#[tokio::test]
async fn concurrent_attempts_share_one_connection() {
    let kept = Arc::new(Kept::shared());
    let s = Arc::new(Script {
        open_delay: Duration::from_millis(20),
        ..Script::new(true)
    });
    let attempts: Vec<_> = (0..4)
        .map(|_| {
            let (kept, s) = (Arc::clone(&kept), Arc::clone(&s));
            tokio::spawn(async move { kept.with(deadline(), &*s).await })
        })
        .collect();
    for a in attempts {
        assert_eq!(a.await.unwrap(), Got::On(1));
    }
    assert_eq!(s.opened.load(Ordering::SeqCst), 1);
    assert_eq!(kept.kept().await, 1);
    // A failure that leaves the connection live keeps it.
    s.fail_next(ErrorKind::Timeout);
    assert_eq!(
        kept.with(deadline(), &*s).await,
        Got::Failed(ErrorKind::Timeout)
    );
    assert_eq!(kept.with(deadline(), &*s).await, Got::On(1));
}

#[tokio::test]
async fn a_shared_connection_that_broke_is_retired_and_replaced() {
    let kept = Kept::shared();
    let s = Script::new(true);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(1));
    s.fail_next(ErrorKind::Protocol);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(2));
    assert_eq!(s.runs(), vec![1, 1, 2]);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(2));
    assert_eq!(kept.kept().await, 1);
}

#[tokio::test]
async fn a_dead_shared_connection_is_replaced_without_a_second_try() {
    let kept = Kept::shared();
    let s = Script::new(true);
    assert_eq!(kept.with(deadline(), &s).await, Got::On(1));
    // The reader saw it close between attempts.
    kept.idle.lock().await[0].retire();
    assert_eq!(kept.with(deadline(), &s).await, Got::On(2));
    assert_eq!(s.runs(), vec![1, 2]);
}

#[tokio::test]
async fn waiting_for_the_kept_connection_ends_at_the_deadline() {
    let kept = Arc::new(Kept::shared());
    let slow = Arc::new(Script {
        open_delay: Duration::from_secs(2),
        ..Script::new(true)
    });
    let first = {
        let (kept, slow) = (Arc::clone(&kept), Arc::clone(&slow));
        tokio::spawn(async move { kept.with(deadline(), &*slow).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    let s = Script::new(true);
    let soon = Instant::now() + Duration::from_millis(50);
    assert_eq!(kept.with(soon, &s).await, Got::Failed(ErrorKind::Timeout));
    assert!(s.runs().is_empty());
    assert_eq!(first.await.unwrap(), Got::On(1));
}

/// The retry rule of every broker kind, as a table: for each kind's
/// `Failed` of every transport kind, and for an answer of each, whether a
/// reused connection's result is tried once more on a fresh one.
#[test]
fn which_failures_a_fresh_connection_may_fix() {
    let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
    fn rule<R: Outcome>(answers: Vec<R>) -> Vec<bool> {
        let mut fixes: Vec<bool> = ErrorKind::ALL
            .into_iter()
            .map(|k| failed::<R>(k, "x", None).fresh_may_fix())
            .collect();
        fixes.extend(answers.iter().map(Outcome::fresh_may_fix));
        fixes
    }
    let only_protocol: Vec<bool> = ErrorKind::ALL
        .into_iter()
        .map(|k| k == ErrorKind::Protocol)
        .collect();
    let expect = |answers: usize| {
        let mut v = only_protocol.clone();
        v.extend(std::iter::repeat_n(false, answers));
        v
    };
    assert_eq!(
        rule(vec![
            redis_stream::Result::Refused {
                line: "LOADING".into(),
                addr,
            },
            redis_stream::Result::Unconfirmed {
                id: "1-0".into(),
                local: 0,
                replicas: 0,
                addr,
            },
        ]),
        expect(2),
        "redis_stream"
    );
    assert_eq!(
        rule(vec![nats_jetstream::Result::Refused {
            subject: "s".into(),
            refusal: nats_jetstream::Refusal::Status(503),
            addr: Some(addr),
        }]),
        expect(1),
        "nats_jetstream"
    );
    assert_eq!(
        rule(vec![
            rabbitmq::Result::Closed {
                code: 320,
                text: "CONNECTION_FORCED".into(),
                addr,
            },
            rabbitmq::Result::Unaddressable {
                reason: "long".into(),
            },
        ]),
        expect(2),
        "rabbitmq"
    );
    assert_eq!(
        rule(vec![mqtt::Result::Refused {
            topic: "t".into(),
            refusal: mqtt::Refusal::ConnAck {
                version: MqttVersion::V5,
                code: 0x87,
                reason: None,
            },
            addr: Some(addr),
        }]),
        expect(1),
        "mqtt"
    );
}

/// Which results leave an exclusive connection kept: Redis keeps it after
/// any answer (an error reply leaves the connection sound); AMQP only after
/// a confirm (a close ends the channel).
#[test]
fn which_results_keep_an_exclusive_connection() {
    let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
    let redis = [
        (
            redis_stream::Result::Added {
                id: "1-0".into(),
                addr,
                aof: None,
            },
            true,
        ),
        (
            redis_stream::Result::Refused {
                line: "WRONGTYPE".into(),
                addr,
            },
            true,
        ),
        (failed(ErrorKind::Protocol, "x", Some(addr)), false),
        (failed(ErrorKind::Timeout, "x", Some(addr)), false),
    ];
    for (r, keeps) in redis {
        assert_eq!(r.keeps_connection(), keeps, "{r:?}");
    }
    let amqp = [
        (
            rabbitmq::Result::Confirmed {
                confirm: rabbitmq::conn::Confirm::Nack { tag: 1 },
                routing_key: "k".into(),
                addr,
            },
            true,
        ),
        (
            rabbitmq::Result::Closed {
                code: 404,
                text: "NOT_FOUND".into(),
                addr,
            },
            false,
        ),
        (failed(ErrorKind::Protocol, "x", Some(addr)), false),
    ];
    for (r, keeps) in amqp {
        assert_eq!(r.keeps_connection(), keeps, "{r:?}");
    }
}
