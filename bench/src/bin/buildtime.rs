//! How long `cargo build` takes for a generated client of many methods: the cost a user pays on
//! every change to the spec. The bench generates a 200-method client into a crate of its own under
//! target/bench-build (its own workspace, with this workspace's lock file and profiles, sharing
//! this workspace's target directory so dependencies build once), then times rebuilding just that
//! crate, in debug and release, and `cargo check`.
//!
//! `cargo run --release -p remcall-bench --bin buildtime -- [--methods 200] [--repeat 3]`

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use remcall_bench::harness::{arg, median_min_max};

fn main() {
    let methods = arg("--methods", 200) as usize;
    let repeat = arg("--repeat", 3) as usize;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf();
    let dir = root.join("target/bench-build/big-client");
    std::fs::create_dir_all(dir.join("src")).expect("crate directory");

    let spec = remcall_bench::spec_with_methods(methods);
    let started = Instant::now();
    let generated =
        remcall_codegen::generate_text(Path::new("big.yaml"), &spec).expect("the spec generates");
    let generate_time = started.elapsed();
    let lines = generated.code.lines().count();

    let workspace_manifest =
        std::fs::read_to_string(root.join("Cargo.toml")).expect("workspace Cargo.toml");
    // The same profiles as the workspace, so the shared target directory's builds are reused.
    let profiles = workspace_manifest
        .find("[profile.")
        .map_or("", |at| &workspace_manifest[at..]);
    let manifest = format!(
        "[package]\nname = \"remcall-bench-big-client\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nremcall = {{ path = {:?} }}\n\n[workspace]\n\n{profiles}",
        root.join("runtime")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("Cargo.toml");
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
    std::fs::write(dir.join("src/lib.rs"), user_code(methods)).expect("lib.rs");

    let target = root.join("target");
    // Writing the module anew (a different comment each time) makes cargo rebuild just it.
    let mut edition = 0;
    let mut build = |args: &[&str]| -> Duration {
        edition += 1;
        std::fs::write(
            dir.join("src/big.rs"),
            format!("// build {edition}\n{}", generated.code),
        )
        .expect("big.rs");
        let started = Instant::now();
        let status = cargo(&dir, &target, args);
        assert!(status, "cargo {args:?} failed in {}", dir.display());
        started.elapsed()
    };

    eprintln!("warming up: building remcall and its dependencies for the client crate…");
    for args in [&["build"][..], &["build", "--release"], &["check"]] {
        build(args);
    }
    println!(
        "{methods}-method client: {lines} lines of generated Rust, generated in {:.0} ms; rebuild of that crate alone, median of {repeat} [min, max]",
        generate_time.as_secs_f64() * 1e3
    );
    println!("| command | seconds |");
    println!("| --- | --- |");
    for (label, args) in [
        ("cargo check", &["check"][..]),
        ("cargo build (dev profile)", &["build"]),
        ("cargo build --release", &["build", "--release"]),
    ] {
        let times: Vec<f64> = (0..repeat).map(|_| build(args).as_secs_f64()).collect();
        let (median, min, max) = median_min_max(times);
        println!("| {label} | {median:.2} [{min:.2}, {max:.2}] |");
    }
}

/// The crate's own code: one function calling every method, as an application would, so that
/// every method's pipeline is instantiated and compiled (an unused generic client would not be).
fn user_code(methods: usize) -> String {
    let items = (0..20)
        .map(|t| format!("pub big::Item{t}"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut code = format!(
        "//! A generated client of many methods, and code that calls each.\n\npub mod big;\n\n\
         /// One body of each type.\npub struct Bodies({items});\n\n\
         /// Calls every method once; how many answered.\n\
         pub async fn call_every_method(client: &big::Big, bodies: &Bodies) -> usize {{\n    let mut answered = 0;\n"
    );
    for m in 0..methods {
        code.push_str(&format!(
            "    answered += usize::from(client.call_{m}(1, None, &[], None, &bodies.{}).await.is_ok());\n",
            m % 20
        ));
    }
    code.push_str("    answered\n}\n");
    code
}

/// Runs cargo in `dir` with the shared target directory; `true` on success.
fn cargo(dir: &Path, target: &Path, args: &[&str]) -> bool {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(args)
        .arg("--quiet")
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        .status()
        .is_ok_and(|s| s.success())
}
