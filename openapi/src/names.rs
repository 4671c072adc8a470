//! Names: the one place both the importer and the generator (`remcall_codegen::names`
//! re-exports what it shares) decide what a name becomes. What is shared: the names a generated
//! type must not take ([`PRELUDE`]), how a name is made unique ([`unique`]) and an enum value's
//! variant name ([`variant`]), so the importer can tell ahead what the generator will call
//! things. What only the importer needs: type names (PascalCase identifiers, clear of what Rust
//! and remcall name), field, parameter and method names (snake_case words), made unique in the
//! order they come, so the same description always gives the same names.

use heck::{ToPascalCase, ToSnakeCase};

/// Names of the Rust prelude (and of generated code's helpers) that a generated type must not
/// shadow: generated code names them unqualified. The generator refuses a spec type of one of
/// these names (it re-exports this list); the importer renames such a type `Api…`. The list lives
/// here, below the generator, so that both read the same one.
pub const PRELUDE: &[&str] = &[
    "Box",
    "Clone",
    "Copy",
    "Default",
    "Drop",
    "Eq",
    "Err",
    "Fn",
    "FnMut",
    "FnOnce",
    "From",
    "Into",
    "Iterator",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Send",
    "Sized",
    "Some",
    "String",
    "Sync",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "Unpin",
    "Vec",
    "HashMap",
    "BTreeMap",
    "AsRef",
    "AsMut",
    "Extend",
    "IntoIterator",
    "Nullable",
    "File",
];

/// Besides the prelude, what a type cannot be called: `Self` and the primitive types.
const PRIMITIVE_TYPES: &[&str] = &[
    "Self", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
    "f32", "f64", "bool", "char",
];

/// Method names the generated client has already.
const TAKEN_METHODS: &[&str] = &["new", "builder", "stats", "stats_all"];

/// A PascalCase type name for `raw`: letters and digits kept, the rest word breaks.
pub(crate) fn type_name(raw: &str) -> String {
    let words: String = raw
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let mut name = words.to_pascal_case();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'T');
    }
    // PascalCase of PascalCase is not always itself (`v1 A` → `V1A` → `V1a`): cased until it
    // is, so the name is one the generator's check reads as PascalCase.
    for _ in 0..4 {
        let again = name.to_pascal_case();
        if again == name {
            break;
        }
        name = again;
    }
    if !is_pascal_identifier(&name) {
        name = "Type".to_owned();
    }
    if PRELUDE.contains(&name.as_str()) || PRIMITIVE_TYPES.contains(&name.as_str()) {
        name.insert_str(0, "Api");
    }
    name
}

/// A snake_case word for `raw` (a field, parameter or method name): `+1` → `plus_1`,
/// `x-rate-limit` → `x_rate_limit`, `2fa` → `n2fa`.
pub(crate) fn word(raw: &str) -> String {
    let signed = match raw.as_bytes().first() {
        Some(b'+') => format!("plus {}", &raw[1..]),
        Some(b'-') => format!("minus {}", &raw[1..]),
        _ => raw.to_owned(),
    };
    let spaced: String = signed
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let mut name = spaced.to_snake_case();
    if name.is_empty() {
        name = "value".to_owned();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'n');
    }
    // `self`, `super`, `crate` and `Self` cannot even be raw identifiers.
    if matches!(name.as_str(), "self" | "super" | "crate") {
        name.push('_');
    }
    name
}

/// A method name: a word, clear of the client's own methods.
pub(crate) fn method(raw: &str) -> String {
    let mut name = word(raw);
    if TAKEN_METHODS.contains(&name.as_str()) {
        name.push_str("_call");
    }
    name
}

