//! Shared pieces of remcall's benchmarks: an allocation counter and spec builders.
//!
//! Run them with `cargo bench -p remcall-bench`; figures and how to read them are in
//! docs/BENCHMARKS.md.

pub mod contestants;
pub mod fuzz;
pub mod harness;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};

/// A global allocator that counts allocations, to report allocations per call.
pub struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards to the system allocator unchanged; counting has no effect on the
// memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the caller's contract is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocations so far (with [`CountingAllocator`] installed as the global allocator).
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

/// A valid spec with `methods` methods over a few types, for the codegen scale bench.
/// A spec of `n` types in a cycle, each holding the next by value and the last the first: the
/// generator must box every link, and must find that out without a search per field.
pub fn spec_with_chained_types(n: usize) -> String {
    let mut spec = String::from("client: Chain\nbase_url: http://localhost:1\ntypes:\n");
    for i in 0..n {
        let next = (i + 1) % n;
        writeln!(
            spec,
            "  Link{i}: {{ fields: {{ id: i64, next: Option<Link{next}> }} }}"
        )
        .ok();
    }
    spec.push_str("methods: {}\n");
    spec
}

pub fn spec_with_methods(methods: usize) -> String {
    let mut spec = String::from("client: Big\nbase_url: http://localhost:1\ntypes:\n");
    for t in 0..20 {
        writeln!(spec, "  Item{t}: {{ fields: {{ id: i64, name: String, tags: Vec<String>, next: Option<Item{t}> }} }}").ok();
    }
    spec.push_str("methods:\n");
    for m in 0..methods {
        writeln!(
            spec,
            "  call_{m}:\n    request: POST /items/{{id}}/calls/{m}\n    path: {{ id: i64 }}\n    query: {{ verbose: Option<bool>, tags: Vec<String> }}\n    headers: {{ trace: {{ type: Option<String>, name: X-Trace }} }}\n    body: Item{}\n    returns: Vec<Item{}>\n    idempotent: true",
            m % 20,
            (m + 1) % 20
        )
        .ok();
    }
    spec
}

/// An OpenAPI description (JSON) whose `n` enum values, `n` properties and `n` operations each
/// sanitise to one identifier (`a`, `a_`, `a__`…): every name after the first needs a number.
pub fn description_with_colliding_names(n: usize) -> String {
    let spelled = |i: usize| format!("a{}", "_".repeat(i));
    let values: Vec<remcall::serde_json::Value> = (0..n).map(|i| spelled(i).into()).collect();
    let properties: remcall::serde_json::Map<String, remcall::serde_json::Value> = (0..n)
        .map(|i| (spelled(i), remcall::serde_json::json!({ "type": "string" })))
        .collect();
    let paths: remcall::serde_json::Map<String, remcall::serde_json::Value> = (0..n)
        .map(|i| {
            let operation = remcall::serde_json::json!({ "get": { "operationId": spelled(i),
                "responses": { "200": { "description": "ok", "content": { "application/json": {
                    "schema": { "$ref": "#/components/schemas/Thing" } } } } } } });
            (format!("/p{i}"), operation)
        })
        .collect();
    remcall::serde_json::json!({
        "openapi": "3.0.3",
        "info": { "title": "Colliding", "version": "1" },
        "paths": paths,
        "components": { "schemas": {
            "Thing": { "type": "object", "properties": properties },
            "Kind": { "type": "string", "enum": values }
        } }
    })
    .to_string()
}
