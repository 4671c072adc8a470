//! The render-ready form of a validated spec: names cased, types parsed and written out, each
//! argument's borrowed form decided, profiles resolved to the YAML the runtime reads.

use remcall_profile::Profile;

use crate::names;
use crate::spec::Spec;
use crate::spec::model::{BodyEncoding, ConfigRef, FallbackDef, NotFound};
use crate::types::Ty;
use crate::validate::{placeholders, resolve_config};

/// One generated module.
#[derive(Debug)]
pub struct Client {
    /// `UserClient`.
    pub name: String,
    /// `UserClientBuilder`.
    pub builder: String,
    /// `UserClientFallback`, when the spec has a fallback.
    pub fallback_trait: Option<String>,
    /// The fallback type used when none is given (`remcall::NoFallback` or the spec's path).
    pub default_fallback: String,
    /// The expression that makes it.
    pub default_fallback_value: String,
    /// Rustdoc lines of the client.
    pub doc: Vec<String>,
    /// Default endpoints as Rust string literals.
    pub base_urls: Vec<String>,
    /// The base path as a Rust string literal.
    pub base_path: String,
    /// The client's resolved profile as a Rust string literal.
    pub profile: String,
    /// The static holding its `ClientSpec`: `CLIENT_SPEC`, unless a method's static has the name.
    pub spec_static: String,
    /// Rust paths of the spec's interceptors, built with `Default`, in order.
    pub interceptors: Vec<String>,
    /// Generated types.
    pub types: Vec<TypeDecl>,
    /// Methods.
    pub methods: Vec<Method>,
}

/// A generated struct or enum.
#[derive(Debug)]
pub struct TypeDecl {
    /// Rust name.
    pub name: String,
    /// `<T>` or empty.
    pub generics: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// Struct fields (empty for enums).
    pub fields: Vec<Field>,
    /// Enum variants: (Rust name, wire name literal); empty for structs.
    pub variants: Vec<(String, String)>,
    /// True for enums.
    pub is_enum: bool,
}

/// A struct field.
#[derive(Debug)]
pub struct Field {
    /// Rust name.
    pub name: String,
    /// Rust type.
    pub ty: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// Wire name literal when it differs from what serde would use.
    pub rename: Option<String>,
    /// `Option<_>`: skipped when `None`, defaulted when absent.
    pub optional: bool,
}

/// A client method.
#[derive(Debug)]
pub struct Method {
    /// Rust name.
    pub name: String,
    /// The static holding its `MethodSpec`.
    pub spec_const: String,
    /// Name as in the spec, as a literal.
    pub spec_name: String,
    /// Rustdoc lines.
    pub doc: Vec<String>,
    /// `"GET"`.
    pub verb: String,
    /// Path template literal.
    pub path: String,
    /// Retries are safe.
    pub idempotent: bool,
    /// 404 → `None`.
    pub not_found_none: bool,
    /// Profile override literal (`""`: none).
    pub profile: String,
    /// Arguments in DESIGN.md order.
    pub params: Vec<Param>,
    /// Names of the generated body's locals.
    pub locals: Locals,
    /// Return type.
    pub returns: String,
    /// The decoder expression.
    pub decode: String,
    /// The method calls the fallback on eligible errors.
    pub fallback: bool,
}

/// A method argument and how it enters the request.
#[derive(Debug)]
pub struct Param {
    /// Rust name.
    pub name: String,
    /// Argument type (borrowed form).
    pub ty: String,
    /// The request builder method that takes it: `path`, `query`, `header`, `json`, `form` or
    /// `bytes`.
    pub call: &'static str,
    /// The wire name literal, for path, query and header parameters.
    pub wire: Option<String>,
}

/// The names of a generated method's locals: plain, unless a parameter has the name already.
#[derive(Debug)]
pub struct Locals {
    /// The request being built.
    pub request: String,
    /// The fallback closure.
    pub fallback: String,
    /// The error a fallback is given.
    pub cause: String,
}

impl Locals {
    fn avoiding(params: &[Param]) -> Locals {
        let mut taken: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let mut unique = |base: &str| {
            let mut name = base.to_owned();
            while taken.contains(&name) {
                name.push('_');
            }
            taken.push(name.clone());
            name
        };
        Locals {
            request: unique("request"),
            fallback: unique("fallback"),
            cause: unique("cause"),
        }
    }
}

