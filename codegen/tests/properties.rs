//! Property: any valid spec — keyword and Unicode names, deep generics, every parameter kind,
//! every profile field — generates code that parses (the pipeline runs syn on it), and a sample
//! of such clients type-checks against the real runtime.

use std::fmt::Write;
use std::path::Path;

mod common;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

/// Names Rust takes only as raw identifiers, or not at all, and non-ASCII ones.
const FIELD_NAMES: &[&str] = &[
    "id",
    "name",
    "type",
    "match",
    "async",
    "crate",
    "self",
    "größe",
    "名前",
    "café",
    "createdAt",
    "user-id",
    "loop",
    "r#x",
];
/// `Either` and `Composite` are added to every spec: a union and an `all_of:` struct.
const TYPE_NAMES: &[&str] = &[
    "User", "Pet", "Größe", "Café", "Node", "Tree", "Item", "Data2", "Ñandú",
];
const METHOD_NAMES: &[&str] = &[
    "get",
    "list",
    "type",
    "match",
    "put_item",
    "größe_lesen",
    "search",
    "async",
];
const VARIANTS: &[&str] = &["active", "in-progress", "2xx", "type", "über", "self"];
const LEAVES: &[&str] = &[
    "i64",
    "u8",
    "f64",
    "bool",
    "String",
    "char",
    "serde_json::Value",
];

