//! Generates the bookshop client into OUT_DIR from `bookshop.yaml`, whose methods and types come
//! from the OpenAPI description `api/bookshop.json`, and the streaming client from
//! `streaming.yaml` and `api/assistant.yaml`, and a description that lies (`api/drifty.yaml`)
//! with and without the overlay its drift wrote, and a client of shapes whose values must survive
//! (`values.yaml`) and a Swagger 2.0 feed of JSON Lines (`feed.yaml`), and a description that
//! lies with the overlay `remcall learn` wrote (`inventory.yaml`), and a Django REST framework
//! help desk without operationIds (`helpdesk.yaml`); cargo reruns this when any of them changes.

fn main() {
    for spec in [
        "bookshop.yaml",
        "streaming.yaml",
        "drifty.yaml",
        "drifty_fixed.yaml",
        "values.yaml",
        "feed.yaml",
        "inventory.yaml",
        "helpdesk.yaml",
    ] {
        if let Err(error) = remcall_codegen::Builder::new().spec(spec).generate() {
            eprintln!("{error}");
            std::process::exit(1);
        }
    }
}
