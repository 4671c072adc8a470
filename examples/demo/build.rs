//! Generates the user client into OUT_DIR; `remcall::include_client!` picks it up.

fn main() {
    if let Err(error) = remcall_codegen::Builder::new()
        .spec("../../specs/user_service.yaml")
        .generate()
    {
        // Cargo shows build-script output on failure: one diagnostic per line, file:line:column.
        eprintln!("{error}");
        std::process::exit(1);
    }
}
