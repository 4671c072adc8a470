//! Load + validate + render any text as a spec: it may be refused with diagnostics, never panic,
//! hang or pass validation and then fail to render (render() runs syn on its own output).
#![no_main]

use std::path::Path;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Err(error @ remcall_codegen::Error::Render { .. }) =
            remcall_codegen::generate_text(Path::new("fuzz.yaml"), text)
    {
        panic!("a spec passed validation and failed to render: {error}");
    }
});
