//! The generated streaming client (specs/assistant.yaml) against its generated stub: typed
//! Server-Sent Events that end at `[DONE]`, a run's events by name, JSON Lines; a stream cut by
//! the stub's fault resumed with `Last-Event-ID`, each event once; a silent stream ended by
//! `timeout.idle`; a fallback answering a stream that could not open.

use remcall::{ErrorKind, Event, Events, Profile};
use remcall_example_committed::clients::assistant::stub::AssistantStub;
use remcall_example_committed::clients::assistant::{
    Assistant, AssistantFallback, ChatChunk, ChatRequest, Completion, Delta, LogLine, Run,
    RunEvent, StreamError,
};

fn chunk(index: u32, text: &str) -> ChatChunk {
    ChatChunk {
        index,
        text: text.to_owned(),
    }
}

fn prompt() -> ChatRequest {
    ChatRequest {
        prompt: "Say hello".to_owned(),
        max_tokens: Some(8),
        stream: None,
    }
}

/// Every item, errors included.
async fn all<T: Send + 'static>(mut events: Events<T>) -> Vec<Result<Event<T>, remcall::Error>> {
    let mut items = Vec::new();
    while let Some(item) = events.next().await {
        items.push(item);
    }
    items
}

#[tokio::test]
async fn a_completion_streams_typed_chunks_to_its_declared_end() {
    let stub = AssistantStub::start().await.unwrap();
    let chunks = [chunk(0, "Hel"), chunk(1, "lo")].map(Event::new);
    stub.complete().returns_events(&chunks).expect(1);
    let assistant = Assistant::new(&stub.url()).unwrap();
    let items = all(assistant.complete(&prompt()).await.unwrap()).await;
    let text: String = items
        .into_iter()
        .map(|item| item.unwrap().data.text)
        .collect();
    assert_eq!(text, "Hello");
    let call = &stub.complete().calls()[0];
    assert_eq!(call.body.prompt, "Say hello");
    assert_eq!(call.raw.header("accept"), Some("text/event-stream"));
    let stats = assistant.stats();
    let complete = stats.method("complete").unwrap();
    assert_eq!(
        (complete.calls, complete.events, complete.streams_open),
        (1, 2, 0)
    );
}

#[tokio::test]
async fn a_runs_events_are_read_by_their_names_and_unknown_ones_kept() {
    let stub = AssistantStub::start().await.unwrap();
    let run = Run {
        id: "r1".to_owned(),
        status: "queued".to_owned(),
    };
    let events = [
        Event::new(RunEvent::RunCreated(run.clone())),
        Event::new(RunEvent::MessageDelta(Delta {
            text: "Hi".to_owned(),
        })),
        Event::new(RunEvent::Note("a\nmulti-line note".to_owned())),
        Event::new(RunEvent::Other {
            event: Some("ping".to_owned()),
            data: "{}".to_owned(),
        }),
    ];
    stub.run_events().with_id("r1").returns_events(&events);
    let assistant = Assistant::new(&stub.url()).unwrap();
    let got: Vec<RunEvent> = all(assistant.run_events("r1").await.unwrap())
        .await
        .into_iter()
        .map(|item| item.unwrap().data)
        .collect();
    let sent: Vec<RunEvent> = events.into_iter().map(|e| e.data).collect();
    assert_eq!(got, sent);
}

#[tokio::test]
async fn a_cut_stream_resumes_from_its_last_event_id_and_each_event_comes_once() {
    let stub = AssistantStub::start().await.unwrap();
    let delta = |n: u32| {
        let text = format!("part {n}");
        Event::new(RunEvent::MessageDelta(Delta { text })).with_id(n.to_string())
    };
    // A resumption asks for what follows event 2; any other request gets them all.
    stub.run_events()
        .with_request_header("last-event-id", "2")
        .returns_events(&[delta(3), delta(4)])
        .expect(1);
    stub.run_events()
        .returns_events(&[delta(1), delta(2), delta(3), delta(4)])
        .expect(1);
    stub.run_events().faults().cut_after(2).times(1);
    let assistant = Assistant::new(&stub.url()).unwrap();
    let items = all(assistant.run_events("r1").await.unwrap()).await;
    let ids: Vec<String> = items
        .into_iter()
        .map(|item| item.unwrap().id.unwrap())
        .collect();
    assert_eq!(ids, ["1", "2", "3", "4"]);
    let stats = assistant.stats();
    let run_events = stats.method("run_events").unwrap();
    assert_eq!(
        (run_events.calls, run_events.resumes, run_events.events),
        (1, 1, 4)
    );
}

