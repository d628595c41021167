//! The producer of one Kafka endpoint: a librdkafka client (through
//! `rdkafka-sys`) whose every broker address comes from the outbound guard.
//!
//! librdkafka opens its own sockets, to the bootstrap brokers and to every
//! broker the cluster's metadata advertises. Its resolve callback
//! (`rd_kafka_conf_set_resolve_cb`, librdkafka 2.2+) is the seam: every
//! name librdkafka would look up, bootstrap or advertised, is answered by
//! [`Guard::resolve_checked`] (the operator's ports, the blocked ranges,
//! the allow list), so librdkafka can only connect to addresses the guard
//! verified; a refused broker gets no address at all, and the refusal is
//! kept ([`Producer::failure`]) for the attempt's record. The
//! `rdkafka` crate (0.39) does not expose that callback, hence this thin
//! layer over the C API, which is all a producer needs: the configuration,
//! one `produceva` per record with its headers, the delivery report
//! (`dr_msg_cb`) answered to the attempt that sent the record, a thread
//! that polls for the reports, and the error and log callbacks.

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rdkafka_sys::bindings as rd;
use relay_net::{ErrorKind, Guard};
use tokio::sync::oneshot;

mod resolve;

use self::resolve::{rd_kafka_conf_set_resolve_cb, resolve_cb};

/// What librdkafka reported for one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// `0`, a broker's error code (positive) or librdkafka's own (negative).
    pub code: i32,
    pub partition: i32,
    pub offset: i64,
    /// The broker that answered, `-1` when none did.
    pub broker: i32,
    /// librdkafka's view of whether the record may be on the broker.
    pub persisted: Persisted,
    /// The error's name and librdkafka's text (empty without an error).
    pub name: String,
    pub text: String,
}

/// `rd_kafka_msg_status_t`: whether a failed record may have been written
/// (a retry of it may then duplicate it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persisted {
    No,
    Possibly,
    Yes,
}

impl Persisted {
    pub const fn as_str(self) -> &'static str {
        match self {
            Persisted::No => "not_persisted",
            Persisted::Possibly => "possibly_persisted",
            Persisted::Yes => "persisted",
        }
    }
}

/// One record to produce.
pub struct Record<'a> {
    pub topic: &'a CStr,
    pub key: Option<&'a [u8]>,
    pub value: &'a [u8],
    pub headers: &'a [(CString, &'a [u8])],
}

/// What the callbacks share, behind librdkafka's `opaque` pointer.
struct Context {
    guard: Guard,
    runtime: tokio::runtime::Handle,
    resolve_timeout: Duration,
    /// The last failure to reach a broker (the guard's refusal, a
    /// transport error) until a record is acknowledged.
    failure: Mutex<Option<(ErrorKind, String)>>,
    /// The cluster's last refusal of the client itself (its SASL
    /// authentication failed: `_AUTHENTICATION`, with librdkafka's reason)
    /// until a record is acknowledged. librdkafka reports it only to the
    /// error callback; the records then time out in its queue.
    refusal: Mutex<Option<(i32, String)>>,
    /// Each broker name the guard answered, with its first address.
    resolved: Mutex<Vec<(String, SocketAddr)>>,
}

impl Context {
    fn note(&self, kind: ErrorKind, text: String) {
        if let Ok(mut f) = self.failure.lock() {
            *f = Some((kind, text));
        }
    }
}

struct Handle(*mut rd::rd_kafka_t);
// SAFETY: librdkafka handles are thread-safe (its documented contract).
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

/// A librdkafka producer; dropping it purges what it still holds (each
/// waiting attempt gets a purge error) and destroys it on a thread of its
/// own.
pub struct Producer {
    rk: Arc<Handle>,
    context: Arc<Context>,
    /// Each broker id's `host:port`, as the metadata last named it.
    brokers: Mutex<Vec<(i32, String)>>,
    stop: Arc<AtomicBool>,
    poller: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer").finish_non_exhaustive()
    }
}

