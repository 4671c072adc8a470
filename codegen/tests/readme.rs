//! The README's commands do what they say: its `gen` lines write where they name and what their
//! comment counts, and "In your project" installs the command it names.

use std::path::Path;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap()
}

#[test]
fn the_readme_gen_example_writes_where_it_says_what_its_comment_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let text = readme();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| {
            l.starts_with("cargo run -p remcall-codegen -- gen ") && !l.contains("--check")
        })
        .expect("a gen line in the README");
    let args: Vec<&str> = lines[at]
        .trim_start_matches("cargo run -p remcall-codegen -- ")
        .split_whitespace()
        .take_while(|word| !word.starts_with('#'))
        .collect();
    let out = args[args.iter().position(|a| *a == "--out").unwrap() + 1];
    // Run as `--check`: the README's command, without writing, must find what it would write.
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .args(&args)
        .arg("--check")
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut written: Vec<String> = std::fs::read_dir(root.join(out))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs"))
        .collect();
    written.sort();
    let comment = lines[at - 1];
    for file in &written {
        assert!(
            comment.contains(file.as_str()),
            "`{file}` not in: {comment}"
        );
    }
    let named = comment.matches(".rs").count();
    assert_eq!(named, written.len(), "{comment}");
}

#[test]
fn in_your_project_installs_the_command_this_package_builds() {
    let text = readme();
    assert!(text.contains("cargo install --path codegen"), "README");
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("name = \"remcall\""),
        "the binary is `remcall`"
    );
    for path in ["runtime", "codegen"] {
        assert!(
            text.contains(&format!("path = \"../remcall/{path}\"")),
            "a path dependency on {path}"
        );
        assert!(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("..")
                .join(path)
                .join("Cargo.toml")
                .exists()
        );
    }
}
