//! Every setting resolved from the environment when a client is built, listed beside the
//! settings so that `vars` (placeholders) knows nothing of them.

use super::Settings;

impl Settings {
    /// Every setting resolved from the environment when a client is built.
    pub fn var_fields(&self) -> Vec<crate::vars::VarField<'_>> {
        use crate::model::Auth;
        fn field(key: String, text: &str, secret: bool) -> crate::vars::VarField<'_> {
            crate::vars::VarField { key, text, secret }
        }
        let mut fields = Vec::new();
        match &self.auth {
            Some(Auth::Bearer(b)) => fields.push(field(
                "auth.bearer.token".into(),
                b.token.expose_template(),
                true,
            )),
            Some(Auth::Basic(b)) => {
                fields.push(field("auth.basic.username".into(), &b.username, false));
                fields.push(field(
                    "auth.basic.password".into(),
                    b.password.expose_template(),
                    true,
                ));
            }
            Some(Auth::Oauth2(o)) => {
                fields.push(field("auth.oauth2.token_url".into(), &o.token_url, false));
                fields.push(field("auth.oauth2.client_id".into(), &o.client_id, false));
                fields.push(field(
                    "auth.oauth2.client_secret".into(),
                    o.client_secret.expose_template(),
                    true,
                ));
                for (name, value) in &o.params {
                    fields.push(field(format!("auth.oauth2.params.{name}"), value, false));
                }
            }
            None => {}
        }
        for (name, def) in &self.headers {
            fields.push(field(format!("headers.{name}"), &def.value, def.secret));
        }
        for (name, def) in &self.query {
            fields.push(field(format!("query.{name}"), &def.value, def.secret));
        }
        for (name, def) in &self.cookies {
            fields.push(field(format!("cookies.{name}"), &def.value, def.secret));
        }
        // A Redis URL may carry a password: it is resolved, checked and shown like one.
        self.fleet_var_fields(&mut fields);
        if let Some(record) = &self.record {
            fields.push(field("record.file".into(), &record.file, false));
        }
        let tls = &self.tls;
        for (key, path) in [
            ("tls.ca_file", &tls.ca_file),
            ("tls.client_cert", &tls.client_cert),
            ("tls.client_key", &tls.client_key),
        ] {
            if let Some(path) = path {
                fields.push(field(key.into(), path, false));
            }
        }
        fields
    }

    /// The fleet's stores: a Redis URL (a secret: it may hold a password), the key replicas
    /// share, a cache's scope.
    fn fleet_var_fields<'a>(&'a self, fields: &mut Vec<crate::vars::VarField<'a>>) {
        let field =
            |key: String, text: &'a str, secret: bool| crate::vars::VarField { key, text, secret };
        if let Some(shared) = &self.rate_limit.as_ref().and_then(|r| r.shared.as_ref()) {
            fields.push(field("rate_limit.shared.redis".into(), &shared.redis, true));
            fields.push(field("rate_limit.shared.key".into(), &shared.key, false));
        }
        let stores = [
            ("retry.budget.shared", self.retry.budget_shared.as_ref()),
            ("quota.shared", self.quota_shared.as_ref()),
            (
                "cache.shared",
                self.cache.as_ref().and_then(|c| c.shared.as_ref()),
            ),
        ];
        for (at, shared) in stores {
            if let Some(shared) = shared {
                fields.push(field(format!("{at}.redis"), &shared.redis, true));
                fields.push(field(format!("{at}.key"), &shared.key, false));
                if let Some(scope) = &shared.scope {
                    fields.push(field(format!("{at}.scope"), scope, false));
                }
            }
        }
    }
}
