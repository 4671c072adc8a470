{#- Part of client.rs (included, same context): the spec's types, as structs, enums and unions with their serde, and the marker types of constants. -#}
{%- for ty in client.types %}
{%- for line in ty.doc %}
#[doc = {{ "{:?}"|format(line) }}]
{%- endfor %}
{%- if ty.is_union %}
#[derive(Debug, Clone, PartialEq, remcall::serde::Serialize)]
#[serde(crate = "remcall::serde", untagged)]
pub enum {{ ty.name }} {
    {%- for variant in ty.variants %}
    {%- for line in variant.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    {{ variant.name }}({{ variant.wire }}),
    {%- endfor %}
    {%- if ty.open %}
    /// A value none of the alternatives reads, kept as it came.
    Other(remcall::serde_json::Value),
    {%- endif %}
}

impl<'de> remcall::serde::Deserialize<'de> for {{ ty.name }} {
    fn deserialize<D: remcall::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        {%- if let Some(tag) = ty.tag %}
        remcall::__codegen::union::tagged(deserializer, {{ "{:?}"|format(ty.name) }}, {{ "{:?}"|format(tag) }}, &[
            {%- for variant in ty.variants %}
            {%- for value in variant.tags %}
            ({{ "{:?}"|format(value) }}, |value| <{{ variant.wire }} as remcall::serde::Deserialize>::deserialize(value).map(Self::{{ variant.name }})),
            {%- endfor %}
            {%- endfor %}
        ], {% if ty.open %}Some(Self::Other){% else %}None{% endif %})
        {%- else %}
        remcall::__codegen::union::untagged(deserializer, {{ "{:?}"|format(ty.name) }}, &[
            {%- for variant in ty.variants %}
            ({{ "{:?}"|format(variant.name) }}, {{ variant.fits }}, |value| <{{ variant.wire }} as remcall::serde::Deserialize>::deserialize(value).map(Self::{{ variant.name }})),
            {%- endfor %}
        ], {% if ty.open %}Some(Self::Other){% else %}None{% endif %})
        {%- endif %}
    }
}
{%- else if ty.is_enum && ty.is_integer %}
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum {{ ty.name }} {
    {%- for variant in ty.variants %}
    {%- for line in variant.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    {{ variant.name }},
    {%- endfor %}
    {%- if ty.open %}
    /// A value this client does not know.
    Other(i64),
    {%- endif %}
}

impl remcall::serde::Serialize for {{ ty.name }} {
    fn serialize<S: remcall::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(match self {
            {%- for variant in ty.variants %}
            Self::{{ variant.name }} => {{ variant.wire }},
            {%- endfor %}
            {%- if ty.open %}
            Self::Other(value) => *value,
            {%- endif %}
        })
    }
}

impl<'de> remcall::serde::Deserialize<'de> for {{ ty.name }} {
    fn deserialize<D: remcall::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        remcall::__codegen::int_enum(deserializer, {{ "{:?}"|format(ty.name) }}, &[{% for variant in ty.variants %}({{ variant.wire }}, Self::{{ variant.name }}), {% endfor %}], {% if ty.open %}Some(Self::Other){% else %}None{% endif %})
    }
}
{%- else if ty.is_enum %}
#[derive(Debug, Clone, {% if ty.copy %}Copy, {% endif %}PartialEq, Eq, Hash)]
pub enum {{ ty.name }} {
    {%- for variant in ty.variants %}
    {%- for line in variant.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    {{ variant.name }},
    {%- endfor %}
    {%- if ty.open %}
    /// A value this client does not know.
    Other(String),
    {%- endif %}
}

impl remcall::serde::Serialize for {{ ty.name }} {
    fn serialize<S: remcall::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(match self {
            {%- for variant in ty.variants %}
            Self::{{ variant.name }} => {{ "{:?}"|format(variant.wire) }},
            {%- endfor %}
            {%- if ty.open %}
            Self::Other(value) => value,
            {%- endif %}
        })
    }
}

