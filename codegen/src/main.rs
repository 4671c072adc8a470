//! `remcall`: generate and check clients from YAML specs.
//!
//! Exit codes: 0 ok, 1 an invalid spec or stale output, 2 usage or I/O errors.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use remcall_codegen::{
    Error, Options, expand_inputs, generate_with, output, render_diagnostics, shown_path,
};

#[derive(Parser)]
#[command(
    name = "remcall",
    version,
    about = "Generate resilient Rust HTTP clients from YAML specs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Generate one module per spec, and a mod.rs declaring them, into --out.
    Gen {
        /// Spec files, or directories whose *.yaml files are specs.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// The output directory.
        #[arg(long)]
        out: PathBuf,
        /// Write nothing; exit 1 naming each file that is stale or missing.
        #[arg(long)]
        check: bool,
        /// A directory specs may include files from, besides their own (repeatable).
        #[arg(long = "include-dir", value_name = "DIR")]
        include_dirs: Vec<PathBuf>,
        /// Generate each client's stub for tests, as `stubs: true` in the spec would.
        #[arg(long)]
        stubs: bool,
        /// Exit 1, writing nothing, when a spec has a warning (an overlay action that selects
        /// nothing, a retry that cannot happen).
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Validate specs without generating.
    Check {
        /// Spec files, or directories of them.
        #[arg(required = true)]
        specs: Vec<PathBuf>,
        /// A directory specs may include files from, besides their own (repeatable).
        #[arg(long = "include-dir", value_name = "DIR")]
        include_dirs: Vec<PathBuf>,
        /// Exit 1 when a spec has a warning.
        #[arg(long)]
        deny_warnings: bool,
    },
    /// Write a spec from an OpenAPI description (Swagger 2.0, OpenAPI 3.0, 3.1 or 3.2).
    Import {
        /// The description (JSON or YAML); `$ref`s into files beside it are followed.
        description: PathBuf,
        /// The spec to write.
        #[arg(long)]
        out: PathBuf,
        /// The client's type name (default: from the description's title).
        #[arg(long)]
        client: Option<String>,
        /// Only operations with one of these tags.
        #[arg(long, value_delimiter = ',')]
        tags: Vec<String>,
        /// Only these operations (operationId or method name).
        #[arg(long, value_delimiter = ',')]
        operations: Vec<String>,
        /// Exit 1, writing nothing, when the spec would say less than the description: an
        /// operation skipped, or a note that loses something.
        #[arg(long)]
        strict: bool,
        /// A local copy of remote documents: a `$ref` to a URL under URL is read from DIR
        /// (repeatable; nothing is ever fetched).
        #[arg(long = "ref-dir", value_name = "URL=DIR", value_parser = ref_dir)]
        ref_dirs: Vec<(String, PathBuf)>,
        /// A folder `$ref`s may also reach (repeatable). By default they reach the description's
        /// repository (the nearest folder above it holding `.git`), else only its own folder.
        #[arg(long = "ref-root", value_name = "DIR")]
        ref_roots: Vec<PathBuf>,
        /// An OpenAPI Overlay 1.0 document applied to the description before it is read
        /// (repeatable, applied in order): fixes to a description you do not own.
        #[arg(long = "overlay", value_name = "FILE")]
        overlays: Vec<PathBuf>,
        /// What `format: date-time` and `date` strings become: `text` (String, the default: no
        /// dependency, any text the server sends) or `chrono` (chrono's types; the crate needs
        /// `chrono` with its `serde` feature).
        #[arg(long, value_name = "text|chrono", default_value = "text")]
        dates: remcall_openapi::Dates,
    },
    /// Learn what a description gets wrong from a recording of its server's answers (a
    /// client's `record:`): write it as an overlay, then check every recorded answer against
    /// the description with it. Exit 1 unless strict decoding takes every answer whole.
    Learn {
        /// The description (JSON or YAML).
        description: PathBuf,
        /// The recording (JSON Lines, as `record:` writes it).
        #[arg(long)]
        recording: PathBuf,
        /// The overlay to write (Overlay 1.0, YAML).
        #[arg(long, required_unless_present = "check")]
        out: Option<PathBuf>,
        /// An overlay applied before learning (repeatable, in order): the ones the spec already
        /// names.
        #[arg(long = "overlay", value_name = "FILE")]
        overlays: Vec<PathBuf>,
        /// Learn nothing, write nothing: check the recording against the description and its
        /// overlays as they are (exit 1 when the server or the description drifted).
        #[arg(long, conflicts_with = "out")]
        check: bool,
    },
    /// Print the JSON Schema (draft 2020-12) of the spec format, for editors' YAML completion.
    Schema,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(Error::Invalid(diagnostics)) => {
            eprintln!("{}", render_diagnostics(&diagnostics, use_color()));
            ExitCode::from(1)
        }
        // Not the spec's fault: the file system, or a bug of the generator's.
        Err(error @ (Error::Io(_) | Error::Render { .. })) => {
            eprintln!("error: {error}");
            ExitCode::from(2)
        }
    }
}

