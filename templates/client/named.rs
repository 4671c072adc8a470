{#- Part of client.rs (included, same context): a named method's options struct and the call its method returns. -#}
{%- for method in client.methods %}
{%- if let Some(named) = method.named %}

#[doc = {{ "{:?}"|format(format!(" The optional parameters of {}, each left out while `None`.", method.link)) }}]
#[derive(Debug, Clone, Default, PartialEq)]
pub struct {{ named.options }} {
    {%- for field in named.fields %}
    {%- for line in field.doc %}
    #[doc = {{ "{:?}"|format(line) }}]
    {%- endfor %}
    pub {{ field.name }}: {{ field.ty }},
    {%- endfor %}
}

#[doc = {{ "{:?}"|format(format!(" A call of {}: set optional parameters by name, then `.await` it.", method.link)) }}]
#[must_use = "a call is sent when it is awaited"]
pub struct {{ named.call }}<'a{% if client.fallback_trait.is_some() %}, F = {% if let Some(fallback) = client.default_fallback %}{{ fallback }}{% else %}remcall::NoFallback{% endif %}{% endif %}> {
    client: &'a {{ client.name }}{% if client.fallback_trait.is_some() %}<F>{% endif %},
    {%- if !named.required.is_empty() %}
    required: ({% for (_, ty) in named.required %}{{ ty }}, {% endfor %}),
    {%- endif %}
    options: {{ named.options }},
}

impl{% if client.fallback_trait.is_some() %}<F>{% endif %} std::fmt::Debug for {{ named.call }}<'_{% if client.fallback_trait.is_some() %}, F{% endif %}> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct({{ "{:?}"|format(named.call) }}).field("options", &self.options).finish_non_exhaustive()
    }
}

impl<'a{% if let Some(fallback) = client.fallback_trait %}, F: {{ fallback }}{% endif %}> {{ named.call }}<'a{% if client.fallback_trait.is_some() %}, F{% endif %}> {
    {%- for field in named.fields %}
    remcall::__option_setter!({% for line in field.doc %}#[doc = {{ "{:?}"|format(line) }}] {% endfor %}{{ field.setter }} => {{ field.name }}: {{ field.takes }});
    {%- endfor %}

    /// Sends it (what `.await` does).
    pub async fn send(self) -> Result<{{ method.returns }}, remcall::Error> {
        {%- if !named.required.is_empty() %}
        let ({% for (name, _) in named.required %}{{ name }}, {% endfor %}) = self.required;
        {%- endif %}
        self.client.{{ method.call_fn }}({% for (name, _) in named.required %}{{ name }}, {% endfor %}&self.options).await
    }
    {%- if let Some(paging) = method.paging %}

    /// Its items, page after page (see [`{{ client.name }}::{{ paging.stream }}`]).
    pub fn stream(self) -> remcall::Pages<{{ paging.item }}> {
        {%- if !named.required.is_empty() %}
        let ({% for (name, _) in named.required %}{{ name }}, {% endfor %}) = self.required;
        {%- endif %}
        self.client.{{ paging.stream }}({% for (name, _) in named.required %}{{ name }}, {% endfor %}&self.options)
    }
    {%- endif %}
}

impl<'a{% if let Some(fallback) = client.fallback_trait %}, F: {{ fallback }} + Send + Sync{% endif %}> std::future::IntoFuture for {{ named.call }}<'a{% if client.fallback_trait.is_some() %}, F{% endif %}> {
    type Output = Result<{{ method.returns }}, remcall::Error>;
    type IntoFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.send())
    }
}
{%- endif %}
{%- endfor %}
