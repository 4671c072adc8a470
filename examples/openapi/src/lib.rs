//! Clients generated at build time from `bookshop.yaml` and `streaming.yaml`, which take their
//! methods and types from the OpenAPI descriptions `api/bookshop.json` and `api/assistant.yaml`.

/// The generated client: `Bookshop`, its builder, fallback trait and the description's types.
pub mod bookshop {
    remcall::include_client!("bookshop");
}

/// The generated streaming client: `Streaming`, from an OpenAPI 3.2 description.
pub mod streaming {
    remcall::include_client!("streaming");
}

/// A client of a description that lies about `content` (`drifty.yaml`).
pub mod drifty {
    remcall::include_client!("drifty");
}

/// The same description fixed by the overlay its drift wrote (`drifty_fixed.yaml`).
pub mod drifty_fixed {
    remcall::include_client!("drifty_fixed");
}

/// A client of shapes whose values must survive a round trip (`values.yaml`).
pub mod values {
    remcall::include_client!("values");
}

/// A Swagger 2.0 description's JSON Lines feed (`feed.yaml`).
pub mod feed {
    remcall::include_client!("feed");
}

/// A description that lies, with the overlay `remcall learn` wrote from a recorded run
/// (`inventory.yaml`), and its stub.
pub mod inventory {
    remcall::include_client!("inventory");
}

/// A Django REST framework help desk without operationIds (`helpdesk.yaml`), and its stub.
pub mod helpdesk {
    remcall::include_client!("helpdesk");
}
