//! Hostile answers, for fuzzing what the client reads of a server's quota and cache headers: a
//! seeded generator of header sets — numbers at and past every bound (`inf`, `1e19`, twenty
//! digits, negative), dates of year 1 and 9999, garbage, long lists of directives, a new quota
//! name on each answer — and a loopback router that answers each request with the next one;
//! and hostile callers' request context (`baggage`, `tracestate`), which keys the cache.
//! The same seed gives the same answers, so a failure can be replayed.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use axum::routing::get;

/// Numbers a server might write, and many no integer holds.
const NUMBERS: [&str; 24] = [
    "0",
    "1",
    "-1",
    "60",
    "86400",
    "1800000000",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e19",
    "1e308",
    "inf",
    "-inf",
    "NaN",
    "0.5",
    "1.250",
    "",
    "abc",
    "\"60\"",
    "60, 60;w=1",
    "2147483648",
    "00000000000000000000000000000000000060",
];

const DATES: [&str; 6] = [
    "Fri, 31 Dec 9999 23:59:59 GMT",
    "Mon, 01 Jan 0001 00:00:00 GMT",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "Sun, 06 Nov 1994 08:49:37 GMT",
    "not a date",
    "Wed, 32 Foo 2026 25:61:61 GMT",
];

const DIRECTIVES: [&str; 14] = [
    "max-age",
    "s-maxage",
    "stale-if-error",
    "stale-while-revalidate",
    "max-stale",
    "min-fresh",
    "no-cache",
    "no-store",
    "private",
    "public",
    "must-revalidate",
    "immutable",
    "x-unknown",
    "max-age=\"",
];

const STATUSES: [u16; 7] = [200, 200, 200, 304, 403, 429, 503];

/// A seeded source of hostile answers.
#[derive(Debug)]
pub struct HostileAnswers {
    state: u64,
    answered: u64,
}

impl HostileAnswers {
    /// The answers of `seed`.
    pub fn new(seed: u64) -> HostileAnswers {
        HostileAnswers {
            state: seed ^ 0x9e37_79b9_7f4a_7c15,
            answered: 0,
        }
    }

    /// splitmix64: enough for fuzzing, and the same on every machine.
    fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    fn number(&mut self) -> String {
        if self.below(4) == 0 {
            self.next_u64().to_string()
        } else {
            NUMBERS[self.below(NUMBERS.len())].to_owned()
        }
    }

    fn cache_control(&mut self) -> String {
        let count = match self.below(10) {
            0 => 2_000,
            n => n,
        };
        (0..count)
            .map(|_| {
                let name = DIRECTIVES[self.below(DIRECTIVES.len())];
                if self.below(2) == 0 {
                    format!("{name}={}", self.number())
                } else {
                    name.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The next answer: its status and headers.
    pub fn next_answer(&mut self) -> (u16, Vec<(&'static str, String)>) {
        self.answered += 1;
        let status = STATUSES[self.below(STATUSES.len())];
        let mut headers = Vec::new();
        let mut maybe = |this: &mut Self, name: &'static str, value: fn(&mut Self) -> String| {
            if this.below(3) == 0 {
                headers.push((name, value(this)));
            }
        };
        maybe(self, "cache-control", Self::cache_control);
        maybe(self, "age", Self::number);
        maybe(self, "expires", |s| DATES[s.below(DATES.len())].to_owned());
        maybe(self, "date", |s| DATES[s.below(DATES.len())].to_owned());
        maybe(self, "last-modified", |s| {
            DATES[s.below(DATES.len())].to_owned()
        });
        maybe(self, "etag", |s| format!("\"{}\"", s.below(4)));
        maybe(self, "vary", |s| {
            let count = if s.below(5) == 0 { 100 } else { 1 + s.below(3) };
            (0..count)
                .map(|n| format!("x-v{n}"))
                .collect::<Vec<_>>()
                .join(", ")
        });
        maybe(self, "x-ratelimit-limit", Self::number);
        maybe(self, "x-ratelimit-remaining", Self::number);
        maybe(self, "x-ratelimit-reset", Self::number);
        maybe(self, "x-ratelimit-reset-after", Self::number);
        maybe(self, "x-ratelimit-resource", |s| {
            format!("q-{}", s.next_u64())
        });
        maybe(self, "x-ratelimit-bucket", |s| {
            format!("b-{}", s.below(100))
        });
        maybe(self, "ratelimit-limit", Self::number);
        maybe(self, "ratelimit-remaining", Self::number);
        maybe(self, "ratelimit-reset", Self::number);
        maybe(self, "ratelimit", |s| {
            format!("\"p{}\";r={};t={}", s.below(40), s.number(), s.number())
        });
        maybe(self, "ratelimit-policy", |s| {
            format!("\"p{}\";q={};w={}", s.below(40), s.number(), s.number())
        });
        maybe(self, "retry-after", |s| {
            if s.below(2) == 0 {
                s.number()
            } else {
                DATES[s.below(DATES.len())].to_owned()
            }
        });
        maybe(self, "set-cookie", |s| format!("session={}", s.next_u64()));
        (status, headers)
    }

    /// A hostile caller's request context, which keys the cache: W3C `baggage` and
    /// `tracestate` (empty, one member, thousands, 8 KiB of one value, separators alone,
    /// control and non-ASCII bytes, line breaks the client must refuse), and the item to ask
    /// for (a few, so answers are kept and found again).
    pub fn caller_context(&mut self) -> (u64, Vec<(&'static str, String)>) {
        let value = |this: &mut Self| -> String {
            match this.below(9) {
                0 => String::new(),
                1 => format!("tenant=t{}", this.below(4)),
                2 => (0..2_000)
                    .map(|n| format!("k{n}=v{}", this.below(10)))
                    .collect::<Vec<_>>()
                    .join(","),
                3 => format!("big={}", "x".repeat(8 * 1024)),
                4 => ",;=,,;;==".to_owned(),
                5 => "tenant=a\u{7f}\u{1b}[2J".to_owned(),
                6 => "tenant=\u{e9}\u{2603}".to_owned(),
                7 => "tenant=a\r\nx-injected: 1".to_owned(),
                _ => this.number(),
            }
        };
        let mut headers = Vec::new();
        for name in ["baggage", "tracestate", "traceparent"] {
            if self.below(2) == 0 {
                headers.push((name, value(self)));
            }
        }
        (self.next_u64() % 8, headers)
    }

    /// How many answers were made.
    pub fn answered(&self) -> u64 {
        self.answered
    }
}

/// A router answering `GET /items/{id}` with the next hostile answer of `answers` (a JSON body
/// `{"id":1}`, empty for a 304).
pub fn router(answers: Arc<Mutex<HostileAnswers>>) -> Router {
    Router::new().route(
        "/items/{id}",
        get(move || {
            let (status, fields) = answers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .next_answer();
            async move {
                let mut headers = HeaderMap::new();
                for (name, value) in fields {
                    if let Ok(value) = HeaderValue::from_str(&value) {
                        headers.append(HeaderName::from_static(name), value);
                    }
                }
                let status = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
                let body = if status == StatusCode::NOT_MODIFIED {
                    ""
                } else {
                    "{\"id\":1}"
                };
                (status, headers, body).into_response()
            }
        }),
    )
}
