use serde::Deserialize;
use serde_json::json;

use super::*;

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Card {
    number: String,
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Bank {
    iban: String,
}

#[derive(Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
enum Source {
    Card(Card),
    Bank(Bank),
    Other(Value),
}

fn read(value: Value, open: bool) -> Result<Source, serde_json::Error> {
    untagged(
        value,
        "Source",
        &[
            ("Card", Fits::OBJECT.requiring(&["number"]), |v| {
                Card::deserialize(v).map(Source::Card)
            }),
            // Read to find out: the error is serde's.
            ("Bank", Fits::ANY, |v| {
                Bank::deserialize(v).map(Source::Bank)
            }),
        ],
        open.then_some(Source::Other as fn(Value) -> Source),
    )
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Short {
    text: String,
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Long {
    text: String,
    language: Option<String>,
}

#[derive(Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
enum Said {
    Short(Short),
    Long(Long),
}

fn said(value: Value, short: Fits, long: Fits) -> Said {
    untagged(
        value,
        "Said",
        &[
            ("Short", short, |v| Short::deserialize(v).map(Said::Short)),
            ("Long", long, |v| Long::deserialize(v).map(Said::Long)),
        ],
        None,
    )
    .unwrap()
}

#[test]
fn untagged_tries_the_alternative_that_declares_the_most_keys_first() {
    let short = Fits::OBJECT.requiring(&["text"]).declaring(&["text"]);
    let long = Fits::OBJECT
        .requiring(&["text"])
        .declaring(&["text", "language"]);
    // Both read `{text, language}`; the first listed would drop the language.
    assert!(matches!(
        said(json!({ "text": "hi", "language": "en" }), short, long),
        Said::Long(Long {
            language: Some(_),
            ..
        })
    ));
    // Equal fits keep the union's order.
    assert!(matches!(
        said(json!({ "text": "hi" }), short, long),
        Said::Short(_)
    ));
    // A field holding an alternative's one tag value outranks any count of keys, and
    // another value in it puts the alternative last.
    let short_tagged = short.tagged(&[("kind", "short")]);
    let long_tagged = long.tagged(&[("kind", "long")]);
    assert!(matches!(
        said(
            json!({ "text": "hi", "kind": "short", "language": "x" }),
            short_tagged,
            long_tagged
        ),
        Said::Short(_)
    ));
    assert!(matches!(
        said(
            json!({ "text": "hi", "kind": "long" }),
            short_tagged,
            long_tagged
        ),
        Said::Long(_)
    ));
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Plain {
    cells: Vec<Short>,
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Rich {
    cells: Vec<Long>,
}

#[derive(Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
enum Board {
    Plain(Plain),
    Rich(Rich),
}

#[test]
fn alternatives_alike_at_the_top_are_told_apart_by_what_they_write_back() {
    let read = |value: Value| {
        untagged(
            value,
            "Board",
            &[
                ("Plain", Fits::OBJECT.declaring(&["cells"]), |v| {
                    Plain::deserialize(v).map(Board::Plain)
                }),
                ("Rich", Fits::OBJECT.declaring(&["cells"]), |v| {
                    Rich::deserialize(v).map(Board::Rich)
                }),
            ],
            None,
        )
        .unwrap()
    };
    let rich = json!({ "cells": [{ "text": "a", "language": "en" }] });
    assert!(matches!(read(rich), Board::Rich(_)));
    assert!(matches!(
        read(json!({ "cells": [{ "text": "a" }] })),
        Board::Plain(_)
    ));
}

#[derive(Debug, serde::Serialize)]
#[serde(untagged)]
enum Boards {
    Plain(Vec<Plain>),
    Rich(Vec<Rich>),
}

#[test]
fn arrays_of_alike_items_are_told_apart_by_what_they_write_back() {
    let read = |value: Value| {
        untagged(
            value,
            "Boards",
            &[
                ("Plain", Fits::ARRAY, |v| {
                    Vec::<Plain>::deserialize(v).map(Boards::Plain)
                }),
                ("Rich", Fits::ARRAY, |v| {
                    Vec::<Rich>::deserialize(v).map(Boards::Rich)
                }),
            ],
            None,
        )
        .unwrap()
    };
    // Both read the array; the plain one would drop `language`.
    let rich = json!([{ "cells": [{ "text": "a", "language": "en" }] }]);
    let read_back = read(rich.clone());
    assert!(matches!(read_back, Boards::Rich(_)), "{read_back:?}");
    assert_eq!(serde_json::to_value(&read_back).unwrap(), rich);
    assert!(matches!(
        read(json!([{ "cells": [{ "text": "a" }] }])),
        Boards::Plain(_)
    ));
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Listed {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow: Option<Vec<String>>,
}

#[derive(Debug, PartialEq, Deserialize, serde::Serialize)]
struct Filtered {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    allow: Option<Vec<String>>,
    #[serde(
        default,
        skip_serializing_if = "crate::wire::nullable::Nullable::is_absent"
    )]
    filter: crate::wire::nullable::Nullable<Vec<String>>,
}

#[derive(Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
enum Metadata {
    Listed(Listed),
    Filtered(Filtered),
}

#[test]
fn of_alternatives_alike_the_one_that_writes_a_sent_null_back_is_taken() {
    let read = |value: Value| {
        untagged(
            value,
            "Metadata",
            &[
                ("Listed", Fits::OBJECT.declaring(&["allow"]), |v| {
                    Listed::deserialize(v).map(Metadata::Listed)
                }),
                ("Filtered", Fits::OBJECT.declaring(&["allow"]), |v| {
                    Filtered::deserialize(v).map(Metadata::Filtered)
                }),
            ],
            None,
        )
        .unwrap()
    };
    // `filter: null` clears the filter: read as `Listed`, the null would not be sent.
    let clear = json!({ "allow": ["a"], "filter": null });
    let read_back = read(clear.clone());
    assert!(matches!(read_back, Metadata::Filtered(_)), "{read_back:?}");
    assert_eq!(serde_json::to_value(&read_back).unwrap(), clear);
    assert!(matches!(
        read(json!({ "allow": ["a"] })),
        Metadata::Listed(_)
    ));
}

#[test]
fn untagged_takes_the_first_that_fits_and_names_all_it_tried() {
    assert_eq!(
        read(json!({ "iban": "DE00" }), false).unwrap(),
        Source::Bank(Bank {
            iban: "DE00".into()
        })
    );
    let error = read(json!({ "id": 1 }), false).unwrap_err().to_string();
    assert_eq!(
        error,
        "no alternative of `Source` matches (`Card`: missing field `number`; `Bank`: missing field `iban`)"
    );
    assert_eq!(
        read(json!({ "id": 1 }), true).unwrap(),
        Source::Other(json!({ "id": 1 }))
    );
    assert_eq!(
        read(json!([4242]), false).unwrap_err().to_string(),
        "no alternative of `Source` matches (`Card`: expected an object, found an array; \
             `Bank`: invalid type: integer `4242`, expected a string)"
    );
}

/// The recursive filter shape of imported APIs: `Expr` is `All { of: [Expr], all: true }` or
/// `Any { of: [Expr], any: true }`, nested. Each alternative counts its reads.
#[allow(dead_code)]
mod filters {
    use std::cell::Cell;

    use super::*;

    thread_local! {
        pub static READS: Cell<u64> = const { Cell::new(0) };
    }

    #[derive(Debug, Deserialize, serde::Serialize)]
    pub struct All {
        pub of: Vec<Expr>,
        pub all: bool,
    }

    #[derive(Debug, Deserialize, serde::Serialize)]
    pub struct Any {
        pub of: Vec<Expr>,
        pub any: bool,
    }

    /// Alternatives whose required keys are the same, told apart by a value's type only.
    #[derive(Debug, Deserialize, serde::Serialize)]
    pub struct Count {
        pub of: Vec<Expr>,
        pub value: i64,
    }

    #[derive(Debug, Deserialize, serde::Serialize)]
    pub struct Name {
        pub of: Vec<Expr>,
        pub value: String,
    }

    #[derive(Debug, serde::Serialize)]
    #[serde(untagged)]
    pub enum Expr {
        All(All),
        Any(Any),
        Count(Count),
        Name(Name),
    }

    fn counted<T>(read: Result<T, serde_json::Error>) -> Result<T, serde_json::Error> {
        READS.set(READS.get() + 1);
        read
    }

    impl<'de> Deserialize<'de> for Expr {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            untagged(
                deserializer,
                "Expr",
                &[
                    ("All", Fits::OBJECT.requiring(&["of", "all"]), |v| {
                        counted(All::deserialize(v).map(Expr::All))
                    }),
                    ("Any", Fits::OBJECT.requiring(&["of", "any"]), |v| {
                        counted(Any::deserialize(v).map(Expr::Any))
                    }),
                    ("Count", Fits::OBJECT.requiring(&["of", "value"]), |v| {
                        counted(Count::deserialize(v).map(Expr::Count))
                    }),
                    ("Name", Fits::OBJECT.requiring(&["of", "value"]), |v| {
                        counted(Name::deserialize(v).map(Expr::Name))
                    }),
                ],
                None,
            )
        }
    }

    /// `depth` nested values: each `{"of": [inner], key: leaf}`, the innermost `innermost`.
    pub fn nested(depth: usize, key: &str, leaf: &str, innermost: &str) -> String {
        let mut text = innermost.to_owned();
        for _ in 0..depth {
            text = format!(r#"{{"of": [{text}], "{key}": {leaf}}}"#);
        }
        text
    }
}

#[test]
fn a_recursive_union_told_apart_by_its_keys_reads_each_value_once() {
    use filters::*;
    let innermost = r#"{"of": [], "any": true}"#;
    for depth in [10, 40] {
        READS.set(0);
        let text = nested(depth, "any", "true", innermost);
        let mut expr: Expr = serde_json::from_str(&text).unwrap();
        READS.with(|reads| assert_eq!(reads.get(), depth as u64 + 1));
        for _ in 0..depth {
            let Expr::Any(any) = expr else {
                panic!("{expr:?}")
            };
            expr = any.of.into_iter().next().unwrap();
        }
    }
}

#[test]
fn an_answer_that_would_retry_alternatives_exponentially_stops_with_a_short_error() {
    use filters::*;
    // `Count` reads the whole inner value before it meets `value` (keys are read in order),
    // then `Name` reads it again: unbounded, 2^depth reads.
    let text = nested(30, "value", r#""x""#, r#"{"of": [], "value": "x"}"#);
    READS.set(0);
    let error = serde_json::from_str::<Expr>(&text).unwrap_err().to_string();
    let reads = READS.get();
    assert!(reads < 20_000, "{reads} reads");
    assert!(error.contains("decoding stopped"), "{error}");
    assert!(error.len() < 2_000, "{} bytes: {error}", error.len());
    // The budget was the answer's: the next answer starts afresh.
    let small = nested(3, "value", r#""x""#, r#"{"of": [], "value": "x"}"#);
    assert!(serde_json::from_str::<Expr>(&small).is_ok());
}

#[test]
fn a_deep_failure_gives_a_bounded_error() {
    use filters::*;
    // Every level fits `All` by its keys; the innermost value fits nothing.
    let text = nested(40, "all", "true", r#"{"of": [], "all": "yes"}"#);
    let error = serde_json::from_str::<Expr>(&text).unwrap_err().to_string();
    assert!(
        error.starts_with("no alternative of `Expr` matches (`All`: "),
        "{error}"
    );
    assert!(error.len() < 1_200, "{} bytes: {error}", error.len());
}

fn read_tagged(value: Value) -> Result<Source, serde_json::Error> {
    tagged(
        value,
        "Source",
        "object",
        &[
            ("card", |v| Card::deserialize(v).map(Source::Card)),
            ("bank_account", |v| Bank::deserialize(v).map(Source::Bank)),
        ],
        None,
    )
}

#[test]
fn tagged_dispatches_on_the_tag_and_says_what_is_wrong() {
    assert_eq!(
        read_tagged(json!({ "object": "card", "number": "4242" })).unwrap(),
        Source::Card(Card {
            number: "4242".into()
        })
    );
    for (value, expected) in [
        (
            json!({ "number": "4242" }),
            "`Source` needs its tag field `object`, and the value has none",
        ),
        (
            json!({ "object": "wallet\n" }),
            "`Source`: unknown `object` value `wallet\\n`, expected one of card, bank_account",
        ),
        (
            json!({ "object": "card" }),
            "`Source` (object: card): missing field `number`",
        ),
    ] {
        assert_eq!(read_tagged(value).unwrap_err().to_string(), expected);
    }
}
