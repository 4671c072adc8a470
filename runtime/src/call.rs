//! One logical call, in the order DESIGN.md gives:
//!
//! 1. rate limiter, 2. breaker permit, 3. isolation permit (the resilience policies plug in here),
//! 4. within the `total` deadline, the attempts: pick an endpoint, add profile headers, send with
//!    the `attempt` timeout, read the body within `max_response_bytes`, classify the outcome,
//! 5. record the outcome once, 6. (in the generated method) a fallback for eligible errors.

use std::time::Instant;

use crate::client::{Client, MethodState};
use crate::error::{Error, ErrorKind, from_transport};
use crate::request::Request;
use crate::response::Response;
use crate::spec::MethodSpec;

impl Client {
    /// Runs one logical call of `method` and decodes its answer.
    pub async fn call<T>(
        &self,
        method: &'static MethodSpec,
        request: Request,
        decode: impl FnOnce(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let state = &self.shared.methods[method.index];
        let started = Instant::now();
        let total = state.settings.total_timeout;

        let outcome =
            match tokio::time::timeout(total, self.attempts(method, state, &request)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(Error::new(
                    ErrorKind::Timeout,
                    format!("the call ran past its total deadline of {total:?}"),
                )),
            };
        let outcome = outcome.and_then(decode);

        state.counters.record(outcome.is_ok());
        let _elapsed = started.elapsed();
        outcome.map_err(|e| e.in_call(self.shared.spec.name, method.name))
    }

    /// Counts a fallback answer for `method`'s statistics.
    pub fn record_fallback(&self, method: &'static MethodSpec) {
        self.shared.methods[method.index].counters.record_fallback();
    }

    async fn attempts(
        &self,
        method: &'static MethodSpec,
        state: &MethodState,
        request: &Request,
    ) -> Result<Response, Error> {
        if let Some(error) = &request.error {
            return Err(error.clone());
        }
        self.attempt(method, state, request).await
    }

    /// One attempt: build, send, read and classify, within the attempt deadline.
    async fn attempt(
        &self,
        method: &'static MethodSpec,
        state: &MethodState,
        request: &Request,
    ) -> Result<Response, Error> {
        let endpoint = self.shared.endpoints.pick();
        let path = request.fill_path(method.path)?;
        let mut url = reqwest::Url::parse(&format!("{endpoint}{path}")).map_err(|e| {
            Error::new(ErrorKind::Encode, "the request URL is invalid").with_source(e)
        })?;
        if !request.query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(request.query.iter().map(|(k, v)| (*k, v.as_str())));
        }

        let mut headers = state.headers.clone();
        headers.extend(request.headers.clone());
        let mut builder = self
            .shared
            .http
            .request(state.http_method.clone(), url)
            .headers(headers);
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let limit = state.settings.max_response_bytes;
        let exchange = async {
            let response = builder.send().await.map_err(from_transport)?;
            Response::read(response, limit).await
        };
        let attempt_timeout = state.settings.attempt_timeout;
        let response = tokio::time::timeout(attempt_timeout, exchange)
            .await
            .map_err(|_| {
                Error::new(
                    ErrorKind::Timeout,
                    format!("the attempt ran past its deadline of {attempt_timeout:?}"),
                )
            })??;

        let answered = response.status.is_success()
            || (method.not_found_none && response.status == reqwest::StatusCode::NOT_FOUND);
        if answered {
            Ok(response)
        } else {
            Err(Error::status_error(response.status, &response.body))
        }
    }
}