/// A JSON string literal (a spec is YAML, and JSON is YAML).
fn q(text: &str) -> String {
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A type expression over the declared types, `depth` levels deep.
fn type_expr(types: &[&str], depth: u32) -> BoxedStrategy<String> {
    let mut leaves: Vec<String> = LEAVES.iter().map(|s| (*s).to_owned()).collect();
    leaves.extend(types.iter().map(|s| (*s).to_owned()));
    let leaf = proptest::sample::select(leaves).boxed();
    if depth == 0 {
        return leaf;
    }
    let inner = type_expr(types, depth - 1);
    prop_oneof![
        3 => leaf,
        1 => inner.clone().prop_map(|t| format!("Vec<{t}>")),
        1 => inner.clone().prop_map(|t| format!("Option<{t}>")),
        1 => inner.clone().prop_map(|t| format!("HashMap<String, {t}>")),
        1 => inner.clone().prop_map(|t| format!("BTreeMap<String, {t}>")),
        1 => inner.clone().prop_map(|t| format!("Box<{t}>")),
        1 => inner.clone().prop_map(|t| format!("Nullable<{t}>")),
        1 => (inner.clone(), inner).prop_map(|(a, b)| format!("({a}, {b})")),
    ]
    .boxed()
}

fn durations() -> impl Strategy<Value = String> {
    prop_oneof![
        (1u32..5000).prop_map(|n| format!("{n}ms")),
        (0u32..120).prop_map(|n| format!("{n}s")),
        (1u32..5).prop_map(|n| format!("{n}m"))
    ]
}

/// A profile setting every field, with random values.
fn profile() -> impl Strategy<Value = String> {
    (
        (durations(), durations(), durations(), 1u32..6, durations(), durations(), 1.0f64..4.0, prop::sample::select(vec!["none", "full", "equal"])),
        (prop::sample::select(vec!["method", "client"]), prop::bool::ANY, 1u32..100, 1u32..100, 1u32..10),
        (prop::sample::select(vec!["semaphore", "pool", "none"]), 1u32..200, prop::sample::select(vec!["none", "basic", "headers", "full"]), 1u32..64),
    )
        .prop_map(|((connect, attempt, total, tries, initial, max, mult, jitter), (scope, by_time, min_calls, rate, half), (isolation, n, log, mib))| {
            let window = if by_time { "{\"time\": \"10s\"}".to_owned() } else { format!("{{\"calls\": {n}}}") };
            let isolation = match isolation {
                "semaphore" => format!("{{\"semaphore\": {{\"max_concurrent\": {n}, \"max_wait\": \"0s\"}}}}"),
                "pool" => format!("{{\"pool\": {{\"workers\": {}, \"queue\": {n}, \"queue_timeout\": \"1s\"}}}}", half),
                _ => "\"none\"".to_owned(),
            };
            format!(
                concat!(
                    "{{\"timeout\": {{\"connect\": {}, \"attempt\": {}, \"total\": {}}}, ",
                    "\"retry\": {{\"max_attempts\": {}, \"backoff\": {{\"initial\": {}, \"max\": {}, \"multiplier\": {:.2}, \"jitter\": \"{}\"}}, ",
                    "\"on\": [\"connect\", \"timeout\", 429, \"5xx\"], \"retry_after\": {{\"max\": \"10s\"}}, \"budget\": {{\"ratio\": 0.2, \"min_per_second\": 5}}}}, ",
                    "\"breaker\": {{\"scope\": \"{}\", \"window\": {}, \"min_calls\": {}, \"failure_rate\": {}, \"slow_call\": {{\"over\": \"2s\", \"rate\": 90}}, ",
                    "\"open_for\": \"5s\", \"open_for_max\": \"60s\", \"half_open_calls\": {}, \"record\": [\"connect\", \"timeout\", \"5xx\"]}}, ",
                    "\"isolation\": {}, \"rate_limit\": {{\"per_second\": 50, \"burst\": 5, \"max_wait\": \"0s\"}}, ",
                    "\"auth\": {{\"oauth2\": {{\"token_url\": \"${{AUTH_URL:-http://localhost:1}}/t\", \"client_id\": \"${{ID}}\", \"client_secret\": \"${{SECRET}}\", \"scopes\": [\"a\"], \"params\": {{\"audience\": \"x\"}}, \"client_auth\": \"body\", \"refresh_before\": \"10s\"}}}}, ",
                    "\"headers\": {{\"X-App\": \"p\", \"X-Key\": {{\"value\": \"${{KEY}}\", \"secret\": true}}}}, ",
                    "\"log\": \"{}\", \"max_response_bytes\": \"{}MiB\", \"tls\": {{\"roots\": \"webpki\", \"min_version\": \"1.2\"}}}}"
                ),
                q(&connect), q(&attempt), q(&total), tries, q(&initial), q(&max), mult, jitter, scope, window, min_calls, rate, half, isolation, log, mib
            )
        })
}

/// A whole valid spec.
fn spec() -> impl Strategy<Value = String> {
    let type_names = proptest::sample::subsequence(TYPE_NAMES.to_vec(), 1..5);
    type_names.prop_flat_map(|types| {
        let (structs, enums) = types.split_at(types.len().div_ceil(2));
        let (structs, enums): (Vec<&'static str>, Vec<&'static str>) = (structs.to_vec(), enums.to_vec());
        let all: Vec<&str> = types.clone();
        let struct_defs = structs
            .iter()
            .map(|name| {
                let name = *name;
                proptest::sample::subsequence(FIELD_NAMES.to_vec(), 1..6)
                    .prop_flat_map({
                        let all = all.clone();
                        move |fields| fields.into_iter().map(|f| type_expr(&all, 3).prop_map(move |t| (f, t))).collect::<Vec<_>>()
                    })
                    .prop_map(move |fields| {
                        let body: Vec<String> = fields.iter().map(|(f, t)| format!("{}: {}", q(f), q(t))).collect();
                        format!("{}: {{\"doc\": {}, \"fields\": {{{}}}}}", q(name), q(&format!("Der Typ {name} — ✓")), body.join(", "))
                    })
                    .boxed()
            })
            .collect::<Vec<_>>();
        // String enums, the first of them open; the last (when there are two) of integers.
        let enum_defs: Vec<String> = enums
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if i > 0 && i + 1 == enums.len() {
                    format!("{}: {{\"enum\": [0, 1, -1, {{\"value\": 7, \"name\": \"Seven\"}}], \"open\": true}}", q(name))
                } else {
                    format!("{}: {{\"enum\": [{}], \"open\": {}}}", q(name), VARIANTS.iter().map(|v| q(v)).collect::<Vec<_>>().join(", "), i == 0)
                }
            })
            .collect();
        // A union over every declared type (and a list of the first), and a struct composed
        // of the first struct with a three-state field and a map of undeclared keys.
        let mut alternatives: Vec<String> = all.iter().map(|t| q(t)).collect();
        alternatives.push(q(&format!("Vec<{}>", all[0])));
        let composite_defs = vec![
            "\"Listing\": {\"fields\": {\"entries\": \"Vec<i64>\", \"next\": \"Option<String>\", \"object\": {\"type\": \"String\", \"const\": \"list\"}, \"version\": {\"type\": \"u8\", \"const\": 2}}}".to_owned(),
            format!("\"Either\": {{\"one_of\": [{}], \"open\": true}}", alternatives.join(", ")),
            format!("\"Composite\": {{\"all_of\": [{}], \"fields\": {{\"extra_field\": \"Nullable<i64>\", \"note\": {{\"type\": \"Option<String>\", \"required\": true}}}}, \"additional_properties\": \"String\"}}", q(structs[0])),
        ];
        let methods = proptest::sample::subsequence(METHOD_NAMES.to_vec(), 0..5).prop_flat_map({
            let all = all.clone();
            let structs = structs.clone();
            move |names| names.into_iter().map(|m| method(m, &all, &structs)).collect::<Vec<_>>()
        });
        (struct_defs, methods, profile(), prop::bool::ANY).prop_map(move |(structs, methods, profile, fallback)| {
            let mut text = String::from("{\"client\": \"Generated\", \"base_url\": [\"http://localhost:1\", \"${OTHER:-http://localhost:2}\"], \"base_path\": \"/v1\", \"config\": \"main\", ");
            write!(text, "\"fallback\": {fallback}, \"serde\": {{\"rename_all\": \"camelCase\"}}, \"configs\": {{\"base\": {profile}, \"main\": {{\"extends\": \"base\"}}}}, ").unwrap();
            let types: Vec<String> = structs.iter().chain(&enum_defs).chain(&composite_defs).cloned().collect();
            // A paginated method, its stream beside it.
            let mut methods = methods.clone();
            methods.push("\"list_all\": {\"request\": \"GET /all\", \"query\": {\"after\": \"Option<String>\"}, \"returns\": \"Listing\", \"paginate\": {\"items\": \"entries\", \"cursor\": {\"param\": \"after\", \"from\": \"next\"}}}".to_owned());
            write!(text, "\"types\": {{{}}}, \"methods\": {{{}}}}}", types.join(", "), methods.join(", ")).unwrap();
            text
        })
    })
}

