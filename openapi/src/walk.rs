//! The walk that fills the spec (`spec.rs`) from a description, in passes: the service's own
//! keys (`service.rs`), each operation (`operations/`), whose schemas become types as they are
//! met (`schema/`); then the types settled (`settle/`), shared shapes written once
//! (`shapes.rs`), names the generator makes cleared, pages found (`paging.rs`), and what `check`
//! refused set aside.

use std::collections::HashMap;

use serde_json::Value;

use crate::document::{Documents, Place};
use crate::spec::{Spec, TypeOut};
use crate::ty::Ty;
use crate::{Error, Note, Options};

/// The walk's state: the description, the spec so far, and where each named schema went.
pub(crate) struct Builder<'d> {
    pub(crate) docs: &'d mut Documents,
    pub(crate) spec: Spec,
    /// A named schema's place → its type expression (a type name, or what an alias stands for).
    pub(crate) named: HashMap<Place, Ty>,
    /// Type names taken, in the order they were given.
    pub(crate) taken_types: crate::names::Taken,
    /// Named schemas met but not yet defined.
    pub(crate) pending: Vec<(Place, String)>,
    /// Original schema name → type name, for a discriminator's default mapping.
    pub(crate) schema_names: HashMap<String, String>,
    /// The security schemes the client's own credentials answer.
    pub(crate) client_requirement: Vec<String>,
    /// API key scheme → the variable its secret comes from.
    pub(crate) key_variables: HashMap<String, String>,
    /// Security schemes a requirement names and the description does not define.
    pub(crate) undefined_schemes: std::collections::BTreeSet<String>,
    /// Which alternative of a `security` list the client sends, when it could send several.
    pub(crate) security_choices: Vec<String>,
    /// What date strings become.
    pub(crate) dates: crate::Dates,
    /// An inline type's schema `title`, the name it takes when several uses share its shape.
    pub(crate) titles: HashMap<String, String>,
    /// The property an inline type is the type of, the name its shape takes when all its
    /// uses are of one property (and no title names it).
    pub(crate) properties: HashMap<String, String>,
    /// The description's named object schemas by their sorted property names, read when an
    /// inline one may be a copy of one (`schema/copies.rs`).
    pub(crate) components: Option<HashMap<String, Vec<(Place, Value)>>>,
    /// A base schema's place → the struct of its own fields, where its uses are a union of
    /// its children (`schema/hierarchy.rs`).
    pub(crate) bases: HashMap<Place, String>,
    /// The named schemas that take a schema as an `allOf` part: its place → their names and
    /// places, read once when a discriminator first needs it.
    pub(crate) children: Option<HashMap<Place, Vec<(String, Place)>>>,
    /// The `callbacks` of the operations read: the method's name, where they are, what.
    pub(crate) callbacks: Vec<(String, Place, Value)>,
}

/// Builds the spec of the description in `docs`: nothing in it fails the import, what cannot be
/// carried over exactly is a note.
pub(crate) fn build(docs: &mut Documents, options: &Options) -> Spec {
    let mut builder = Builder {
        docs,
        spec: Spec::default(),
        named: HashMap::new(),
        taken_types: crate::names::Taken::default(),
        pending: Vec::new(),
        schema_names: HashMap::new(),
        client_requirement: Vec::new(),
        key_variables: HashMap::new(),
        undefined_schemes: Default::default(),
        security_choices: Vec::new(),
        dates: options.dates,
        titles: HashMap::new(),
        properties: HashMap::new(),
        components: None,
        bases: HashMap::new(),
        children: None,
        callbacks: Vec::new(),
    };
    builder.spec.overlays = builder
        .docs
        .overlays
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    for (place, message) in std::mem::take(&mut builder.docs.notes) {
        builder.note(&place, false, message);
    }
    builder.service(options);
    builder.operations(options);
    builder.webhooks();
    builder.note_undefined_schemes();
    builder.define_pending();
    builder.settle_types();
    builder.share_shapes();
    // After sharing: alternatives that differ only in their tag must stay apart.
    builder.lean_unions();
    builder.clear_generated_names();
    builder.paginate_methods();
    builder.clear_derived_method_names();
    builder.set_aside(&options.refused);
    let summary = &mut builder.spec.summary;
    summary.types = builder.spec.types.len();
    summary.fields = builder
        .spec
        .types
        .values()
        .map(|t| match t {
            TypeOut::Struct(s) => s.fields.len(),
            _ => 0,
        })
        .sum::<usize>()
        + builder
            .spec
            .methods
            .iter()
            .map(|m| {
                m.path.len()
                    + m.query.len()
                    + m.headers.len()
                    + usize::from(m.body.is_some())
                    + usize::from(m.returns.is_some())
                    + m.responses.len()
            })
            .sum::<usize>();
    summary.methods = builder.spec.methods.len();
    summary.faithful = builder
        .spec
        .methods
        .iter()
        .filter(|m| !m.lost && !m.is_twin)
        .count();
    builder.spec
}