#[tokio::test]
async fn a_silent_log_stream_ends_after_the_idle_timeout_with_what_it_delivered() {
    let stub = AssistantStub::start().await.unwrap();
    let line = |message: &str| LogLine {
        level: "info".to_owned(),
        message: message.to_owned(),
    };
    stub.logs()
        .returns_lines(&[line("started"), line("never sent")]);
    stub.logs().faults().stall_after(1);
    let assistant = Assistant::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("timeout: { idle: 100ms }").unwrap())
        .build()
        .unwrap();
    let mut lines = assistant.logs(Some("info")).await.unwrap();
    assert_eq!(lines.next().await.unwrap().unwrap(), line("started"));
    let error = lines.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Timeout);
    assert_eq!(error.delivered(), Some(1));
    assert!(lines.next().await.is_none());
    assert_eq!(stub.logs().calls()[0].level.as_deref(), Some("info"));
}

/// Answers a completion that could not open with a canned one.
struct Canned;

impl AssistantFallback for Canned {
    async fn complete(
        &self,
        _body: &ChatRequest,
        cause: remcall::Error,
    ) -> Result<Events<ChatChunk>, remcall::Error> {
        assert_eq!(cause.kind(), ErrorKind::Status);
        Ok(Events::from_items([Ok(Event::new(chunk(0, "(busy)")))]))
    }
}

#[tokio::test]
async fn a_fallback_answers_a_stream_that_could_not_open() {
    let stub = AssistantStub::start().await.unwrap();
    stub.complete().faults().fail(503);
    let assistant = Assistant::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
        .fallback(Canned)
        .build()
        .unwrap();
    let items = all(assistant.complete(&prompt()).await.unwrap()).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap().data.text, "(busy)");
    assert_eq!(assistant.stats().method("complete").unwrap().fallbacks, 1);
}

#[tokio::test]
async fn a_stalled_stream_with_ids_is_resumed_after_the_idle_timeout() {
    let stub = AssistantStub::start().await.unwrap();
    let note = |n: u32| Event::new(RunEvent::Note(format!("note {n}"))).with_id(n.to_string());
    stub.run_events()
        .with_request_header("last-event-id", "1")
        .returns_events(&[note(2)])
        .expect(1);
    stub.run_events()
        .returns_events(&[note(1), note(2)])
        .expect(1);
    stub.run_events().faults().stall_after(1).times(1);
    let assistant = Assistant::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("timeout: { idle: 100ms }").unwrap())
        .build()
        .unwrap();
    let items = all(assistant.run_events("r1").await.unwrap()).await;
    let ids: Vec<String> = items
        .into_iter()
        .map(|item| item.unwrap().id.unwrap())
        .collect();
    assert_eq!(ids, ["1", "2"]);
    assert_eq!(assistant.stats().method("run_events").unwrap().resumes, 1);
}

#[tokio::test]
async fn slow_events_come_apart() {
    let stub = AssistantStub::start().await.unwrap();
    let chunks = [chunk(0, "a"), chunk(1, "b"), chunk(2, "c")].map(Event::new);
    stub.complete().returns_events(&chunks);
    stub.complete()
        .faults()
        .slow_events(std::time::Duration::from_millis(40));
    let assistant = Assistant::new(&stub.url()).unwrap();
    let started = std::time::Instant::now();
    let mut events = assistant.complete(&prompt()).await.unwrap();
    let mut arrivals = Vec::new();
    while let Some(event) = events.next().await {
        event.unwrap();
        arrivals.push(started.elapsed());
    }
    assert_eq!(arrivals.len(), 3);
    // Each event waited its 40 ms: the third no sooner than 120 ms after the request.
    assert!(
        arrivals[2] >= std::time::Duration::from_millis(120),
        "{arrivals:?}"
    );
    assert!(
        arrivals[1] - arrivals[0] >= std::time::Duration::from_millis(30),
        "{arrivals:?}"
    );
}

