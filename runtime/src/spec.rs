//! The static description of a client that generated code hands to the runtime.

/// What the generator knows about a client: its name, default endpoints and profile.
#[derive(Debug)]
pub struct ClientSpec {
    /// The client's type name, used in errors, logs and statistics.
    pub name: &'static str,
    /// Default endpoints (`${VAR}` allowed); the builder's `base_url(s)` replaces them.
    pub base_urls: &'static [&'static str],
    /// Prefix of every method path, e.g. `/v1/api`.
    pub base_path: &'static str,
    /// The spec's profile, resolved (includes and `extends` applied), in profile YAML.
    pub profile: &'static str,
    /// Every method, in spec order; `MethodSpec::index` is the position here.
    pub methods: &'static [&'static MethodSpec],
}

/// What the generator knows about one method.
#[derive(Debug)]
pub struct MethodSpec {
    /// Position in [`ClientSpec::methods`].
    pub index: usize,
    /// The method's name as in the spec, e.g. `get_user`.
    pub name: &'static str,
    /// The HTTP verb, e.g. `GET`.
    pub http_method: &'static str,
    /// The path template below the base path, e.g. `/users/{id}`.
    pub path: &'static str,
    /// Retries are safe (an idempotent verb or `idempotent: true`).
    pub idempotent: bool,
    /// The method only reads (GET, HEAD, QUERY, or a POST the spec marks `safe: true`, a
    /// search sent with a body): only such a method's answers are kept (`cache:`). Being safe
    /// to retry is not being safe to answer from a cache: a write marked `idempotent: true`
    /// is never kept.
    pub reads: bool,
    /// `not_found: none`: a 404 is an answer (`None`), not an error.
    pub not_found_none: bool,
    /// Its answer is a stream of events or lines: the stub tells it from its JSON twin (the
    /// same verb and path) by the request's `Accept`.
    pub streams: bool,
    /// The method's profile override in profile YAML (empty: none).
    pub profile: &'static str,
}