fn method(name: &'static str, types: &[&str], structs: &[&'static str]) -> BoxedStrategy<String> {
    let verb = prop::sample::select(vec![
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS",
    ]);
    let scalar = prop::sample::select(vec![
        "i64",
        "String",
        "bool",
        "u32",
        "Option<String>",
        "Vec<String>",
        "Option<i64>",
        "Vec<i64>",
    ]);
    let params = proptest::collection::vec(scalar.clone(), 0..4);
    let first_struct: &'static str = structs[0];
    let body = proptest::option::of((
        prop::sample::select(structs.to_vec()),
        prop::sample::select(vec!["json", "form", "multipart"]),
    ));
    (verb, proptest::collection::vec(prop::sample::select(vec!["i64", "String", "u8"]), 0..3), params.clone(), params, body, proptest::option::of(type_expr(types, 2)), prop::bool::ANY, prop::bool::ANY)
        .prop_map(move |(verb, path_types, query, headers, body, returns, not_found, inline)| {
            let placeholders: Vec<String> = (0..path_types.len()).map(|i| ["id", "type", "größe"][i].to_owned()).collect();
            let path = format!("/things/{}", placeholders.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join("/"));
            let mut text = format!("{}: {{\"doc\": \"Calls {} — ✓\", \"request\": {}", q(name), name, q(&format!("{verb} {}", path.trim_end_matches('/'))));
            let map = |prefix: &str, items: &[&str], header: bool| {
                items
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        if header {
                            format!("\"{prefix}{i}\": {{\"type\": {}, \"name\": \"X-H{i}\"}}", q(t))
                        } else {
                            // Every query style in turn: pairs, deepObject, comma-separated.
                            let style = ["", ", \"style\": \"deep_object\"", ", \"explode\": false"][i % 3];
                            format!("\"{prefix}{i}\": {{\"type\": {}{style}}}", q(t))
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let path_params: Vec<String> = placeholders.iter().zip(&path_types).map(|(p, t)| format!("{}: {}", q(p), q(t))).collect();
            write!(text, ", \"path\": {{{}}}, \"query\": {{{}}}, \"headers\": {{{}}}", path_params.join(", "), map("q_", &query, false), map("h_", &headers, true)).unwrap();
            if let Some((body, encoding)) = body.filter(|_| !matches!(verb, "GET" | "HEAD")) {
                write!(text, ", \"body\": {{\"type\": {}, \"as\": \"{encoding}\"}}", q(body)).unwrap();
                if verb == "POST" {
                    text.push_str(", \"idempotency_key\": \"Idempotency-Key\"");
                }
            }
            match returns {
                // Without `not_found: none`, the response side's other forms: several success
                // shapes, declared error bodies, declared headers.
                Some(returns) if !not_found && inline => {
                    write!(text, ", \"responses\": {{\"200\": {}, \"204\": \"()\"}}", q(&returns)).unwrap();
                    write!(text, ", \"errors\": {{\"404\": {s}, \"5XX\": {s}, \"default\": \"serde_json::Value\"}}", s = q(first_struct)).unwrap();
                    text.push_str(", \"response_headers\": {\"etag\": {\"type\": \"Option<String>\", \"name\": \"ETag\"}, \"left\": {\"type\": \"Option<u32>\", \"name\": \"X-Left\"}}");
                }
                Some(returns) => write!(text, ", \"returns\": {}", q(&returns)).unwrap(),
                None => {}
            }
            if not_found {
                text.push_str(", \"not_found\": \"none\", \"idempotent\": true");
            }
            if inline {
                text.push_str(", \"config\": {\"timeout\": {\"attempt\": \"1s\"}, \"retry\": {\"max_attempts\": 1}}");
            }
            text.push('}');
            text
        })
        .boxed()
}

#[test]
fn every_valid_spec_generates_code_that_parses() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("generated.yaml");
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&spec(), |text| {
            std::fs::write(&path, &text).unwrap();
            match remcall_codegen::generate_one(&path) {
                Ok(generated) => {
                    prop_assert!(syn::parse_file(&generated.code).is_ok());
                    Ok(())
                }
                Err(error) => Err(TestCaseError::fail(format!("{error}\nspec:\n{text}"))),
            }
        })
        .unwrap();
}

