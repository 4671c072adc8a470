//! Query parameters that are objects or lists written other than one pair per value: OpenAPI's
//! `deepObject` (`filter[status]=open`, Stripe's and Rails' form), an exploded form object (its
//! fields as parameters of their own), and `explode: false` (one comma-separated value); and the
//! profile's own query parameters (an API key, say), resolved once when the client is built.
//!
//! Values go through `serde_json::Value`: these parameters are rare and their shapes nested, so a
//! value tree is the plain way to walk them.

use remcall_profile::{Settings, vars};
use serde::Serialize;
use serde_json::Value;

use crate::error::{Error, ErrorKind};

/// How a query parameter is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// `name[field]=v`, `name[list][]=v`, `name[list][0][field]=v`.
    Deep,
    /// `field=v` for each field of the object.
    Object,
    /// `name=a,b,c` for a list, `name=k1,v1,k2,v2` for an object.
    Comma,
}

/// The pairs `value` makes as parameter `name` in `style`; none for `None`/`null`.
pub(crate) fn pairs(
    name: &str,
    value: &impl Serialize,
    style: Style,
) -> Result<Vec<(String, String)>, Error> {
    let value = serde_json::to_value(value).map_err(|e| {
        Error::new(
            ErrorKind::Encode,
            format!("query parameter `{name}` cannot be encoded"),
        )
        .with_source(e)
    })?;
    let mut out = Vec::new();
    match style {
        Style::Deep => deep(name.to_owned(), &value, &mut out),
        Style::Object => match &value {
            Value::Object(fields) => {
                for (field, value) in fields {
                    repeated(field, value, &mut out);
                }
            }
            Value::Null => {}
            other => repeated(name, other, &mut out),
        },
        Style::Comma => {
            let items: Vec<String> = match &value {
                Value::Array(items) => items.iter().filter_map(scalar).collect(),
                Value::Object(fields) => fields
                    .iter()
                    .filter_map(|(k, v)| Some([k.clone(), scalar(v)?]))
                    .flatten()
                    .collect(),
                other => scalar(other).into_iter().collect(),
            };
            if !items.is_empty() || value.is_array() {
                out.push((name.to_owned(), items.join(",")));
            }
        }
    }
    Ok(out)
}

fn deep(key: String, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Object(fields) => {
            for (field, value) in fields {
                deep(format!("{key}[{field}]"), value, out);
            }
        }
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            for item in items {
                if let Some(text) = scalar(item) {
                    out.push((format!("{key}[]"), text));
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                deep(format!("{key}[{i}]"), item, out);
            }
        }
        other => {
            if let Some(text) = scalar(other) {
                out.push((key, text));
            }
        }
    }
}

/// One pair per value; a nested object or list of lists as its JSON text.
fn repeated(name: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Array(items) => {
            for item in items {
                if let Some(text) = scalar(item).or_else(|| nested(item)) {
                    out.push((name.to_owned(), text));
                }
            }
        }
        other => {
            if let Some(text) = scalar(other).or_else(|| nested(other)) {
                out.push((name.to_owned(), text));
            }
        }
    }
}

fn nested(value: &Value) -> Option<String> {
    (value.is_object() || value.is_array()).then(|| value.to_string())
}

/// A scalar's wire text; none for `null` and for what is not a scalar.
fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => Some(text.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

/// Query keys whose values no span, log line or recording shows, in any case: the signed URLs'
/// keys the OpenTelemetry conventions ask to redact from `url.full`, AWS's newer signature, and
/// the usual names of a credential sent in the URL (as a method's own parameter, too).
const CREDENTIAL_KEYS: [&str; 16] = [
    "AWSAccessKeyId",
    "Signature",
    "sig",
    "X-Goog-Signature",
    "X-Goog-Credential",
    "X-Amz-Signature",
    "X-Amz-Credential",
    "X-Amz-Security-Token",
    "access_token",
    "api_key",
    "apikey",
    "key",
    "token",
    "client_secret",
    "password",
    "secret",
];

/// Whether a query parameter named `name` holds a credential by its name ([`CREDENTIAL_KEYS`]).
pub(crate) fn is_credential_key(name: &str) -> bool {
    CREDENTIAL_KEYS
        .iter()
        .any(|key| key.eq_ignore_ascii_case(name))
}

/// Profile query parameters, placeholders resolved. `Debug` shows their names only: the values
/// are often API keys.
#[derive(Clone, Default)]
pub(crate) struct ProfileQuery(pub(crate) Vec<(String, String)>);

impl ProfileQuery {
    pub(crate) fn resolve(settings: &Settings) -> Result<ProfileQuery, Error> {
        let mut params = Vec::with_capacity(settings.query.len());
        for (name, def) in &settings.query {
            let value = vars::expand_env(&def.value).map_err(|e| {
                Error::new(ErrorKind::Config, format!("query parameter `{name}`: {e}"))
            })?;
            params.push((name.clone(), value));
        }
        Ok(ProfileQuery(params))
    }
}

impl std::fmt::Debug for ProfileQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(name, _)| name))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The pairs, sorted: an object's field order is serde_json's map order, which a feature
    /// elsewhere in a build may change.
    fn shown(mut pairs: Vec<(String, String)>) -> String {
        pairs.sort();
        pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    }

    #[test]
    fn deep_objects_as_stripe_writes_them() {
        let filter = json!({
            "status": "open", "created": { "gte": 10, "lt": null },
            "expand": ["a", "b"], "items": [{ "price": "p1" }]
        });
        assert_eq!(
            shown(pairs("filter", &filter, Style::Deep).unwrap()),
            "filter[created][gte]=10&filter[expand][]=a&filter[expand][]=b&filter[items][0][price]=p1&filter[status]=open"
        );
    }

    #[test]
    fn exploded_objects_and_comma_lists() {
        let object = json!({ "status": "open", "tag": ["x", "y"], "limit": 2, "none": null });
        assert_eq!(
            shown(pairs("q", &object, Style::Object).unwrap()),
            "limit=2&status=open&tag=x&tag=y"
        );
        assert_eq!(
            shown(pairs("ids", &json!([1, 2, 3]), Style::Comma).unwrap()),
            "ids=1,2,3"
        );
        assert_eq!(
            shown(pairs("p", &json!({ "a": 1, "b": "x" }), Style::Comma).unwrap()),
            "p=a,1,b,x"
        );
        assert!(
            pairs("p", &None::<Vec<i64>>, Style::Comma)
                .unwrap()
                .is_empty()
        );
    }
}
