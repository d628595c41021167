//! The producer's librdkafka configuration, from the endpoint's settings
//! and its resolved credentials: what a producer is built with.

use super::*;

/// An endpoint's resolved secret references (never in `Debug`).
#[derive(Default, Clone)]
pub struct Credentials {
    pub password: Option<SecretValue>,
    pub client_certificate: Option<SecretValue>,
    pub client_key: Option<SecretValue>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials(<redacted>)")
    }
}

impl Credentials {
    pub(super) fn all(&self) -> impl Iterator<Item = &SecretValue> {
        [&self.password, &self.client_certificate, &self.client_key]
            .into_iter()
            .flatten()
    }
}

/// The trust anchors of TLS to the brokers: the system's (OpenSSL's
/// default file, which librdkafka otherwise finds on its own) and the
/// operator's `extra_ca_certs`, as HTTPS trusts them beside its bundled
/// roots.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Trust {
    /// OpenSSL's default CA file (`SSL_CERT_FILE` when set), if it exists.
    pub system_ca_file: Option<String>,
    /// The operator's extra CA certificates (PEM).
    pub extra_ca_pem: Option<String>,
}

impl Trust {
    /// The system's CA file and the guard's extra CAs.
    pub fn of(guard: &Guard) -> Trust {
        let extra_ca_pem = guard.extra_ca_pem().map(str::to_owned);
        let system_ca_file = extra_ca_pem.as_ref().and_then(|_| system_ca_file());
        Trust {
            system_ca_file,
            extra_ca_pem,
        }
    }
}

/// OpenSSL's default CA file (`SSL_CERT_FILE` when set), if it is a file.
fn system_ca_file() -> Option<String> {
    let path = std::env::var("SSL_CERT_FILE")
        .ok()
        .filter(|p| !p.is_empty())
        .or_else(|| {
            // SAFETY: OpenSSL answers a static, NUL-terminated string.
            let p = unsafe { openssl_sys::X509_get_default_cert_file() };
            (!p.is_null()).then(|| {
                unsafe { std::ffi::CStr::from_ptr(p) }
                    .to_string_lossy()
                    .into_owned()
            })
        })?;
    std::path::Path::new(&path).is_file().then_some(path)
}

/// `host:port` as librdkafka's `bootstrap.servers` names it (IPv6 in
/// brackets).
fn broker_name(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The librdkafka settings of an endpoint's producer. Pure.
///
/// `acks=all` with the idempotent producer: a record is acknowledged once
/// every in-sync replica has it, and librdkafka's own retries within the
/// attempt neither reorder nor duplicate it. `message.timeout.ms` is the
/// attempt's timeout, so a record is never left behind in the client's
/// queue after its attempt ended: it is reported as timed out, a failed
/// attempt that Relay retries. The partitioner is the Java client's
/// (`murmur2_random`), so a key lands on the partition other producers of
/// the cluster choose for it.
///
/// Each attempt awaits its own record's delivery report, so a record is
/// sent at once (`linger.ms` 0: what is produced while a request is in
/// flight still goes in the next one) and without Nagle's delay
/// (`socket.nagle.disable`): with `linger.ms` 2 and Nagle's algorithm the
/// kind's client alone managed about 3,800 records/s at 10 in flight
/// against librdkafka's mock cluster, and about 13,000/s without them
/// (`relay bench kafka`, docs/benchmarks.md).
pub fn settings(
    c: &KafkaDestination,
    secrets: &Credentials,
    trust: &Trust,
    limits: Limits,
) -> Vec<(&'static str, Vec<u8>)> {
    let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX).to_string();
    let bootstrap: Vec<String> = c
        .bootstrap
        .iter()
        .map(|b| broker_name(&b.host, b.port))
        .collect();
    let protocol = match (c.tls, c.sasl.is_some()) {
        (false, false) => "plaintext",
        (true, false) => "ssl",
        (false, true) => "sasl_plaintext",
        (true, true) => "sasl_ssl",
    };
    let mut s: Vec<(&'static str, Vec<u8>)> = vec![
        ("bootstrap.servers", bootstrap.join(",").into_bytes()),
        ("client.id", b"relay".to_vec()),
        ("enable.idempotence", b"true".to_vec()),
        ("acks", b"all".to_vec()),
        ("message.timeout.ms", ms(limits.total_timeout).into_bytes()),
        (
            "socket.connection.setup.timeout.ms",
            ms(limits.connect_timeout.max(Duration::from_secs(1))).into_bytes(),
        ),
        ("partitioner", b"murmur2_random".to_vec()),
        ("linger.ms", b"0".to_vec()),
        ("socket.nagle.disable", b"true".to_vec()),
        ("reconnect.backoff.ms", b"50".to_vec()),
        ("reconnect.backoff.max.ms", b"500".to_vec()),
        ("retry.backoff.ms", b"50".to_vec()),
        ("retry.backoff.max.ms", b"500".to_vec()),
        ("log_level", b"4".to_vec()),
        ("security.protocol", protocol.as_bytes().to_vec()),
    ];
    if c.tls {
        s.push(("ssl.endpoint.identification.algorithm", b"https".to_vec()));
        s.push(("enable.ssl.certificate.verification", b"true".to_vec()));
        // With extra CAs, librdkafka no longer looks for the system's own:
        // both are named.
        if let Some(pem) = &trust.extra_ca_pem {
            if let Some(file) = &trust.system_ca_file {
                s.push(("ssl.ca.location", file.as_bytes().to_vec()));
            }
            s.push(("ssl.ca.pem", pem.as_bytes().to_vec()));
        }
    }
    if let Some(sasl) = &c.sasl {
        s.push((
            "sasl.mechanisms",
            sasl.mechanism.as_str().as_bytes().to_vec(),
        ));
        s.push(("sasl.username", sasl.username.as_bytes().to_vec()));
        if let Some(p) = &secrets.password {
            s.push(("sasl.password", p.expose().to_vec()));
        }
    }
    if c.tls
        && let (Some(cert), Some(key)) = (&secrets.client_certificate, &secrets.client_key)
    {
        s.push(("ssl.certificate.pem", cert.expose().to_vec()));
        s.push(("ssl.key.pem", key.expose().to_vec()));
    }
    s
}
