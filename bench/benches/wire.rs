//! Decoding answers: a recursive untagged union (the generated `Filter` of the edge-case
//! `TreeClient`) nested deeper and deeper. Told apart by a required key, each level is read
//! once, so the time grows with the depth in a line; told apart only by a value's type, the
//! alternatives would retry each other (2^depth reads) and the decode budget stops them.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use remcall_edge_cases::clients::tree_client::Filter;

/// `depth` filters, each `{"of": [inner], key: leaf}`, around `innermost`.
fn nested(depth: usize, key: &str, leaf: &str, innermost: &str) -> String {
    let mut text = innermost.to_owned();
    for _ in 0..depth {
        text = format!(r#"{{"of": [{text}], "{key}": {leaf}}}"#);
    }
    text
}

fn nested_unions(c: &mut Criterion) {
    let mut group = c.benchmark_group("union");
    for depth in [8, 16, 32, 60] {
        let text = nested(depth, "any", "true", r#"{"of": [], "all": false}"#);
        group.bench_with_input(BenchmarkId::new("keyed_depth", depth), &text, |b, text| {
            b.iter(|| remcall::serde_json::from_str::<Filter>(text).unwrap())
        });
    }
    for depth in [10, 20, 30] {
        let text = nested(depth, "value", r#""x""#, r#"{"of": [], "value": "x"}"#);
        group.bench_with_input(
            BenchmarkId::new("ambiguous_depth", depth),
            &text,
            |b, text| b.iter(|| remcall::serde_json::from_str::<Filter>(text).is_err()),
        );
    }
    group.finish();
}

criterion_group!(benches, nested_unions);
criterion_main!(benches);
