//! Learning what a description gets wrong from what its server sent (`remcall learn`): a
//! recording of real exchanges (JSON Lines, as a client's `record:` writes them) is walked
//! against the description — each answer's body against the schema its operation declares for
//! its status — and what they part on becomes an Overlay 1.0 document that makes the
//! description say what the server sends (`actions.rs`). [`check`] walks the same answers
//! against the description with the overlays applied and says, per method, how many strict
//! decoding would take whole: the loop closes when every one does.
//!
//! Everything here reads text a server wrote (keys, values) and a description a vendor wrote:
//! the overlay is written by a YAML serializer, each JSONPath by a literal writer
//! (`actions::literal`), every message through [`quoted`](crate::escape::quoted); the walk is bounded in depth and
//! steps, a shape in keys and items.

mod actions;
mod shape;
mod walk;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::Error;
use crate::document::{Documents, Place, Version};
use crate::escape::quoted;

/// Steps one answer's walk may take: far past any real answer, and a bound on a hostile one.
const STEPS_PER_ANSWER: u64 = 200_000;

/// One recorded exchange, as `learn` reads it (the fields of `remcall::recording::Exchange`
/// it needs).
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The method's name in the client.
    pub method: String,
    /// When the answer came (an HTTP date), if recorded.
    pub at: Option<String>,
    /// The HTTP verb.
    pub verb: String,
    /// The method's path template below the base path.
    pub route: String,
    /// The path and query as sent.
    pub url: String,
    /// The answer's status.
    pub status: u16,
    /// The answer's body, when it was JSON and whole.
    pub body: Option<Value>,
}

/// Reads a recording: one exchange a line; a line that is not one is an error naming it.
pub fn read_recording(text: &str) -> Result<Vec<Recorded>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |why: &str| format!("line {}: not a recorded exchange: {why}", n + 1);
        let value: Value = serde_json::from_str(line).map_err(|e| bad(&e.to_string()))?;
        let text_of = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let status = value
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .ok_or_else(|| bad("no `status`"))?;
        out.push(Recorded {
            method: text_of("method").ok_or_else(|| bad("no `method`"))?,
            at: text_of("at"),
            verb: text_of("verb").ok_or_else(|| bad("no `verb`"))?,
            route: text_of("route").unwrap_or_default(),
            url: text_of("url").unwrap_or_default(),
            status,
            body: value.get("body").and_then(|b| b.get("json")).cloned(),
        });
    }
    Ok(out)
}

/// What `learn` made: the overlay (YAML, proposals commented out at its end) and what it
/// could not do.
#[derive(Debug, Clone)]
pub struct Learned {
    /// The overlay, as YAML.
    pub overlay: String,
    /// Actions applied by the overlay.
    pub actions: usize,
    /// Actions proposed, commented out.
    pub proposals: usize,
    /// What was left alone, and why (an answer of no operation, a schema an overlay cannot
    /// reach).
    pub notes: Vec<String>,
}

/// How the answers of one method fare against the description.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MethodCheck {
    /// Its recorded answers with a JSON body checked.
    pub answers: u32,
    /// Of those, the ones strict decoding takes (no type contradicted, no `null` where none
    /// goes, no object of another shape, no required key missing).
    pub strict: u32,
    /// Values under keys the description does not declare: dropped by a decode.
    pub lost: u32,
    /// The first problems, where and what.
    pub problems: Vec<String>,
}

impl MethodCheck {
    /// Every answer taken whole.
    pub fn passes(&self) -> bool {
        self.strict == self.answers && self.lost == 0
    }
}

/// How many times the answers are walked again against the description as the last round's
/// actions left it: an object that shared no key with its schema and now meets the schema
/// that covers it is learned from in the next round.
const ROUNDS: usize = 4;

