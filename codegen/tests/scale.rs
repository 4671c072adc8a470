//! Big and degenerate inputs: a 5 MB spec, a spec without methods, `remcall gen DIR` order.

use std::fmt::Write;
use std::time::Instant;

#[test]
fn a_five_megabyte_spec_generates() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = String::from("client: Huge\nbase_url: http://localhost:1\ntypes:\n");
    let mut i = 0;
    while spec.len() < 4_000_000 {
        writeln!(spec, "  Item{i}:\n    doc: Item number {i}, with a longer description so the file grows as real ones do.\n    fields: {{ id: i64, name: String, tags: Vec<String>, parent: Option<Item{i}> }}").unwrap();
        i += 1;
    }
    spec.push_str("methods:\n");
    let mut m = 0;
    while spec.len() < 5_000_000 {
        writeln!(spec, "  get_item_{m}:\n    request: GET /items/{m}/{{id}}\n    path: {{ id: i64 }}\n    query: {{ verbose: Option<bool> }}\n    returns: Item{}", m % i).unwrap();
        m += 1;
    }
    let path = dir.path().join("huge.yaml");
    std::fs::write(&path, &spec).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() >= 5_000_000);

    let started = Instant::now();
    let generated = remcall_codegen::generate_one(&path).unwrap_or_else(|e| panic!("{e}"));
    // Reported, not asserted: speed belongs to the benches.
    eprintln!(
        "5 MB spec ({i} types, {m} methods): {:?}, {} bytes of Rust",
        started.elapsed(),
        generated.code.len()
    );
    assert!(
        generated
            .code
            .contains(&format!("pub async fn get_item_{}(", m - 1))
    );
    assert!(
        generated.code.contains("pub parent: Option<Box<Item0>>"),
        "self-recursive fields are boxed"
    );
}

/// A spec of `n` types in a chain, each holding the next by value; with `cycle`, the last
/// holds the first, so every link leads back to every type.
fn chained_types(n: usize, cycle: bool) -> String {
    let mut spec = String::from("client: Chain\nbase_url: http://localhost:1\ntypes:\n");
    for i in 0..n {
        let next = if i + 1 < n {
            format!("Link{}", i + 1)
        } else if cycle {
            "Link0".to_owned()
        } else {
            "String".to_owned()
        };
        writeln!(
            spec,
            "  Link{i}: {{ fields: {{ id: i64, next: Option<{next}> }} }}"
        )
        .unwrap();
    }
    spec.push_str("methods: {}\n");
    spec
}

#[test]
fn a_chain_of_four_thousand_types_boxes_exactly_the_links_of_its_cycle() {
    let dir = tempfile::tempdir().unwrap();
    for cycle in [true, false] {
        let path = dir.path().join(format!("chain_{cycle}.yaml"));
        std::fs::write(&path, chained_types(4000, cycle)).unwrap();
        let started = Instant::now();
        let generated = remcall_codegen::generate_one(&path).unwrap_or_else(|e| panic!("{e}"));
        eprintln!(
            "4,000 chained types (cycle: {cycle}): {:?}",
            started.elapsed()
        );
        let boxed = generated.code.matches("pub next: Option<Box<Link").count();
        if cycle {
            assert_eq!(
                boxed, 4000,
                "every link of the cycle leads back to its owner"
            );
            assert!(generated.code.contains("pub next: Option<Box<Link0>>"));
        } else {
            assert_eq!(boxed, 0, "a chain that ends holds each link by value");
        }
    }
}

#[test]
fn a_spec_without_methods_generates_types_and_an_empty_client() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.yaml");
    std::fs::write(
        &path,
        "client: Model\ntypes:\n  Money: { fields: { cents: i64 } }\n",
    )
    .unwrap();
    let code = remcall_codegen::generate_one(&path).unwrap().code;
    assert!(code.contains("pub struct Money") && code.contains("pub struct Model"));
}

#[test]
fn gen_of_a_directory_is_sorted_and_reports_every_failing_spec() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (
            "b.yaml",
            "client: Bee\nmethods: { get: { request: GET /b, returns: Nope } }\n",
        ),
        (
            "a.yaml",
            "client: Ant\nmethods: { get: { request: FETCH /a } }\n",
        ),
        (
            "c.yml",
            "client: Cat\nmethods: { get: { request: GET /c } }\n",
        ),
        ("notes.txt", "not a spec"),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let specs = remcall_codegen::expand_inputs(&[dir.path().to_path_buf()]).unwrap();
    let names: Vec<_> = specs
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["a.yaml", "b.yaml", "c.yml"]);
    let Err(remcall_codegen::Error::Invalid(diagnostics)) = remcall_codegen::generate(&specs)
    else {
        panic!("two specs are broken")
    };
    let files: Vec<_> = diagnostics
        .iter()
        .map(|d| d.file.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        files,
        ["a.yaml", "b.yaml"],
        "all failing specs, sorted by file"
    );
}
