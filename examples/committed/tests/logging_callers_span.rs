//! A caller's span is the caller's. With remcall's own spans filtered out, a call runs inside
//! whatever span the caller entered; the call's figures (attempts, status, hedges) belong to
//! the call's span and must not land in the caller's fields of the same names. Its own test
//! binary: the subscriber is global (see logging.rs).

use axum::Router;
use axum::routing::get;
use remcall::Profile;
use remcall::serde_json::json;
use remcall_example_committed::clients::user_client::UserClient;
use testkit::Server;
use testkit::logs::Captured;
use tracing::Instrument;

#[tokio::test]
async fn the_calls_figures_stay_out_of_the_callers_span() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(
            "info,remcall=off,remcall_example_committed=off",
        ))
        .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let server = Server::start(Router::new().route(
        "/v1/api/users/{id}",
        get(|| async { axum::Json(json!({ "id": 1, "name": "Ada" })) }),
    ))
    .await;
    for isolation in ["", "isolation: { pool: { workers: 1, queue: 4 } }"] {
        let users = UserClient::builder()
            .base_url(&server.url())
            .profile(Profile::from_yaml_str(isolation).unwrap())
            .build()
            .unwrap();
        // The caller's span has fields named as the call span's: its own to record.
        let handler = tracing::info_span!(
            "handler",
            isolation,
            attempts = tracing::field::Empty,
            status = tracing::field::Empty,
            hedges = tracing::field::Empty,
        );
        let user = users
            .get_user(1, None, "caller-span")
            .instrument(handler.clone())
            .await
            .unwrap();
        assert!(user.is_some());
        handler.record("status", "done");
        drop(handler);
    }

    let log = captured.take();
    let closes: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("handler{") && l.contains(": close"))
        .collect();
    assert_eq!(closes.len(), 2, "both callers' spans closed:\n{log}");
    for close in closes {
        assert!(close.contains("status=\"done\""), "{close}");
        assert!(
            !close.contains("attempts=") && !close.contains("status=200"),
            "the call's figures in the caller's span: {close}"
        );
    }
    assert!(
        !log.contains("remcall.call"),
        "remcall's spans are off:\n{log}"
    );
}