impl Producer {
    /// Creates the client with `settings` (librdkafka property names and
    /// values; a secret value among them is handed to librdkafka and never
    /// kept here). Error: librdkafka's text for the first setting it
    /// refused, which names the property, never its value.
    pub fn new(
        settings: &[(&str, &[u8])],
        guard: Guard,
        runtime: tokio::runtime::Handle,
        resolve_timeout: Duration,
    ) -> Result<Producer, String> {
        let context = Arc::new(Context {
            guard,
            runtime,
            resolve_timeout,
            failure: Mutex::new(None),
            refusal: Mutex::new(None),
            resolved: Mutex::new(Vec::new()),
        });
        let mut err = [0 as c_char; 512];
        // SAFETY: the conf is ours until rd_kafka_new takes it (or we
        // destroy it on failure); every string passed is NUL-terminated and
        // copied by librdkafka; the opaque outlives the handle (dropped
        // after rd_kafka_destroy, in `Drop`).
        unsafe {
            let conf = rd::rd_kafka_conf_new();
            for (name, value) in settings {
                let name = CString::new(*name).map_err(|_| "a setting name has a NUL byte")?;
                let Ok(value) = CString::new(value.to_vec()) else {
                    rd::rd_kafka_conf_destroy(conf);
                    return Err(format!("the value of {name:?} has a NUL byte"));
                };
                let r = rd::rd_kafka_conf_set(
                    conf,
                    name.as_ptr(),
                    value.as_ptr(),
                    err.as_mut_ptr(),
                    err.len(),
                );
                if r != rd::rd_kafka_conf_res_t::RD_KAFKA_CONF_OK {
                    rd::rd_kafka_conf_destroy(conf);
                    return Err(format!(
                        "{name:?} refused: {}",
                        CStr::from_ptr(err.as_ptr()).to_string_lossy()
                    ));
                }
            }
            rd::rd_kafka_conf_set_opaque(conf, Arc::as_ptr(&context) as *mut c_void);
            rd_kafka_conf_set_resolve_cb(conf, Some(resolve_cb));
            rd::rd_kafka_conf_set_dr_msg_cb(conf, Some(dr_msg_cb));
            rd::rd_kafka_conf_set_error_cb(conf, Some(error_cb));
            rd::rd_kafka_conf_set_log_cb(conf, Some(log_cb));
            let rk = rd::rd_kafka_new(
                rd::rd_kafka_type_t::RD_KAFKA_PRODUCER,
                conf,
                err.as_mut_ptr(),
                err.len(),
            );
            if rk.is_null() {
                rd::rd_kafka_conf_destroy(conf);
                return Err(CStr::from_ptr(err.as_ptr()).to_string_lossy().into_owned());
            }
            let rk = Arc::new(Handle(rk));
            let stop = Arc::new(AtomicBool::new(false));
            let poller = {
                let (rk, stop) = (rk.clone(), stop.clone());
                std::thread::Builder::new()
                    .name("relay-kafka-poll".into())
                    .spawn(move || {
                        while !stop.load(Ordering::Acquire) {
                            rd::rd_kafka_poll(rk.0, 100);
                        }
                    })
                    .map_err(|e| format!("cannot start the poll thread: {e}"))?
            };
            Ok(Producer {
                rk,
                context,
                brokers: Mutex::new(Vec::new()),
                stop,
                poller: Some(poller),
            })
        }
    }

