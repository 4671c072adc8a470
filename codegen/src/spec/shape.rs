//! The shape a refused value should have had. serde says "invalid type: string, expected struct
//! Bearer", which names a Rust type the user never wrote; the format's JSON Schema knows what is
//! allowed at that place, so the help writes it out, with the user's own value put where it fits:
//! `auth: { bearer: "${TOKEN}" }` gets "write it as `bearer: { token: "${TOKEN}" }`".

use serde_json::{Map, Value as Json};
use serde_yaml::Value as Yaml;

use super::keys::{Walk, properties};

/// A help for a value at `path` (dotted, as the span index names it) that did not have the type
/// its place needs, or `None` when the schema says nothing useful there.
pub(crate) fn help(root: &Json, path: &str, written: &Yaml) -> Option<String> {
    let walk = Walk::new(root);
    let schema = schema_at(&walk, root, path)?;
    let key = path.rsplit('.').next().unwrap_or(path);
    let key = if key.parse::<usize>().is_ok() {
        String::new()
    } else {
        format!("{key}: ")
    };
    let forms = forms(&walk, schema, written);
    match forms.as_slice() {
        [] => None,
        [one] => Some(format!("write it as `{key}{one}`")),
        many => {
            let listed: Vec<String> = many.iter().map(|f| format!("`{key}{f}`")).collect();
            Some(format!("expected one of {}", listed.join(", ")))
        }
    }
}

/// The schema of the value at `path`, following properties, map values and list items.
fn schema_at<'a>(walk: &Walk<'a>, root: &'a Json, path: &str) -> Option<&'a Json> {
    let mut schema = root;
    for segment in path.split('.').filter(|s| !s.is_empty()) {
        let objects = walk.object_schemas(schema);
        let next = objects
            .iter()
            .find_map(|object| properties(object).and_then(|p| p.get(segment)))
            .or_else(|| {
                objects
                    .iter()
                    .find_map(|o| o.get("additionalProperties").filter(|a| a.is_object()))
            })
            .or_else(|| {
                segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|_| walk.item_schemas(schema).into_iter().next())
            })?;
        schema = next;
    }
    Some(schema)
}

/// The forms a value may take under `schema`: each object shape (with `written` in the one
/// property that takes it, when one does), then the bare words it allows.
fn forms(walk: &Walk<'_>, schema: &Json, written: &Yaml) -> Vec<String> {
    let mut forms = Vec::new();
    for object in walk.object_schemas(schema) {
        let props = match properties(object) {
            Some(props) if !props.is_empty() => props,
            // A map of names (`fields:`, `headers:`): one entry shows the form.
            _ => {
                if let Some(values) = object.get("additionalProperties").filter(|a| a.is_object()) {
                    // A list of names (`fields: [id, name]`) becomes the map's keys.
                    let mut names: Vec<String> = match written {
                        Yaml::Sequence(items) => items.iter().filter_map(scalar).collect(),
                        _ => Vec::new(),
                    };
                    if names.is_empty() {
                        names.push("name".to_owned());
                    }
                    names.truncate(4);
                    let value = placeholder(walk, values);
                    let entries: Vec<String> = names
                        .iter()
                        .map(|name| format!("{name}: {value}"))
                        .collect();
                    forms.push(format!("{{ {} }}", entries.join(", ")));
                }
                continue;
            }
        };
        let fits: Vec<&String> = props
            .iter()
            .filter(|(_, p)| accepts(walk, p, written))
            .map(|(name, _)| name)
            .collect();
        let required = required(object);
        // The property the value belongs in: a required one that takes it, else the first.
        let target = fits
            .iter()
            .find(|name| required.contains(&name.as_str()))
            .or(fits.first());
        forms.push(match (target, scalar(written)) {
            (Some(name), Some(value)) => format!("{{ {name}: {value} }}"),
            _ => outline(walk, props, &required),
        });
    }
    // A list that takes the value as its item: `on: connect` wanted `on: [connect]`.
    if let Some(value) = scalar(written)
        && walk
            .item_schemas(schema)
            .into_iter()
            .any(|items| accepts(walk, items, written))
    {
        forms.push(format!("[{value}]"));
    }
    for alternative in walk.alternatives(schema) {
        forms.extend(words(alternative).into_iter().map(str::to_owned));
    }
    forms.dedup();
    forms
}

