//! Codegen scale: load + validate + render + format a 1,000-method spec, and 4,000 types that
//! hold each other in a cycle.

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

criterion_group!(benches, thousand_methods);
criterion_main!(benches);
