//! `corpus-progenitor DESCRIPTION OUT.rs`: what progenitor makes of one description, as
//! `cargo xtask corpus` reports it beside remcall. Prints one line; exit 0 when it generated code
//! (written to OUT.rs), 1 when it did not (the line says why: another version, a parse error,
//! an error, a panic).

use std::panic::AssertUnwindSafe;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [document, out] = args.as_slice() else {
        eprintln!("usage: corpus-progenitor DESCRIPTION OUT.rs");
        std::process::exit(2);
    };
    match generate(document) {
        Ok(code) => {
            std::fs::write(out, code).expect("write the output");
            println!("generated");
        }
        Err(why) => {
            println!("{why}");
            std::process::exit(1);
        }
    }
}

fn generate(document: &str) -> Result<String, String> {
    let text = std::fs::read_to_string(document).map_err(|e| format!("unreadable: {e}"))?;
    let value: serde_json::Value = if document.ends_with(".json") {
        serde_json::from_str(&text).map_err(|e| format!("not JSON: {e}"))?
    } else {
        serde_yaml::from_str(&text).map_err(|e| format!("not YAML: {e}"))?
    };
    let version = value
        .get("openapi")
        .or_else(|| value.get("swagger"))
        .and_then(|v| v.as_str())
        .unwrap_or("?")
        .to_owned();
    if !version.starts_with("3.0") {
        return Err(format!("refused: takes OpenAPI 3.0 only, this is {version}"));
    }
    let spec: openapiv3::OpenAPI = serde_json::from_value(value)
        .map_err(|e| format!("openapiv3 cannot read it: {}", first_line(&e.to_string())))?;
    let generated = std::panic::catch_unwind(AssertUnwindSafe(|| {
        progenitor::Generator::default().generate_tokens(&spec)
    }));
    let tokens = match generated {
        Ok(Ok(tokens)) => tokens,
        Ok(Err(e)) => return Err(format!("error: {}", first_line(&e.to_string()))),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            return Err(format!("panics: {}", first_line(&message)));
        }
    };
    let file: syn::File = syn::parse2(tokens).map_err(|e| format!("emits invalid Rust: {e}"))?;
    Ok(prettyplease::unparse(&file))
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().chars().take(120).collect()
}