/// A scalar as YAML writes it, quoted when it would not read back as the same string.
fn scalar(value: &Yaml) -> Option<String> {
    match value {
        Yaml::String(text) => {
            let plain = !text.is_empty()
                && text
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
                && serde_yaml::from_str::<Yaml>(text).ok().as_ref() == Some(value);
            Some(if plain {
                text.clone()
            } else {
                format!("{text:?}")
            })
        }
        Yaml::Number(n) => Some(n.to_string()),
        Yaml::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `{ a: …, b: … }`: the required properties, or all of them (at most four) when none is.
fn outline(walk: &Walk<'_>, props: &Map<String, Json>, required: &[&str]) -> String {
    let mut names: Vec<&str> = if required.is_empty() {
        props.keys().map(String::as_str).collect()
    } else {
        required.to_vec()
    };
    let more = names.len() > 4;
    names.truncate(4);
    let mut parts: Vec<String> = names
        .iter()
        .map(|name| format!("{name}: {}", placeholder(walk, &props[*name])))
        .collect();
    if more {
        parts.push("…".to_owned());
    }
    format!("{{ {} }}", parts.join(", "))
}

/// A stand-in value for a property: a mapping, a list or a scalar.
fn placeholder(walk: &Walk<'_>, schema: &Json) -> &'static str {
    // The simplest form first: a field that is a type or a `{ type: .. }` shows as a type.
    let alternatives = walk.alternatives(schema);
    let scalar = ["string", "integer", "number", "boolean"];
    if alternatives
        .iter()
        .any(|s| scalar.iter().any(|t| has_type(s, t)))
    {
        "…"
    } else if alternatives.iter().any(|s| has_type(s, "object")) {
        "{ … }"
    } else if alternatives.iter().any(|s| has_type(s, "array")) {
        "[ … ]"
    } else {
        "…"
    }
}

fn required(object: &Map<String, Json>) -> Vec<&str> {
    object
        .get("required")
        .and_then(Json::as_array)
        .map(|r| r.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}

/// The bare words a schema allows (`none`), from `enum` and `const`.
fn words(schema: &Json) -> Vec<&str> {
    let mut words: Vec<&str> = schema
        .get("enum")
        .and_then(Json::as_array)
        .map(|e| e.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default();
    words.extend(schema.get("const").and_then(Json::as_str));
    words
}

/// True when a scalar `value` is one `schema` takes.
fn accepts(walk: &Walk<'_>, schema: &Json, value: &Yaml) -> bool {
    walk.alternatives(schema).into_iter().any(|s| match value {
        Yaml::String(text) => {
            words(s).contains(&text.as_str())
                || (has_type(s, "string")
                    && s.get("const").is_none()
                    && s.get("pattern")
                        .and_then(Json::as_str)
                        .is_none_or(|p| regex::Regex::new(p).is_ok_and(|re| re.is_match(text))))
        }
        Yaml::Number(n) if n.is_i64() || n.is_u64() => {
            has_type(s, "integer") || has_type(s, "number")
        }
        Yaml::Number(_) => has_type(s, "number"),
        Yaml::Bool(_) => has_type(s, "boolean"),
        _ => false,
    })
}

fn has_type(schema: &Json, name: &str) -> bool {
    match schema.get("type") {
        Some(Json::String(t)) => t == name,
        Some(Json::Array(types)) => types.iter().any(|t| t == name),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn help_for(path: &str, written: &str) -> Option<String> {
        let schema = serde_json::to_value(crate::spec::model::schema()).unwrap();
        let value: Yaml = serde_yaml::from_str(written).unwrap();
        help(&schema, path, &value)
    }

    #[test]
    fn a_scalar_goes_into_the_property_that_takes_it() {
        for (path, written, expected) in [
            (
                "configs.a.auth.bearer",
                "\"${TOKEN}\"",
                "write it as `bearer: { token: \"${TOKEN}\" }`",
            ),
            (
                "configs.a.breaker.window",
                "10s",
                "write it as `window: { time: 10s }`",
            ),
            (
                "configs.a.breaker.window",
                "100",
                "write it as `window: { calls: 100 }`",
            ),
            (
                "configs.a.isolation.semaphore",
                "5",
                "write it as `semaphore: { max_concurrent: 5 }`",
            ),
            (
                "configs.a.retry.backoff",
                "100ms",
                "write it as `backoff: { initial: 100ms }`",
            ),
        ] {
            assert_eq!(help_for(path, written).as_deref(), Some(expected), "{path}");
        }
    }

    #[test]
    fn a_scalar_where_a_list_or_a_map_of_names_goes() {
        assert_eq!(
            help_for("configs.a.retry.on", "connect").as_deref(),
            Some("write it as `on: [connect]`")
        );
        assert_eq!(
            help_for("types.Order.fields", "[id, name]").as_deref(),
            Some("write it as `fields: { id: …, name: … }`")
        );
    }

    #[test]
    fn a_value_that_fits_nowhere_gets_the_outline() {
        assert_eq!(
            help_for("configs.a.auth.basic", "[a, b]").as_deref(),
            Some("write it as `basic: { username: …, password: … }`")
        );
        let isolation = help_for("configs.a.isolation", "[1]").unwrap();
        for form in ["`isolation: none`", "`isolation: { semaphore: { … } }`"] {
            assert!(isolation.contains(form), "{form} in {isolation}");
        }
    }
}