impl Method {
    /// `self, id: i64, …` argument list without `self`.
    pub fn args(&self) -> String {
        self.params
            .iter()
            .map(|p| format!("{}: {}, ", p.name, p.ty))
            .collect()
    }

    /// `id, tags, …` to pass the arguments on.
    pub fn arg_names(&self) -> String {
        self.params
            .iter()
            .map(|p| format!("{}, ", p.name))
            .collect()
    }
}

/// Writes `text` as a Rust string literal (escaped: safe for any content).
pub fn lit(text: &str) -> String {
    format!("{text:?}")
}

/// The wire name serde's `rename_all = rule` gives the field `key` (rules checked by validation).
fn apply_rename_rule(rule: &str, key: &str) -> String {
    use heck::{
        ToKebabCase, ToLowerCamelCase, ToPascalCase, ToShoutyKebabCase, ToShoutySnakeCase,
        ToSnakeCase,
    };
    let snake = key.to_snake_case();
    match rule {
        "lowercase" => snake.to_lowercase(),
        "UPPERCASE" => snake.to_uppercase(),
        "PascalCase" => snake.to_pascal_case(),
        "camelCase" => snake.to_lower_camel_case(),
        "SCREAMING_SNAKE_CASE" => snake.to_shouty_snake_case(),
        "kebab-case" => snake.to_kebab_case(),
        "SCREAMING-KEBAB-CASE" => snake.to_shouty_kebab_case(),
        _ => snake,
    }
}

/// Writes `text` as a raw string literal, so multi-line YAML reads as YAML.
fn raw_lit(text: &str) -> String {
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
}

fn doc_lines(doc: Option<&String>) -> Vec<String> {
    doc.map(|d| {
        d.trim()
            .lines()
            .map(|l| lit(&format!(" {}", l.trim_end())))
            .collect()
    })
    .unwrap_or_default()
}

fn profile_literal(profile: Profile) -> String {
    let mut profile = profile;
    profile.extends = None;
    // Interceptors are Rust types: the generated builder instantiates them, the runtime never
    // parses them.
    profile.interceptors = None;
    if profile == Profile::default() {
        lit("")
    } else {
        raw_lit(&format!("\n{}", profile.to_yaml_string()))
    }
}

