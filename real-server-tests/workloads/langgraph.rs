//! LangGraph's workload: a run's events streamed as Server-Sent Events and read typed (its
//! metadata, the graph's state after each step, the updates), to the stream's end; a second
//! stream; a run whose graph fails, ended by the server's `error` event as a typed error; and a
//! background run joined by its stream from its first event, which goes silent past
//! `timeout.idle` and is resumed from its last event id, each event once. Run by `tests/langgraph.rs` with the client
//! generated from the server's own description; `LANGGRAPH_URL` is the server. Each step
//! asserts what the server did, and says what it did.

use crate::api::lang_graph::webhooks::{self, Receiver};
use crate::api::lang_graph::{
    AgentEvent, GraphState, JoinedEvent, LangGraph, RunCreateStateful, RunCreateStreamingStateless,
    RunFailure, RunFinished, RunStatus, StreamMode, StreamModeVariant0Item as Mode, ThreadCreate,
};
use remcall::webhooks::Failure;
use remcall::{ErrorKind, Event, Events};

#[tokio::main]
pub async fn main() -> Result<(), remcall::Error> {
    let url = std::env::var("LANGGRAPH_URL").expect("LANGGRAPH_URL");
    let graph = LangGraph::new(&url)?;

    let answer = streamed(&graph, "hello").await?;
    assert_eq!(answer, "plan for hello, said");
    println!("a run streamed its metadata, states and updates, typed, to its end: {answer:?}");
    let answer = streamed(&graph, "again").await?;
    assert_eq!(answer, "plan for again, said");
    println!("a second run streamed the same way: {answer:?}");

    let events = graph.stream_run_stateless(&run("chat", "fail")).await?;
    let items = all(events).await;
    let (last, before) = items.split_last().expect("the failed run sent events");
    assert!(before.iter().all(Result::is_ok), "{before:?}");
    let error = last.as_ref().expect_err("the run ends with its error");
    assert_eq!(error.kind(), ErrorKind::ErrorEvent, "{error}");
    let failure = error
        .detail::<RunFailure>()
        .expect("the error event is typed");
    assert_eq!(
        (failure.error.as_str(), failure.message.as_str()),
        ("RuntimeError", "CUDA out of memory")
    );
    let stats = graph.stats();
    let stream_run = stats
        .method("stream_run_stateless")
        .expect("stream_run_stateless's statistics");
    assert_eq!(stream_run.streams_broken, 1);
    println!("a failed run ended with the server's error event, typed: {error}");

    let thread = graph.create_thread(&ThreadCreate::default()).await?;
    let mut background = RunCreateStateful::new("slow");
    background.input =
        remcall::Nullable::Value(remcall::serde_json::json!({ "prompt": "wait" }).into());
    background.stream_resumable = Some(true);
    background.stream_mode = Some(StreamMode::Variant0ItemList(vec![Mode::Values]));
    let created = graph.create_run(&thread.thread_id, &background).await?;
    // Joined once it runs, from its first event (`Last-Event-ID: 0`): the server replays what
    // the run streamed so far, each event with its id, then goes silent while the graph waits.
    let mut polls = 0;
    while graph
        .get_run(&thread.thread_id, &created.run_id)
        .await?
        .status
        != RunStatus::Running
    {
        polls += 1;
        assert!(polls < 300, "the background run never started");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let joined = graph
        .join_run_stream(&thread.thread_id, &created.run_id)
        .last_event_id("0")
        .await?;
    let items = all(joined).await;
    // Each event once: an id with its data. The server gives two events written in one
    // millisecond one id (`<ms>-0`, seen 1 run in 3), so an id alone does not name an event.
    let mut seen = Vec::new();
    let mut states = Vec::new();
    for item in items {
        let event = item?;
        let id = event.id.clone().expect("a resumable run's events have ids");
        seen.push(format!("{id} {:?}", event.data));
        if let JoinedEvent::Values(state) = event.data {
            states.push(state.answer.unwrap_or_default());
        }
    }
    let unique: std::collections::HashSet<&String> = seen.iter().collect();
    assert_eq!(unique.len(), seen.len(), "each event once: {seen:?}");
    assert_eq!(
        states.last().map(String::as_str),
        Some("plan for wait, waited")
    );
    let stats = graph.stats();
    let join = stats.method("join_run_stream").expect("join's statistics");
    assert!(join.resumes >= 1, "the silent stream was resumed: {join:?}");
    assert_eq!(join.streams_broken, 0);
    println!(
        "a background run's stream went silent, was resumed {} time(s) from its last event id, and ended: {} events, each once",
        join.resumes,
        seen.len()
    );

    webhook(&graph).await?;
    Ok(())
}

/// Hands each run's end to the workload.
struct Ends(tokio::sync::mpsc::UnboundedSender<RunFinished>);

impl Receiver for Ends {
    async fn run_finished(&self, event: RunFinished) -> Result<(), Failure> {
        self.0.send(event).map_err(|_| Failure::retry_later())
    }
}

/// A run created with a webhook: the server posts its end to the generated receiver, served on
/// loopback, which reads it typed.
async fn webhook(graph: &LangGraph) -> Result<(), remcall::Error> {
    let (ends, mut ended) = tokio::sync::mpsc::unbounded_channel();
    let inbox = webhooks::inbox();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let port = listener.local_addr().expect("its address").port();
    let router = webhooks::router(Ends(ends), inbox.clone());
    tokio::spawn(async move { axum::serve(listener, router).await });

    let thread = graph.create_thread(&ThreadCreate::default()).await?;
    let mut run = RunCreateStateful::new("chat");
    run.input = remcall::Nullable::Value(remcall::serde_json::json!({ "prompt": "hook" }).into());
    run.webhook = Some(format!("http://127.0.0.1:{port}/"));
    let created = graph.create_run(&thread.thread_id, &run).await?;
    // The server posts when the run ends; bounded by a minute, not by the machine's speed.
    let end = tokio::time::timeout(std::time::Duration::from_secs(60), ended.recv())
        .await
        .expect("the server posted the run's end within a minute")
        .expect("the receiver's channel is open");
    assert_eq!(end.run_id, created.run_id);
    assert_eq!(end.status, "success");
    assert_eq!(
        end.values.and_then(|v| v.answer).as_deref(),
        Some("plan for hook, said")
    );
    // The handler gave the run over before the receiver counted it handled: wait for the count.
    let counted = tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while inbox.stats().handled == 0 {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    })
    .await;
    let stats = inbox.stats();
    assert!(counted.is_ok(), "{stats:?}");
    assert_eq!((stats.received, stats.handled), (1, 1), "{stats:?}");
    println!(
        "a run with a webhook posted its end to the generated receiver: {} {}, {} delivery(ies) with keys the spec does not declare (drift)",
        end.run_id, end.status, stats.drifted
    );
    Ok(())
}

