{#- Part of client.rs (included, same context): the spec's types, as structs, enums and unions, and the marker types of constants; how they are read and written is client/wire.rs, after the client. -#}
{%- for ty in client.types %}
{%- for line in ty.doc %}
#[doc = {{ "{:?}"|format(line) }}]
{%- endfor %}
{%- if ty.is_union %}
{%- if ty.tag.is_some() %}
#[derive(Debug, Clone, PartialEq)]
{%- else %}
#[derive(Debug, Clone, PartialEq, remcall::serde::Serialize)]
#[serde(crate = "remcall::serde", untagged)]
{%- endif %}
pub enum {{ ty.name }} {
    {%- for variant in ty.variants %}
    {%- for line in variant.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    {{ variant.name }}{% if !variant.plain %}({{ variant.wire }}){% endif %},
    {%- endfor %}
    {%- if ty.open %}
    /// A value none of the alternatives reads, kept as it came.
    Other(remcall::serde_json::Value),
    {%- endif %}
}
{%- for variant in ty.variants %}
{%- if variant.from %}

impl From<{{ variant.wire }}> for {{ ty.name }} {
    fn from(value: {{ variant.wire }}) -> Self {
        Self::{{ variant.name }}(value)
    }
}
{%- endif %}
{%- endfor %}

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
    {%- if ty.constructor.len() == ty.fields.len() && ty.additional.is_none() %}
    /// All its fields.
    {%- else %}
    /// Its required fields; the others start absent (set them, or use `..{{ ty.name }}::new(..)`).
    {%- endif %}
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

{%- endif %}
{% endfor %}

{%- for (name, doc, value) in client.constants %}
#[doc = {{ "{:?}"|format(doc) }}]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct {{ name }};

{%- endfor %}
