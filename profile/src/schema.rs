//! JSON Schema for the hand-written parts of the format (durations, sizes, conditions, the
//! one-of choices), so `remcall schema` describes exactly what the deserializers accept.

use std::borrow::Cow;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};

use crate::model::{AdaptivePolicy, Condition, IsolationRepr, PoolPolicy, SemaphorePolicy};
use crate::units::ByteSize;

impl JsonSchema for ByteSize {
    fn schema_name() -> Cow<'static, str> {
        "Size".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "Bytes, optionally with KiB, MiB or GiB, e.g. 16MiB.",
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^\\s*[0-9]+\\s*(B|KiB|MiB|GiB)?\\s*$" }
            ]
        })
    }
}

impl JsonSchema for Condition {
    fn schema_name() -> Cow<'static, str> {
        "Condition".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "connect, timeout, an HTTP status (503) or a class (5xx).",
            "anyOf": [
                { "enum": ["connect", "timeout"] },
                { "type": "integer", "minimum": 100, "maximum": 599 },
                { "type": "string", "pattern": "^([1-5]xx|[1-5][0-9][0-9])$" }
            ]
        })
    }
}

impl JsonSchema for IsolationRepr {
    fn schema_name() -> Cow<'static, str> {
        "Isolation".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let semaphore = generator.subschema_for::<SemaphorePolicy>();
        let pool = generator.subschema_for::<PoolPolicy>();
        let adaptive = generator.subschema_for::<AdaptivePolicy>();
        json_schema!({
            "description": "none, { semaphore: {..} }, { pool: {..} } or { adaptive: {..} }.",
            "oneOf": [
                { "enum": ["none", "semaphore", "pool", "adaptive"] },
                { "type": "object", "properties": { "semaphore": semaphore }, "required": ["semaphore"], "additionalProperties": false },
                { "type": "object", "properties": { "pool": pool }, "required": ["pool"], "additionalProperties": false },
                { "type": "object", "properties": { "adaptive": adaptive }, "required": ["adaptive"], "additionalProperties": false }
            ]
        })
    }
}
