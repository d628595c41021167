//! librdkafka's resolve callback, answered by the outbound guard: every
//! broker name librdkafka would look up (bootstrap or advertised) gets only
//! the addresses [`relay_net::Guard::resolve_checked`] verified, as a
//! `struct addrinfo` list this module allocates and frees.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::net::SocketAddr;

use rdkafka_sys::bindings as rd;
use relay_net::ErrorKind;

use super::Context;

/// `rd_kafka_conf_set_resolve_cb` (librdkafka 2.2+), which `rdkafka-sys`
/// does not bind: `struct addrinfo` is the C library's.
pub(super) type ResolveCb = unsafe extern "C" fn(
    node: *const c_char,
    service: *const c_char,
    hints: *const libc::addrinfo,
    res: *mut *mut libc::addrinfo,
    opaque: *mut c_void,
) -> c_int;

unsafe extern "C" {
    pub(super) fn rd_kafka_conf_set_resolve_cb(
        conf: *mut rd::rd_kafka_conf_t,
        cb: Option<ResolveCb>,
    );
}

/// One `struct addrinfo` and the address it points to, allocated together
/// and freed by `resolve_cb` when librdkafka hands the list back.
#[repr(C)]
struct AddrInfo {
    ai: libc::addrinfo,
    storage: libc::sockaddr_storage,
}

fn addrinfo_list(addrs: &[SocketAddr], hints: Option<&libc::addrinfo>) -> *mut libc::addrinfo {
    let family = hints.map_or(libc::AF_UNSPEC, |h| h.ai_family);
    let mut head: *mut libc::addrinfo = std::ptr::null_mut();
    for addr in addrs.iter().rev() {
        let (af, len) = match addr {
            SocketAddr::V4(_) => (libc::AF_INET, std::mem::size_of::<libc::sockaddr_in>()),
            SocketAddr::V6(_) => (libc::AF_INET6, std::mem::size_of::<libc::sockaddr_in6>()),
        };
        if family != libc::AF_UNSPEC && family != af {
            continue;
        }
        // SAFETY: all-zero is a valid `addrinfo` and `sockaddr_storage`.
        let mut node: Box<AddrInfo> = Box::new(unsafe { std::mem::zeroed() });
        let storage = std::ptr::addr_of_mut!(node.storage);
        // SAFETY: sockaddr_storage is large and aligned enough for both.
        unsafe {
            match addr {
                SocketAddr::V4(a) => {
                    let sin = storage.cast::<libc::sockaddr_in>();
                    (*sin).sin_family = libc::AF_INET as libc::sa_family_t;
                    (*sin).sin_port = a.port().to_be();
                    (*sin).sin_addr.s_addr = u32::from(*a.ip()).to_be();
                }
                SocketAddr::V6(a) => {
                    let sin6 = storage.cast::<libc::sockaddr_in6>();
                    (*sin6).sin6_family = libc::AF_INET6 as libc::sa_family_t;
                    (*sin6).sin6_port = a.port().to_be();
                    (*sin6).sin6_addr.s6_addr = a.ip().octets();
                    (*sin6).sin6_scope_id = a.scope_id();
                }
            }
        }
        node.ai.ai_family = af;
        node.ai.ai_socktype = hints.map_or(libc::SOCK_STREAM, |h| h.ai_socktype);
        node.ai.ai_protocol = hints.map_or(libc::IPPROTO_TCP, |h| h.ai_protocol);
        node.ai.ai_addrlen = len as libc::socklen_t;
        node.ai.ai_addr = storage.cast::<libc::sockaddr>();
        node.ai.ai_next = head;
        head = Box::into_raw(node).cast::<libc::addrinfo>();
    }
    head
}

/// librdkafka's resolve callback: the guard resolves and checks every
/// broker name; `node == NULL` frees a list this function made.
pub(super) unsafe extern "C" fn resolve_cb(
    node: *const c_char,
    service: *const c_char,
    hints: *const libc::addrinfo,
    res: *mut *mut libc::addrinfo,
    opaque: *mut c_void,
) -> c_int {
    // SAFETY: librdkafka passes back what it was given: the context
    // (alive while the handle is), lists made by `addrinfo_list`.
    unsafe {
        if node.is_null() {
            let mut p = if res.is_null() {
                std::ptr::null_mut()
            } else {
                *res
            };
            while !p.is_null() {
                let next = (*p).ai_next;
                drop(Box::from_raw(p.cast::<AddrInfo>()));
                p = next;
            }
            return 0;
        }
        let context = &*(opaque as *const Context);
        let host = CStr::from_ptr(node).to_string_lossy().into_owned();
        let port = if service.is_null() {
            None
        } else {
            CStr::from_ptr(service)
                .to_str()
                .ok()
                .and_then(|s| s.parse::<u16>().ok())
        };
        let Some(port) = port else {
            context.note(ErrorKind::InvalidUrl, format!("broker {host}: no port"));
            return libc::EAI_SERVICE;
        };
        let (tx, rx) = std::sync::mpsc::channel();
        let guard = context.guard.clone();
        let h = host.clone();
        context.runtime.spawn(async move {
            let _ = tx.send(guard.resolve_checked(&h, port).await);
        });
        match rx.recv_timeout(context.resolve_timeout) {
            Ok(Ok(addrs)) => {
                if let (Some(first), Ok(mut resolved)) = (addrs.first(), context.resolved.lock()) {
                    let name = format!("{host}:{port}");
                    resolved.retain(|(n, _)| *n != name);
                    resolved.push((name, *first));
                }
                let list = addrinfo_list(&addrs, hints.as_ref());
                if list.is_null() {
                    return libc::EAI_FAMILY;
                }
                *res = list;
                0
            }
            Ok(Err(e)) => {
                context.note(e.kind(), format!("broker {host}:{port}: {e}"));
                libc::EAI_FAIL
            }
            Err(_) => {
                context.note(
                    ErrorKind::Timeout,
                    format!("broker {host}:{port}: resolving timed out"),
                );
                libc::EAI_AGAIN
            }
        }
    }
}