/// Builds the render-ready form of a spec that passed validation.
pub fn lower(spec: &Spec) -> Result<Client, String> {
    let file = &spec.file;
    let name = file.client.clone().unwrap_or_default();
    let client_profile = match &file.config {
        Some(config) => resolve_config(spec, config)?,
        None => Profile::default(),
    };
    let (fallback_trait, default_fallback) = match &file.fallback {
        Some(FallbackDef::Enabled(true)) => (
            Some(format!("{name}Fallback")),
            "remcall::NoFallback".to_owned(),
        ),
        Some(FallbackDef::Path(path)) => (Some(format!("{name}Fallback")), path.clone()),
        _ => (None, "remcall::NoFallback".to_owned()),
    };
    let copy_types: Vec<&str> = spec
        .types
        .iter()
        .filter(|(_, t)| t.item.variants.is_some())
        .map(|(n, _)| n.as_str())
        .collect();
    let is_copy = |name: &str| copy_types.contains(&name);

    let rename_all = file.serde.as_ref().and_then(|s| s.rename_all.clone());
    let cycles = Containment::of(spec);
    let mut types = Vec::new();
    for (type_name, def) in &spec.types {
        let def = &def.item;
        let mut decl = TypeDecl {
            name: names::pascal(type_name),
            generics: if def.generics.is_empty() {
                String::new()
            } else {
                format!("<{}>", def.generics.join(", "))
            },
            doc: doc_lines(def.doc.as_ref()),
            fields: Vec::new(),
            variants: Vec::new(),
            is_enum: def.variants.is_some(),
        };
        if decl.doc.is_empty() {
            decl.doc = vec![lit(&format!(" The `{type_name}` type of the API."))];
        }
        if let Some(variants) = &def.variants {
            decl.variants = variants
                .iter()
                .map(|v| (names::pascal(v), lit(v)))
                .collect();
        }
        if let Some(fields) = &def.fields {
            for (field, fdef) in fields {
                let ty = cycles.box_recursion(&Ty::parse(&fdef.ty)?, type_name);
                let rust = names::snake(field);
                let bare = rust.trim_start_matches("r#");
                // The wire name is the explicit `rename`, else the spec's `rename_all` rule applied
                // here (serde's own rule panics on some non-ASCII names, and a visible name reads
                // better), else the key as written.
                let wire = match (&fdef.rename, &rename_all) {
                    (Some(wire), _) => wire.clone(),
                    (None, Some(rule)) => apply_rename_rule(rule, field),
                    (None, None) => field.clone(),
                };
                let rename = (wire != bare).then(|| lit(&wire));
                let mut doc = doc_lines(fdef.doc.as_ref());
                if doc.is_empty() {
                    doc = vec![lit(&format!(" `{field}`."))];
                }
                decl.fields.push(Field {
                    name: rust,
                    ty: ty.render(),
                    doc,
                    rename,
                    optional: ty.inner("Option").is_some(),
                });
            }
        }
        types.push(decl);
    }

    let mut methods = Vec::new();
    for (method_name, def) in &file.methods {
        let (verb, path) = def
            .request
            .trim()
            .split_once(' ')
            .unwrap_or((def.request.trim(), "/"));
        let path = path.trim();
        let mut params = Vec::new();
        // Path parameters in template order, then query, headers, body.
        for placeholder in placeholders(path)? {
            let pdef = &def.path[&placeholder];
            let ty = Ty::parse(&pdef.ty)?;
            let name = names::snake(&placeholder);
            params.push(Param {
                ty: ty.argument(&is_copy),
                name,
                call: "path",
                wire: Some(lit(&placeholder)),
            });
        }
        for (key, pdef) in &def.query {
            let ty = Ty::parse(&pdef.ty)?;
            let name = names::snake(key);
            let wire = pdef.name.clone().unwrap_or_else(|| key.clone());
            params.push(Param {
                ty: ty.argument(&is_copy),
                name,
                call: "query",
                wire: Some(lit(&wire)),
            });
        }
        for (key, pdef) in &def.headers {
            let ty = Ty::parse(&pdef.ty)?;
            let name = names::snake(key);
            let wire = pdef.name.clone().unwrap_or_else(|| key.clone());
            params.push(Param {
                ty: ty.argument(&is_copy),
                name,
                call: "header",
                wire: Some(lit(&wire)),
            });
        }
        if let Some(body) = &def.body {
            let ty = Ty::parse(&body.ty)?;
            let call = if ty.is_bytes() {
                "bytes"
            } else if body.encoding == BodyEncoding::Form {
                "form"
            } else {
                "json"
            };
            params.push(Param {
                name: "body".to_owned(),
                ty: ty.argument(&is_copy),
                call,
                wire: None,
            });
        }

        let returns = match &def.returns {
            Some(text) => Ty::parse(text)?,
            None => Ty::Tuple(Vec::new()),
        };
        let decoder = if returns.is_unit() {
            "decode::unit"
        } else if returns.is_bytes() {
            "decode::bytes"
        } else {
            "decode::json"
        };
        let not_found_none = def.not_found == Some(NotFound::None);
        let (returns, decode) = if not_found_none {
            (
                format!("Option<{}>", returns.render()),
                format!("{decoder}_or_none"),
            )
        } else {
            (returns.render(), decoder.to_owned())
        };
        let method_profile = match &def.config {
            Some(ConfigRef::Named(config)) => resolve_config(spec, config)?,
            Some(ConfigRef::Inline(profile)) => (**profile).clone(),
            None => Profile::default(),
        };
        let mut doc = doc_lines(def.doc.as_ref());
        if !doc.is_empty() {
            doc.push(lit(""));
        }
        doc.push(lit(&format!(" `{verb} {path}`")));
        let idempotent = def.idempotent.unwrap_or(matches!(
            verb,
            "GET" | "HEAD" | "OPTIONS" | "PUT" | "DELETE"
        ));
        methods.push(Method {
            name: names::snake(method_name),
            spec_const: names::shouty(method_name),
            spec_name: lit(method_name),
            doc,
            verb: lit(verb),
            path: lit(path),
            idempotent,
            not_found_none,
            profile: profile_literal(method_profile),
            locals: Locals::avoiding(&params),
            params,
            returns,
            decode,
            fallback: fallback_trait.is_some() && def.fallback != Some(false),
        });
    }

    let base_urls = file
        .base_url
        .as_ref()
        .map(|u| u.0.iter().map(|u| lit(u)).collect())
        .unwrap_or_default();
    let mut doc = doc_lines(file.doc.as_ref());
    if doc.is_empty() {
        doc.push(lit(&format!(" The `{name}` HTTP client.")));
    }
    let mut spec_static = "CLIENT_SPEC".to_owned();
    while methods.iter().any(|m| m.spec_const == spec_static) {
        spec_static.push('_');
    }
    let default_fallback_value = if default_fallback == "remcall::NoFallback" {
        default_fallback.clone()
    } else {
        format!("<{default_fallback}>::default()")
    };
    Ok(Client {
        builder: format!("{name}Builder"),
        default_fallback_value,
        fallback_trait,
        default_fallback,
        doc,
        base_urls,
        base_path: lit(file.base_path.as_deref().unwrap_or("")),
        interceptors: client_profile.interceptors.clone().unwrap_or_default(),
        profile: profile_literal(client_profile),
        spec_static,
        types,
        methods,
        name,
    })
}

