use super::*;

#[test]
fn an_event_sent_twice_in_a_row_is_delivered_once_and_a_new_one_with_its_id_is_not_lost() {
    let out = events_of(&[
        b"id: 7\nevent: values\ndata: {\"a\":1}\n\nid: 7\nevent: values\ndata: {\"a\":1}\n\n",
        b"id: 7\nevent: values\ndata: {\"a\":2}\n\nid: 8\ndata: x\n\n",
    ]);
    let data: Vec<_> = out.iter().map(|e| e.data.as_str()).collect();
    assert_eq!(data, ["{\"a\":1}", "{\"a\":2}", "x"]);
    // Without ids, the same data twice is two events.
    let out = events_of(&[b"data: tick\n\ndata: tick\n\n"]);
    assert_eq!(out.len(), 2);
}

#[test]
fn the_event_a_reconnection_named_sent_again_first_is_not_delivered_twice() {
    let mut parser = SseParser::new(1 << 20);
    let mut out = Vec::new();
    parser
        .feed(b"id: 1\ndata: a\n\nid: 2\ndata: b\n\n", &mut |e| {
            out.push(e)
        })
        .unwrap();
    parser.reconnected();
    // The server goes on from event 2 itself, then sends 3.
    parser
        .feed(b"id: 2\ndata: b\n\nid: 3\ndata: c\n\n", &mut |e| {
            out.push(e)
        })
        .unwrap();
    let ids: Vec<_> = out.iter().map(|e| e.id.clone().unwrap()).collect();
    assert_eq!(ids, ["1", "2", "3"]);
    // After a reconnection, an event without an id of its own carries the last one, and is
    // new: delivered.
    parser.reconnected();
    parser.feed(b"data: d\n\n", &mut |e| out.push(e)).unwrap();
    assert_eq!(out.last().map(|e| e.data.as_str()), Some("d"));
}

fn events_of(chunks: &[&[u8]]) -> Vec<RawEvent> {
    let mut parser = SseParser::new(1 << 20);
    let mut out = Vec::new();
    for chunk in chunks {
        parser.feed(chunk, &mut |e| out.push(e)).unwrap();
    }
    out
}

fn event(event: Option<&str>, data: &str, id: Option<&str>) -> RawEvent {
    RawEvent {
        event: event.map(str::to_owned),
        data: data.to_owned(),
        id: id.map(str::to_owned),
        retry: None,
    }
}

/// What a stream dispatches: (type, data, id) of each event.
type Expected = &'static [(Option<&'static str>, &'static str, Option<&'static str>)];

/// Every rule of the standard's parsing section, one row each: the stream and the events it
/// dispatches.
const RULES: &[(&str, &[u8], Expected)] = &[
    ("one event", b"data: a\n\n", &[(None, "a", None)]),
    (
        "a leading BOM is dropped",
        b"\xEF\xBB\xBFdata: a\n\n",
        &[(None, "a", None)],
    ),
    (
        "a BOM is dropped only at the start",
        b"data: a\n\n\xEF\xBB\xBFdata: b\n\n",
        &[(None, "a", None)],
    ),
    (
        "LF ends lines",
        b"data: a\n\ndata: b\n\n",
        &[(None, "a", None), (None, "b", None)],
    ),
    (
        "CR ends lines",
        b"data: a\r\rdata: b\r\r",
        &[(None, "a", None), (None, "b", None)],
    ),
    (
        "CRLF ends lines",
        b"data: a\r\n\r\ndata: b\r\n\r\n",
        &[(None, "a", None), (None, "b", None)],
    ),
    (
        "mixed line ends",
        b"data: a\r\n\rdata: b\n\r\n",
        &[(None, "a", None), (None, "b", None)],
    ),
    (
        "a comment is ignored",
        b": keep-alive\ndata: a\n\n",
        &[(None, "a", None)],
    ),
    ("a comment alone dispatches nothing", b":\n\n", &[]),
    (
        "data lines are joined with LF",
        b"data: a\ndata: b\ndata\n\n",
        &[(None, "a\nb\n", None)],
    ),
    (
        "a field without a colon has an empty value",
        b"data\n\n",
        &[(None, "", None)],
    ),
    (
        "only one space after the colon is dropped",
        b"data:  a\ndata:b\n\n",
        &[(None, " a\nb", None)],
    ),
    (
        "a colon in the value stays",
        b"data: a: b\n\n",
        &[(None, "a: b", None)],
    ),
    (
        "an event type",
        b"event: add\ndata: 1\n\n",
        &[(Some("add"), "1", None)],
    ),
    (
        "the type does not outlive its event",
        b"event: add\ndata: 1\n\ndata: 2\n\n",
        &[(Some("add"), "1", None), (None, "2", None)],
    ),
    (
        "an event without data is not dispatched, and its type is forgotten",
        b"event: add\n\ndata: 2\n\n",
        &[(None, "2", None)],
    ),
    (
        "an id persists to later events",
        b"id: 7\ndata: a\n\ndata: b\n\n",
        &[(None, "a", Some("7")), (None, "b", Some("7"))],
    ),
    (
        "an empty id clears it",
        b"id: 7\ndata: a\n\nid\ndata: b\n\n",
        &[(None, "a", Some("7")), (None, "b", None)],
    ),
    (
        "an id with NUL is ignored",
        b"id: 7\ndata: a\n\nid: 8\0\ndata: b\n\n",
        &[(None, "a", Some("7")), (None, "b", Some("7"))],
    ),
    (
        "an id set by an event without data still counts",
        b"id: 9\n\ndata: a\n\n",
        &[(None, "a", Some("9"))],
    ),
    (
        "unknown fields are ignored",
        b"foo: bar\ndata: a\n\n",
        &[(None, "a", None)],
    ),
    (
        "field names are case-sensitive",
        b"Data: a\ndata: b\n\n",
        &[(None, "b", None)],
    ),
    (
        "an event cut off by the end is not dispatched",
        b"data: a\n\ndata: b\n",
        &[(None, "a", None)],
    ),
    (
        "a line cut off by the end is not dispatched",
        b"data: a",
        &[],
    ),
    (
        "invalid UTF-8 reads as replacement characters",
        b"data: \xFF\n\n",
        &[(None, "\u{FFFD}", None)],
    ),
];

