//! Every fixture in tests/broken/ must fail with the diagnostic its first line (or its `.expect`
//! file) announces: `# expect: [FILE:]LINE:COL: message [| help]`. None may panic, and the CLI
//! must exit 1 and leave the output directory untouched.

use std::path::{Path, PathBuf};
use std::process::Command;

struct Expectation {
    location: String,
    message: String,
    help: Option<String>,
}

fn expectation(spec: &Path) -> Expectation {
    let sidecar = spec.with_extension("expect");
    let text = std::fs::read_to_string(if sidecar.exists() {
        sidecar
    } else {
        spec.to_path_buf()
    })
    .unwrap();
    let line = text.lines().next().unwrap_or_default();
    let rest = line
        .strip_prefix("# expect: ")
        .unwrap_or_else(|| panic!("{}: no `# expect:` line", spec.display()));
    let (what, help) = match rest.split_once(" | ") {
        Some((what, help)) => (what, Some(help.to_owned())),
        None => (rest, None),
    };
    // The location is everything up to the second (or third, with a file) `: `.
    let parts: Vec<&str> = what.splitn(2, ": ").collect();
    let location = if parts[0].contains(".yaml") || parts[0].contains(".inc") {
        let file = spec
            .parent()
            .unwrap()
            .join(parts[0].split(':').next().unwrap());
        let at = parts[0].split_once(':').unwrap().1;
        format!("{}:{at}", file.display())
    } else {
        format!("{}:{}", spec.display(), parts[0])
    };
    Expectation {
        location,
        message: parts[1].to_owned(),
        help,
    }
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken");
    let mut specs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    specs.sort();
    specs
}

