//! The enum of a method's events by name (`returns: { as: events, events: { .. } }`): how an
//! event's name picks its variant and its data is read (JSON, or text for a `String`), and how
//! a stub writes one back. One macro invocation per enum, after the client (templates/client/
//! wire.rs); an event of a name the spec does not map is kept, as it came, in the open variant.

/// Implements `from_event` and `to_event` for a generated enum of events:
///
/// ```text
/// serde_events! { RunEvent { Created(Run) = "run.created" json, Note(String) = "note" text } open: Other }
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __serde_events {
    ($name:ident { $($variant:ident($ty:ty) = $event:literal $how:ident),* $(,)? } open: $open:ident) => {
        impl $name {
            /// Reads an event of the stream: its variant by name (no name is `message`).
            #[doc(hidden)]
            pub fn from_event(event: Option<&str>, data: &str) -> Result<Self, String> {
                match event.unwrap_or("message") {
                    // The stream's error names the event (its `event:` and `id:`) around `why`.
                    $($event => $crate::__serde_events!(@read $how $ty, data)
                        .map(Self::$variant),)*
                    _ => Ok(Self::$open {
                        event: event.map(str::to_owned),
                        data: data.to_owned(),
                    }),
                }
            }

            /// The event's name and data, as a server writes them (what a stub sends).
            #[doc(hidden)]
            pub fn to_event(&self) -> (Option<String>, String) {
                match self {
                    $(Self::$variant(value) => (
                        Some($event.to_owned()),
                        $crate::__serde_events!(@write $how value),
                    ),)*
                    Self::$open { event, data } => (event.clone(), data.clone()),
                }
            }
        }
    };
    (@read json $ty:ty, $data:ident) => {
        $crate::__codegen::event_json::<$ty>(None, $data)
    };
    (@read text $ty:ty, $data:ident) => {
        Ok::<String, String>($data.to_owned())
    };
    (@write json $value:ident) => {
        $crate::serde_json::to_string($value).unwrap_or_default()
    };
    (@write text $value:ident) => {
        $value.clone()
    };
}