/// Each row of [`RULES`], the stream whole and cut into one-byte chunks.
#[test]
fn each_rule_of_the_whatwg_event_stream_parsing() {
    for (rule, stream, expected) in RULES {
        let expected: Vec<RawEvent> = expected
            .iter()
            .map(|(kind, data, id)| event(*kind, data, *id))
            .collect();
        assert_eq!(events_of(&[stream]), expected, "{rule} (whole)");
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(events_of(&bytes), expected, "{rule} (byte by byte)");
    }
}

#[test]
fn retry_is_taken_only_when_all_digits() {
    let mut parser = SseParser::new(1024);
    let mut out = Vec::new();
    let mut push = |e| out.push(e);
    parser.feed(b"retry: 1500\ndata: a\n\n", &mut push).unwrap();
    assert_eq!(
        parser.reconnection_time(),
        Some(Duration::from_millis(1500))
    );
    for ignored in [
        &b"retry: 1.5\n\n"[..],
        b"retry: -1\n\n",
        b"retry: 10s\n\n",
        b"retry\n\n",
        b"retry:  2\n\n",
    ] {
        parser.feed(ignored, &mut push).unwrap();
        assert_eq!(
            parser.reconnection_time(),
            Some(Duration::from_millis(1500))
        );
    }
    parser.feed(b"retry: 20\n\n", &mut push).unwrap();
    assert_eq!(parser.reconnection_time(), Some(Duration::from_millis(20)));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].retry, Some(Duration::from_millis(1500)));
}

#[test]
fn a_cr_at_a_chunks_end_and_an_lf_after_it_are_one_line_end() {
    // Were they two, the LF would be a blank line and dispatch `a` early, joined wrongly.
    let events = events_of(&[b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]);
    assert_eq!(events, vec![event(None, "a\nb", None)]);
}

#[test]
fn an_event_or_line_past_the_limit_is_refused_not_kept() {
    let mut parser = SseParser::new(16);
    let endless = [b'x'; 10];
    let mut result = Ok(());
    for _ in 0..3 {
        result = result.and_then(|()| parser.feed(&endless, &mut |_| {}));
    }
    assert_eq!(result, Err(TooLong { limit: 16 }));
    assert!(
        parser.line.capacity() <= 32,
        "it kept {} bytes",
        parser.line.capacity()
    );
    let mut parser = SseParser::new(16);
    let lines = b"data: 0123456\ndata: 0123456\ndata: 0123456\n";
    assert_eq!(parser.feed(lines, &mut |_| {}), Err(TooLong { limit: 16 }));
}

#[test]
fn an_id_whose_event_was_not_dispatched_is_not_the_one_to_resume_from() {
    let mut parser = SseParser::new(1024);
    parser
        .feed(b"id: 1\ndata: a\n\nid: 2\ndata: b\n", &mut |_| {})
        .unwrap();
    assert_eq!(parser.last_event_id(), Some("1"));
    parser.reconnected();
    let mut out = Vec::new();
    parser.feed(b"data: c\n\n", &mut |e| out.push(e)).unwrap();
    assert_eq!(out, vec![event(None, "c", Some("1"))]);
}

#[test]
fn a_reconnection_keeps_the_id_and_drops_the_half_read_event() {
    let mut parser = SseParser::new(1024);
    let mut out = Vec::new();
    parser
        .feed(b"id: 3\ndata: a\n\ndata: half", &mut |e| out.push(e))
        .unwrap();
    parser.reconnected();
    assert_eq!(parser.last_event_id(), Some("3"));
    parser
        .feed(b"\xEF\xBB\xBFdata: b\n\n", &mut |e| out.push(e))
        .unwrap();
    assert_eq!(
        out,
        vec![event(None, "a", Some("3")), event(None, "b", Some("3"))]
    );
}
