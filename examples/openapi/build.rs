//! Generates the bookshop client into OUT_DIR from `bookshop.yaml`, whose methods and types come
//! from the OpenAPI description `api/bookshop.json`; cargo reruns this when either changes.

fn main() {
    if let Err(error) = remcall_codegen::Builder::new()
        .spec("bookshop.yaml")
        .generate()
    {
        eprintln!("{error}");
        std::process::exit(1);
    }
}
