//! librdkafka's mock cluster: real Kafka brokers on loopback (the Kafka
//! protocol, any client reaches them), with fault injection, and a
//! consumer of the topic (librdkafka's consumer, through `rdkafka`).

use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka::bindings as rd;
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer as _};
use rdkafka::message::{Headers, Message};
use rdkafka::producer::{BaseProducer, Producer as _};
use rdkafka::{Offset, TopicPartitionList};

/// The Produce request's API key.
const PRODUCE: i16 = 0;

/// A mock cluster of `n` brokers (ids 1 to n) with one topic.
pub struct Cluster {
    mock: *mut rd::rd_kafka_mock_cluster_t,
    /// The client that owns the mock cluster (librdkafka's rule).
    _owner: BaseProducer,
    pub bootstrap: String,
    pub topic: String,
    pub partitions: i32,
}

// SAFETY: librdkafka's mock cluster API is thread-safe (each call is an
// operation handed to the cluster's own thread), and the pointer lives as
// long as the owning client, which this struct holds.
unsafe impl Send for Cluster {}
unsafe impl Sync for Cluster {}

impl Cluster {
    pub fn start(n: i32, topic: &str, partitions: i32) -> Cluster {
        let owner: BaseProducer = ClientConfig::new().create().expect("a client");
        // SAFETY: a live handle; the strings are NUL-terminated.
        unsafe {
            let mock = rd::rd_kafka_mock_cluster_new(owner.client().native_ptr(), n);
            assert!(!mock.is_null(), "the mock cluster started");
            let bootstrap = CStr::from_ptr(rd::rd_kafka_mock_cluster_bootstraps(mock))
                .to_string_lossy()
                .into_owned();
            let t = CString::new(topic).unwrap();
            let r = rd::rd_kafka_mock_topic_create(mock, t.as_ptr(), partitions, n.min(3));
            assert_eq!(r, rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR);
            Cluster {
                mock,
                _owner: owner,
                bootstrap,
                topic: topic.into(),
                partitions,
            }
        }
    }

    /// The brokers' ports, in id order.
    pub fn ports(&self) -> Vec<u16> {
        self.bootstrap
            .split(',')
            .map(|b| b.rsplit(':').next().unwrap().parse().unwrap())
            .collect()
    }

    /// Broker `id` down (-1: all): it drops its connections and refuses new ones.
    pub fn down(&self, id: i32) {
        // SAFETY: see the type.
        unsafe { rd::rd_kafka_mock_broker_set_down(self.mock, id) };
    }

    pub fn up(&self, id: i32) {
        // SAFETY: see the type.
        unsafe { rd::rd_kafka_mock_broker_set_up(self.mock, id) };
    }

    /// Every answer of broker `id` (-1: all) delayed by `rtt`.
    pub fn rtt(&self, id: i32, rtt: Duration) {
        // SAFETY: see the type.
        unsafe {
            rd::rd_kafka_mock_broker_set_rtt(self.mock, id, rtt.as_millis() as i32);
        }
    }

    /// The next `n` Produce requests (on any broker) fail with `error`.
    pub fn produce_errors(&self, error: rd::rd_kafka_resp_err_t, n: usize) {
        let errors = vec![error; n];
        // SAFETY: see the type; the array has `n` entries.
        unsafe {
            rd::rd_kafka_mock_clear_request_errors(self.mock, PRODUCE);
            if n > 0 {
                rd::rd_kafka_mock_push_request_errors_array(self.mock, PRODUCE, n, errors.as_ptr());
            }
        }
    }

    /// The next Produce requests (on any broker) fail with `errors`, one
    /// each, in order.
    pub fn push_produce_errors(&self, errors: &[rd::rd_kafka_resp_err_t]) {
        // SAFETY: see the type; the array has `errors.len()` entries.
        unsafe {
            rd::rd_kafka_mock_push_request_errors_array(
                self.mock,
                PRODUCE,
                errors.len(),
                errors.as_ptr(),
            );
        }
    }

