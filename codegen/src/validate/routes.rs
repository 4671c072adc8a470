//! Two methods that send the same request line and nothing else that tells them apart (a
//! user's own method beside an imported one, say), each expecting its own answer: the server
//! answers both alike. A warning
//! at each method the spec writes, naming the other; the importer's twins (JSON or a stream,
//! asked by `Accept`) and path-key siblings (told apart by their fixed query) are not such.

use indexmap::IndexMap;

use super::Validator;
use crate::checked;
use crate::spec::Spec;

/// What a server sees of a method before its arguments: verb, route, fixed query and headers,
/// whether it asks for a stream.
#[derive(PartialEq, Eq, Hash)]
struct Seen {
    verb: &'static str,
    /// The path with each placeholder as `{}`: `/users/{id}` and `/users/{name}` are one route.
    route: String,
    fixed: String,
    /// The body's content type (or encoding): a merge patch beside a JSON one is told apart.
    body: Option<String>,
    streams: bool,
}

impl Validator<'_> {
    /// Warns at each method the spec writes that a server could not tell from another.
    pub(super) fn shared_routes(&mut self, methods: &[checked::Method]) {
        let spec = self.spec;
        let mut groups: IndexMap<Seen, Vec<&checked::Method>> = IndexMap::new();
        for method in methods {
            groups.entry(seen(method)).or_default().push(method);
        }
        for group in groups.values().filter(|group| group.len() > 1) {
            let line = format!("{} {}", group[0].verb.as_str(), group[0].path);
            for this in group.iter().filter(|m| is_own(spec, &m.name)) {
                let others: Vec<String> = group
                    .iter()
                    // One answer read two ways (whole, or as a stream of bytes) is no conflict.
                    .filter(|other| other.name != this.name && other.returns != this.returns)
                    .map(|other| match is_own(spec, &other.name) {
                        true => format!("`{}`", other.name),
                        false => format!("`{}` (imported)", other.name),
                    })
                    .collect();
                if others.is_empty() {
                    continue;
                }
                let d = spec.at(
                    0,
                    &format!("methods.{}.request", this.name),
                    format!(
                        "`{}` and {} send `{line}` and nothing else tells them apart: the server answers them alike",
                        this.name,
                        others.join(", ")
                    ),
                );
                self.warn(d.help("if they are one operation, change the imported method with an entry without `request:`; if the server tells them apart by a query or header value, give each its own in `config: { query: .. }` or `config: { headers: .. }`"));
            }
        }
    }
}

/// Whether the spec file writes `name`'s request line (an imported method's is the
/// description's).
fn is_own(spec: &Spec, name: &str) -> bool {
    spec.sources[0]
        .spans
        .has_key(&format!("methods.{name}.request"))
}

fn seen(method: &checked::Method) -> Seen {
    let mut route = String::with_capacity(method.path.len());
    let mut inside = false;
    for c in method.path.chars() {
        match c {
            '{' => {
                inside = true;
                route.push_str("{}");
            }
            '}' => inside = false,
            _ if inside => {}
            c => route.push(c),
        }
    }
    let profile = &method.profile;
    let fixed = serde_json::to_string(&(&profile.query, &profile.headers)).unwrap_or_default();
    Seen {
        verb: method.verb.as_str(),
        route,
        fixed,
        body: method.body.as_ref().map(|body| {
            body.content_type
                .clone()
                .unwrap_or_else(|| format!("{:?}", body.encoding))
        }),
        streams: method.streamed.is_some(),
    }
}
