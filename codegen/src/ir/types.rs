//! A declared type in render-ready form: its fields' and variants' names, wire names and
//! Rust types, recursion boxed.

use crate::checked::{self, Shape};
use crate::names;
use crate::types::Ty;

use super::docs::{comment_text, item_doc, repeats};
use super::fits::fits;
use super::{Containment, Field, TypeDecl, Variant};

/// Closed string enums and integer enums are `Copy`; an open string enum holds a `String`.
pub(super) fn is_copy_type(shape: &Shape) -> bool {
    matches!(shape, Shape::Enum(e) if e.integer || !e.open)
}

/// The most required fields a struct's `new(..)` takes (clippy's `too_many_arguments` limit).
const MAX_CONSTRUCTOR_ARGS: usize = 7;

pub(super) fn lower_type(
    decl: &checked::TypeDecl,
    types: &[checked::TypeDecl],
    cycles: &Containment,
    rename_all: Option<&str>,
) -> TypeDecl {
    let type_name = &decl.name;
    let doc = item_doc(decl.doc.as_ref(), type_name);
    let mut out = TypeDecl {
        name: names::pascal(type_name),
        params: if decl.generics.is_empty() {
            String::new()
        } else {
            format!("<{}>", decl.generics.join(", "))
        },
        doc,
        fields: Vec::new(),
        additional: None,
        variants: Vec::new(),
        is_enum: false,
        is_integer: false,
        is_union: false,
        tag: None,
        content: None,
        open: false,
        copy: is_copy_type(&decl.shape),
        multipart: Vec::new(),
        default: false,
        constructor: Vec::new(),
    };
    match &decl.shape {
        Shape::Enum(e) => {
            out.is_enum = true;
            out.is_integer = e.integer;
            out.open = e.open;
            out.variants = e.values.iter().map(enum_variant).collect();
        }
        Shape::Struct(s) => lower_struct(&mut out, s, cycles, type_name, rename_all),
        Shape::Union(u) => {
            out.is_union = true;
            out.open = u.open;
            out.tag = u.tag.clone();
            out.content = u.content.clone();
            out.variants = u
                .alternatives
                .iter()
                .map(|a| {
                    let ty = cycles.box_recursion(&a.ty, type_name);
                    // Adjacently tagged, an empty struct is `{}` under the content key: not plain.
                    let plain = (u.tag.is_some() && u.content.is_none())
                        .then(|| tag_only(&a.ty, types))
                        .flatten();
                    // A plain variant's doc is its struct's, where the alternative has none.
                    let doc = a.doc.as_ref().or(plain.and_then(|decl| decl.doc.as_ref()));
                    Variant {
                        name: a.variant.clone(),
                        wire: ty.render(),
                        tags: a.tags.clone(),
                        writes_tag: a.writes_tag,
                        fits: fits(&a.ty, types, rename_all),
                        doc: item_doc(doc, &a.variant),
                        from: false,
                        plain: plain.is_some(),
                    }
                })
                .collect();
            // `From` each alternative's type, where no other alternative has the same one.
            let wires: Vec<String> = out.variants.iter().map(|v| v.wire.clone()).collect();
            for variant in &mut out.variants {
                variant.from =
                    !variant.plain && wires.iter().filter(|w| **w == variant.wire).count() == 1;
            }
        }
    }
    out
}

/// The struct `ty` names when it declares nothing (no field, no other key kept, no generics):
/// a tagged union's alternative of that type holds its tag alone.
pub(super) fn tag_only<'t>(
    ty: &Ty,
    types: &'t [checked::TypeDecl],
) -> Option<&'t checked::TypeDecl> {
    let name = ty.bare()?;
    let decl = types.iter().find(|t| t.name == name)?;
    match &decl.shape {
        Shape::Struct(s)
            if s.fields.is_empty()
                && s.additional.is_none()
                && s.flatten.is_none()
                && decl.generics.is_empty() =>
        {
            Some(decl)
        }
        _ => None,
    }
}

/// A struct's fields, and what it derives or is built with besides its fields.
fn lower_struct(
    out: &mut TypeDecl,
    s: &checked::Struct,
    cycles: &Containment,
    type_name: &str,
    rename_all: Option<&str>,
) {
    out.fields = s
        .fields
        .iter()
        .map(|field| lower_field(field, cycles, type_name, rename_all))
        .collect();
    if let Some(flattened) = &s.flatten {
        let ty = cycles.box_recursion(&flattened.ty, type_name);
        out.fields.push(Field {
            name: flattened.rust.clone(),
            doc: vec![format!(
                " The keys the other fields do not take, read as a `{}`.",
                comment_text(&flattened.ty.render())
            )],
            ty: ty.render(),
            rename: None,
            wire: String::new(),
            defaulted: false,
            optional: false,
            nullable: false,
            constant: false,
            flatten: true,
        });
    }
    out.additional = s.additional.as_ref().map(Ty::render);
    let required: Vec<&Field> = out
        .fields
        .iter()
        .filter(|field| !field.defaulted && !field.constant)
        .collect();
    out.default = required.is_empty();
    // Past seven arguments a constructor reads worse than the struct literal it saves; up to
    // them, it saves the `.into()`s and `..Default` a struct of only required fields lacks.
    if (1..=MAX_CONSTRUCTOR_ARGS).contains(&required.len()) {
        out.constructor = required.into_iter().cloned().collect();
    }
}

fn lower_field(
    field: &checked::Field,
    cycles: &Containment,
    owner: &str,
    rename_all: Option<&str>,
) -> Field {
    let ty = cycles.box_recursion(&field.ty, owner);
    let rust = field.rust.clone();
    let bare = rust.trim_start_matches("r#");
    let wire = field.wire_name(rename_all);
    let doc = item_doc(field.doc.as_ref(), &field.key);
    Field {
        name: rust.clone(),
        ty: match &field.constant {
            Some((marker, _)) => marker.clone(),
            None => ty.render(),
        },
        doc,
        rename: (wire != bare).then(|| wire.clone()),
        wire,
        optional: ty.inner("Option").is_some() && !field.required,
        nullable: ty.inner("Nullable").is_some(),
        constant: field.constant.is_some(),
        flatten: false,
        // As serde's derive: an `Option` is `None` when absent even when required.
        defaulted: ty.inner("Option").is_some() || ty.inner("Nullable").is_some(),
    }
}

/// An enum value as a variant: its rustdoc, else its wire value when the variant's name does
/// not say it (`PlusOne` for `+1`).
fn enum_variant(value: &checked::EnumValue) -> Variant {
    let mut doc = item_doc(value.doc.as_ref(), &value.variant);
    if doc.is_empty() && value.wire.is_empty() {
        doc = vec![" The empty string.".to_owned()];
    } else if doc.is_empty() && !repeats(&value.wire, &value.variant) {
        doc = vec![format!(" `{}`", comment_text(&value.wire))];
    }
    Variant {
        name: value.variant.clone(),
        wire: value.wire.clone(),
        tags: Vec::new(),
        writes_tag: false,
        fits: String::new(),
        doc,
        from: false,
        plain: false,
    }
}
