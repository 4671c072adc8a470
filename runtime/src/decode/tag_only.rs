//! A tagged union's alternative that holds nothing but its tag (`{"state": "creating"}`): a
//! plain variant of the generated enum (`DiskState::Creating`), read and written through
//! [`TagOnly`], an object with no field of its own. The union writes the tag before it; the
//! keys it reads besides the tag are noted as undeclared, as a struct's would be.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::undeclared;

/// The object of a tag-only alternative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TagOnly;

/// Whose keys a note names: the alternative has no type of its own.
const OWNER: &str = "tag-only alternative";

impl Serialize for TagOnly {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_map(Some(0))?.end()
    }
}

impl<'de> Deserialize<'de> for TagOnly {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<TagOnly, D::Error> {
        deserializer.deserialize_map(TagOnlyVisitor)
    }
}

struct TagOnlyVisitor;

impl<'de> Visitor<'de> for TagOnlyVisitor {
    type Value = TagOnly;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("an object holding its tag")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TagOnly, A::Error> {
        let tag = super::context::take_variant_tag();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if tag.as_deref() == Some(&*key) {
                map.next_value::<de::IgnoredAny>()?;
            } else {
                let came = map.next_value::<undeclared::Kind>()?.0;
                undeclared::key(OWNER, &key, came);
            }
        }
        Ok(TagOnly)
    }
}
