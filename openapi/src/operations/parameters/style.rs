//! How a parameter is written: remcall writes a path or header parameter in the `simple` style
//! and a query parameter in `form` (exploded, or a comma list) or `deepObject`; a description
//! asking for another style is noted.

use serde_json::Value;

use super::SentIn;
use crate::document::Place;
use crate::spec::Style;
use crate::ty::Ty;
use crate::walk::Builder;

impl Builder<'_> {
    /// How a parameter is written. remcall writes a path or header parameter as the `simple`
    /// style does (a list comma-separated) and a query parameter as `form` (exploded, or a comma
    /// list with `explode: false`, or `deepObject`): a description asking for anything else is
    /// noted, and the parameter written remcall's way.
    pub(super) fn serialization(
        &mut self,
        place: &Place,
        parameter: &Value,
        location: SentIn,
        ty: &Ty,
    ) -> Style {
        let style = parameter.get("style").and_then(Value::as_str);
        let explode = parameter.get("explode").and_then(Value::as_bool);
        let collection = parameter.get("collectionFormat").and_then(Value::as_str);
        if location == SentIn::Query {
            return match (style, explode, collection) {
                (Some("deepObject"), _, _) => Style::Deep,
                (None | Some("form"), Some(false), _) | (_, _, Some("csv")) => Style::Comma,
                (None | Some("form"), _, None | Some("multi")) => Style::Exploded,
                (Some(other), _, _) => {
                    self.note(
                        place,
                        true,
                        format!("style `{other}` is sent as `form` (repeated keys)"),
                    );
                    Style::Exploded
                }
                (None, _, Some(other)) => {
                    self.note(
                        place,
                        true,
                        format!("collectionFormat `{other}` is sent as repeated keys"),
                    );
                    Style::Exploded
                }
            };
        }
        // Path and header parameters: `simple`, whose `explode` only changes objects.
        let object = matches!(ty.required(), Ty::Named(_) | Ty::Map(_));
        match style {
            None | Some("simple") if explode != Some(true) || !object => {}
            Some(other) => self.note(
                place,
                true,
                format!(
                    "style `{other}` of a {} parameter is written as `simple`",
                    location.word()
                ),
            ),
            None => self.note(
                place,
                true,
                format!(
                    "`explode: true` on a {} object is written as `simple` without it",
                    location.word()
                ),
            ),
        }
        Style::Exploded
    }
}