    /// Hands one record to librdkafka; its delivery report arrives on the
    /// returned receiver. Error: the code and text librdkafka refused it
    /// with at once (queue full, too large for `message.max.bytes`, …).
    pub fn send(&self, r: &Record<'_>) -> Result<oneshot::Receiver<Report>, (i32, String, String)> {
        let (tx, rx) = oneshot::channel::<Report>();
        let opaque = Box::into_raw(Box::new(tx));
        let mut vus: Vec<rd::rd_kafka_vu_t> = Vec::with_capacity(5 + r.headers.len());
        let vu = |vtype, u| rd::rd_kafka_vu_t { vtype, u };
        use rd::rd_kafka_vtype_t as T;
        vus.push(vu(
            T::RD_KAFKA_VTYPE_TOPIC,
            rd::rd_kafka_vu_s__bindgen_ty_1 {
                cstr: r.topic.as_ptr(),
            },
        ));
        vus.push(vu(
            T::RD_KAFKA_VTYPE_MSGFLAGS,
            rd::rd_kafka_vu_s__bindgen_ty_1 {
                i: rd::RD_KAFKA_MSG_F_COPY,
            },
        ));
        vus.push(vu(
            T::RD_KAFKA_VTYPE_VALUE,
            rd::rd_kafka_vu_s__bindgen_ty_1 {
                mem: rd::rd_kafka_vu_s__bindgen_ty_1__bindgen_ty_1 {
                    ptr: r.value.as_ptr() as *mut c_void,
                    size: r.value.len(),
                },
            },
        ));
        if let Some(key) = r.key {
            vus.push(vu(
                T::RD_KAFKA_VTYPE_KEY,
                rd::rd_kafka_vu_s__bindgen_ty_1 {
                    mem: rd::rd_kafka_vu_s__bindgen_ty_1__bindgen_ty_1 {
                        ptr: key.as_ptr() as *mut c_void,
                        size: key.len(),
                    },
                },
            ));
        }
        vus.push(vu(
            T::RD_KAFKA_VTYPE_OPAQUE,
            rd::rd_kafka_vu_s__bindgen_ty_1 {
                ptr: opaque as *mut c_void,
            },
        ));
        for (name, value) in r.headers {
            vus.push(vu(
                T::RD_KAFKA_VTYPE_HEADER,
                rd::rd_kafka_vu_s__bindgen_ty_1 {
                    header: rd::rd_kafka_vu_s__bindgen_ty_1__bindgen_ty_2 {
                        name: name.as_ptr(),
                        val: value.as_ptr() as *const c_void,
                        size: value.len() as isize,
                    },
                },
            ));
        }
        // SAFETY: every pointer in `vus` lives until the call returns and
        // librdkafka copies what it keeps (RD_KAFKA_MSG_F_COPY, headers);
        // on success the opaque is handed back once, to `dr_msg_cb`; on
        // failure it was not taken and is ours to free.
        unsafe {
            let error = rd::rd_kafka_produceva(self.rk.0, vus.as_ptr(), vus.len());
            if error.is_null() {
                return Ok(rx);
            }
            drop(Box::from_raw(opaque));
            let code = error_code(error);
            let name = CStr::from_ptr(rd::rd_kafka_error_name(error))
                .to_string_lossy()
                .into_owned();
            let text = CStr::from_ptr(rd::rd_kafka_error_string(error))
                .to_string_lossy()
                .into_owned();
            rd::rd_kafka_error_destroy(error);
            Err((code, name, text))
        }
    }

    /// The last failure to reach a broker, if any. It stays until a record
    /// is acknowledged ([`Producer::acknowledged`]), so every record that
    /// times out meanwhile is reported with it, not only the first.
    pub fn failure(&self) -> Option<(ErrorKind, String)> {
        self.context.failure.lock().ok().and_then(|f| f.clone())
    }

    /// The cluster's last refusal of the client, if any: the code
    /// (`_AUTHENTICATION`) and librdkafka's reason. It stays, as
    /// [`Producer::failure`] does, until a record is acknowledged.
    pub fn refusal(&self) -> Option<(i32, String)> {
        self.context.refusal.lock().ok().and_then(|r| r.clone())
    }

    /// A record was acknowledged: what failed before it, on the way to a
    /// broker or at the cluster's door, is forgotten.
    pub fn acknowledged(&self) {
        if let Ok(mut f) = self.context.failure.lock() {
            *f = None;
        }
        if let Ok(mut r) = self.context.refusal.lock() {
            *r = None;
        }
    }

    /// The checked address the producer connected to for the broker with
    /// id `broker`. Its `host:port` comes from the cluster's metadata: a
    /// Metadata request (blocking, `timeout` at most) the first time a
    /// broker id is seen, or when the name known for it is not one the
    /// guard answered (the broker moved).
    pub fn broker_addr(&self, broker: i32, timeout: Duration) -> Option<SocketAddr> {
        let lookup = |name: &str| {
            let resolved = self.context.resolved.lock().ok()?;
            resolved.iter().find(|(n, _)| n == name).map(|(_, a)| *a)
        };
        let known = self.brokers.lock().ok().and_then(|b| {
            b.iter()
                .find(|(id, _)| *id == broker)
                .map(|(_, n)| n.clone())
        });
        if let Some(addr) = known.as_deref().and_then(lookup) {
            return Some(addr);
        }
        let name = broker_name(self.rk.0, broker, timeout)?;
        if let Ok(mut b) = self.brokers.lock() {
            b.retain(|(id, _)| *id != broker);
            b.push((broker, name.clone()));
        }
        lookup(&name)
    }

