//! Compressed answers against loopback servers that compress whatever the request asked:
//! `Accept-Encoding` is sent, gzip, br, zstd and deflate bodies are decompressed as they are
//! read, `compression: off` sends none, and a decompression bomb ends at `max_response_bytes`
//! with `BodyTooLarge`, its memory bounded by the limit, not by what it would inflate to. The
//! stub compresses too: as asked, always, and a stream event by event.
#![cfg(feature = "stub")]

use std::sync::{Arc, Mutex, OnceLock};

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderMap, header};
use axum::routing::get;
use remcall::__codegen::{Client, ClientBuilder, ClientSpec, MethodSpec, decode, event_json};
use remcall::serde_json::{Value, json};
use remcall::stub::{Encoding, Stub};
use remcall::{ErrorKind, Profile};
use testkit::Server;

static GET_DOC: MethodSpec = MethodSpec {
    index: 0,
    name: "get_doc",
    http_method: "GET",
    path: "/docs/{encoding}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

static SPEC: ClientSpec = ClientSpec {
    name: "Docs",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_DOC],
};

fn client(url: &str, yaml: &str) -> Client {
    ClientBuilder::new(&SPEC)
        .base_url(url)
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

async fn get_doc(client: &Client, encoding: &str) -> Result<Value, remcall::Error> {
    client
        .call(GET_DOC.request().path("encoding", encoding), decode::json)
        .await
}

fn document() -> Value {
    json!({ "title": "compressed", "lines": vec!["the same line again"; 200] })
}

/// 10 MB of zeros in one JSON string, gzipped (about 10 KB): made once, so that the server
/// holds only the small form while the client's memory is measured.
fn bomb() -> &'static [u8] {
    static BOMB: OnceLock<Vec<u8>> = OnceLock::new();
    BOMB.get_or_init(|| {
        let mut zeros = b"{\"z\":\"".to_vec();
        zeros.resize(10 << 20, b'0');
        zeros.extend_from_slice(b"\"}");
        Encoding::Gzip.compress(&zeros).unwrap()
    })
}

/// A server that answers every document compressed with the encoding its path names, whatever
/// the request's `Accept-Encoding` (which it keeps for the test to read).
async fn server(asked: Arc<Mutex<Vec<Option<String>>>>) -> Server {
    let router = Router::new().route(
        "/docs/{encoding}",
        get(move |Path(encoding): Path<String>, headers: HeaderMap| {
            let asked = asked.clone();
            async move {
                let accept = headers.get(header::ACCEPT_ENCODING);
                asked
                    .lock()
                    .unwrap()
                    .push(accept.and_then(|v| v.to_str().ok()).map(str::to_owned));
                let body = remcall::serde_json::to_vec(&document()).unwrap();
                let (encoding, body) = match encoding.as_str() {
                    "identity" => (None, body),
                    "bomb" => (Some("gzip"), bomb().to_vec()),
                    other => (
                        Some(other.to_owned().leak() as &str),
                        Encoding::from_name(other).unwrap().compress(&body).unwrap(),
                    ),
                };
                let mut answer = HeaderMap::new();
                answer.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
                if let Some(encoding) = encoding {
                    answer.insert(header::CONTENT_ENCODING, encoding.parse().unwrap());
                }
                (answer, body)
            }
        }),
    );
    Server::start(router).await
}

#[tokio::test]
async fn every_encoding_a_server_sends_is_decompressed_and_compression_is_asked_for() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let server = server(asked.clone()).await;
    let client = client(&server.url(), "retry: { max_attempts: 1 }");
    for encoding in ["gzip", "br", "zstd", "deflate", "identity"] {
        let doc = get_doc(&client, encoding)
            .await
            .unwrap_or_else(|e| panic!("{encoding}: {e}"));
        assert_eq!(doc, document(), "{encoding}");
    }
    let asked = asked.lock().unwrap().clone();
    for accept in &asked {
        let accept = accept.as_deref().unwrap_or_default();
        for encoding in ["gzip", "br", "zstd", "deflate"] {
            assert!(accept.contains(encoding), "Accept-Encoding: {accept}");
        }
    }
}

#[tokio::test]
async fn with_compression_off_nothing_is_asked_for_and_a_compressed_answer_stays_compressed() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let server = server(asked.clone()).await;
    let client = client(
        &server.url(),
        "compression: off\nretry: { max_attempts: 1 }",
    );
    assert_eq!(get_doc(&client, "identity").await.unwrap(), document());
    let error = get_doc(&client, "gzip").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode, "{error}");
    assert_eq!(asked.lock().unwrap().clone(), [None, None]);
}