/// `base`, or `base_2`, `base_3`… (`sep` between): the first that `taken` does not hold, told
/// apart without regard to case (two items a reader cannot tell apart by eye are two names).
/// For a name or two against a short list; many names colliding go through [`Taken`].
pub fn unique_among(base: &str, sep: &str, taken: &[String]) -> String {
    let mut name = base.to_owned();
    let mut n = 2;
    while taken.iter().any(|t| t.eq_ignore_ascii_case(&name)) {
        name = format!("{base}{sep}{n}");
        n += 1;
    }
    name
}

/// Names given so far, told apart without regard to case, and for each base the suffix to try
/// next: making a name unique costs about the same however many names collided before it (a
/// description whose 2,000 enum values all read `Value` took seconds per list scan).
#[derive(Debug, Clone, Default)]
pub struct Taken {
    /// Each name, lowercased.
    lower: std::collections::HashSet<String>,
    /// Each name as given.
    exact: std::collections::HashSet<String>,
    /// Each name as given, in order.
    order: Vec<String>,
    /// For a base and separator (lowercased, joined), the lowest suffix not known to be taken.
    next: std::collections::HashMap<String, u64>,
}

impl Taken {
    /// True when `name` is taken, in any case.
    pub fn contains(&self, name: &str) -> bool {
        self.lower.contains(&name.to_ascii_lowercase())
    }

    /// True when `name` is taken in this very case.
    pub fn contains_exactly(&self, name: &str) -> bool {
        self.exact.contains(name)
    }

    /// Takes `name` (again, if it is).
    pub fn insert(&mut self, name: &str) {
        self.lower.insert(name.to_ascii_lowercase());
        if self.exact.insert(name.to_owned()) {
            self.order.push(name.to_owned());
        }
    }

    /// The names taken, in the order they were given.
    pub fn iter(&self) -> impl Iterator<Item = &String> {
        self.order.iter()
    }

    /// `base`, or `base_2`, `base_3`… (`sep` between): the first not taken, as
    /// [`unique_among`] says, without taking it.
    pub fn first_free(&mut self, base: &str, sep: &str) -> String {
        if !self.contains(base) {
            return base.to_owned();
        }
        self.numbered(base, sep)
    }

    /// `base_2`, `base_3`… (`sep` between): the first not taken, without taking it.
    pub fn numbered(&mut self, base: &str, sep: &str) -> String {
        let key = format!("{}\u{0}{sep}", base.to_ascii_lowercase());
        let mut n = self.next.get(&key).copied().unwrap_or(2);
        let mut name = format!("{base}{sep}{n}");
        while self.contains(&name) {
            n += 1;
            name = format!("{base}{sep}{n}");
        }
        // Names are never given back: every suffix below `n` stays taken.
        self.next.insert(key, n);
        name
    }

    /// [`Taken::first_free`], and taken from now on.
    pub fn unique(&mut self, base: &str, sep: &str) -> String {
        let name = self.first_free(base, sep);
        self.insert(&name);
        name
    }
}

impl<S: AsRef<str>> FromIterator<S> for Taken {
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Taken {
        let mut taken = Taken::default();
        for name in names {
            taken.insert(name.as_ref());
        }
        taken
    }
}

impl<S: AsRef<str>> Extend<S> for Taken {
    fn extend<I: IntoIterator<Item = S>>(&mut self, names: I) {
        for name in names {
            self.insert(name.as_ref());
        }
    }
}

/// [`Taken::unique`] in `taken`.
pub(crate) fn unique(base: &str, sep: &str, taken: &mut Taken) -> String {
    taken.unique(base, sep)
}

