//! Load + validate + render any text as a spec: it may be refused with diagnostics, never panic,
//! hang or produce code that does not parse (render() runs syn on its own output).
#![no_main]

use std::path::Path;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = remcall_codegen::generate_text(Path::new("fuzz.yaml"), text);
    }
});