impl<'de> remcall::serde::Deserialize<'de> for {{ ty.name }} {
    fn deserialize<D: remcall::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        remcall::__codegen::str_enum(deserializer, {{ "{:?}"|format(ty.name) }}, |wire| Some(match wire {
            {%- for variant in ty.variants %}
            {{ "{:?}"|format(variant.wire) }} => Self::{{ variant.name }},
            {%- endfor %}
            _ => return None,
        }), {% if ty.open %}Some(Self::Other), &[]{% else %}None, &[{% for variant in ty.variants %}{{ "{:?}"|format(variant.wire) }}, {% endfor %}]{% endif %})
    }
}
{%- else %}
#[derive(Debug, Clone, PartialEq{% if ty.default %}, Default{% endif %})]
pub struct {{ ty.name }}{{ ty.params }} {
    {%- for field in ty.fields %}
    {%- for line in field.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    pub {{ field.name }}: {{ field.ty }},
    {%- endfor %}
    {%- if let Some(values) = ty.additional %}
    /// The keys this type does not declare, with their values.
    pub additional_properties: std::collections::BTreeMap<String, {{ values }}>,
    {%- endif %}
}

{%- if !ty.constructor.is_empty() %}

impl{{ ty.params }} {{ ty.name }}{{ ty.params }} {
    /// Its required fields; the others start absent (set them, or use `..{{ ty.name }}::new(..)`).
    pub fn new({% for field in ty.constructor %}{{ field.name }}: impl Into<{{ field.ty }}>{% if !loop.last %}, {% endif %}{% endfor %}) -> Self {
        Self {
            {%- for field in ty.fields %}
            {%- if field.defaulted || field.constant %}
            {{ field.name }}: Default::default(),
            {%- else %}
            {{ field.name }}: {{ field.name }}.into(),
            {%- endif %}
            {%- endfor %}
            {%- if ty.additional.is_some() %}
            additional_properties: Default::default(),
            {%- endif %}
        }
    }
}
{%- endif %}

impl{{ ty.write_bounds }} remcall::serde::Serialize for {{ ty.name }}{{ ty.params }} {
    fn serialize<S: remcall::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        {%- if ty.additional.is_some() %}
        remcall::__codegen::record::write_with_others(serializer, &[
        {%- else %}
        remcall::__codegen::record::write(serializer, {{ "{:?}"|format(ty.name) }}, &[
        {%- endif %}
            {%- for field in ty.fields %}
            {%- if field.optional || field.nullable %}
            ({{ "{:?}"|format(field.wire) }}, remcall::__codegen::record::Optional::present(&self.{{ field.name }})),
            {%- else %}
            ({{ "{:?}"|format(field.wire) }}, Some(&self.{{ field.name }})),
            {%- endif %}
            {%- endfor %}
        ]{% if ty.additional.is_some() %}, &self.additional_properties{% endif %})
    }
}

impl<'de{{ ty.read_bounds }}> remcall::serde::Deserialize<'de> for {{ ty.name }}{{ ty.params }} {
    fn deserialize<D: remcall::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        remcall::__codegen::record::read(deserializer)
    }
}

impl<'de{{ ty.read_bounds }}> remcall::__codegen::record::Record<'de> for {{ ty.name }}{{ ty.params }} {
    type Slots = ({% for field in ty.fields %}Option<{{ field.ty }}>, {% endfor %}{% if let Some(values) = ty.additional %}std::collections::BTreeMap<String, {{ values }}>,{% endif %});
    const NAME: &'static str = {{ "{:?}"|format(ty.name) }};
    const FIELDS: &'static [&'static str] = &[{% for field in ty.fields %}{{ "{:?}"|format(field.wire) }}, {% endfor %}];
    {%- if ty.additional.is_some() %}
    const KEEPS_OTHERS: bool = true;
    {%- endif %}

    {%- if ty.fields.is_empty() && ty.additional.is_none() %}
    fn slots() -> Self::Slots {}
    {%- else %}
    fn slots() -> Self::Slots {
        ({% for field in ty.fields %}None, {% endfor %}{% if ty.additional.is_some() %}std::collections::BTreeMap::new(),{% endif %})
    }
    {%- endif %}

    fn read<A: remcall::serde::de::MapAccess<'de>>(slots: &mut Self::Slots, index: usize, map: &mut A) -> Result<bool, A::Error> {
        {%- if ty.fields.is_empty() %}
        let _ = (slots, index, map);
        Ok(true)
        {%- else if ty.fields.len() == 1 %}
        let _ = index;
        remcall::__codegen::record::slot(&mut slots.0, map)
        {%- else %}
        match index {
            {%- for field in ty.fields %}
            {% if loop.last %}_{% else %}{{ loop.index0 }}{% endif %} => remcall::__codegen::record::slot(&mut slots.{{ loop.index0 }}, map),
            {%- endfor %}
        }
        {%- endif %}
    }
    {%- if ty.additional.is_some() %}

    fn read_other<A: remcall::serde::de::MapAccess<'de>>(slots: &mut Self::Slots, key: String, map: &mut A) -> Result<(), A::Error> {
        remcall::__codegen::record::other(&mut slots.{{ ty.fields.len() }}, key, map)
    }
    {%- endif %}

    fn finish(slots: Self::Slots) -> Result<Self, &'static str> {
        {%- if ty.fields.is_empty() && ty.additional.is_none() %}
        let () = slots;
        {%- endif %}
        Ok(Self {
            {%- for field in ty.fields %}
            {%- if field.defaulted %}
            {{ field.name }}: slots.{{ loop.index0 }}.unwrap_or_default(),
            {%- else %}
            {{ field.name }}: slots.{{ loop.index0 }}.ok_or({{ "{:?}"|format(field.wire) }})?,
            {%- endif %}
            {%- endfor %}
            {%- if ty.additional.is_some() %}
            additional_properties: slots.{{ ty.fields.len() }},
            {%- endif %}
        })
    }
}
{%- if !ty.multipart.is_empty() %}

impl remcall::__codegen::Multipart for {{ ty.name }} {
    fn parts(&self, form: &mut remcall::__codegen::Form) {
        {%- for (wire, field, file) in ty.multipart %}
        form.{% if file %}file{% else %}text{% endif %}({{ "{:?}"|format(wire) }}, &self.{{ field }});
        {%- endfor %}
    }
}
{%- endif %}
{%- endif %}
{% endfor %}

{%- for (name, doc, value) in client.constants %}
#[doc = {{ "{:?}"|format(doc) }}]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct {{ name }};

impl remcall::serde::Serialize for {{ name }} {
    fn serialize<S: remcall::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        remcall::serde::Serialize::serialize(&remcall::__codegen::Const::{{ value }}, serializer)
    }
}

impl<'de> remcall::serde::Deserialize<'de> for {{ name }} {
    fn deserialize<D: remcall::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        remcall::__codegen::constant(deserializer, remcall::__codegen::Const::{{ value }}).map(|()| Self)
    }
}
{%- endfor %}