    /// Broker `id` leads `partition` (-1: every partition) from now on.
    pub fn leader(&self, partition: i32, id: i32) {
        let t = CString::new(self.topic.clone()).unwrap();
        let partitions: Vec<i32> = if partition < 0 {
            (0..self.partitions).collect()
        } else {
            vec![partition]
        };
        for p in partitions {
            // SAFETY: see the type.
            unsafe { rd::rd_kafka_mock_partition_set_leader(self.mock, t.as_ptr(), p, id) };
        }
    }

    /// From now on the cluster keeps the requests it receives
    /// ([`Cluster::produce_requests`]), forgetting those before.
    pub fn track_requests(&self) {
        // SAFETY: see the type.
        unsafe {
            rd::rd_kafka_mock_start_request_tracking(self.mock);
            rd::rd_kafka_mock_clear_requests(self.mock);
        }
    }

    /// How many Produce requests the brokers received since
    /// [`Cluster::track_requests`].
    pub fn produce_requests(&self) -> usize {
        let mut n = 0usize;
        // SAFETY: see the type; the array of `n` requests is ours to
        // destroy once read.
        unsafe {
            let reqs = rd::rd_kafka_mock_get_requests(self.mock, &mut n);
            if reqs.is_null() {
                return 0;
            }
            let produce = std::slice::from_raw_parts(reqs, n)
                .iter()
                .filter(|r| rd::rd_kafka_mock_request_api_key(**r) == PRODUCE)
                .count();
            rd::rd_kafka_mock_request_destroy_array(reqs, n);
            produce
        }
    }

    /// The cluster's metadata advertises broker `id` at `host:port`.
    pub fn advertise(&self, id: i32, host: &str, port: u16) {
        let h = CString::new(host).unwrap();
        // SAFETY: see the type.
        unsafe { rd::rd_kafka_mock_broker_set_host_port(self.mock, id, h.as_ptr(), port.into()) };
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // SAFETY: destroyed once, before its owning client.
        unsafe { rd::rd_kafka_mock_cluster_destroy(self.mock) };
    }
}

/// One record read back.
#[derive(Debug, Clone)]
pub struct Got {
    pub partition: i32,
    pub offset: i64,
    pub key: Option<Vec<u8>>,
    pub value: Vec<u8>,
    pub headers: Vec<(String, Vec<u8>)>,
}

impl Got {
    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    }
}

/// Reads every partition of the topic from the beginning, on a thread of
/// its own, until dropped.
pub struct Reader {
    got: Arc<Mutex<Vec<Got>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Reader {
    pub fn start(c: &Cluster) -> Reader {
        let consumer: BaseConsumer = ClientConfig::new()
            .set("bootstrap.servers", &c.bootstrap)
            .set("group.id", "relay-compliance")
            .set("enable.auto.commit", "false")
            .set("fetch.wait.max.ms", "20")
            .create()
            .expect("a consumer");
        let mut tpl = TopicPartitionList::new();
        for p in 0..c.partitions {
            tpl.add_partition_offset(&c.topic, p, Offset::Beginning)
                .unwrap();
        }
        consumer.assign(&tpl).expect("assigned");
        let got = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (got, stop) = (got.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    let Some(Ok(m)) = consumer.poll(Duration::from_millis(50)) else {
                        continue;
                    };
                    let headers = m
                        .headers()
                        .map(|h| {
                            h.iter()
                                .map(|h| (h.key.to_string(), h.value.unwrap_or_default().to_vec()))
                                .collect()
                        })
                        .unwrap_or_default();
                    got.lock().unwrap().push(Got {
                        partition: m.partition(),
                        offset: m.offset(),
                        key: m.key().map(<[u8]>::to_vec),
                        value: m.payload().unwrap_or_default().to_vec(),
                        headers,
                    });
                }
            })
        };
        Reader {
            got,
            stop,
            thread: Some(thread),
        }
    }

    pub fn got(&self) -> Vec<Got> {
        self.got.lock().unwrap().clone()
    }
}

impl Drop for Reader {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