impl Builder<'_> {
    /// Records what the import did at `place` on the user's behalf; `loses` when the spec says
    /// less than the description there.
    /// Whose word a note reports at `place`: the description's, or, where an overlay changed
    /// the item (or something in it, or around it), the description's with its overlays.
    pub(crate) fn as_said(&self, place: &Place) -> &'static str {
        let changed =
            place.file == self.docs.main
                && self.docs.overlaid.iter().any(|touched| {
                    within(&place.pointer, touched) || within(touched, &place.pointer)
                });
        if changed {
            "as the description with its overlays says"
        } else {
            "as the description says"
        }
    }

    pub(crate) fn note(&mut self, place: &Place, loses: bool, message: impl Into<String>) {
        let note = Note {
            file: self.docs.relative(&place.file),
            pointer: place.pointer.clone(),
            message: message.into(),
            loses,
        };
        self.spec.summary.notes.push(note);
    }

    /// Records a `$ref` that cannot be followed: what stands there becomes the nearest faithful
    /// thing, and the note says what was lost.
    pub(crate) fn unresolved(&mut self, error: Error, instead: &str) {
        let note = Note {
            file: self.docs.relative(&error.file),
            pointer: error.pointer,
            message: format!("{}; {instead}", error.message),
            loses: true,
        };
        self.spec.summary.notes.push(note);
    }

    /// A method with several success shapes, declared errors or events by name generates
    /// `<Method>Response`, `<Method>Error` or `<Method>Event`: a schema of that name is renamed
    /// (`…Schema`) wherever it is used.
    fn clear_generated_names(&mut self) {
        let mut generated = Vec::new();
        for method in &self.spec.methods {
            let base = heck::ToPascalCase::to_pascal_case(method.name.as_str());
            if !method.responses.is_empty() {
                generated.push(format!("{base}Response"));
            }
            if !method.errors.is_empty() {
                generated.push(format!("{base}Error"));
            }
            if method.stream.as_ref().is_some_and(|s| !s.events.is_empty()) {
                generated.push(crate::names::events_enum(&method.name));
            }
        }
        for name in generated {
            if !self.spec.types.contains_key(&name) {
                continue;
            }
            let mut taken: crate::names::Taken = self.spec.types.keys().collect();
            taken.extend(self.taken_types.iter());
            let new = crate::names::unique(&format!("{name}Schema"), "", &mut taken);
            self.rename_type(&name, &new);
            let top = self.docs.top();
            self.note(
                &top,
                false,
                format!("the schema `{name}` is the type `{new}`: a method generates `{name}`"),
            );
        }
    }

    /// A method generates `<name>_with` when it takes its optional parameters by name (more
    /// than two, as `check` decides when the spec does not say) and `<name>_stream` when it is
    /// paginated: an operation named so beside such a `<name>` is renamed (`x_with_2`), so the
    /// spec checks. Beside a `<name>` that makes no such method, the name is the operation's.
    fn clear_derived_method_names(&mut self) {
        let makes: std::collections::HashSet<String> = self
            .spec
            .methods
            .iter()
            .flat_map(|m| {
                let optional = m
                    .query
                    .iter()
                    .chain(&m.headers)
                    .filter(|p| p.ty.is_option());
                let with = (optional.count() > 2).then(|| format!("{}_with", m.name));
                let stream = m.paginate.is_some().then(|| format!("{}_stream", m.name));
                with.into_iter().chain(stream)
            })
            .collect();
        let mut taken: crate::names::Taken =
            self.spec.methods.iter().map(|m| m.name.as_str()).collect();
        for index in 0..self.spec.methods.len() {
            let name = self.spec.methods[index].name.clone();
            if !makes.contains(&name) {
                continue;
            }
            let new = crate::names::unique(&name, "_", &mut taken);
            self.spec.methods[index].name = new.clone();
            let place = self.docs.top();
            self.note(
                &place,
                false,
                format!("the operation `{name}` is the method `{new}`: `{name}` is a form the generator makes of another method"),
            );
        }
    }

    /// Leaves out what `check` refused of an earlier import: a method is a skipped operation, a
    /// type is `serde_json::Value` wherever it was used.
    fn set_aside(&mut self, refused: &[crate::Refused]) {
        use std::collections::HashSet;
        if refused.is_empty() {
            return;
        }
        let top = self.docs.top();
        // One pass over the methods and one over the type expressions, however many items.
        let methods: HashSet<&str> = refused
            .iter()
            .filter_map(|r| match r {
                crate::Refused::Method { name, .. } => Some(name.as_str()),
                crate::Refused::Type { .. } => None,
            })
            .collect();
        let kept: HashSet<String> = self.spec.methods.iter().map(|m| m.name.clone()).collect();
        self.spec
            .methods
            .retain(|m| !methods.contains(m.name.as_str()));
        let mut types: HashSet<String> = HashSet::new();
        for item in refused {
            match item {
                crate::Refused::Method { name, reason } if kept.contains(name) => {
                    let why = format!("the method would not check: {reason}");
                    self.spec.summary.skipped.push((name.clone(), why));
                }
                crate::Refused::Type { name, reason }
                    if self.spec.types.shift_remove(name).is_some() =>
                {
                    types.insert(name.clone());
                    self.note(
                        &top,
                        true,
                        format!("the type `{name}` would not check ({reason}): serde_json::Value wherever it was used"),
                    );
                }
                _ => {}
            }
        }
        if types.is_empty() {
            return;
        }
        let mut uses = 0;
        self.each_ty(|ty| {
            ty.visit_mut(&mut |part| {
                if matches!(part, Ty::Named(n) if types.contains(n)) {
                    *part = Ty::Value;
                    uses += 1;
                }
            })
        });
        self.spec.summary.value_fallbacks += uses;
        for definition in self.spec.types.values_mut() {
            match definition {
                TypeOut::Struct(s) => s.all_of.retain(|p| !types.contains(p)),
                // An adjacently tagged union maps to variant names, not types.
                TypeOut::Union(u) if u.content.is_some() => {}
                TypeOut::Union(u) => u.mapping.retain(|(_, ty)| !types.contains(ty)),
                TypeOut::Enum(_) => {}
            }
        }
    }

    /// Renames a type, and every use of it in a type expression.
    pub(crate) fn rename_type(&mut self, old: &str, new: &str) {
        if let Some(index) = self.spec.types.get_index_of(old) {
            let (_, definition) = self.spec.types.swap_remove_index(index).expect("present");
            self.spec.types.insert(new.to_owned(), definition);
            let last = self.spec.types.len() - 1;
            self.spec.types.move_index(last, index);
        }
        self.each_ty(|ty| ty.rename(old, new));
        for definition in self.spec.types.values_mut() {
            match definition {
                TypeOut::Struct(s) => s
                    .all_of
                    .iter_mut()
                    .filter(|p| *p == old)
                    .for_each(|p| *p = new.to_owned()),
                TypeOut::Union(u) if u.content.is_some() => {}
                TypeOut::Union(u) => u
                    .mapping
                    .iter_mut()
                    .filter(|(_, ty)| ty == old)
                    .for_each(|(_, ty)| *ty = new.to_owned()),
                TypeOut::Enum(_) => {}
            }
        }
    }

    /// Calls `f` on every type expression of the spec: fields, alternatives, parameters, bodies,
    /// results and errors.
    pub(crate) fn each_ty(&mut self, mut f: impl FnMut(&mut Ty)) {
        for definition in self.spec.types.values_mut() {
            match definition {
                TypeOut::Struct(s) => {
                    s.fields.iter_mut().for_each(|field| f(&mut field.ty));
                    if let Some(additional) = &mut s.additional {
                        f(additional);
                    }
                }
                TypeOut::Union(u) => u.alternatives.iter_mut().for_each(&mut f),
                TypeOut::Enum(_) => {}
            }
        }
        for method in &mut self.spec.methods {
            for param in method
                .path
                .iter_mut()
                .chain(&mut method.query)
                .chain(&mut method.headers)
            {
                f(&mut param.ty);
            }
            if let Some(body) = &mut method.body {
                f(&mut body.ty);
            }
            if let Some((ty, _)) = &mut method.returns {
                f(ty);
            }
            for stream in method.stream.iter_mut().chain(&mut method.stream_twin) {
                f(&mut stream.item);
                stream.events.iter_mut().for_each(|(_, ty)| f(ty));
                // A stream's in-band error is a type use too: a type renamed (a shared shape's
                // name) must be renamed here as well.
                if let Some((error, _)) = &mut stream.error {
                    f(error);
                }
            }
            method.responses.iter_mut().for_each(|(_, ty)| f(ty));
            method.errors.iter_mut().for_each(|(_, ty, _)| f(ty));
        }
        for event in &mut self.spec.webhooks.events {
            if let Some(payload) = &mut event.payload {
                f(payload);
            }
        }
    }
}

/// True when the JSON pointer `inner` is `outer` or below it.
fn within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}