    /// Whether librdkafka raised a fatal error (the idempotent producer's
    /// state cannot go on): the producer must be built again.
    pub fn is_fatal(&self) -> bool {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the buffer's length is passed with it.
        let code = unsafe { rd::rd_kafka_fatal_error(self.rk.0, buf.as_mut_ptr(), buf.len()) };
        code != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let poller = self.poller.take();
        let rk = self.rk.clone();
        let context = self.context.clone();
        // rd_kafka_destroy waits for librdkafka's threads, one of which may
        // be waiting in `resolve_cb` for the runtime this runs on.
        let _ = std::thread::Builder::new()
            .name("relay-kafka-drop".into())
            .spawn(move || {
                if let Some(p) = poller {
                    let _ = p.join();
                }
                // SAFETY: the poll thread has ended; nothing else uses the
                // handle once the producer is dropped. Purging answers every
                // waiting record (dr_msg_cb frees its opaque) before destroy.
                unsafe {
                    rd::rd_kafka_purge(
                        rk.0,
                        rd::RD_KAFKA_PURGE_F_QUEUE | rd::RD_KAFKA_PURGE_F_INFLIGHT,
                    );
                    rd::rd_kafka_poll(rk.0, 0);
                    rd::rd_kafka_destroy(rk.0);
                }
                drop(context);
            });
    }
}

/// The code of a `rd_kafka_error_t`, read as the integer it is.
///
/// # Safety
/// `error` is a live error object.
unsafe fn error_code(error: *const rd::rd_kafka_error_t) -> i32 {
    // The binding's enum has every value librdkafka returns; reading it as
    // `i32` keeps an unknown future one from being undefined behaviour.
    let code = unsafe { rd::rd_kafka_error_code(error) };
    code as i32
}

/// The `host:port` name of broker `id` in the cluster's metadata (one
/// Metadata request for the brokers, no topics).
fn broker_name(rk: *mut rd::rd_kafka_t, id: i32, timeout: Duration) -> Option<String> {
    let mut md: *const rd::rd_kafka_metadata = std::ptr::null();
    let ms = i32::try_from(timeout.as_millis()).unwrap_or(i32::MAX);
    // SAFETY: the metadata is ours until destroyed, once read.
    unsafe {
        let r = rd::rd_kafka_metadata(rk, 0, std::ptr::null_mut(), &mut md, ms);
        if r != rd::rd_kafka_resp_err_t::RD_KAFKA_RESP_ERR_NO_ERROR || md.is_null() {
            return None;
        }
        let brokers = std::slice::from_raw_parts(
            (*md).brokers,
            usize::try_from((*md).broker_cnt).unwrap_or(0),
        );
        let name = brokers
            .iter()
            .find(|b| b.id == id)
            .map(|b| format!("{}:{}", CStr::from_ptr(b.host).to_string_lossy(), b.port));
        rd::rd_kafka_metadata_destroy(md);
        name
    }
}

/// The delivery report of one record, handed to the attempt that sent it.
unsafe extern "C" fn dr_msg_cb(
    _rk: *mut rd::rd_kafka_t,
    m: *const rd::rd_kafka_message_t,
    _opaque: *mut c_void,
) {
    // SAFETY: `_private` is the opaque `send` boxed, handed back once.
    unsafe {
        let private = (*m)._private;
        if private.is_null() {
            return;
        }
        let tx = Box::from_raw(private.cast::<oneshot::Sender<Report>>());
        let code = *std::ptr::addr_of!((*m).err).cast::<i32>();
        let persisted = match rd::rd_kafka_message_status(m) as i32 {
            2 => Persisted::Yes,
            1 => Persisted::Possibly,
            _ => Persisted::No,
        };
        let (name, text) = if code == 0 {
            (String::new(), String::new())
        } else {
            let err = (*m).err;
            (
                CStr::from_ptr(rd::rd_kafka_err2name(err))
                    .to_string_lossy()
                    .into_owned(),
                CStr::from_ptr(rd::rd_kafka_err2str(err))
                    .to_string_lossy()
                    .into_owned(),
            )
        };
        let _ = tx.send(Report {
            code,
            partition: (*m).partition,
            offset: (*m).offset,
            broker: rd::rd_kafka_message_broker_id(m),
            persisted,
            name,
            text,
        });
    }
}