#[test]
fn each_broken_spec_reports_its_line_column_and_message() {
    let specs = fixtures();
    assert!(
        specs.len() >= 12,
        "at least 12 broken fixtures, found {}",
        specs.len()
    );
    let mut failures = Vec::new();
    for spec in &specs {
        let expected = expectation(spec);
        let diagnostics = match remcall_codegen::generate_one(spec) {
            Ok(_) => {
                failures.push(format!("{}: generated without error", spec.display()));
                continue;
            }
            Err(remcall_codegen::Error::Invalid(diagnostics)) => diagnostics,
            Err(other) => {
                failures.push(format!("{}: {other}", spec.display()));
                continue;
            }
        };
        let found = diagnostics.iter().any(|d| {
            let shown = d.to_string();
            shown.starts_with(&format!("{}: ", expected.location))
                && d.message.contains(&expected.message)
                && expected.help.as_ref().is_none_or(|h| {
                    d.help
                        .as_deref()
                        .is_some_and(|got| got.contains(h.as_str()))
                })
        });
        if !found {
            let got: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
            failures.push(format!(
                "{}: expected `{}: {}`{}; got:\n  {}",
                spec.display(),
                expected.location,
                expected.message,
                expected
                    .help
                    .map(|h| format!(" with help `{h}`"))
                    .unwrap_or_default(),
                got.join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_cli_exits_1_and_writes_nothing_when_any_spec_is_broken() {
    let out = tempfile::tempdir().unwrap();
    let marker = out.path().join("user_client.rs");
    std::fs::write(&marker, "// the committed version\n").unwrap();
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/user_service.yaml");
    let bad = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken/unknown_type.yaml");
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .args([
            "gen",
            good.to_str().unwrap(),
            bad.to_str().unwrap(),
            "--out",
        ])
        .arg(out.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("error: unknown type `Usr`"), "{stderr}");
    assert!(stderr.contains("unknown_type.yaml:6:36\n"), "{stderr}");
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&marker).unwrap(),
        "// the committed version\n"
    );
    assert_eq!(
        std::fs::read_dir(out.path()).unwrap().count(),
        1,
        "no other file appeared"
    );
}

#[test]
fn the_cli_reports_every_broken_spec_of_a_directory_in_one_run() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken");
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .arg("check")
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    for spec in fixtures() {
        let name = spec.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("include_cycle") {
            continue; // reported against the included file
        }
        assert!(stderr.contains(&name), "{name} missing from:\n{stderr}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .args(["gen", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
}

/// Generates `spec_text` from a spec file in a fresh directory, with `files` beside it.
fn generate_in_dir(
    spec_text: &str,
    files: &[(&str, &[u8])],
    include_dirs: Vec<std::path::PathBuf>,
) -> Vec<remcall_codegen::Diagnostic> {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files {
        std::fs::write(dir.path().join(name), content).unwrap();
    }
    let spec = dir.path().join("spec.yaml");
    std::fs::write(&spec, spec_text).unwrap();
    let options = remcall_codegen::Options {
        include_dirs,
        ..Default::default()
    };
    match remcall_codegen::generate_with(&[spec], &options) {
        Err(remcall_codegen::Error::Invalid(diagnostics)) => diagnostics,
        other => panic!("generated: {other:?}"),
    }
}

#[test]
fn includes_stay_in_the_spec_directory_and_are_regular_small_spec_files() {
    // Outside the spec's directory: refused, and nothing of the file is shown.
    let d = generate_in_dir(
        "client: C\ninclude: [/proc/self/environ]\nmethods: {}\n",
        &[],
        vec![],
    );
    assert!(
        d[0].message.contains("outside the spec's directory"),
        "{d:?}"
    );
    assert!(!format!("{d:?}").contains("PATH="), "{d:?}");

    // Allowed by the user, but a device: refused before it is read.
    let d = generate_in_dir(
        "client: C\ninclude: [/dev/zero]\nmethods: {}\n",
        &[],
        vec!["/dev".into()],
    );
    assert!(d[0].message.contains("is not a regular file"), "{d:?}");

    // Too big: refused before it is read whole.
    let big = vec![b'#'; (16 << 20) + 1];
    let d = generate_in_dir(
        "client: C\ninclude: [big.yaml]\nmethods: {}\n",
        &[("big.yaml", &big)],
        vec![],
    );
    assert!(d[0].message.contains("larger than 16 MiB"), "{d:?}");

    // Not a spec (a key file, say): said without quoting it.
    let d = generate_in_dir(
        "client: C\ninclude: [key.pem]\nmethods: {}\n",
        &[(
            "key.pem",
            b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n",
        )],
        vec![],
    );
    assert!(d[0].message.contains("this is not a spec"), "{d:?}");
    assert!(!format!("{d:?}").contains("MIIEvQ"), "{d:?}");
}

/// A file inside the spec's tree that does not read as a spec (an `.env`, a credentials file) is
/// quoted nowhere: not its line under the caret, not what the parser quotes of it in its words.
#[test]
fn an_included_file_that_is_not_a_spec_is_quoted_in_no_error() {
    for secret in [
        "API_KEY=sk_live_4f9a\nOTHER: x\n",
        "sk_live_4f9a: 1\n",
        "configs: sk_live_4f9a\n",
        "configs: { main: { retry: { max_attempts: sk_live_4f9a } } }\n",
        "configs: { main: { breaker: { scope: sk_live_4f9a } } }\n",
    ] {
        let d = generate_in_dir(
            "client: C\ninclude: [.env]\nmethods: {}\n",
            &[(".env", secret.as_bytes())],
            vec![],
        );
        assert!(!d.is_empty());
        for diagnostic in &d {
            assert_eq!(diagnostic.source_line, None, "{secret}: {d:?}");
            assert!(
                !diagnostic.render(false).contains("sk_live"),
                "{secret}: {d:?}"
            );
            assert!(diagnostic.file.ends_with(".env"), "{d:?}");
        }
    }
}

#[test]
fn no_spec_to_check_is_an_io_error_exit_2() {
    let empty = tempfile::tempdir().unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .arg("check")
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("no specs"));
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .args(["check", "no/such/spec.yaml"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("there is no such file"));
}

#[test]
fn a_build_script_error_reads_like_the_cli() {
    // A build script's `main` that returns the `Err` has it printed as `Error: {err:?}`.
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken/unknown_type.yaml");
    let err = remcall_codegen::generate(&[spec]).unwrap_err();
    let shown = format!("Error: {err:?}");
    assert!(shown.starts_with("Error: unknown type `Usr`"), "{shown}");
    assert!(!shown.contains("error: error"), "{shown}");
    assert!(
        shown.contains("unknown_type.yaml:6:36") && !shown.contains("Diagnostic {"),
        "{shown}"
    );
}

/// `retry:` in the config of a POST that is neither `idempotent:` nor keyed retries nothing the
/// server may have seen: a warning at check (exit 0, the code is written), at its place; with a
/// key, none.
#[test]
fn a_retry_that_cannot_retry_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let spec = dir.path().join("items.yaml");
    let text = |key: &str| {
        format!(
            "client: Items\nbase_url: \"http://localhost:8080\"\nmethods:\n  create_item:\n    request: POST /items\n{key}    config: {{ retry: {{ max_attempts: 3 }} }}\n"
        )
    };
    std::fs::write(&spec, text("")).unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_remcall"))
        .arg("check")
        .arg(&spec)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("warning: `create_item` is a POST and not idempotent"),
        "{stderr}"
    );
    assert!(stderr.contains("items.yaml:6:15"), "{stderr}");
    assert!(stderr.contains("1 spec(s) ok, 1 warning(s)"), "{stderr}");

    let generated = remcall_codegen::generate(std::slice::from_ref(&spec)).unwrap();
    assert_eq!(generated[0].warnings.len(), 1);
    assert!(generated[0].warnings[0].warning);

    std::fs::write(&spec, text("    idempotency_key: Idempotency-Key\n")).unwrap();
    let generated = remcall_codegen::generate(std::slice::from_ref(&spec)).unwrap();
    assert!(
        generated[0].warnings.is_empty(),
        "{:?}",
        generated[0].warnings
    );
}

/// A spec file named with terminal escapes (clear the screen, retitle the window, ring the bell)
/// and a carriage return, holding a line with an escape of its own: every place the CLI shows
/// the name or the line writes those characters visibly, never raw.
#[test]
fn file_names_and_lines_with_terminal_escapes_are_shown_inert() {
    let dir = tempfile::tempdir().unwrap();
    let name = "e\u{1b}[2J\u{1b}]0;PWNED\u{7}\rx.yaml";
    let spec = dir.path().join(name);
    std::fs::write(
        &spec,
        "client: C\nbase_url: http://localhost\nmethods:\n  get: { request: GET /a, returns: \"Usr\u{1b}[31m\" }\n",
    )
    .unwrap();
    for command in ["check", "gen"] {
        let mut run = Command::new(env!("CARGO_BIN_EXE_remcall"));
        run.arg(command).arg(&spec);
        if command == "gen" {
            run.arg("--out").arg(dir.path().join("out"));
        }
        let run = run.output().unwrap();
        assert_eq!(run.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&run.stderr);
        for raw in ['\u{1b}', '\u{7}', '\r'] {
            assert!(!stderr.contains(raw), "{raw:?} raw in {stderr:?}");
        }
        assert!(
            stderr.contains(r"e\u{1b}[2J\u{1b}]0;PWNED\u{7}\u{d}x.yaml:4:"),
            "{stderr}"
        );
    }
}

/// Two methods that send one request line and nothing else that tells them apart: a warning at
/// each the spec writes, naming the other (an imported one said so); a fixed query, an `Accept`
/// or a stream tells them apart, and the importer's own twins and path-key siblings of one route
/// pass without a word.
#[test]
fn two_methods_no_server_can_tell_apart_are_a_warning_at_each() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("things.yaml"),
        r#"openapi: 3.0.3
info: { title: Things, version: "1" }
paths:
  /things:
    get:
      operationId: listThings
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: array, items: { type: string } } } } }
  /logs:
    get:
      operationId: getLog
      responses:
        "200":
          description: the log, whole or as lines
          content:
            application/json: { schema: { type: array, items: { type: string } } }
            application/x-ndjson: { schema: { type: string } }
  /things?beta=true:
    get:
      operationId: listBetaThings
      responses:
        "200": { description: ok, content: { application/json: { schema: { type: array, items: { type: string } } } } }