/// A run of `graph` on `prompt`, streaming its states and updates.
fn run(graph: &str, prompt: &str) -> RunCreateStreamingStateless {
    let mut run = RunCreateStreamingStateless::new(graph);
    run.input = remcall::Nullable::Value(remcall::serde_json::json!({ "prompt": prompt }).into());
    run.stream_mode = Some(StreamMode::Variant0ItemList(vec![
        Mode::Values,
        Mode::Updates,
    ]));
    run
}

/// Streams a run of the chat graph to its end; its last state's answer.
async fn streamed(graph: &LangGraph, prompt: &str) -> Result<String, remcall::Error> {
    let events = graph.stream_run_stateless(&run("chat", prompt)).await?;
    let mut metadata = 0;
    let mut states: Vec<GraphState> = Vec::new();
    let mut updates = 0;
    for item in all(events).await {
        match item?.data {
            AgentEvent::Metadata(run) => {
                assert!(!run.run_id.is_empty());
                metadata += 1;
            }
            AgentEvent::Values(state) => states.push(state),
            AgentEvent::Updates(update) => {
                assert!(update.is_object(), "{update}");
                updates += 1;
            }
            AgentEvent::Other { event, data } => {
                panic!("an event the spec does not map: {event:?} {data}")
            }
        }
    }
    assert_eq!((metadata, updates), (1, 2), "{states:?}");
    assert_eq!(
        states.len(),
        3,
        "the input, then a state after each step: {states:?}"
    );
    Ok(states.pop().and_then(|s| s.answer).unwrap_or_default())
}

async fn all<T: Send + 'static>(mut events: Events<T>) -> Vec<Result<Event<T>, remcall::Error>> {
    let mut items = Vec::new();
    while let Some(item) = events.next().await {
        items.push(item);
    }
    items
}