fn run(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::Import {
            description,
            out,
            client,
            tags,
            operations,
            strict,
            ref_dirs,
            ref_roots,
            overlays,
            dates,
        } => {
            let options = remcall_openapi::Options {
                client,
                tags,
                operations,
                ref_dirs,
                ref_roots,
                overlays,
                dates,
                ..remcall_openapi::Options::default()
            };
            return import(&description, &out, &options, strict);
        }
        Command::Learn {
            description,
            recording,
            out,
            overlays,
            check: _,
        } => {
            return learn(&description, &recording, &overlays, out.as_deref());
        }
        Command::Gen {
            specs,
            out,
            check,
            include_dirs,
            stubs,
            deny_warnings,
        } => {
            let options = Options {
                include_dirs,
                stubs,
            };
            return generate_into(&specs, &out, check, deny_warnings, &options);
        }
        Command::Schema => {
            let schema = remcall_codegen::schema();
            let text = serde_json::to_string_pretty(&schema)
                .map_err(|e| Error::Io(format!("cannot print the schema: {e}")))?;
            println!("{text}");
        }
        Command::Check {
            specs,
            include_dirs,
            deny_warnings,
        } => {
            let specs = expand_inputs(&specs)?;
            let options = Options {
                include_dirs,
                ..Options::default()
            };
            let generated = generate_with(&specs, &options)?;
            let warnings = print_warnings(&generated);
            match warnings {
                0 => eprintln!("{} spec(s) ok", specs.len()),
                n if deny_warnings => {
                    eprintln!("error: {n} warning(s), denied by --deny-warnings");
                    return Ok(ExitCode::from(1));
                }
                n => eprintln!("{} spec(s) ok, {n} warning(s)", specs.len()),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `remcall gen`: the code of every spec written into `out`, or with `check`, compared with it.
fn generate_into(
    specs: &[PathBuf],
    out: &std::path::Path,
    check: bool,
    deny_warnings: bool,
    options: &Options,
) -> Result<ExitCode, Error> {
    let generated = generate_with(&expand_inputs(specs)?, options)?;
    let warnings = print_warnings(&generated);
    if deny_warnings && warnings > 0 {
        eprintln!("error: {warnings} warning(s), denied by --deny-warnings; nothing was written");
        return Ok(ExitCode::from(1));
    }
    let files = output::files(&generated);
    if check {
        let stale = output::check(out, &files);
        for path in &stale {
            eprintln!(
                "stale: {} (run `remcall gen` to regenerate it)",
                shown_path(path)
            );
        }
        if !stale.is_empty() {
            return Ok(ExitCode::from(1));
        }
        eprintln!(
            "{} generated file(s) in {} are fresh",
            files.len(),
            shown_path(out)
        );
    } else {
        let written = output::write(out, &files)?;
        eprintln!(
            "{} file(s) written, {} unchanged, in {}",
            written.len(),
            files.len() - written.len(),
            shown_path(out)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes every warning of `generated` to stderr, as rustc would; how many there were.
fn print_warnings(generated: &[remcall_codegen::Generated]) -> usize {
    let color = use_color();
    let mut count = 0;
    for warning in generated.iter().flat_map(|file| &file.warnings) {
        eprintln!("{}\n", warning.render(color));
        count += 1;
    }
    count
}

/// `URL=DIR` of `--ref-dir`.
fn ref_dir(text: &str) -> Result<(String, PathBuf), String> {
    match text.split_once('=') {
        Some((url, dir)) if url.contains("://") && !dir.is_empty() => {
            Ok((url.to_owned(), PathBuf::from(dir)))
        }
        _ => Err(format!(
            "`{text}`: write URL=DIR, e.g. https://example.com/schemas/=vendor/schemas"
        )),
    }
}

/// `remcall import`: the description's spec, checked as `remcall check` would, then written.
fn import(
    description: &std::path::Path,
    out: &std::path::Path,
    options: &remcall_openapi::Options,
    strict: bool,
) -> Result<ExitCode, Error> {
    // What is written checks: an item `check` refuses is set aside with a note; a refusal
    // outside every item is the importer's bug.
    let imported = match remcall_codegen::import(description, out, options) {
        Ok(imported) => imported,
        Err(remcall_codegen::ImportError::Description(error)) => {
            eprintln!("error: {error}");
            eprintln!("nothing was written");
            return Ok(ExitCode::from(1));
        }
        Err(remcall_codegen::ImportError::Unchecked(error)) => {
            eprintln!("{error:?}");
            eprintln!(
                "error: the spec imported from {} does not check; this is a bug in `remcall import`, please report it with the description. Nothing was written.",
                shown_path(description)
            );
            return Ok(ExitCode::from(2));
        }
    };
    for (operation, reason) in &imported.summary.skipped {
        eprintln!("skipped {operation}: {reason}");
    }
    for note in &imported.summary.notes {
        eprintln!("note: {note}");
    }
    if strict && imported.summary.loses_anything() {
        let losing = imported.summary.notes.iter().filter(|n| n.loses).count()
            + imported.summary.skipped.len();
        eprintln!(
            "error: --strict: {losing} skipped operation(s) and note(s) marked [loses] say less than the description; nothing was written"
        );
        return Ok(ExitCode::from(1));
    }
    output::write_one(out, imported.spec)?;
    eprintln!("{}; wrote {}", imported.summary, shown_path(out));
    Ok(ExitCode::SUCCESS)
}

/// `remcall learn`: the overlay learned and written, then each method's answers checked
/// against the description with it (with `--check`, as the overlays stand).
fn learn(
    description: &std::path::Path,
    recording: &std::path::Path,
    overlays: &[PathBuf],
    out: Option<&std::path::Path>,
) -> Result<ExitCode, Error> {
    let report = match remcall_codegen::learn::learn(description, recording, overlays, out) {
        Ok(report) => report,
        Err(error) => {
            eprintln!("error: {error}");
            return Ok(ExitCode::from(1));
        }
    };
    if let (Some(learned), Some(out)) = (&report.learned, out) {
        for note in &learned.notes {
            eprintln!("note: {note}");
        }
        eprintln!(
            "learned {} action(s) and {} proposal(s); wrote {}",
            learned.actions,
            learned.proposals,
            shown_path(out)
        );
    }
    for note in &report.overlay_notes {
        eprintln!("warning: {note}");
    }
    println!(
        "{:<40} {:>8} {:>8} {:>6}",
        "method", "answers", "strict", "lost"
    );
    for (method, seen) in &report.methods {
        println!(
            "{:<40} {:>8} {:>8} {:>6}",
            remcall_openapi::escape::one_line(method),
            seen.answers,
            seen.strict,
            seen.lost
        );
        for problem in &seen.problems {
            println!("    {problem}");
        }
    }
    if report.passes() {
        eprintln!("every recorded answer decodes strictly, nothing lost");
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("error: some recorded answers do not decode strictly, or lose values");
        Ok(ExitCode::from(1))
    }
}

/// Colour on a terminal, unless `NO_COLOR` is set (https://no-color.org).
fn use_color() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
