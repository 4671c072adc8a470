//! What a union alternative can read, told from a JSON value's kind and keys: written next to
//! each alternative of an untagged union so that the runtime never reads an alternative the
//! value's shape rules out (`remcall::__codegen::union::Fits`), and tries first the one that
//! fits the value best (the most of its keys declared, a string its enum knows). A type this
//! cannot tell says `Fits::ANY`, and the alternative is read to find out.

use crate::checked::{self, Shape};
use crate::types::{PRIMITIVES, Ty};

/// What an alternative of type `ty` fits, as `serde_union!` takes it (`OBJECT | NULL requiring
/// ["id"] declaring ["id", "name"]`: `Fits` constants, an object's required keys, and the keys
/// it declares or the values its enum knows), given the client's types.
pub(super) fn fits(ty: &Ty, types: &[checked::TypeDecl], rename_all: Option<&str>) -> String {
    let shape = shape_of(ty, types, rename_all);
    let mut out = shape.kinds.join(" | ");
    // Debug-quoted: a wire name is untrusted text, written as a Rust literal.
    let quoted = |keys: &[String]| {
        let keys: Vec<String> = keys.iter().map(|key| format!("{key:?}")).collect();
        keys.join(", ")
    };
    if !shape.required.is_empty() {
        out.push_str(&format!(" requiring [{}]", quoted(&shape.required)));
    }
    if !shape.declared.is_empty() {
        out.push_str(&format!(" declaring [{}]", quoted(&shape.declared)));
    }
    if !shape.tags.is_empty() {
        let tags: Vec<String> = shape
            .tags
            .iter()
            .map(|(field, value)| format!("{field:?} = {value:?}"))
            .collect();
        out.push_str(&format!(" tagged [{}]", tags.join(", ")));
    }
    out
}

/// The wire names an object of type `ty` declares (none for a type that is not an object).
pub(super) fn declared_keys(
    ty: &Ty,
    types: &[checked::TypeDecl],
    rename_all: Option<&str>,
) -> Vec<String> {
    let shape = shape_of(ty, types, rename_all);
    if shape.kinds.contains(&"OBJECT") {
        shape.declared
    } else {
        Vec::new()
    }
}

const ANY: &str = "ANY";

/// The kinds (as `Fits` constants), an object's required wire names, and its declared wire
/// names or a string enum's values.
struct Shaped {
    kinds: Vec<&'static str>,
    required: Vec<String>,
    declared: Vec<String>,
    /// Fields whose type is a string enum of one value, and that value.
    tags: Vec<(String, String)>,
}

fn kind(name: &'static str) -> Shaped {
    Shaped {
        kinds: vec![name],
        required: Vec::new(),
        declared: Vec::new(),
        tags: Vec::new(),
    }
}

fn shape_of(ty: &Ty, types: &[checked::TypeDecl], rename_all: Option<&str>) -> Shaped {
    shape_within(ty, types, rename_all, UNION_DEPTH)
}

/// How deep unions inside unions are looked into; past it an alternative says `ANY`, so a
/// union that holds itself is still told in bounded work.
const UNION_DEPTH: usize = 4;

fn shape_within(
    ty: &Ty,
    types: &[checked::TypeDecl],
    rename_all: Option<&str>,
    depth: usize,
) -> Shaped {
    for wrapper in ["Option", "Nullable"] {
        if let Some(inner) = ty.inner(wrapper) {
            let mut shape = shape_within(inner, types, rename_all, depth);
            if shape.kinds != [ANY] {
                shape.kinds.push("NULL");
            }
            return shape;
        }
    }
    if let Some(inner) = ty.inner("Box") {
        return shape_within(inner, types, rename_all, depth);
    }
    let Ty::Path { segments, .. } = ty else {
        return match ty {
            Ty::Tuple(items) if items.is_empty() => kind("NULL"),
            _ => kind("ARRAY"),
        };
    };
    let [name] = segments.as_slice() else {
        return kind(ANY);
    };
    match name.as_str() {
        "String" | "char" => return kind("STRING"),
        "bool" => return kind("BOOL"),
        "Vec" => return kind("ARRAY"),
        "HashMap" | "BTreeMap" => return kind("OBJECT"),
        number if PRIMITIVES.contains(&number) => {
            return kind("NUMBER");
        }
        _ => {}
    }
    match types
        .iter()
        .find(|decl| &decl.name == name)
        .map(|decl| &decl.shape)
    {
        // As the generated `finish`: a field is required unless it is an `Option` or `Nullable`.
        Some(Shape::Struct(s)) => struct_shape(s, types, rename_all),
        Some(Shape::Enum(e)) if e.integer => kind("NUMBER"),
        Some(Shape::Enum(e)) => Shaped {
            declared: e.values.iter().map(|value| value.wire.clone()).collect(),
            ..kind("STRING")
        },
        Some(Shape::Union(u)) if !u.open && depth > 0 => union_shape(u, types, rename_all, depth),
        _ => kind(ANY),
    }
}