/// Client-level errors: a broker that cannot be reached is remembered for
/// the record of an attempt that then times out.
unsafe extern "C" fn error_cb(
    _rk: *mut rd::rd_kafka_t,
    err: c_int,
    reason: *const c_char,
    opaque: *mut c_void,
) {
    // SAFETY: the context outlives the handle; `reason` is a C string.
    unsafe {
        let context = &*(opaque as *const Context);
        let reason = if reason.is_null() {
            String::new()
        } else {
            CStr::from_ptr(reason).to_string_lossy().into_owned()
        };
        tracing::debug!(code = err, %reason, "kafka client error");
        if refuses_client(err)
            && let Ok(mut r) = context.refusal.lock()
        {
            *r = Some((err, reason));
            return;
        }
        if let Some(kind) = failure_kind(err, &reason)
            && let Ok(mut f) = context.failure.lock()
            && replaces(f.as_ref().map(|(k, _)| *k), err)
        {
            *f = Some((kind, reason));
        }
    }
}

/// Whether a client-level error is the cluster refusing the client itself:
/// `_AUTHENTICATION` (-169), a SASL exchange that failed (a wrong password,
/// an unknown user, a mechanism the broker does not offer).
pub(crate) fn refuses_client(err: c_int) -> bool {
    err == crate::kafka::classify::code::AUTHENTICATION
}

/// What a client-level error says of the way to a broker: `_TRANSPORT`
/// (-195) is a TLS failure when OpenSSL's words are in it (a TLS 1.3
/// server refuses a client certificate after the handshake, on the first
/// read), a timeout when it says it timed out, a refused or dropped
/// connection otherwise; `_RESOLVE` (-193), `_SSL` (-181), `_TIMED_OUT`
/// (-185). `_ALL_BROKERS_DOWN` (-187) names no cause: it only sums up
/// failures reported on their own, and it also follows the resolver's
/// first "try again" while a broker's address is being checked, so taking
/// it as a refused connection mislabelled a hung broker's timeout.
pub(crate) fn failure_kind(err: c_int, reason: &str) -> Option<ErrorKind> {
    match err {
        -195 if reason.contains("SSL") => Some(ErrorKind::Tls),
        // A broker that took the connection and never answered: the setup
        // timed out, or a request on it did ("Local: Timed out").
        -195 if reason.to_ascii_lowercase().contains("timed out") => Some(ErrorKind::Timeout),
        -195 => Some(ErrorKind::Connect),
        -193 => Some(ErrorKind::Dns),
        -181 => Some(ErrorKind::Tls),
        -185 => Some(ErrorKind::Timeout),
        _ => None,
    }
}

/// Whether a client-level error `err` replaces the failure noted before
/// (`noted`): a guard refusal, a DNS or TLS failure is the better
/// explanation and stays; `_ALL_BROKERS_DOWN` only sums up what failed and
/// replaces nothing.
pub(crate) fn replaces(noted: Option<ErrorKind>, err: c_int) -> bool {
    match noted {
        None => true,
        Some(_) if err == -187 => false,
        Some(k) => matches!(k, ErrorKind::Connect | ErrorKind::Timeout),
    }
}

/// librdkafka's log lines, into the process's log.
unsafe extern "C" fn log_cb(
    _rk: *const rd::rd_kafka_t,
    level: c_int,
    fac: *const c_char,
    buf: *const c_char,
) {
    // SAFETY: both are C strings for the call's duration.
    let (fac, buf) = unsafe {
        (
            CStr::from_ptr(fac).to_string_lossy(),
            CStr::from_ptr(buf).to_string_lossy(),
        )
    };
    if level <= 4 {
        tracing::warn!(facility = %fac, "librdkafka: {buf}");
    } else {
        tracing::debug!(facility = %fac, "librdkafka: {buf}");
    }
}