/// The variant name of an enum value (`in_progress` → `InProgress`, `+1` → `Plus1`, `-1` →
/// `Minus1`, `""` → `Empty`, `2` → `V2`, a wildcard `*/*` → `Any` and `image/*` → `ImageAny`,
/// a comparison `>=` → `Ge`); `Value{index}` for a value with nothing to name it by.
pub fn variant(wire: &str, index: usize) -> String {
    if wire.is_empty() {
        return "Empty".to_owned();
    }
    if let Some(word) = comparison(wire) {
        return word.to_owned();
    }
    let (sign, rest) = match wire.as_bytes()[0] {
        b'+' => ("Plus", &wire[1..]),
        b'-' => ("Minus", &wire[1..]),
        _ => ("", wire),
    };
    // A wildcard is a word: `*/*` is "any/any", one `Any`.
    let cased = rest.replace('*', " any ").to_pascal_case();
    let cased = collapse_repeats(&cased, "Any");
    let mut name = format!("{sign}{cased}");
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'V');
    }
    if name == "Self" {
        name.push('_');
    }
    if cased.is_empty() && sign.is_empty() || !is_identifier(&name) {
        format!("Value{index}")
    } else {
        name
    }
}

/// The name of a value that is a comparison operator (a filter's `op` enum).
fn comparison(wire: &str) -> Option<&'static str> {
    Some(match wire {
        "=" | "==" => "Eq",
        "!=" | "<>" => "Ne",
        "<" => "Lt",
        "<=" => "Le",
        ">" => "Gt",
        ">=" => "Ge",
        _ => return None,
    })
}

/// `word` said once where it follows itself (`AnyAny` → `Any`).
fn collapse_repeats(name: &str, word: &str) -> String {
    let twice = word.repeat(2);
    let mut out = name.to_owned();
    while out.contains(&twice) {
        out = out.replace(&twice, word);
    }
    out
}

/// True for an identifier by Unicode's rules (XID), as rustc reads one.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| unicode_ident::is_xid_start(c) || c == '_')
        && chars.all(unicode_ident::is_xid_continue)
        && name != "_"
}

/// A method name for an operation without an operationId: the verb and the path's words, a
/// collection before a parameter in the singular (`GET /accounts/{id}/transactions` →
/// `get_account_transactions`).
pub(crate) fn from_route(verb: &str, path: &str) -> String {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let verb = verb.to_ascii_lowercase();
    let mut words = vec![verb.clone()];
    for (i, segment) in segments.iter().enumerate() {
        if segment.starts_with('{') {
            continue;
        }
        let word = word(segment);
        let parameters = segments[i + 1..]
            .iter()
            .map_while(|next| next.strip_prefix('{')?.strip_suffix('}'));
        let one_item = parameters
            .clone()
            .any(|parameter| names_an_item(parameter, &word));
        words.push(if one_item { singular(&word) } else { word });
    }
    // `GET /get`, `DELETE /delete`: a route that is the verb says it once.
    if words.get(1) == Some(&verb) {
        words.remove(0);
    }
    words.join("_")
}

/// An operationId without what its generator wrote around the operation's own name, as a method
/// name; `None` when it has no such affix. Three generators' patterns:
/// - FastAPI's `{function}_{path}_{verb}` (`read_flows_flows_filter_post` for
///   `POST /flows/filter`: `read_flows`), the route's words, placeholders included, and the verb
///   at the end;
/// - NestJS's `{Controller}_{method}` (`UsersController_findAll`: `find_all`);
/// - springfox's `{method}Using{VERB}` with its `_1`, `_2` for repeats (`getUserUsingGET_1`:
///   `get_user`).
///
/// The caller keeps the trimmed name only where no other operation's name is the same.
pub(crate) fn without_generator_affix(id: &str, verb: &str, route: &str) -> Option<String> {
    if let Some((controller, method)) = id.split_once("Controller_")
        && !controller.is_empty()
        && controller.chars().all(|c| c.is_ascii_alphanumeric())
        && !method.is_empty()
    {
        return Some(word(method));
    }
    let upper = verb.to_ascii_uppercase();
    if let Some(at) = id.rfind(&format!("Using{upper}")) {
        let rest = &id[at + "Using".len() + upper.len()..];
        let repeat = rest.is_empty()
            || rest
                .strip_prefix('_')
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if at > 0 && repeat {
            return Some(word(&id[..at]));
        }
    }
    // FastAPI writes the route with every non-word character an underscore; some services
    // collapse the runs (`_id_` for `/{id}/`): compared with runs collapsed. Only an id of word
    // characters is FastAPI's.
    if !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let collapse = |text: &str| {
        let mut out = String::with_capacity(text.len());
        for c in text.chars() {
            let c = if c.is_ascii_alphanumeric() { c } else { '_' };
            if !(c == '_' && out.ends_with('_')) {
                out.push(c);
            }
        }
        out
    };
    let id = collapse(id);
    let suffix = collapse(&format!("{route}_{}", verb.to_ascii_lowercase()));
    let suffix = if suffix.starts_with('_') {
        suffix
    } else {
        format!("_{suffix}")
    };
    let kept = id.strip_suffix(suffix.as_str())?;
    (!kept.is_empty()).then(|| word(kept))
}

