//! Codegen scale: load + validate + render + format a 1,000-method spec, and 4,000 types that
//! hold each other in a cycle; import (and check) of a description whose `allOf` chain names
//! each next level twice, which once doubled the work per level.

use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};

fn thousand_methods(c: &mut Criterion) {
    let spec = remcall_bench::spec_with_methods(1000);
    let mut group = c.benchmark_group("codegen");
    group.sample_size(10);
    group.bench_function("generate_1000_methods", |bench| {
        bench.iter(|| remcall_codegen::generate_text(Path::new("big.yaml"), &spec).unwrap())
    });
    let chain = remcall_bench::spec_with_chained_types(4000);
    group.bench_function("generate_4000_chained_types", |bench| {
        bench.iter(|| remcall_codegen::generate_text(Path::new("chain.yaml"), &chain).unwrap())
    });
    group.finish();
}

/// `L0` … `L{levels}`, each `allOf` the next level twice and a property of its own.
fn doubling_chain(levels: usize) -> String {
    let mut schemas = Vec::new();
    for i in 0..levels {
        let next = format!("{{\"$ref\":\"#/components/schemas/L{}\"}}", i + 1);
        schemas.push(format!(
            "\"L{i}\":{{\"allOf\":[{next},{next},{{\"type\":\"object\",\"properties\":{{\"f{i}\":{{\"type\":\"string\"}}}}}}]}}"
        ));
    }
    schemas.push(format!(
        "\"L{levels}\":{{\"type\":\"object\",\"properties\":{{\"end\":{{\"type\":\"string\"}}}}}}"
    ));
    format!(
        "{{\"openapi\":\"3.0.3\",\"info\":{{\"title\":\"t\",\"version\":\"1\"}},\"paths\":{{\"/a\":{{\"get\":{{\"responses\":{{\"200\":{{\"description\":\"ok\",\"content\":{{\"application/json\":{{\"schema\":{{\"$ref\":\"#/components/schemas/L0\"}}}}}}}}}}}}}}}},\"components\":{{\"schemas\":{{{}}}}}}}",
        schemas.join(",")
    )
}

fn doubling_all_of(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("remcall-bench-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    for levels in [20, 40] {
        let path = dir.join(format!("chain{levels}.json"));
        std::fs::write(&path, doubling_chain(levels)).unwrap();
        let options = remcall_codegen::ImportOptions::default();
        group.bench_function(format!("doubling_all_of_chain_{levels}"), |bench| {
            bench
                .iter(|| remcall_codegen::import(&path, Path::new("chain.yaml"), &options).unwrap())
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

/// Enum values, fields and operations that all sanitise to one name, at N and 2N: the time
/// doubles (a set of names and a next suffix per base), where a scan of the names taken per
/// probed suffix made it eight times.
fn colliding_names(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("remcall-bench-names-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut group = c.benchmark_group("import");
    group.sample_size(10);
    for n in [1000, 2000] {
        let path = dir.join(format!("colliding{n}.json"));
        std::fs::write(&path, remcall_bench::description_with_colliding_names(n)).unwrap();
        let options = remcall_codegen::ImportOptions::default();
        group.bench_function(format!("colliding_names_{n}"), |bench| {
            bench.iter(|| {
                let imported =
                    remcall_codegen::import(&path, Path::new("colliding.yaml"), &options).unwrap();
                remcall_codegen::generate_text(Path::new("colliding.yaml"), &imported.spec).unwrap()
            })
        });
    }
    group.finish();
    let _ = std::fs::remove_dir_all(dir);
}

criterion_group!(benches, thousand_methods, doubling_all_of, colliding_names);
criterion_main!(benches);