/// Resident memory of this process, in bytes.
fn resident() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: usize = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[tokio::test]
async fn a_decompression_bomb_ends_at_the_size_limit_with_memory_bounded() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let server = server(asked).await;
    const LIMIT: usize = 1 << 20;
    let client = client(
        &server.url(),
        &format!("max_response_bytes: {LIMIT}\nretry: {{ max_attempts: 1 }}"),
    );
    // The server's own answer is made before the measure (it holds the 10 MB it compresses).
    let _ = get_doc(&client, "bomb").await;
    let before = resident();
    for _ in 0..4 {
        let error = get_doc(&client, "bomb").await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::BodyTooLarge, "{error}");
    }
    let grown = resident().saturating_sub(before);
    assert!(
        grown < 2 * LIMIT,
        "memory grew by {} KB reading a bomb against a {} KB limit",
        grown >> 10,
        LIMIT >> 10
    );
}

static TICKS: MethodSpec = MethodSpec {
    index: 1,
    name: "ticks",
    http_method: "GET",
    path: "/ticks",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: true,
    profile: "",
};

static STUBBED: ClientSpec = ClientSpec {
    name: "Stubbed",
    base_urls: &[],
    base_path: "",
    profile: "",
    methods: &[&GET_DOC, &TICKS],
};

fn stub_client(stub: &Stub, yaml: &str) -> Client {
    ClientBuilder::new(&STUBBED)
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str(yaml).unwrap())
        .build()
        .unwrap()
}

/// The stub compresses as asked (the client's first coding, gzip) or always (whatever was
/// asked), and says so in `Content-Encoding`; the client reads every one.
#[tokio::test]
async fn a_stub_compresses_as_asked_or_always_and_the_client_reads_it() {
    let stub = Stub::start(&STUBBED).await.unwrap();
    let client = stub_client(&stub, "retry: { max_attempts: 1 }");
    stub.on(&GET_DOC)
        .with_path("encoding", "asked")
        .returns_json(&document())
        .compressed();
    for encoding in [Encoding::Brotli, Encoding::Zstd, Encoding::Deflate] {
        stub.on(&GET_DOC)
            .with_path("encoding", encoding.name())
            .returns_json(&document())
            .compressed_as(encoding);
    }
    for path in ["asked", "br", "zstd", "deflate"] {
        let doc = get_doc(&client, path)
            .await
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(doc, document(), "{path}");
    }

    // What went over the wire: a client that asks for nothing is answered as it is unless the
    // rule compresses always, in which case only a decoder that knows the coding reads it.
    let plain = stub_client(&stub, "compression: off\nretry: { max_attempts: 1 }");
    assert_eq!(get_doc(&plain, "asked").await.unwrap(), document());
    let error = get_doc(&plain, "zstd").await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Decode, "{error}");
}

/// A compressed stream is flushed event by event and decompressed as it arrives: two events
/// reach the caller while the server holds the rest back.
#[tokio::test]
async fn a_compressed_stream_is_read_event_by_event() {
    let stub = Stub::start(&STUBBED).await.unwrap();
    let client = stub_client(&stub, "retry: { max_attempts: 1 }");
    let events: Vec<remcall::Event<Value>> = (1..=4)
        .map(|n| remcall::Event::new(json!({ "n": n })))
        .collect();
    stub.on(&TICKS)
        .returns_events_with(&events, remcall::stub::json_event, None)
        .compressed_as(Encoding::Gzip);
    stub.faults(&TICKS).stall_after(2);
    let mut ticks = client
        .call_events(
            TICKS.request(),
            &remcall::__codegen::EventsSpec {
                decode: event_json::<Value>,
                end: None,
                errors: None,
            },
        )
        .await
        .unwrap();
    for n in 1..=2 {
        let event = tokio::time::timeout(std::time::Duration::from_secs(5), ticks.next())
            .await
            .unwrap_or_else(|_| panic!("event {n} was held in the decoder"))
            .unwrap()
            .unwrap();
        assert_eq!(event.data, json!({ "n": n }));
    }
    let recorded = stub.calls(&TICKS);
    assert!(
        recorded[0]
            .header("accept-encoding")
            .is_some_and(|a| a.contains("gzip")),
        "{:?}",
        recorded[0].headers
    );
}