/// True when a path parameter picks one item of the collection the segment before it names
/// (`/pets/{petId}`, `/users/{username}`, `/repos/{owner}/{repo}`), rather than a count or a
/// choice (`/stream-bytes/{n}`, `/status/{codes}`), where the segment keeps its number.
fn names_an_item(parameter: &str, collection: &str) -> bool {
    let parameter = word(parameter);
    let last = parameter.rsplit('_').next().unwrap_or_default();
    matches!(
        last,
        "id" | "uuid" | "guid" | "key" | "name" | "username" | "slug" | "handle" | "number" | "ref"
    ) || parameter == singular(collection)
}

/// The singular of an English noun (`statuses` → `status`, `categories` → `category`): of the
/// last word of a snake-case name (`user_accounts` → `user_account`).
fn singular(word: &str) -> String {
    match word.rsplit_once('_') {
        Some((head, last)) => format!("{head}_{}", pluralizer::pluralize(last, 1, false)),
        None => pluralizer::pluralize(word, 1, false),
    }
}

/// True for a header name HTTP accepts: an RFC 9110 token (visible ASCII, no separators).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// True when `name` is a PascalCase identifier as the generator checks one: an identifier that
/// heck's PascalCase leaves as it is (`V1a`, not `V1A`).
pub fn is_pascal_identifier(name: &str) -> bool {
    // `Self` is the one PascalCase keyword.
    is_identifier(name) && name != "Self" && name.to_pascal_case() == name
}

/// What `check` refuses of a base URL as written (placeholders and all), so the importer can
/// tell ahead: credentials in its authority, a query or fragment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseUrlProblem {
    /// An `@` in the authority: credentials, which would be written into generated code.
    Credentials,
    /// A `?` or `#` anywhere.
    QueryOrFragment,
    /// Neither a placeholder nor `http://` / `https://` at its start.
    Scheme,
}

/// The first thing `check` refuses of the base URL `url` as written.
pub fn base_url_problem(url: &str) -> Option<BaseUrlProblem> {
    let authority = url.split_once("://").map_or("", |(_, rest)| {
        rest.split(['/', '?', '#']).next().unwrap_or("")
    });
    if authority.contains('@') {
        Some(BaseUrlProblem::Credentials)
    } else if url.contains(['?', '#']) {
        Some(BaseUrlProblem::QueryOrFragment)
    } else if !(remcall_profile::vars::has_placeholder(url)
        || url.starts_with("http://")
        || url.starts_with("https://"))
    {
        Some(BaseUrlProblem::Scheme)
    } else {
        None
    }
}

/// `CLIENT_NAME`: the prefix of the environment variables a client's credentials come from.
pub(crate) fn env_prefix(client: &str) -> String {
    heck::ToShoutySnakeCase::to_shouty_snake_case(client)
}

/// The enum a method's events by name generate: `<Method>Event`.
pub(crate) fn events_enum(method: &str) -> String {
    format!("{}Event", heck::ToPascalCase::to_pascal_case(method))
}

#[cfg(test)]
mod tests;
