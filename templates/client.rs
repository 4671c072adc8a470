{#- One generated client module. Input: ir::Client. Output is parsed by syn and formatted by
    prettyplease, so layout here is for the reader of this template, not of the output. The
    module stands alone (a file of its own, or the module `include_client!` wraps it in), where
    the lint allowances generated code needs are written once. Text from the spec arrives plain:
    `"{:?}"|format(text)` writes it as a Rust string literal, quoted and escaped. Its parts are
    in `client/`; the typed stub (`client/stub.rs`) is rendered into a file of its own, which
    `mod stub` here includes. What is fixed per method is a static beside its route, not code in
    its body: its `MethodSpec`, a paged method's `Paging`, a streamed method's `EventsSpec` or
    `LinesSpec`; a method's body is its request, its fallback and one call. -#}
{#- The request a method builds: in its own body, or (a paginated method) in a function its call and its `_stream` share. -#}
{#- A method's arguments as its async method, its fallback and its `_stream` take them. -#}
{%- macro args_of(method) %}{% for (name, ty) in method.args %}{{ name }}: {{ ty }}, {% endfor %}{% if let Some(named) = method.named %}{{ method.locals.options }}: &{{ named.options }}, {% endif %}{% endmacro %}
{%- macro passed_of(method) %}{% for (name, _) in method.args %}{{ name }}, {% endfor %}{% if method.named.is_some() %}{{ method.locals.options }}, {% endif %}{% endmacro %}
{%- macro request_of(method) %}
        {%- if method.paging.is_some() %}
        let {{ method.locals.request }} = {{ method.name }}_request({% call passed_of(method) %}{% endcall %});
        {%- else %}
        {%- call options_of(method) %}{% endcall %}
        let {{ method.locals.request }} = {% call request_expr(method) %}{% endcall %};
        {%- endif %}
{%- endmacro %}
{#- The data that ends an event stream, or `None`. -#}
{%- macro end_of(streamed) %}{% if let Some(end) = streamed.end %}Some({{ "{:?}"|format(end) }}){% else %}None{% endif %}{% endmacro %}
{#- The stream's error events, or `None`. -#}
{%- macro errors_of(streamed) %}{% if let Some(error) = streamed.error %}Some({{ error.expr }}){% else %}None{% endif %}{% endmacro %}
{#- A named method's options taken apart into its parameters. -#}
{%- macro options_of(method) %}
        {%- if let Some(named) = method.named %}
        let {{ named.options }} { {% for field in named.fields %}{{ field.name }}, {% endfor %} } = {{ method.locals.options }};
        {%- endif %}
{%- endmacro %}

{%- macro error_enum(errors) %}
#[doc = {{ "{:?}"|format(errors.doc) }}]
#[derive(Debug, Clone, PartialEq)]
pub enum {{ errors.name }} {
    {%- for variant in errors.variants %}
    #[doc = " `{{ variant.written }}`"]
    {{ variant.name }}({{ variant.payload }}),
    {%- endfor %}
}

impl {{ errors.name }} {
    fn from_status(status: u16, body: &[u8]) -> Option<remcall::__codegen::Detail> {
        {%- if errors.variants.len() == 1 && errors.has_default %}
        let decoded = {{ errors.variants[0].decode() }};
        {%- else %}
        let decoded = match status {
            {%- for variant in errors.variants %}
            {{ variant.pattern }} => {{ variant.decode() }},
            {%- endfor %}
            {%- if !errors.has_default %}
            _ => return None,
            {%- endif %}
        };
        {%- endif %}
        decoded.map(|detail| std::sync::Arc::new(detail) as remcall::__codegen::Detail)
    }
}
{%- endmacro %}
{#- The request built from the method's parameters. -#}
{%- macro request_expr(method) %}{{ method.spec_const }}.request()
        {%- for param in method.params %}
            .{{ param.call }}{% if param.sets.is_some() %}_setting{% endif %}({% if let Some(wire) = param.wire %}{{ "{:?}"|format(wire) }}, {% endif %}{{ param.name }}{% if let Some(sets) = param.sets %}, {{ sets }}{% endif %})
        {%- endfor %}
        {%- if let Some(content_type) = method.content_type %}
            .content_type({{ "{:?}"|format(content_type) }})
        {%- endif %}
        {%- if let Some(header) = method.idempotency_key %}
            .idempotency_key({{ "{:?}"|format(header) }})
        {%- endif %}
        {%- if let Some(errors) = method.errors %}
            .errors({{ errors.name }}::from_status)
        {%- endif %}
{%- endmacro %}

{%- if client.uses_decode %}
use remcall::__codegen::decode;
{%- endif %}
{%- include "client/types.rs" %}

{%- for method in client.methods %}
{%- if let Some(streamed) = method.streamed %}
{%- if let Some(cases) = streamed.cases %}
#[doc = {{ "{:?}"|format(cases.doc) }}]
#[derive(Debug, Clone, PartialEq)]
pub enum {{ cases.name }} {
    {%- for (variant, event, ty, _) in cases.variants %}
    #[doc = {{ "{:?}"|format(format!(" `{}`", event)) }}]
    {{ variant }}({{ ty }}),
    {%- endfor %}
    /// An event of a name the spec does not map (or none), as it came.
    {{ cases.open }} { event: Option<String>, data: String },
}
{%- endif %}
{%- endif %}
{%- if let Some(responses) = method.responses %}
#[doc = {{ "{:?}"|format(responses.doc) }}]
#[derive(Debug, Clone, PartialEq)]
pub enum {{ responses.name }} {
    {%- for (variant, status, payload, _) in responses.variants %}
    #[doc = " `{{ status }}`"]
    {{ variant }}{% if let Some(payload) = payload %}({{ payload }}){% endif %},
    {%- endfor %}
}

impl {{ responses.name }} {
    fn decode(response: remcall::Response) -> Result<Self, remcall::Error> {
        match response.status.as_u16() {
            {%- for (variant, status, payload, decoder) in responses.variants %}
            {%- if payload.is_some() %}
            {{ status }} => decode::{{ decoder }}(response).map(Self::{{ variant }}),
            {%- else %}
            {{ status }} => Ok(Self::{{ variant }}),
            {%- endif %}
            {%- endfor %}
            _ => Err(decode::unexpected_status(&response, {{ "{:?}"|format(responses.expected) }})),
        }
    }
}
{%- endif %}
{%- if let Some(errors) = method.errors %}
{%- if let Some(shared) = errors.shared %}
#[doc = {{ "{:?}"|format(errors.doc) }}]
pub type {{ errors.name }} = {{ shared }};
{%- else %}
{%- call error_enum(errors) %}{% endcall %}
{%- endif %}
{%- endif %}
{%- if let Some(headers) = method.headers %}
#[doc = {{ "{:?}"|format(headers.doc) }}]
#[derive(Debug, Clone, PartialEq)]
pub struct {{ headers.name }} {
    {%- for (field, wire, ty) in headers.fields %}
    #[doc = {{ "{:?}"|format(format!(" `{}`", wire)) }}]
    pub {{ field }}: {{ ty }},
    {%- endfor %}
}

impl {{ headers.name }} {
    fn read(response: &remcall::Response) -> Result<Self, remcall::Error> {
        Ok(Self {
            {%- for (field, wire, _) in headers.fields %}
            {{ field }}: decode::header(response, {{ "{:?}"|format(wire) }})?,
            {%- endfor %}
        })
    }

    /// The body and these headers of a response.
    fn decode(response: remcall::Response) -> Result<remcall::WithHeaders<{{ headers.body }}, Self>, remcall::Error> {
        decode::with_headers(response, Self::read, {{ headers.body_decode }})
    }
}
{%- endif %}
{%- endfor %}
{%- for errors in client.error_enums %}
{%- call error_enum(errors) %}{% endcall %}
{%- endfor %}

{%- for method in client.methods %}
static {{ method.spec_const }}: remcall::__codegen::MethodSpec = remcall::__codegen::MethodSpec {
    index: {{ loop.index0 }},
    name: {{ "{:?}"|format(method.spec_name) }},
    http_method: "{{ method.verb }}",
    path: {{ "{:?}"|format(method.path) }},
    idempotent: {{ method.idempotent }},
    reads: {{ method.reads }},
    not_found_none: {{ method.not_found_none }},
    streams: {{ method.streamed.is_some() }},
    profile: {% if method.profile.text.is_empty() %}""{% else %}r{{ method.profile.hashes }}"{{ method.profile.text }}"{{ method.profile.hashes }}{% endif %},
};
{%- endfor %}

{%- for method in client.methods %}
{%- if let Some(paging) = method.paging %}
static {{ paging.static_name }}: remcall::__codegen::Paging = remcall::__codegen::Paging {
    items: &[{{ paging.items|join(", ") }}],
    next: remcall::__codegen::NextPage::{{ paging.next }},
    in_body: {{ paging.in_body }},
};
{%- endif %}
{%- endfor %}

{%- for method in client.methods %}
{%- if let Some(streamed) = method.streamed %}
static {{ streamed.static_name }}: remcall::__codegen::{{ streamed.spec_type }}<{{ streamed.item }}> = remcall::__codegen::{{ streamed.spec_type }} {
    decode: {{ streamed.decoder }},
    {%- if !streamed.lines %}
    end: {% call end_of(streamed) %}{% endcall %},
    {%- endif %}
    errors: {% call errors_of(streamed) %}{% endcall %},
};
{%- endif %}
{%- endfor %}

{%- for method in client.methods %}
{%- if method.paging.is_some() %}

/// The request of [`{{ client.name }}::{{ method.name }}`], for its call and its stream alike.
fn {{ method.name }}_request({% call args_of(method) %}{% endcall %}) -> remcall::__codegen::Request {
    {%- call options_of(method) %}{% endcall %}
    {% call request_expr(method) %}{% endcall %}
}
{%- endif %}
{%- endfor %}

static {{ client.spec_static }}: remcall::__codegen::ClientSpec = remcall::__codegen::ClientSpec {
    name: {{ "{:?}"|format(client.name) }},
    base_urls: &[{% for url in client.base_urls %}{{ "{:?}"|format(url) }}, {% endfor %}],
    base_path: {{ "{:?}"|format(client.base_path) }},
    profile: {% if client.profile.text.is_empty() %}""{% else %}r{{ client.profile.hashes }}"{{ client.profile.text }}"{{ client.profile.hashes }}{% endif %},
    methods: &[{% for method in client.methods %}&{{ method.spec_const }}, {% endfor %}],
};

{%- for line in client.doc %}
#[doc = {{ "{:?}"|format(line) }}]
{%- endfor %}
///
/// Cheap to clone: clones share connections, policies and statistics.
{%- if client.fallback_trait.is_some() %}
pub struct {{ client.name }}<F = {% if let Some(fallback) = client.default_fallback %}{{ fallback }}{% else %}remcall::NoFallback{% endif %}> {
    inner: remcall::__codegen::Client,
    fallback: std::sync::Arc<F>,
}

impl<F> Clone for {{ client.name }}<F> {
    fn clone(&self) -> Self {
        Self { inner: self.inner.clone(), fallback: self.fallback.clone() }
    }
}
{%- else %}
#[derive(Clone)]
pub struct {{ client.name }} {
    inner: remcall::__codegen::Client,
}
{%- endif %}

impl{% if client.fallback_trait.is_some() %}<F>{% endif %} std::fmt::Debug for {{ client.name }}{% if client.fallback_trait.is_some() %}<F>{% endif %} {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct({{ "{:?}"|format(client.name) }}).field("inner", &self.inner).finish_non_exhaustive()
    }
}

impl {{ client.name }} {
    /// A client calling `base_url`, with the spec's profile.
    pub fn new(base_url: &str) -> Result<Self, remcall::Error> {
        Self::builder().base_url(base_url).build()
    }

    /// A builder to set endpoints, a runtime profile, an HTTP client{% if client.fallback_trait.is_some() %} or a fallback{% endif %}.
    pub fn builder() -> {{ client.builder }} {
        {{ client.builder }} {
            inner: remcall::__codegen::ClientBuilder::new(&{{ client.spec_static }})
                {%- for interceptor in client.interceptors %}
                .interceptor(<{{ interceptor }}>::default())
                {%- endfor %},
            {%- if client.fallback_trait.is_some() %}
            fallback: {% if let Some(fallback) = client.default_fallback %}<{{ fallback }}>::default(){% else %}remcall::NoFallback{% endif %},
            {%- endif %}
        }
    }
}

impl{% if client.fallback_trait.is_some() %}<F>{% endif %} {{ client.name }}{% if client.fallback_trait.is_some() %}<F>{% endif %} {
    /// Per-method statistics since the client was built, of the methods used so far.
    pub fn stats(&self) -> remcall::ClientStats {
        self.inner.stats()
    }

    /// Per-method statistics of every method, those never called with their zeros.
    pub fn stats_all(&self) -> remcall::ClientStats {
        self.inner.stats_all()
    }
}

impl{% if client.fallback_trait.is_some() %}<F>{% endif %} remcall::Observe for {{ client.name }}{% if client.fallback_trait.is_some() %}<F>{% endif %} {
    fn observe(&self) -> remcall::Observer {
        remcall::Observe::observe(&self.inner)
    }
}

impl{% if let Some(fallback) = client.fallback_trait %}<F: {{ fallback }}>{% endif %} {{ client.name }}{% if client.fallback_trait.is_some() %}<F>{% endif %} {
{%- for method in client.methods %}
    {%- for line in method.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    {%- if let Some(named) = method.named %}
    ///
    #[doc = {{ "{:?}"|format(format!(" Optional parameters are set by name on the [`{}`] it returns,", named.call)) }}]
    #[doc = {{ "{:?}"|format(format!(" which is awaited: `.{}(..).await` (or all at once, [`Self::{}`]).", named.fields[0].setter.trim_start_matches("r#"), method.call_fn)) }}]
    pub fn {{ method.name }}<'a>(&'a self, {% for (name, ty) in named.required %}{{ name }}: {{ ty }}, {% endfor %}) -> {{ named.call }}<'a{% if client.fallback_trait.is_some() %}, F{% endif %}> {
        {{ named.call }} { client: self, {% if !named.required.is_empty() %}required: ({% for (name, _) in named.required %}{{ name }}, {% endfor %}), {% endif %}options: {{ named.options }}::default() }
    }

    #[doc = {{ "{:?}"|format(format!(" {} with its optional parameters in a [`{}`].", method.self_link, named.options)) }}]
    {%- endif %}
    pub async fn {{ method.call_fn }}(&self, {% call args_of(method) %}{% endcall %}) -> Result<{{ method.returns }}, remcall::Error> {
        {%- call request_of(method) %}{% endcall %}
        {%- if method.stream %}
        self.inner.call_stream({{ method.locals.request }}).await
        {%- else if let Some(streamed) = method.streamed %}
        {%- if method.fallback %}
        let {{ method.locals.fallback }} = |{{ method.locals.cause }}| self.fallback.{{ method.name }}({% call passed_of(method) %}{% endcall %}{{ method.locals.cause }});
        let {{ method.locals.opened }} = self.inner.{{ streamed.call }}({{ method.locals.request }}, &{{ streamed.static_name }});
        self.inner.or_fallback(&{{ method.spec_const }}, {{ method.locals.opened }}, {{ method.locals.fallback }}).await
        {%- else %}
        self.inner.{{ streamed.call }}({{ method.locals.request }}, &{{ streamed.static_name }}).await
        {%- endif %}
        {%- else if method.fallback %}
        let {{ method.locals.fallback }} = |{{ method.locals.cause }}| self.fallback.{{ method.name }}({% call passed_of(method) %}{% endcall %}{{ method.locals.cause }});
        self.inner.call_or_fallback({{ method.locals.request }}, {{ method.decode }}, {{ method.locals.fallback }}).await
        {%- else %}
        self.inner.call({{ method.locals.request }}, {{ method.decode }}).await
        {%- endif %}
    }
    {%- if let Some(paging) = method.paging %}

    #[doc = {{ "{:?}"|format(format!(" {}, page after page: its items as a stream, each page a call", method.self_link)) }}]
    /// of its own (retries, breaker and limits apply per page), fetched as the items before it
    /// are taken.
    pub fn {{ paging.stream }}(&self, {% call args_of(method) %}{% endcall %}) -> remcall::Pages<{{ paging.item }}> {
        {%- call request_of(method) %}{% endcall %}
        self.inner.paginate({{ method.locals.request }}, &{{ paging.static_name }})
    }
    {%- endif %}
{% endfor %}
}

/// Builds a [`{{ client.name }}`].
{%- if client.fallback_trait.is_some() %}
pub struct {{ client.builder }}<F = {% if let Some(fallback) = client.default_fallback %}{{ fallback }}{% else %}remcall::NoFallback{% endif %}> {
    inner: remcall::__codegen::ClientBuilder,
    fallback: F,
}
{%- else %}
pub struct {{ client.builder }} {
    inner: remcall::__codegen::ClientBuilder,
}
{%- endif %}

impl{% if client.fallback_trait.is_some() %}<F>{% endif %} std::fmt::Debug for {{ client.builder }}{% if client.fallback_trait.is_some() %}<F>{% endif %} {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct({{ "{:?}"|format(client.builder) }}).field("inner", &self.inner).finish_non_exhaustive()
    }
}

impl{% if client.fallback_trait.is_some() %}<F>{% endif %} {{ client.builder }}{% if client.fallback_trait.is_some() %}<F>{% endif %} {
    /// Calls go to this endpoint instead of the spec's `base_url`.
    pub fn base_url(mut self, url: &str) -> Self {
        self.inner = self.inner.base_url(url);
        self
    }

    /// Calls are spread over these endpoints.
    pub fn base_urls(mut self, urls: impl IntoIterator<Item = impl AsRef<str>>) -> Self {
        self.inner = self.inner.base_urls(urls);
        self
    }

    /// Overrides the spec's profile field by field, e.g.
    /// `remcall::Profile::from_yaml_str("retry: { max_attempts: 1 }")?`.
    pub fn profile(mut self, profile: remcall::Profile) -> Self {
        self.inner = self.inner.profile(profile);
        self
    }

    /// Adds an interceptor; it runs after the profile's headers, auth and the spec's
    /// `interceptors:`.
    pub fn interceptor(mut self, interceptor: impl remcall::Interceptor) -> Self {
        self.inner = self.inner.interceptor(interceptor);
        self
    }

    /// Takes endpoints from `discover` (DNS with a resolver of yours, Consul, Kubernetes) instead
    /// of the base URLs.
    pub fn discover(mut self, discover: impl remcall::Discover) -> Self {
        self.inner = self.inner.discover(discover);
        self
    }

    /// Sends through this `reqwest::Client` instead of one built from the profile.
    pub fn http_client(mut self, http: remcall::reqwest::Client) -> Self {
        self.inner = self.inner.http_client(http);
        self
    }
{%- if let Some(fallback) = client.fallback_trait %}

    /// Answers eligible failures (breaker open, rejected, rate limited, timeout, connect, 5xx,
    /// 429) with `fallback`.
    pub fn fallback<F2: {{ fallback }}>(self, fallback: F2) -> {{ client.builder }}<F2> {
        {{ client.builder }} { inner: self.inner, fallback }
    }
{%- endif %}

    /// Builds the client: resolves profiles, `${VAR}` placeholders and endpoints.
    pub fn build(self) -> Result<{{ client.name }}{% if client.fallback_trait.is_some() %}<F>{% endif %}, remcall::Error> {
        Ok({{ client.name }} { inner: self.inner.build()?{% if client.fallback_trait.is_some() %}, fallback: std::sync::Arc::new(self.fallback){% endif %} })
    }
}
{%- include "client/named.rs" %}
{%- if let Some(fallback) = client.fallback_trait %}

/// Answers for failed calls of [`{{ client.name }}`]. Every method passes the cause through by
/// default; override the ones that have a sensible answer (an `async fn` works).
///
/// A stream (a paginated method's `_stream`, a download) has no fallback: a page that fails
/// ends the stream with its error, after the items before it.
pub trait {{ fallback }}: Send + Sync + 'static {
{%- for method in client.methods %}
{%- if method.fallback %}

    /// The fallback of {{ method.link }}.
    fn {{ method.name }}(&self, {% call args_of(method) %}{% endcall %}{{ method.locals.cause }}: remcall::Error) -> impl std::future::Future<Output = Result<{{ method.returns }}, remcall::Error>> + Send {
        async move { Err({{ method.locals.cause }}) }
    }
{%- endif %}
{%- endfor %}
}

impl {{ fallback }} for remcall::NoFallback {}
{%- endif %}
{%- if let Some(webhooks) = client.webhooks %}
{%- include "client/webhooks.rs" %}
{%- endif %}
{%- if client.stubs.is_some() %}

/// A stub of [`{{ client.name }}`]'s API, for tests (`stubs: true`): its server runs with the
/// runtime's `stub` feature on (see docs/testing.md). Generated into the file beside this one.
pub mod stub {
    include!({{ "{:?}"|format(stub_file) }});
}
{%- endif %}
{%- include "client/wire.rs" %}