/// Learns, from `recorded`, what the description at `path` (with `overlays` applied, in
/// order) gets wrong.
pub fn learn(path: &Path, overlays: &[PathBuf], recorded: &[Recorded]) -> Result<Learned, Error> {
    let mut docs = Documents::open(path, &[], &[], overlays)?;
    let mut notes = Vec::new();
    let mut applied = Vec::new();
    let mut proposals = Vec::new();
    for _ in 0..ROUNDS {
        let (actions, unreachable) = one_round(&mut docs, recorded, &mut notes);
        for place in unreachable {
            note_once(
                &mut notes,
                format!(
                    "{}: defined in another file, which an overlay cannot change",
                    quoted(&place)
                ),
            );
        }
        let (proposed, actions): (Vec<_>, Vec<_>) = actions
            .into_iter()
            .partition(|a: &actions::Action| a.proposal);
        // A proposal made again in a later round is the same proposal.
        for proposal in proposed {
            if !proposals
                .iter()
                .any(|p: &actions::Action| p.value == proposal.value)
            {
                proposals.push(proposal);
            }
        }
        if actions.is_empty() {
            break;
        }
        let overlay = json!({
            "overlay": "1.0.0",
            "info": { "title": "round", "version": "1" },
            "actions": actions.iter().map(|a| a.value.clone()).collect::<Vec<_>>(),
        });
        docs.apply_overlay(&overlay)
            .map_err(|(pointer, message)| Error {
                file: path.to_path_buf(),
                pointer,
                message: format!("a learned action does not apply: {message}"),
            })?;
        applied.extend(actions);
    }
    let title = docs
        .root_value()
        .pointer("/info/title")
        .and_then(Value::as_str)
        .unwrap_or("the API")
        .to_owned();
    applied.extend(proposals);
    Ok(write(&title, applied, notes))
}

/// One walk of every answer against the description as it stands, and its actions; and the
/// places an overlay cannot reach.
fn one_round(
    docs: &mut Documents,
    recorded: &[Recorded],
    notes: &mut Vec<String>,
) -> (Vec<actions::Action>, Vec<String>) {
    let version = docs.version;
    let mut noted = walk::Noted::default();
    let mut missing: BTreeMap<Place, BTreeMap<String, u32>> = BTreeMap::new();
    let mut undeclared_statuses: BTreeMap<(Place, u16), (shape::Shape, String)> = BTreeMap::new();
    let mut first_seen = BTreeMap::new();
    for exchange in recorded {
        if let Some(at) = &exchange.at {
            first_seen
                .entry(exchange.method.clone())
                .or_insert(at.clone());
        }
        let Some(body) = &exchange.body else { continue };
        let Some(operation) = operation_of(docs, exchange) else {
            note_once(
                notes,
                format!(
                    "`{}` ({} {}): no operation of the description answers it",
                    quoted(&exchange.method),
                    quoted(&exchange.verb),
                    quoted(&exchange.route)
                ),
            );
            continue;
        };
        match body_schema(docs, &operation, exchange.status, version) {
            Some(schema) => {
                let mut walk = walk::Walk::new(docs, version, STEPS_PER_ANSWER);
                walk.method.clone_from(&exchange.method);
                walk.value(&schema, body);
                merge(&mut noted, &mut missing, walk);
            }
            None => {
                let entry = undeclared_statuses
                    .entry((operation.child("responses"), exchange.status))
                    .or_insert_with(|| (shape::Shape::default(), exchange.method.clone()));
                entry.0.merge(body);
            }
        }
    }
    let mut actions = actions::Actions {
        docs,
        version,
        out: Vec::new(),
        unreachable: Vec::new(),
        first_seen,
    };
    for (place, seen) in &noted.uses {
        actions.of_use(place, seen);
    }
    for (place, seen) in &noted.defined {
        actions.of_definition(place, seen, missing.get(place));
    }
    for ((responses, status), (shape, method)) in &undeclared_statuses {
        actions.status(responses, *status, shape, method);
    }
    (actions.out, actions.unreachable)
}

