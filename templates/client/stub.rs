{#- The typed stub of the API, with `stubs: true`: the file `<client>_stub.rs` beside the
    client, which the client's `mod stub` includes (so it is read from wherever the client is,
    OUT_DIR included). Its items as the inside of that module. Input: ir::Client. -#}
{%- if let Some(stub) = client.stubs %}
    use super::*;

    /// A server of [`{{ client.name }}`]'s API on a free loopback port: build the client with
    /// [`{{ stub.name }}::url`], tell each operation what to answer, inject faults, read the
    /// calls.
    #[derive(Debug)]
    pub struct {{ stub.name }}(remcall::stub::Stub);

    impl {{ stub.name }} {
        /// Starts it, with seed 0 for its random faults. A request that does not fit the spec
        /// (a parameter or body not of its type) is answered 400 and fails the test when the
        /// stub is dropped.
        pub async fn start() -> std::io::Result<{{ stub.name }}> {
            remcall::stub::Stub::start_checked(&{{ client.spec_static }}, Some(fits_the_spec))
                .await
                .map({{ stub.name }})
        }

        /// The base URL to build the client with.
        pub fn url(&self) -> String {
            self.0.url()
        }

        {%- if let Some(webhooks) = client.webhooks %}

        /// Sends `event` as the API would send it: signed with the scheme and first secret of
        /// `to`'s verifier, to the receiver `to` delivers to (a service's generated
        /// [`webhooks::router`](super::webhooks::router) under test).
        pub async fn send_webhook(&self, to: &remcall::webhooks::Sender, event: &super::webhooks::{{ webhooks.event }}) -> Result<remcall::webhooks::Sent, remcall::Error> {
            event.send(to).await
        }
        {%- endif %}

        /// The untyped stub: `seed`, faults for every operation (`all()`).
        pub fn inner(&self) -> &remcall::stub::Stub {
            &self.0
        }
{%- for method in stub.methods %}

        /// {{ method.link }}: a rule made by its first matcher or answer,
        /// its faults, its calls.
        pub fn {{ method.accessor }}(&self) -> {{ method.type_name }}<'_> {
            {{ method.type_name }}(self.0.operation(&{{ method.spec_const }}))
        }
{%- endfor %}
    }

    /// Reads a received request as its operation's types.
    fn fits_the_spec(raw: &remcall::stub::Recorded) -> Result<(), String> {
        match raw.index {
            {%- for method in stub.methods %}
            {{ method.index }} => <{{ method.call_name }} as remcall::stub::Received>::decode(raw).map(drop),
            {%- endfor %}
            _ => Ok(()),
        }
    }
{%- for method in stub.methods %}

    /// A request of {{ method.link }} the stub received, read as the spec's types.
    #[derive(Debug)]
    pub struct {{ method.call_name }} {
        {%- for (field, ty, read) in method.fields %}
        /// `{{ read }}`
        pub {{ field }}: {{ ty }},
        {%- endfor %}
        /// The request as received.
        pub {{ method.raw_field }}: remcall::stub::Recorded,
    }

    impl remcall::stub::Received for {{ method.call_name }} {
        fn decode(raw: &remcall::stub::Recorded) -> Result<Self, String> {
            Ok(Self {
                {%- for (field, _, read) in method.fields %}
                {{ field }}: {{ read }}?,
                {%- endfor %}
                {{ method.raw_field }}: raw.clone(),
            })
        }
    }

    /// A rule for {{ method.link }}.
    #[derive(Debug)]
    pub struct {{ method.type_name }}<'a>(remcall::stub::Stubbing<'a>);

    impl {{ method.type_name }}<'_> {
        remcall::__stub_common!();

        /// The requests it received, read as the spec's types (one that did not fit was
        /// answered 400, and fails the test when the stub is dropped).
        pub fn calls(&self) -> Vec<{{ method.call_name }}> {
            self.0.calls_as()
        }
{%- for setter in method.setters %}

        /// Only requests whose `{{ setter.wire }}` is `value`.
        pub fn {{ setter.name }}(self, value: {{ setter.ty }}) -> Self {
            Self(self.0.{{ setter.call }}({{ "{:?}"|format(setter.wire) }}, std::borrow::Borrow::<{{ setter.borrowed }}>::borrow(&value)))
        }
{%- endfor %}
{%- if let Some(returns) = method.returns %}

        /// Answers 200 with `value`.
        pub fn returns(self, value: &{{ returns }}) -> Self {
            Self(self.0.returns_json(value))
        }
{%- endif %}
{%- if let Some(text) = method.raw_returns %}
{%- if text %}

        /// Answers 200 with `text` (`text/plain`).
        pub fn returns(self, text: &str) -> Self {
            Self(self.0.returns_body(200, "text/plain; charset=utf-8", text.to_owned()))
        }
{%- else %}

        /// Answers 200 with `body` as it is (`application/octet-stream`).
        pub fn returns(self, body: impl Into<remcall::bytes::Bytes>) -> Self {
            Self(self.0.returns_body(200, "application/octet-stream", body))
        }
{%- endif %}
{%- endif %}
{%- if let Some(streams) = method.streams %}
{%- if streams.lines %}

        /// Answers 200 with these JSON lines, each a chunk of its own (the faults
        /// `cut_after`, `stall_after` and `slow_events` count them).
        pub fn returns_lines(self, lines: &[{{ streams.item }}]) -> Self {
            Self(self.0.returns_lines_with(lines, {{ streams.writer }}))
        }
        {%- if let Some((error, _)) = streams.error %}

        /// Answers 200 with these lines, then the declared error line: the server reporting a
        /// failure mid-answer.
        pub fn fails_after(self, lines: &[{{ streams.item }}], error: &{{ error }}) -> Self {
            Self(self.0.returns_lines_then_error(lines, {{ streams.writer }}, remcall::stub::json_line(error)))
        }
        {%- endif %}
{%- else %}

        /// Answers 200 with these events (set `id` on them to let a client resume), each a
        /// chunk of its own: the faults `cut_after`, `stall_after` and `slow_events` count them.
        {%- if let Some(end) = streams.end %}
        #[doc = {{ "{:?}"|format(format!(" The declared end, `{}`, follows them.", end)) }}]
        {%- endif %}
        pub fn returns_events(self, events: &[remcall::Event<{{ streams.item }}>]) -> Self {
            Self(self.0.returns_events_with(events, {{ streams.writer }}, {% if let Some(end) = streams.end %}Some({{ "{:?}"|format(end) }}){% else %}None{% endif %}))
        }
        {%- if let Some((error, event)) = streams.error %}

        /// Answers 200 with these events, then the declared error event (no end follows): the
        /// server reporting a failure mid-answer.
        pub fn fails_after(self, events: &[remcall::Event<{{ streams.item }}>], error: &{{ error }}) -> Self {
            Self(self.0.returns_events_then_error(events, {{ streams.writer }}, ({% if let Some(event) = event %}Some({{ "{:?}"|format(event) }}){% else %}None{% endif %}, remcall::stub::json_line(error))))
        }
        {%- endif %}
{%- endif %}
{%- endif %}
{%- if let Some((errors, variants)) = method.errors %}

        /// Answers with a declared error body under its status (a range's first; 500 for
        /// `default`).
        pub fn returns_error(self, error: &{{ errors }}) -> Self {
            Self(match error {
                {%- for (variant, status, media) in variants %}
                {%- if let Some(media) = media %}
                {{ errors }}::{{ variant }}(body) => self.0.returns_body({{ status }}, {{ "{:?}"|format(media) }}, body.clone()),
                {%- else %}
                {{ errors }}::{{ variant }}(body) => self.0.returns_json_status({{ status }}, body),
                {%- endif %}
                {%- endfor %}
            })
        }
{%- endif %}
    }
{%- endfor %}
{%- endif %}
