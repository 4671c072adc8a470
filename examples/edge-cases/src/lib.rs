//! Clients generated from `codegen/tests/edge/` (keywords as names, 20 parameters, recursive
//! types, deep paths, Unicode, CRLF and a byte-order mark), committed like progenitor's snapshot
//! crate: a snapshot that does not compile or lint fails CI.

// Generated code must carry rustdoc on every public item.
#![warn(missing_docs)]

/// The generated clients, one module per spec.
pub mod clients;

/// User types that the edge specs name by path.
pub mod model {
    /// Money, as a user crate would define it.
    pub mod money {
        /// An amount in cents.
        #[derive(
            Debug, Clone, PartialEq, remcall::serde::Serialize, remcall::serde::Deserialize,
        )]
        #[serde(crate = "remcall::serde")]
        pub struct Money {
            /// Cents.
            pub cents: i64,
            /// ISO currency code.
            pub currency: String,
        }
    }
}