"#,
    )
    .unwrap();
    let spec = dir.path().join("things.remcall.yaml");
    let write = |own: &str| {
        std::fs::write(
            &spec,
            format!(
                "client: Things\nopenapi: {{ file: things.yaml }}\nbase_url: \"http://localhost:8080\"\nmethods:\n{own}"
            ),
        )
        .unwrap();
    };
    let warnings = || {
        remcall_codegen::generate(std::slice::from_ref(&spec)).unwrap()[0]
            .warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
    };
    write("");
    assert_eq!(
        warnings(),
        Vec::<String>::new(),
        "the importer's twins and siblings"
    );

    write(
        "  my_things:\n    request: GET /things\n    returns: Vec<i64>\n  all_things:\n    request: GET /things\n    returns: Vec<bool>\n  same_things:\n    request: GET /things\n    returns: Vec<String>\n",
    );
    let said = warnings();
    // `same_things` reads the imported answer as it is: only the two expecting others conflict.
    assert_eq!(said.len(), 3, "{said:#?}");
    assert!(
        said[0].contains("things.remcall.yaml:6:14: `my_things` and `list_things` (imported), `all_things`, `same_things` send `GET /things` and nothing else tells them apart"),
        "{said:#?}"
    );
    assert!(
        said[1].contains(
            ":9:14: `all_things` and `list_things` (imported), `my_things`, `same_things` send"
        ),
        "{said:#?}"
    );
    assert!(
        said[2].contains(":12:14: `same_things` and `my_things`, `all_things` send"),
        "{said:#?}"
    );

    write(
        "  my_things:\n    request: GET /things\n    returns: Vec<i64>\n    config: { query: { mine: \"true\" } }\n",
    );
    assert_eq!(
        warnings(),
        Vec::<String>::new(),
        "a fixed query tells them apart"
    );
}