/// How each method's recorded answers fare against the description at `path` with
/// `overlays` applied: what strict decoding would take, and what it would drop.
pub fn check(
    path: &Path,
    overlays: &[PathBuf],
    recorded: &[Recorded],
) -> Result<BTreeMap<String, MethodCheck>, Error> {
    let mut docs = Documents::open(path, &[], &[], overlays)?;
    let version = docs.version;
    let mut methods: BTreeMap<String, MethodCheck> = BTreeMap::new();
    for exchange in recorded {
        let Some(body) = &exchange.body else { continue };
        let method = methods.entry(exchange.method.clone()).or_default();
        method.answers += 1;
        let schema = operation_of(&docs, exchange)
            .and_then(|operation| body_schema(&mut docs, &operation, exchange.status, version));
        let Some(schema) = schema else {
            method.lost += 1;
            if method.problems.len() < 5 {
                method.problems.push(format!(
                    "status {}: the description declares no JSON body for it",
                    exchange.status
                ));
            }
            continue;
        };
        let mut walk = walk::Walk::new(&mut docs, version, STEPS_PER_ANSWER);
        walk.method.clone_from(&exchange.method);
        walk.value(&schema, body);
        let (mut problems, lost) = walk.noted.problems();
        for (place, keys) in &walk.missing {
            for key in keys.keys() {
                problems.push(format!("{}: `{}` missing", place.pointer, quoted(key)));
            }
        }
        method.lost += lost;
        if problems.is_empty() {
            method.strict += 1;
        }
        for problem in problems {
            if method.problems.len() < 5 && !method.problems.contains(&problem) {
                method.problems.push(quoted(&problem));
            }
        }
    }
    Ok(methods)
}

/// Adds what one answer's walk noted to what the others did.
fn merge(
    noted: &mut walk::Noted,
    missing: &mut BTreeMap<Place, BTreeMap<String, u32>>,
    walk: walk::Walk<'_>,
) {
    for (place, seen) in walk.noted.uses {
        let into = noted.uses.entry(place).or_default();
        into.values += seen.values;
        into.contradicted += seen.contradicted;
        into.nulls += seen.nulls;
        into.strangers += seen.strangers;
        into.other.absorb(seen.other);
        into.methods.extend(seen.methods);
        into.shape.absorb(seen.shape);
    }
    for (place, seen) in walk.noted.defined {
        let into = noted.defined.entry(place).or_default();
        into.objects += seen.objects;
        into.dropped += seen.dropped;
        into.methods.extend(seen.methods);
        for (key, count) in seen.present {
            *into.present.entry(key).or_default() += count;
        }
        for (key, shape) in seen.undeclared {
            into.undeclared.entry(key).or_default().absorb(shape);
        }
    }
    for (place, keys) in walk.missing {
        let into = missing.entry(place).or_default();
        for (key, count) in keys {
            *into.entry(key).or_default() += count;
        }
    }
}

/// The operation an exchange belongs to: its verb under the path the recorded route names, or
/// else the path whose template the URL's path ends with.
fn operation_of(docs: &Documents, exchange: &Recorded) -> Option<Place> {
    let verb = exchange.verb.to_ascii_lowercase();
    let paths = docs.root_value().get("paths")?.as_object()?;
    let top = docs.top().child("paths");
    if paths
        .get(&exchange.route)
        .and_then(|p| p.get(&verb))
        .is_some()
    {
        return Some(top.child(&exchange.route).child(&verb));
    }
    let url_path = exchange.url.split('?').next().unwrap_or_default();
    let got: Vec<&str> = url_path.split('/').collect();
    paths
        .iter()
        .filter(|(_, item)| item.get(&verb).is_some())
        .find(|(template, _)| {
            let wanted: Vec<&str> = template.split('/').collect();
            wanted.len() <= got.len()
                && wanted
                    .iter()
                    .zip(&got[got.len() - wanted.len()..])
                    .all(|(w, g)| w.contains('{') || w == g)
        })
        .map(|(template, _)| top.child(template).child(&verb))
}

