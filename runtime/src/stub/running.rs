//! The stubs running in this process, by address: a client that calls one says which of its
//! methods is calling, so the stub files a call under its method even where two methods share
//! a verb and a route (a user's own beside an imported one) and nothing else on the wire tells
//! them apart. A real server never sees the header: only a stub's address gets it.
// Without the `stub` feature no client names its method.
#![cfg_attr(not(feature = "stub"), allow(dead_code))]

use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The request header that names the calling method, sent to a stub of this process only.
pub const METHOD_HEADER: &str = "remcall-stub-method";

/// How many stubs run: a client looks no further while none does (the usual case).
static COUNT: AtomicUsize = AtomicUsize::new(0);

static ADDRESSES: Mutex<Vec<SocketAddr>> = Mutex::new(Vec::new());

fn addresses() -> std::sync::MutexGuard<'static, Vec<SocketAddr>> {
    ADDRESSES.lock().unwrap_or_else(|e| e.into_inner())
}

/// A stub's address, registered for as long as this lives: the accept task owns it beside its
/// listener, so the address is a stub's exactly while the stub's socket holds the port (the
/// task aborted, or its runtime shut down, drops both), never after, when a real server may
/// bind the port.
#[derive(Debug)]
pub(super) struct Registered(SocketAddr);

/// A stub listens at `addr`.
pub(super) fn started(addr: SocketAddr) -> Registered {
    addresses().push(addr);
    COUNT.fetch_add(1, Ordering::Release);
    Registered(addr)
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut addresses = addresses();
        if let Some(at) = addresses.iter().position(|a| *a == self.0) {
            addresses.swap_remove(at);
            COUNT.fetch_sub(1, Ordering::Release);
        }
    }
}

/// Whether a stub of this process listens at `url`'s host and port.
fn is_stub(url: &reqwest::Url) -> bool {
    if COUNT.load(Ordering::Acquire) == 0 {
        return false;
    }
    let host = url.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let Ok(ip) = host.parse::<std::net::IpAddr>() else {
        return false;
    };
    let Some(port) = url.port_or_known_default() else {
        return false;
    };
    addresses().contains(&SocketAddr::new(ip, port))
}

/// Names `method` in `request` when it goes to a stub of this process.
pub(crate) fn name_the_method(request: &mut reqwest::Request, method: &'static str) {
    if is_stub(request.url())
        && let Ok(value) = reqwest::header::HeaderValue::from_str(method)
    {
        request.headers_mut().insert(
            reqwest::header::HeaderName::from_static(METHOD_HEADER),
            value,
        );
    }
}
