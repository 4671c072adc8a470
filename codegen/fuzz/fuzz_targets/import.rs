//! Import any bytes as an OpenAPI description: it may be refused with an error, never panic or
//! hang, and what it imports must check (an imported spec that does not is the importer's bug).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // The importer reads descriptions from disk: one file per process, rewritten per input.
    let dir = std::env::temp_dir().join(format!("remcall-fuzz-import-{}", std::process::id()));
    let path = dir.join("api.json");
    if std::fs::create_dir_all(&dir).is_err() || std::fs::write(&path, data).is_err() {
        return;
    }
    if let Ok(imported) = remcall_openapi::import(&path, &remcall_openapi::Options::default())
        && let Err(error @ remcall_codegen::Error::Invalid(_)) =
            remcall_codegen::generate_text(std::path::Path::new("imported.yaml"), &imported.spec)
    {
        panic!("an imported spec does not check: {error}\n{}", imported.spec);
    }
});
