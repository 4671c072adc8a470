//! What a union alternative can read, told from a JSON value's kind and keys: written next to
//! each alternative of an untagged union so that the runtime never reads an alternative the
//! value's shape rules out (`remcall::__codegen::union::Fits`). A type this cannot tell says
//! `Fits::ANY`, and the alternative is read to find out.

use crate::checked::{self, Shape};
use crate::types::{PRIMITIVES, Ty};

/// What an alternative of type `ty` fits, as `serde_union!` takes it (`OBJECT | NULL requiring
/// ["id"]`: `Fits` constants, and an object's required keys), given the client's types.
pub(super) fn fits(ty: &Ty, types: &[checked::TypeDecl], rename_all: Option<&str>) -> String {
    let (kinds, required) = shape_of(ty, types, rename_all);
    let mut out = kinds.join(" | ");
    if !required.is_empty() {
        // Debug-quoted: a wire name is untrusted text, written as a Rust literal.
        let keys: Vec<String> = required.iter().map(|key| format!("{key:?}")).collect();
        out.push_str(&format!(" requiring [{}]", keys.join(", ")));
    }
    out
}

const ANY: &str = "ANY";

/// The kinds (as `Fits` constants) and, for an object, the required wire names.
fn shape_of(
    ty: &Ty,
    types: &[checked::TypeDecl],
    rename_all: Option<&str>,
) -> (Vec<&'static str>, Vec<String>) {
    let kind = |name: &'static str| (vec![name], Vec::new());
    for wrapper in ["Option", "Nullable"] {
        if let Some(inner) = ty.inner(wrapper) {
            let (mut kinds, required) = shape_of(inner, types, rename_all);
            if kinds != [ANY] {
                kinds.push("NULL");
            }
            return (kinds, required);
        }
    }
    if let Some(inner) = ty.inner("Box") {
        return shape_of(inner, types, rename_all);
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
        Some(Shape::Struct(s)) => {
            let required = s
                .fields
                .iter()
                .filter(|field| field.ty.inner("Option").is_none())
                .filter(|field| field.ty.inner("Nullable").is_none())
                .map(|field| field.wire_name(rename_all))
                .collect();
            (vec!["OBJECT"], required)
        }
        Some(Shape::Enum(e)) if e.integer => kind("NUMBER"),
        Some(Shape::Enum(_)) => kind("STRING"),
        _ => kind(ANY),
    }
}
