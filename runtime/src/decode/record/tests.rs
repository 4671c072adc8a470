use std::collections::BTreeMap;

use serde::de::MapAccess;

use super::{Optional, Record, Unfinished, other, read, slot, write_with_others};

/// What the generator writes for `{ id: integer, name?: string }` keeping other keys.
#[derive(Debug, PartialEq)]
struct Pet {
    id: i64,
    name: Option<String>,
    additional: BTreeMap<String, serde_json::Value>,
}

impl<'de> serde::Deserialize<'de> for Pet {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read(deserializer)
    }
}

impl<'de> Record<'de> for Pet {
    type Slots = (
        Option<i64>,
        Option<Option<String>>,
        BTreeMap<String, serde_json::Value>,
    );
    const NAME: &'static str = "Pet";
    const FIELDS: &'static [&'static str] = &["id", "name"];
    const KEEPS_OTHERS: bool = true;

    fn slots() -> Self::Slots {
        (None, None, BTreeMap::new())
    }

    fn read<A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        index: usize,
        map: &mut A,
    ) -> Result<bool, A::Error> {
        match index {
            0 => slot(&mut slots.0, map),
            _ => slot(&mut slots.1, map),
        }
    }

    fn read_other<A: MapAccess<'de>>(
        slots: &mut Self::Slots,
        key: String,
        map: &mut A,
    ) -> Result<(), A::Error> {
        other(&mut slots.2, key, map)
    }

    fn finish(slots: Self::Slots) -> Result<Self, Unfinished> {
        Ok(Self {
            id: slots.0.ok_or("id")?,
            name: slots.1.unwrap_or_default(),
            additional: slots.2,
        })
    }
}

impl serde::Serialize for Pet {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        write_with_others(
            serializer,
            &[("id", Some(&self.id)), ("name", self.name.present())],
            &self.additional,
        )
    }
}

#[test]
fn fields_are_written_by_wire_name_without_absent_ones_and_other_keys_follow() {
    let mut pet: Pet = serde_json::from_str(r#"{"id":7,"color":"red"}"#).unwrap();
    assert_eq!(
        serde_json::to_string(&pet).unwrap(),
        r#"{"id":7,"color":"red"}"#
    );
    pet.name = Some("Rex".into());
    assert_eq!(
        serde_json::to_string(&pet).unwrap(),
        r#"{"id":7,"name":"Rex","color":"red"}"#
    );
    assert_eq!(
        serde_urlencoded::to_string(&pet).unwrap(),
        "id=7&name=Rex&color=red"
    );
}

#[test]
fn fields_are_read_by_wire_name_in_any_order_and_other_keys_are_kept() {
    let pet: Pet = serde_json::from_str(r#"{"color":"red","name":"Rex","id":7}"#).unwrap();
    assert_eq!(pet.id, 7);
    assert_eq!(pet.name.as_deref(), Some("Rex"));
    assert_eq!(pet.additional["color"], "red");
    let pet: Pet = serde_json::from_value(serde_json::json!({"id": 1})).unwrap();
    assert_eq!((pet.id, pet.name, pet.additional.len()), (1, None, 0));
}

#[test]
fn errors_say_what_serde_derive_says() {
    let missing = serde_json::from_str::<Pet>(r#"{"name":"Rex"}"#).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "missing field `id` at line 1 column 14"
    );
    let twice = serde_json::from_str::<Pet>(r#"{"id":1,"id":2}"#).unwrap_err();
    assert_eq!(
        twice.to_string(),
        "duplicate field `id` at line 1 column 12"
    );
    let wrong = serde_json::from_str::<Pet>(r#"{"id":"one"}"#).unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "invalid type: string \"one\", expected i64 at line 1 column 11"
    );
    let not_a_map = serde_json::from_str::<Pet>("[1]").unwrap_err();
    assert!(
        not_a_map.to_string().contains("expected struct Pet"),
        "{not_a_map}"
    );
}