/// The place of the schema `operation` declares for `status`'s JSON body: its own status, its
/// class (`4XX`), or `default`.
fn body_schema(
    docs: &mut Documents,
    operation: &Place,
    status: u16,
    version: Version,
) -> Option<Place> {
    let responses_at = operation.child("responses");
    let (_, responses) = docs.resolve(&responses_at)?;
    let class = format!("{}XX", status / 100);
    let key = [
        status.to_string(),
        class.clone(),
        class.to_lowercase(),
        "default".to_owned(),
    ]
    .into_iter()
    .find(|key| responses.get(key).is_some())?;
    let at = responses_at.child(&key);
    let (_, response) = docs.resolve(&at)?;
    let (place, response) = docs.follow(&at, &response).ok()?;
    if version == Version::Swagger2 {
        return response.get("schema").map(|_| place.child("schema"));
    }
    let content = response.get("content")?.as_object()?;
    let media = content
        .keys()
        .find(|m| *m == "application/json")
        .or_else(|| content.keys().find(|m| m.contains("json")))?;
    content
        .get(media)?
        .get("schema")
        .map(|_| place.child("content").child(media).child("schema"))
}

fn note_once(notes: &mut Vec<String>, note: String) {
    if notes.len() < 64 && !notes.contains(&note) {
        notes.push(note);
    }
}

/// The overlay document of `actions`, as YAML: the applied ones, then the proposals,
/// commented out, each written by the serializer first.
fn write(title: &str, actions: Vec<actions::Action>, notes: Vec<String>) -> Learned {
    let (proposals, applied): (Vec<_>, Vec<_>) = actions.into_iter().partition(|a| a.proposal);
    let document = ordered(
        &json!({
            "overlay": "1.0.0",
            "info": {
                "title": format!("What {} sends (remcall learn)", quoted(title)),
                "version": "1.0.0",
            },
            "actions": [],
        }),
        &["overlay", "info", "actions"],
    );
    let mut document = document;
    if let serde_yaml::Value::Mapping(map) = &mut document {
        map.insert(
            "actions".into(),
            serde_yaml::Value::Sequence(applied.iter().map(|a| action(&a.value)).collect()),
        );
    }
    let mut overlay = String::from(
        "# Learned by `remcall learn` from a recording of real answers: review, then commit.\n",
    );
    overlay.push_str(&serde_yaml::to_string(&document).unwrap_or_default());
    if !proposals.is_empty() {
        overlay.push_str(
            "# Proposed, never applied unreviewed (a rename, or a retype of a key some answer\n# matched): uncomment an action into `actions:` to take it.\n",
        );
        for proposal in &proposals {
            let text = serde_yaml::to_string(&vec![action(&proposal.value)]).unwrap_or_default();
            for line in text.lines() {
                overlay.push_str("#   ");
                overlay.push_str(line);
                overlay.push('\n');
            }
        }
    }
    Learned {
        overlay,
        actions: applied.len(),
        proposals: proposals.len(),
        notes,
    }
}

/// An action as a reader reads it: its target, what and why first, then what taught it.
fn action(value: &Value) -> serde_yaml::Value {
    ordered(
        value,
        &[
            "target",
            "description",
            "remove",
            "update",
            "x-remcall-learned",
        ],
    )
}

/// `value` (an object) with `first` keys in that order, then the rest.
fn ordered(value: &Value, first: &[&str]) -> serde_yaml::Value {
    let Value::Object(map) = value else {
        return serde_yaml::to_value(value).unwrap_or(serde_yaml::Value::Null);
    };
    let mut out = serde_yaml::Mapping::new();
    let keys = first
        .iter()
        .copied()
        .filter(|key| map.contains_key(*key))
        .chain(
            map.keys()
                .map(String::as_str)
                .filter(|key| !first.contains(key)),
        );
    for key in keys {
        let converted = serde_yaml::to_value(&map[key]).unwrap_or(serde_yaml::Value::Null);
        out.insert(serde_yaml::Value::String(key.to_owned()), converted);
    }
    serde_yaml::Value::Mapping(out)
}
