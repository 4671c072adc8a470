{#- The receiver of the deliveries the API sends back (`webhooks:`). Input: ir::Webhooks as `webhooks`. -#}

/// The deliveries [`{{ client.name }}`]'s API sends back: implement [`webhooks::{{ webhooks.receiver }}`] and
/// serve [`webhooks::router`] (the runtime's `webhooks` feature; see docs/webhooks.md).
pub mod webhooks {
    {%- if !webhooks.uses.is_empty() %}
    use super::{ {%- for name in webhooks.uses %}{{ name }}, {% endfor -%} };
    {%- endif %}

    /// One method per event the API delivers, each called once its delivery's signature is
    /// verified, its event told and its payload read; `Ok(())` answers that it was handled, an
    /// error answers 500 and the sender delivers it again. A method left out acknowledges its
    /// event without handling it.
    pub trait {{ webhooks.receiver }}: Send + Sync + 'static {
        {%- for event in webhooks.events %}

        {%- for line in event.doc %}
        #[doc = {{ "{:?}"|format(line) }}]
        {%- endfor %}
        fn {{ event.method }}(&self{% if let Some(payload) = event.payload %}, event: {{ payload }}{% endif %}) -> impl std::future::Future<Output = Result<(), remcall::webhooks::Failure>> + Send {
            {%- if event.payload.is_some() %}
            let _ = event;
            {%- endif %}
            std::future::ready(Err(remcall::webhooks::Failure::ignored()))
        }
        {%- endfor %}
    }

    /// The events, as the router tells their deliveries apart.
    pub static EVENTS: remcall::webhooks::Events = remcall::webhooks::Events {
        client: {{ "{:?}"|format(client.name) }},
        events: &[
            {%- for event in webhooks.events %}
            remcall::webhooks::EventSpec {
                name: {{ "{:?}"|format(event.name) }},
                path: {{ "{:?}"|format(event.path) }},
                headers: &[{% for (name, value) in event.headers %}({{ "{:?}"|format(name) }}, {{ "{:?}"|format(value) }}), {% endfor %}],
                fields: &[{% for (name, value) in event.fields %}({{ "{:?}"|format(name) }}, {{ "{:?}"|format(value) }}), {% endfor %}],
                answer: {{ event.answer }},
                max_body: {{ event.max_body }},
                payload: {{ event.payload.is_some() }},
            },
            {%- endfor %}
        ],
    };
    {%- if let Some(verifier) = webhooks.verifier %}

    /// How this API signs its deliveries, with its secrets (several during a rotation).
    pub fn verifier(secrets: &[remcall::profile::Secret]) -> Result<remcall::webhooks::Verifier, remcall::Error> {
        {{ verifier }}
    }

    /// An inbox of deliveries signed with `secrets`: bodies up to 1 MiB, payloads read
    /// strictly, each delivery handled once (its settings change on what this returns).
    pub fn inbox(secrets: &[remcall::profile::Secret]) -> Result<remcall::webhooks::Inbox, remcall::Error> {
        Ok(remcall::webhooks::Inbox::new(verifier(secrets)?))
    }
    {%- else %}

    /// An inbox of deliveries this API does not sign: anyone who reaches the route can
    /// deliver one, so keep it off the internet.
    pub fn inbox() -> remcall::webhooks::Inbox {
        remcall::webhooks::Inbox::unsigned()
    }
    {%- endif %}

    /// The receiver's routes: mount them where the API delivers
    /// (`Router::new().nest("/hooks", webhooks::router(receiver, inbox))`).
    pub fn router<R: {{ webhooks.receiver }}>(receiver: R, inbox: remcall::webhooks::Inbox) -> remcall::webhooks::Router {
        remcall::webhooks::router(&EVENTS, inbox, std::sync::Arc::new(receiver), dispatch::<R>)
    }

    fn dispatch<R: {{ webhooks.receiver }}>(receiver: std::sync::Arc<R>, delivery: remcall::webhooks::Delivery) -> remcall::webhooks::Handling {
        Box::pin(async move {
            match delivery.event() {
                {%- for event in webhooks.events %}
                {{ loop.index0 }} => receiver.{{ event.method }}({% if event.payload.is_some() %}delivery.payload()?{% endif %}).await,
                {%- endfor %}
                _ => Err(remcall::webhooks::Failure::ignored()),
            }
        })
    }

    /// An event as the API sends it, for a service's tests: `{{ webhooks.event }}::…(payload).send(&sender)`
    /// signs it as the API would and delivers it to the receiver.
    #[derive(Debug, Clone, PartialEq)]
    pub enum {{ webhooks.event }} {
        {%- for event in webhooks.events %}
        #[doc = {{ "{:?}"|format(format!(" [`{}::{}`].", webhooks.receiver, event.method.trim_start_matches("r#"))) }}]
        {{ event.variant }}{% if let Some(payload) = event.payload %}({{ payload }}){% endif %},
        {%- endfor %}
    }

    impl remcall::webhooks::Outgoing for {{ webhooks.event }} {
        fn event(&self) -> usize {
            match self {
                {%- for event in webhooks.events %}
                {{ webhooks.event }}::{{ event.variant }}{% if event.payload.is_some() %}(_){% endif %} => {{ loop.index0 }},
                {%- endfor %}
            }
        }

        fn payload(&self) -> Option<remcall::serde_json::Result<remcall::serde_json::Value>> {
            match self {
                {%- for event in webhooks.events %}
                {%- if event.payload.is_some() %}
                {{ webhooks.event }}::{{ event.variant }}(payload) => Some(remcall::serde_json::to_value(payload)),
                {%- else %}
                {{ webhooks.event }}::{{ event.variant }} => None,
                {%- endif %}
                {%- endfor %}
            }
        }
    }

    impl {{ webhooks.event }} {
        /// Sends it, signed as the API signs it, to the receiver `sender` delivers to.
        pub async fn send(&self, sender: &remcall::webhooks::Sender) -> Result<remcall::webhooks::Sent, remcall::Error> {
            sender.send_event(&EVENTS, self).await
        }
    }
}
