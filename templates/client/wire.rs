{#- Part of client.rs (included, same context): how each type is read and written, one runtime
    macro per type, after everything a reader looks for. The macro invocations are written here
    as they are to be read: render.rs keeps their layout rather than reformatting them. -#}
{%- for ty in client.types %}
{%- if ty.is_union %}
remcall::__codegen::serde_union! {
    {{ ty.name }}{% if let Some(tag) = ty.tag %} tag {{ "{:?}"|format(tag) }}{% endif %}{% if let Some(content) = ty.content %} content {{ "{:?}"|format(content) }}{% endif %} {
{%- for variant in ty.variants %}
{%- if ty.tag.is_some() %}
        {{ variant.name }}({% if !variant.plain %}{{ variant.wire }}{% endif %}) {% if variant.writes_tag %}writes{% else %}={% endif %} {% for value in variant.tags %}{{ "{:?}"|format(value) }}{% if !loop.last %} | {% endif %}{% endfor %},
{%- else %}
        {{ variant.name }}({{ variant.wire }}) => {{ variant.fits }},
{%- endif %}
{%- endfor %}
    }
{%- if ty.open %}
    open: Other
{%- endif %}
}
{%- else if ty.is_enum %}
remcall::__codegen::{% if ty.is_integer %}serde_int_enum{% else %}serde_str_enum{% endif %}! {
    {{ ty.name }} {
{%- for variant in ty.variants %}
        {{ variant.name }} = {% if ty.is_integer %}{{ variant.wire }}{% else %}{{ "{:?}"|format(variant.wire) }}{% endif %},
{%- endfor %}
    }
{%- if ty.open %}
    open: Other
{%- endif %}
}
{%- else %}
remcall::__codegen::serde_struct! {
    {{ ty.name }}{{ ty.params }} {
{%- for field in ty.keyed_fields() %}
        [{{ loop.index0 }}] {{ field.mode() }} {{ field.name }}: {{ field.ty }} = {{ "{:?}"|format(field.wire) }},
{%- endfor %}
    }
{%- if let Some(values) = ty.additional %}
    additional_properties: {{ values }}
{%- endif %}
{%- if let Some(flattened) = ty.flattened() %}
    flatten: {{ flattened.name }}: {{ flattened.ty }}
{%- endif %}
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
{%- endfor %}
{%- for (name, _, value) in client.constants %}
remcall::__codegen::serde_constant! { {{ name }} = {{ value }} }
{%- endfor %}
{%- for method in client.methods %}
{%- if let Some(streamed) = method.streamed %}
{%- if let Some(cases) = streamed.cases %}
remcall::__codegen::serde_events! {
    {{ cases.name }} {
{%- for (variant, event, ty, how) in cases.variants %}
        {{ variant }}({{ ty }}) = {{ "{:?}"|format(event) }} {{ how }},
{%- endfor %}
    }
    open: {{ cases.open }}
}
{%- endif %}
{%- endif %}
{%- endfor %}
