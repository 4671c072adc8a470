//! The stub server against clients that misbehave: a client that stops halfway through its
//! headers or its body is cut off, a connection costs one file descriptor, an accept that fails
//! at the descriptor limit is retried after a pause rather than in a spin, and a large body is
//! recorded as a bounded prefix that says it was cut.
//!
//! One test at a time (they count the process's descriptors and change its limit), and each
//! builds its runtime only once it holds the lock: a runtime built beside a test that has
//! lowered the limit finds no descriptor for itself.
#![cfg(feature = "stub")]

use std::time::Duration;

use remcall::__codegen::{ClientSpec, MethodSpec};
use remcall::stub::{KEEP_BODY_BYTES, Stub};
use std::sync::{Mutex, MutexGuard, PoisonError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

static ADD_PET: MethodSpec = MethodSpec {
    index: 0,
    name: "add_pet",
    http_method: "POST",
    path: "/pets",
    idempotent: false,
    reads: false,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Limits",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&ADD_PET],
};

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// How a test's runtime runs.
enum Flavor {
    /// One thread, on tokio's paused clock.
    Paused,
    /// One thread.
    Current,
    /// Two worker threads.
    Multi,
}

/// Runs `test` alone: the lock first, then a runtime of its own. A test that failed does not
/// keep the others from running (the lock's poison is ignored).
fn alone<F: Future>(flavor: Flavor, test: F) -> F::Output {
    let _one: MutexGuard<'_, ()> = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
    let mut builder = match flavor {
        Flavor::Multi => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(2);
            builder
        }
        Flavor::Paused | Flavor::Current => tokio::runtime::Builder::new_current_thread(),
    };
    builder.enable_all();
    if matches!(flavor, Flavor::Paused) {
        builder.start_paused(true);
    }
    builder.build().unwrap().block_on(test)
}

fn open_descriptors() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// Sends `start` of a request to a fresh stub and stops: what the stub answered before it
/// closed, and how long it waited (the paused clock runs ahead while everything waits, up to
/// this side's own 120 s).
async fn send_and_stop(start: &[u8]) -> (Option<String>, Duration) {
    let stub = Stub::start(&SPEC).await.unwrap();
    let mut stream = TcpStream::connect(stub.url().trim_start_matches("http://"))
        .await
        .unwrap();
    stream.write_all(start).await.unwrap();
    let started = tokio::time::Instant::now();
    let read = async {
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).into_owned()
    };
    let answer = tokio::time::timeout(Duration::from_secs(120), read).await;
    (answer.ok(), started.elapsed())
}

#[test]
fn a_client_that_stops_in_its_headers_is_cut_off() {
    alone(Flavor::Paused, async {
        let (closed, waited) = send_and_stop(b"POST /pets HTTP/1.1\r\nhost: x\r\n").await;
        assert!(closed.is_some(), "the half-sent request was held for 120 s");
        assert!(
            (Duration::from_secs(10)..Duration::from_secs(12)).contains(&waited),
            "{waited:?}"
        );
    });
}

#[test]
fn a_client_that_stops_in_its_body_gets_408_and_a_close() {
    alone(Flavor::Paused, async {
        let (answer, waited) = send_and_stop(
            b"POST /pets HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n\r\n{\"name\":",
        )
        .await;
        let answer = answer.expect("the half-sent body was held for 120 s");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("did not arrive within 30 s"), "{answer}");
        assert!(
            (Duration::from_secs(30)..Duration::from_secs(32)).contains(&waited),
            "{waited:?}"
        );
    });
}

#[test]
fn a_connection_costs_the_stub_one_file_descriptor() {
    alone(Flavor::Current, async {
        let stub = Stub::start(&SPEC).await.unwrap();
        stub.on(&ADD_PET).returns_status(201);
        let mut clients = Vec::new();
        let mut before = 0;
        // The first connection also opens what the runtime makes on first use: counted from after it.
        for i in 0..21 {
            if i == 1 {
                before = open_descriptors();
            }
            let mut stream = TcpStream::connect(stub.url().trim_start_matches("http://"))
                .await
                .unwrap();
            // A whole exchange, so the stub has surely accepted the connection.
            stream
                .write_all(b"POST /pets HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\n\r\n{}")
                .await
                .unwrap();
            let mut head = [0; 12];
            stream.read_exact(&mut head).await.unwrap();
            assert_eq!(&head, b"HTTP/1.1 201");
            clients.push(stream);
        }
        let added = open_descriptors() - before;
        // Each connection: the client's socket and the stub's (before, the stub kept a second).
        assert!(
            added <= 2 * 20 + 4,
            "{added} descriptors for 20 connections"
        );
    });
}

#[test]
fn at_the_descriptor_limit_accept_pauses_rather_than_spins() {
    alone(Flavor::Multi, async {
        let stub = Stub::start(&SPEC).await.unwrap();
        let addr = stub.url().trim_start_matches("http://").to_owned();
        let (soft, hard) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap();
        rlimit::setrlimit(
            rlimit::Resource::NOFILE,
            open_descriptors() as u64 + 8,
            hard,
        )
        .unwrap();
        // Connect until this process has no descriptor left: the kernel completes connections
        // the stub then cannot accept.
        let mut clients = Vec::new();
        while clients.len() < 64 {
            match std::net::TcpStream::connect(&addr) {
                Ok(stream) => clients.push(stream),
                Err(_) => break,
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let start = stub.accept_failures();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let failures = stub.accept_failures() - start;
        rlimit::setrlimit(rlimit::Resource::NOFILE, soft, hard).unwrap();
        drop(clients);
        assert!(start > 0, "the limit was never reached");
        // Pauses of 5 ms doubling to 1 s: a handful in half a second; a spin makes millions.
        assert!(failures < 50, "{failures} failed accepts in 500 ms");
    });
}

#[test]
fn a_large_body_is_recorded_as_a_prefix_that_says_it_was_cut() {
    alone(Flavor::Current, async {
        let stub = Stub::start(&SPEC).await.unwrap();
        stub.on(&ADD_PET).returns_status(201);
        let body = format!("{{\"name\":\"{}\"}}", "x".repeat(3 << 20));
        let client = reqwest::Client::new();
        for keep in [None, Some(4 << 20)] {
            if let Some(bytes) = keep {
                stub.keep_body_bytes(bytes);
            }
            let sent = client
                .post(format!("{}/pets", stub.url()))
                .body(body.clone())
                .send()
                .await
                .unwrap();
            assert_eq!(sent.status(), 201);
        }
        let calls = stub.calls(&ADD_PET);
        assert_eq!(calls[0].body.len(), KEEP_BODY_BYTES);
        assert_eq!(calls[0].body_len, body.len());
        let error = calls[0]
            .json_body::<remcall::serde_json::Value>()
            .unwrap_err();
        assert!(error.contains("the stub kept the first 1048576"), "{error}");
        assert_eq!(calls[1].body.len(), body.len());
        assert!(calls[1].json_body::<remcall::serde_json::Value>().is_ok());
    });
}