/// Writes random clients into a crate beside the workspace and runs clippy on it (type checks
/// and lints: generated code is clippy-clean), with the workspace's lock file so no dependency
/// is re-resolved.
#[test]
fn a_sample_of_generated_clients_type_checks() {
    let dir = tempfile::tempdir().unwrap();
    let spec_path = dir.path().join("spec.yaml");
    let mut runner = TestRunner::new(Config {
        cases: 6,
        failure_persistence: None,
        ..Config::default()
    });
    let mut generated = Vec::new();
    let mut specs = Vec::new();
    let strategy = spec();
    for i in 0..6 {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        std::fs::write(&spec_path, &text).unwrap();
        let mut client = remcall_codegen::generate_one(&spec_path)
            .unwrap_or_else(|e| panic!("{e}\nspec:\n{text}"));
        specs.push(format!("client_{i}: {text}"));
        client.module = format!("client_{i}");
        client.file_name = format!("client_{i}.rs");
        generated.push(client);
    }
    if let Err(clippy) = common::clippy_clean(&generated) {
        panic!("{clippy}\nspecs:\n{}", specs.join("\n"));
    }
}

/// Property: validation and rendering agree. Names from a hostile alphabet (superscripts,
/// combining marks, carriage returns, underscores alone, digits first) either fail validation
/// with diagnostics or generate code that parses: never a spec that passes `check` and then
/// fails to render.
#[test]
fn hostile_names_are_refused_or_render() {
    // Mostly names a spec may use (Unicode letters included), a fifth from the hostile
    // alphabet: so that cases render as well as fail, and each hostile name meets valid ones.
    let hostile = "[a_²\u{301}é名0\r -]{1,4}";
    let name = || prop_oneof![4 => "[a-zé名][a-z_0-9é名]{0,3}", 1 => hostile];
    let strategy = (name(), name(), name(), name(), hostile);
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    // A property every case passes by being refused proves nothing: count what renders.
    let (accepted, refused) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    runner
        .run(&strategy, |(method, field, variant, param, doc)| {
            let q = |s: &str| serde_json::to_string(s).unwrap();
            let text = format!(
                "{{\"client\": \"C\", \"doc\": {}, \"types\": {{\"T\": {{\"fields\": {{{}: \"i64\"}}}}, \"E\": {{\"enum\": [{}]}}}}, \"methods\": {{{}: {{\"request\": \"GET /x\", \"query\": {{{}: \"i64\"}}, \"returns\": \"T\"}}}}}}",
                q(&doc),
                q(&field),
                q(&variant),
                q(&method),
                q(&param)
            );
            match remcall_codegen::generate_text(Path::new("hostile.yaml"), &text) {
                Ok(generated) => {
                    accepted.set(accepted.get() + 1);
                    prop_assert!(syn::parse_file(&generated.code).is_ok());
                    Ok(())
                }
                Err(remcall_codegen::Error::Invalid(_)) => {
                    refused.set(refused.get() + 1);
                    Ok(())
                }
                Err(other) => Err(TestCaseError::fail(format!("{other}\nspec: {text}"))),
            }
        })
        .unwrap();
    let (accepted, refused) = (accepted.get(), refused.get());
    eprintln!("hostile names: {accepted} accepted and rendered, {refused} refused");
    assert!(
        accepted * 5 >= accepted + refused,
        "at least a fifth of the cases must render: {accepted} of {}",
        accepted + refused
    );
}