/// A union inside a union: what any of its alternatives reads. An object needs only the keys
/// every alternative that reads objects needs, and declares the keys any of them declares, so
/// that `{kind, resourceId}` is tried first against the union whose alternative keeps
/// `resourceId`, not against a sibling that declares `kind` alone and would drop the rest.
fn union_shape(
    u: &checked::Union,
    types: &[checked::TypeDecl],
    rename_all: Option<&str>,
    depth: usize,
) -> Shaped {
    // Adjacently tagged, every value is the object of its two keys, whatever the alternatives.
    if let (Some(tag), Some(content)) = (&u.tag, &u.content) {
        let keys = vec![tag.clone(), content.clone()];
        return Shaped {
            kinds: vec!["OBJECT"],
            required: vec![tag.clone()],
            declared: keys,
            tags: Vec::new(),
        };
    }
    let mut kinds: Vec<&'static str> = Vec::new();
    let mut required: Option<Vec<String>> = None;
    let mut declared: Vec<String> = Vec::new();
    for alternative in &u.alternatives {
        let shape = shape_within(&alternative.ty, types, rename_all, depth - 1);
        if shape.kinds.contains(&ANY) {
            return kind(ANY);
        }
        if shape.kinds.contains(&"OBJECT") {
            required = Some(match required {
                None => shape.required,
                Some(so_far) => so_far
                    .into_iter()
                    .filter(|key| shape.required.contains(key))
                    .collect(),
            });
        }
        for key in shape.declared {
            if !declared.contains(&key) {
                declared.push(key);
            }
        }
        for found in shape.kinds {
            if !kinds.contains(&found) {
                kinds.push(found);
            }
        }
    }
    if kinds.is_empty() {
        return kind(ANY);
    }
    if let Some(tag) = &u.tag {
        required = Some(vec![tag.clone()]);
    }
    Shaped {
        kinds,
        required: required.unwrap_or_default(),
        declared,
        tags: Vec::new(),
    }
}

/// An object of the struct: the wire names of its fields that must come, of all its fields, and
/// of those whose type is a string enum of one value (or a string constant), with that value.
fn struct_shape(
    s: &checked::Struct,
    types: &[checked::TypeDecl],
    rename_all: Option<&str>,
) -> Shaped {
    // As the generated `finish`: a field is required unless it is an `Option` or `Nullable`.
    let required = s
        .fields
        .iter()
        .filter(|field| field.ty.inner("Option").is_none())
        .filter(|field| field.ty.inner("Nullable").is_none())
        .map(|field| field.wire_name(rename_all))
        .collect();
    let declared = s
        .fields
        .iter()
        .map(|field| field.wire_name(rename_all))
        .collect();
    let tags = s
        .fields
        .iter()
        .filter_map(|field| {
            let ty = field.ty.inner("Option").unwrap_or(&field.ty);
            let value = match types.iter().find(|d| Some(d.name.as_str()) == ty.bare()) {
                Some(checked::TypeDecl {
                    shape: Shape::Enum(e),
                    ..
                }) if !e.integer && e.values.len() == 1 => e.values[0].wire.clone(),
                _ => match &field.constant {
                    Some((_, checked::ConstValue::Str(value))) => value.clone(),
                    _ => return None,
                },
            };
            Some((field.wire_name(rename_all), value))
        })
        .collect();
    Shaped {
        kinds: vec!["OBJECT"],
        required,
        declared,
        tags,
    }
}