/// Which struct types contain which others by value (not behind a `Vec`, map or `Box`): a struct
/// that contains itself, directly or through others, has infinite size unless boxed.
struct Containment {
    edges: std::collections::HashMap<String, Vec<String>>,
}

/// Containers that hold their items on the heap already.
const INDIRECT: &[&str] = &["Vec", "HashMap", "BTreeMap", "Box"];

impl Containment {
    fn of(spec: &Spec) -> Containment {
        let mut edges = std::collections::HashMap::new();
        for (name, def) in &spec.types {
            let mut contained = Vec::new();
            for field in def.item.fields.iter().flatten() {
                if let Ok(ty) = Ty::parse(&field.1.ty) {
                    by_value(&ty, &mut contained);
                }
            }
            contained.retain(|n| spec.types.contains_key(n));
            edges.insert(name.clone(), contained);
        }
        Containment { edges }
    }

    /// True when `from` contains `to` by value, through any chain of fields.
    fn reaches(&self, from: &str, to: &str) -> bool {
        let mut stack = vec![from.to_owned()];
        let mut seen = std::collections::HashSet::new();
        while let Some(name) = stack.pop() {
            if name == to {
                return true;
            }
            if seen.insert(name.clone()) {
                stack.extend(self.edges.get(&name).into_iter().flatten().cloned());
            }
        }
        false
    }

    /// `ty` (a field of `owner`) with every by-value occurrence of a type that leads back to
    /// `owner` boxed: `Option<Node>` in `Node` becomes `Option<Box<Node>>`.
    fn box_recursion(&self, ty: &Ty, owner: &str) -> Ty {
        match ty {
            Ty::Path { segments, .. }
                if segments.len() == 1 && INDIRECT.contains(&segments[0].as_str()) =>
            {
                ty.clone()
            }
            Ty::Path { segments, args }
                if args.is_empty()
                    && segments.len() == 1
                    && self.edges.contains_key(&segments[0])
                    && self.reaches(&segments[0], owner) =>
            {
                Ty::Path {
                    segments: vec!["Box".to_owned()],
                    args: vec![ty.clone()],
                }
            }
            Ty::Path { segments, args } => Ty::Path {
                segments: segments.clone(),
                args: args.iter().map(|a| self.box_recursion(a, owner)).collect(),
            },
            Ty::Tuple(items) => {
                Ty::Tuple(items.iter().map(|i| self.box_recursion(i, owner)).collect())
            }
        }
    }
}

/// The bare type names `ty` holds by value.
fn by_value(ty: &Ty, out: &mut Vec<String>) {
    match ty {
        Ty::Path { segments, .. }
            if segments.len() == 1 && INDIRECT.contains(&segments[0].as_str()) => {}
        Ty::Path { segments, args } => {
            if segments.len() == 1 {
                out.push(segments[0].clone());
            }
            args.iter().for_each(|a| by_value(a, out));
        }
        Ty::Tuple(items) => items.iter().for_each(|i| by_value(i, out)),
    }
}