#[tokio::test]
async fn an_error_event_ends_the_stream_with_the_servers_error_typed() {
    let stub = AssistantStub::start().await.unwrap();
    let chunks = [chunk(0, "Hel"), chunk(1, "lo")].map(Event::new);
    let oom = StreamError {
        error: "CUDA out of memory".to_owned(),
        error_type: Some("generation".to_owned()),
    };
    stub.complete().fails_after(&chunks, &oom).expect(1);
    let assistant = Assistant::new(&stub.url()).unwrap();
    let items = all(assistant.complete(&prompt()).await.unwrap()).await;
    assert_eq!(items.len(), 3, "two chunks, then the error, then nothing");
    assert_eq!(items[1].as_ref().unwrap().data.text, "lo");
    let error = items[2].as_ref().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ErrorEvent, "{error}");
    assert_eq!(error.detail::<StreamError>(), Some(&oom));
    assert!(error.to_string().contains("CUDA out of memory"), "{error}");
    assert!(error.to_string().contains("event: 'error'"), "{error}");
    assert_eq!((error.client(), error.method()), ("Assistant", "complete"));
    let stats = assistant.stats();
    let complete = stats.method("complete").unwrap();
    // Three events came (the error one too); the stream counts as broken: its answer is partial.
    assert_eq!((complete.events, complete.streams_broken), (3, 1));
}

#[tokio::test]
async fn an_error_line_that_is_no_log_line_ends_the_log_even_in_lax_mode() {
    let stub = AssistantStub::start().await.unwrap();
    let line = LogLine {
        level: "info".to_owned(),
        message: "started".to_owned(),
    };
    let failed = StreamError {
        error: "the log store is gone".to_owned(),
        error_type: None,
    };
    stub.logs().fails_after(&[line], &failed);
    // Lax decoding would read the error line as a log line of empty fields: the error is
    // told from it first.
    let assistant = Assistant::builder()
        .base_url(&stub.url())
        .profile(Profile::from_yaml_str("decode: lax").unwrap())
        .build()
        .unwrap();
    let mut lines = assistant.logs(None).await.unwrap();
    assert_eq!(lines.next().await.unwrap().unwrap().message, "started");
    let error = lines.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::ErrorEvent, "{error}");
    assert_eq!(error.detail::<StreamError>(), Some(&failed));
    assert!(lines.next().await.is_none());
    let stats = assistant.stats();
    let logs = stats.method("logs").unwrap();
    assert_eq!((logs.drift, logs.streams_broken), (0, 1));
}

#[tokio::test]
async fn twins_set_the_stream_flag_and_the_stub_answers_the_one_called() {
    let stub = AssistantStub::start().await.unwrap();
    stub.complete()
        .returns_events(&[Event::new(chunk(0, "Hi"))])
        .expect(1);
    stub.complete_whole()
        .returns(&Completion {
            text: "Hi there".to_owned(),
        })
        .expect(1);
    let assistant = Assistant::new(&stub.url()).unwrap();
    // The caller's flag says the opposite of each method: each method sets its own.
    let mut asked = prompt();
    asked.stream = Some(false);
    let streaming = ChatRequest {
        stream: Some(true),
        ..prompt()
    };
    let whole = assistant.complete_whole(&streaming).await.unwrap();
    assert_eq!(whole.text, "Hi there");
    let items = all(assistant.complete(&asked).await.unwrap()).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].as_ref().unwrap().data.text, "Hi");
    assert_eq!(stub.complete().calls()[0].body.stream, Some(true));
    assert_eq!(stub.complete_whole().calls()[0].body.stream, Some(false));
}
