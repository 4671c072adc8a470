//! What a method gives back: its result type and encoding, a streamed result, the responses it
//! declares per status and its typed errors.

use super::Validator;
use crate::checked;
use crate::names;
use crate::spec::model::{
    ErrorEventsDef, MethodDef, NotFound, ProfileRef, ReturnsDef, ReturnsEncoding,
};
use crate::types::Ty;
use indexmap::IndexMap;

impl Validator<'_> {
    /// `returns: { type, as }`: a `String` as text, a `bytes::Bytes` as bytes.
    pub(super) fn returns_encoding(
        &mut self,
        key: &str,
        encoding: ReturnsEncoding,
        ty: &Ty,
    ) -> bool {
        let needs = match encoding {
            ReturnsEncoding::Text => (ty.bare() != Some("String")).then_some("`String`"),
            ReturnsEncoding::Bytes | ReturnsEncoding::Stream => {
                (!ty.is_bytes()).then_some("`bytes::Bytes`")
            }
            ReturnsEncoding::Events | ReturnsEncoding::Lines => {
                if ty.is_bytes() || ty.is_unit() {
                    self.push(
                        self.spec
                            .at(0, &format!("{key}.returns"), format!("a streamed item reads as JSON or as text, not as `{}`", ty.render()))
                            .help("name a type of the spec, or `String` for each item's text as it came"),
                    );
                    return false;
                }
                None
            }
            ReturnsEncoding::Json => None,
        };
        if let Some(needs) = needs {
            let name = encoding_name(encoding);
            self.push(self.spec.at(
                0,
                &format!("{key}.returns"),
                format!("a `{name}` return is {needs}, not `{}`", ty.render()),
            ));
        }
        needs.is_none()
    }

    /// `as: events | lines`: how the stream's items read, or `None` after a diagnostic.
    /// `end:` and `events:` go with `as: events` only; with `events:`, `type` is the name of the
    /// enum generated for them.
    pub(super) fn streamed(
        &mut self,
        key: &str,
        returns: &ReturnsDef,
    ) -> Option<Option<checked::Streamed>> {
        let lines = match returns.encoding {
            ReturnsEncoding::Events => false,
            ReturnsEncoding::Lines => true,
            _ => {
                for (what, set) in [
                    ("end", returns.end.is_some()),
                    ("events", returns.events.is_some()),
                    ("error", returns.error.is_some()),
                ] {
                    if set {
                        self.push(
                            self.spec
                                .at_key(
                                    0,
                                    &format!("{key}.returns.{what}"),
                                    format!("`{what}:` is for Server-Sent Events"),
                                )
                                .help("add `as: events`"),
                        );
                    }
                }
                return Some(None);
            }
        };
        if lines && (returns.end.is_some() || returns.events.is_some()) {
            let what = if returns.end.is_some() {
                "end"
            } else {
                "events"
            };
            self.push(self.spec.at_key(
                0,
                &format!("{key}.returns.{what}"),
                format!("`{what}:` is for Server-Sent Events (`as: events`), not JSON Lines"),
            ));
            return None;
        }
        let events = match &returns.events {
            Some(map) => self.event_cases(key, &returns.ty, map)?,
            None => Vec::new(),
        };
        let error = match &returns.error {
            Some(error) => Some(self.error_events(key, lines, error)?),
            None => None,
        };
        Some(Some(checked::Streamed {
            lines,
            end: returns.end.clone(),
            events,
            error,
        }))
    }

    /// `error:`: the type of the server's error events (JSON, never text: an item is told
    /// from an error by its keys) and, for events, their `event:` name.
    fn error_events(
        &mut self,
        key: &str,
        lines: bool,
        error: &ErrorEventsDef,
    ) -> Option<checked::ErrorEvents> {
        let at = format!("{key}.returns.error");
        if lines && error.event.is_some() {
            self.push(self.spec.at_key(
                0,
                &format!("{at}.event"),
                "`event:` names Server-Sent Events (`as: events`); a JSON line has no name",
            ));
            return None;
        }
        let ty = self.type_expr(0, &at, &error.ty, &[])?;
        if ty.is_bytes() || ty.is_unit() || ty.bare() == Some("String") {
            self.push(
                self.spec
                    .at(0, &at, format!("an error event reads as JSON, not as `{}`", ty.render()))
                    .help("name a struct of the spec: an error is told from an item by the keys it declares"),
            );
            return None;
        }
        Some(checked::ErrorEvents {
            ty,
            event: error.event.clone(),
        })
    }

    /// `events:`: each name's variant and data type; `None` after a diagnostic.
    fn event_cases(
        &mut self,
        key: &str,
        enum_name: &str,
        map: &IndexMap<String, String>,
    ) -> Option<Vec<checked::EventCase>> {
        let mut events = Vec::new();
        let mut ok = true;
        self.type_name(0, &format!("{key}.returns.type"), enum_name);
        if self.spec.types.contains_key(enum_name) {
            self.push(
                self.spec
                    .at(
                        0,
                        &format!("{key}.returns.type"),
                        format!("`events:` generates the enum `{enum_name}`, which `types:` declares too"),
                    )
                    .help("name the events' enum `type:` something of its own"),
            );
            ok = false;
        }
        let mut variants = names::Taken::default();
        for (index, (event, text)) in map.iter().enumerate() {
            let at = format!("{key}.returns.events.{event}");
            match self.type_expr(0, &at, text, &[]) {
                Some(ty) if ty.is_bytes() || ty.is_unit() => {
                    self.push(self.spec.at(
                        0,
                        &at,
                        format!(
                            "an event's data reads as JSON or `String`, not `{}`",
                            ty.render()
                        ),
                    ));
                    ok = false;
                }
                Some(ty) => {
                    let variant = variants.unique(&names::variant(event, index), "");
                    events.push(checked::EventCase {
                        name: event.clone(),
                        variant,
                        ty,
                    });
                }
                None => ok = false,
            }
        }
        ok.then_some(events)
    }

    /// A streamed body is handed over as it comes: nothing may need it whole.
    pub(super) fn stream_return(&mut self, key: &str, def: &MethodDef) {
        let how = encoding_name(def.returns.as_ref().map(|r| r.encoding).unwrap_or_default());
        let others = [
            ("not_found", def.not_found == Some(NotFound::None)),
            ("response_headers", !def.response_headers.is_empty()),
            ("paginate", def.paginate.is_some()),
        ];
        for (what, set) in others {
            if set {
                self.push(self.spec.at_key(
                    0,
                    &format!("{key}.{what}"),
                    format!("`{what}:` does not go with a streamed body (`as: {how}`)"),
                ));
            }
        }
        let limit = match &def.profile {
            Some(ProfileRef::Inline(profile)) => profile.max_response_bytes.is_some(),
            Some(ProfileRef::Named(name)) => self
                .spec
                .profiles
                .get(name)
                .is_some_and(|p| p.item.max_response_bytes.is_some()),
            None => false,
        };
        if limit {
            self.push(
                self.spec
                    .at_key(0, &format!("{key}.config"), format!("`max_response_bytes` does not apply to a streamed body (`as: {how}`)"))
                    .help("a stream hands chunks over as they come; count them as you read, or drop the setting"),
            );
        }
    }

    /// `responses:`: success statuses, each with its shape.
    pub(super) fn responses(&mut self, key: &str, def: &MethodDef) -> Option<Vec<(u16, Ty)>> {
        let mut out = Some(Vec::new());
        for (status, text) in def.responses.iter().flatten() {
            let at = format!("{key}.responses.{}", status.0);
            let code = status
                .0
                .parse::<u16>()
                .ok()
                .filter(|c| (200..300).contains(c));
            if code.is_none() {
                self.push(
                    self.spec
                        .at_key(0, &at, format!("`{}` is not a success status", status.0))
                        .help("`responses:` lists 2xx statuses; error bodies go under `errors:`"),
                );
            }
            let ty = self.type_expr(0, &at, text, &[]);
            out = match (out, code, ty) {
                (Some(mut out), Some(code), Some(ty)) => {
                    out.push((code, ty));
                    Some(out)
                }
                _ => None,
            };
        }
        out
    }

    /// `errors:`: error statuses, classes or `default`, each with its body's type and how it
    /// is read.
    pub(super) fn errors(&mut self, key: &str, def: &MethodDef) -> Option<Vec<checked::ErrorBody>> {
        let mut out = Some(Vec::new());
        for (status, error) in def.errors.iter().flatten() {
            let at = format!("{key}.errors.{}", status.0);
            let matched = match status.0.to_ascii_uppercase().as_str() {
                "DEFAULT" => Some(checked::StatusMatch::Default),
                "4XX" => Some(checked::StatusMatch::Class(4)),
                "5XX" => Some(checked::StatusMatch::Class(5)),
                other => other
                    .parse::<u16>()
                    .ok()
                    .filter(|c| (400..600).contains(c))
                    .map(checked::StatusMatch::Exact),
            };
            if matched.is_none() {
                self.push(
                    self.spec
                        .at_key(0, &at, format!("`{}` is not an error status", status.0))
                        .help("write a 4xx or 5xx status (`404`), a class (`4XX`, `5XX`) or `default`"),
                );
            }
            let type_at = if self.spec.sources[0].spans.has_key(&format!("{at}.type")) {
                format!("{at}.type")
            } else {
                at.clone()
            };
            let ty = self.type_expr(0, &type_at, &error.ty, &[]).filter(|ty| {
                let unit = ty.is_unit();
                if unit {
                    self.push(
                        self.spec
                            .at(0, &type_at, "an error body needs a type, not `()`")
                            .help("leave the status out: its error has no body to read"),
                    );
                }
                !unit
            });
            let read = ty
                .as_ref()
                .and_then(|ty| self.error_read(&at, ty, error.encoding));
            out = match (out, matched, ty, read) {
                (Some(mut out), Some(matched), Some(ty), Some(read)) => {
                    out.push(checked::ErrorBody { matched, ty, read });
                    Some(out)
                }
                _ => None,
            };
        }
        out
    }

    /// How an error body of type `ty` is read under `as:`: JSON, text into a `String`, or the
    /// raw bytes into a `bytes::Bytes` (whatever `as:` says); `None` after a diagnostic.
    fn error_read(
        &mut self,
        at: &str,
        ty: &Ty,
        encoding: ReturnsEncoding,
    ) -> Option<ReturnsEncoding> {
        let fits = match encoding {
            _ if ty.is_bytes() => return Some(ReturnsEncoding::Bytes),
            ReturnsEncoding::Json => true,
            ReturnsEncoding::Text => ty.bare() == Some("String"),
            ReturnsEncoding::Bytes => false,
            ReturnsEncoding::Stream | ReturnsEncoding::Events | ReturnsEncoding::Lines => {
                self.push(
                    self.spec
                        .at(
                            0,
                            &format!("{at}.as"),
                            format!(
                                "an error body is read whole, not `as: {}`",
                                encoding_name(encoding)
                            ),
                        )
                        .help("write `as: json`, `as: text` or `as: bytes`"),
                );
                return None;
            }
        };
        if !fits {
            let wanted = if encoding == ReturnsEncoding::Text {
                "String"
            } else {
                "bytes::Bytes"
            };
            self.push(
                self.spec
                    .at(
                        0,
                        &format!("{at}.as"),
                        format!(
                            "`as: {}` reads into `{wanted}`, not `{}`",
                            encoding_name(encoding),
                            ty.render()
                        ),
                    )
                    .help(format!("write `type: {wanted}`")),
            );
            return None;
        }
        Some(encoding)
    }
}

/// How `returns: { as: .. }` spells an encoding.
fn encoding_name(encoding: ReturnsEncoding) -> &'static str {
    match encoding {
        ReturnsEncoding::Json => "json",
        ReturnsEncoding::Text => "text",
        ReturnsEncoding::Bytes => "bytes",
        ReturnsEncoding::Stream => "stream",
        ReturnsEncoding::Events => "events",
        ReturnsEncoding::Lines => "lines",
    }
}