/// Text rustc refuses in a comment (a bare carriage return in a doc comment, bidirectional-text
/// controls anywhere) or that would end one (a line break in the file name of the `@generated`
/// line), put in every place a spec's text reaches a comment or a doc: `check` passes such a
/// spec, so the client must build.
#[test]
fn hostile_text_in_docs_values_and_the_file_name_builds() {
    let hostile = "a\r b\u{202e}c\u{2066}d\u{200f}e\u{1b}[31m f\nfn evil() {}";
    let q = |s: &str| serde_json::to_string(s).unwrap();
    let text = format!(
        r#"{{"client": "Hostile", "doc": {h}, "base_url": "http://localhost:1",
  "types": {{
    "Kind": {{"doc": {h}, "enum": [{{"value": {h}, "doc": {h}}}, "plain"]}},
    "Thing": {{"doc": {h}, "fields": {{
      "id": {{"type": "i64", "doc": {h}}},
      "kind": {{"type": "Kind", "doc": {h}}},
      "marker": {{"type": "String", "const": {h}}}
    }}}}
  }},
  "methods": {{"get_thing": {{"doc": {h}, "request": "POST /things",
    "query": {{"q": {{"type": "Option<i64>", "doc": {h}}}}},
    "body": {{"type": "Thing", "doc": {h}}},
    "returns": "Thing"}}}}}}"#,
        h = q(hostile)
    );
    let dir = tempfile::tempdir().unwrap();
    // A line break in the file name is refused already (`check` says so); a bidi control is
    // written escaped.
    let spec_path = dir.path().join("spec\u{202e}lmay.yaml");
    std::fs::write(&spec_path, &text).unwrap();
    let client = remcall_codegen::generate_one(&spec_path).unwrap_or_else(|e| panic!("{e}"));
    assert!(!client.code.contains('\r') && !client.code.contains('\u{202e}'));
    assert!(
        client.code.contains("\\u{202e}"),
        "the control is shown escaped"
    );
    assert!(
        !client
            .code
            .lines()
            .any(|l| l.trim_start().starts_with("fn evil")),
        "no line of the spec's text became code"
    );
    if let Err(clippy) = common::clippy_clean(&[client]) {
        panic!("{clippy}\nspec:\n{text}");
    }
}
