//! The demo's dashboard in headless Chromium (a Debian package, `chromium`; `.ci/run` installs
//! it; without it this test fails): the page loads with no console error, draws a circle and seven
//! sparklines for every method, its numbers move between two loads, a breaker the test opens
//! shows as open, and a screenshot comes out.

use std::sync::atomic::Ordering;
use std::time::Duration;

use remcall::BreakerState;
use remcall_demo::live;

/// The page after its script ran, and what Chromium logged.
async fn load(url: &str) -> (String, String) {
    let url = url.to_owned();
    let output = tokio::task::spawn_blocking(move || live::chromium(&url, &["--dump-dom"]))
        .await
        .unwrap()
        .expect("chromium (Debian: apt-get install -y chromium)");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The number in the `calls in all` box of `method`'s card.
fn total(dom: &str, method: &str) -> u64 {
    let card = dom
        .split(&format!("data-method=\"{method}\""))
        .nth(1)
        .unwrap_or_else(|| panic!("no card for {method}"));
    let after = card.split("class=\"total\">").nth(1).expect("a total");
    after
        .split('<')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .expect("a number")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_draws_every_method_moves_and_shows_an_open_breaker() {
    let demo = live::start(false).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;

    let (first, log) = load(&demo.page).await;
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    for method in ["query_user", "get_user", "delete_user"] {
        let card = first
            .split(&format!("data-method=\"{method}\""))
            .nth(1)
            .unwrap_or_else(|| panic!("no card for {method} in {first}"));
        let card = card.split("data-method=").next().unwrap();
        let card = card.split("</section>").next().unwrap();
        assert!(card.contains("<circle"), "{method}: no health circle");
        assert_eq!(
            card.matches("<polyline").count(),
            7,
            "{method}: seven sparklines"
        );
        assert!(
            card.contains("short-circuited/s"),
            "{method}: said in words"
        );
        // A breaker that never changed has no "since".
        assert!(!card.contains("since "), "{method}: {card}");
    }
    assert!(first.contains("data-breaker=\"closed\""));
    assert!(first.contains("circle: size = calls a second"), "a legend");

    tokio::time::sleep(Duration::from_secs(2)).await;
    let (second, _) = load(&demo.page).await;
    assert!(
        total(&second, "get_user") > total(&first, "get_user"),
        "the numbers move"
    );

    // The service fails: the breaker opens, and the page says so.
    demo.failing.store(true, Ordering::Relaxed);
    for _ in 0..100 {
        let stats = demo.users.stats();
        if stats.method("get_user").unwrap().breaker == BreakerState::Open {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut shown = false;
    for _ in 0..3 {
        let (dom, _) = load(&demo.page).await;
        if dom.contains("data-method=\"get_user\" data-breaker=\"open\"") {
            let card = dom.split("data-method=\"get_user\"").nth(1).unwrap();
            let card = card.split("data-method=").next().unwrap();
            let card = card.split("</section>").next().unwrap();
            assert!(card.contains("since "), "an opened breaker says since when");
            shown = true;
            break;
        }
    }
    assert!(shown, "the open breaker is on the page");

    let shot = std::env::temp_dir().join(format!("remcall-dashboard-{}.png", std::process::id()));
    let page = demo.page.clone();
    let path = shot.clone();
    tokio::task::spawn_blocking(move || live::screenshot(&page, &path))
        .await
        .unwrap()
        .unwrap();
    let png = std::fs::read(&shot).unwrap();
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 10_000,
        "a screenshot of the page"
    );
    let _ = std::fs::remove_file(shot);
}

/// A client of 400 methods (an imported API's size) of which two are called: the page shows the
/// two as cards, first, and the 398 others as one collapsed line; the client's bulkhead, shared
/// by every method, is shown once above the cards rather than on each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_400_method_client_shows_the_methods_in_use_first_and_the_rest_collapsed() {
    use remcall::__codegen::{ClientBuilder, decode};
    use remcall::Observe;

    let spec = live::many_methods("BigApi", 400);
    let methods = spec.methods;
    let server = testkit::Server::start(
        axum::Router::new().route("/ping", axum::routing::get(|| async { "{}" })),
    )
    .await;
    let client = ClientBuilder::new(spec)
        .base_url(&server.url())
        .build()
        .unwrap();
    for called in [311, 67] {
        for _ in 0..3 {
            let request = methods[called].request();
            client
                .call(request, decode::json::<remcall::serde_json::Value>)
                .await
                .unwrap();
        }
    }
    let dashboard = remcall::dashboard::serve("127.0.0.1:0", vec![client.observe()])
        .await
        .unwrap();

    let (dom, log) = load(&dashboard.url()).await;
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    let cards: Vec<&str> = dom
        .split("data-method=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap())
        .collect();
    assert_eq!(
        cards,
        ["operation_067", "operation_311"],
        "cards of the called methods only"
    );
    assert!(
        dom.contains("398 methods not called yet"),
        "the rest in one line"
    );
    assert_eq!(dom.matches("data-uncalled=").count(), 398);
    // Drawn again from the changes the page asked for each second (`?view=changes`: the two
    // used methods alone), the names it was served with kept.
    assert!(dom.contains(">updated "), "the page asked for changes");
    let grid_end = dom.find("<details").expect("the collapsed line");
    assert!(dom.find("data-method=").unwrap() < grid_end, "cards first");
    assert_eq!(
        dom.matches("class=\"client-bulkhead\"").count(),
        1,
        "once per client"
    );
    assert!(
        dom.contains("0 / 128</b> in flight / the client's bulkhead"),
        "{dom}"
    );
    assert!(
        !dom.contains("<small>in flight / bulkhead</small>"),
        "not on each card"
    );
    assert_eq!(
        dom.matches("<small>rejected (client's bulkhead)</small>")
            .count(),
        2
    );
    dashboard.stop();
}

/// A receiver's deliveries as the page draws them: beside the clients, in a section of its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_draws_a_receivers_deliveries() {
    use remcall::webhooks::{Delivery, EventSpec, Events, Handling, Inbox};
    static EVENTS: Events = Events {
        client: "Hooks",
        events: &[EventSpec {
            name: "ping",
            path: "/",
            headers: &[],
            fields: &[],
            answer: 204,
            max_body: 0,
            payload: false,
        }],
    };
    fn handled(_: std::sync::Arc<()>, _: Delivery) -> Handling {
        Box::pin(async { Ok(()) })
    }
    let inbox = Inbox::unsigned();
    let receiver = testkit::Server::start(remcall::webhooks::router(
        &EVENTS,
        inbox.clone(),
        std::sync::Arc::new(()),
        handled,
    ))
    .await;
    let status = remcall::reqwest::Client::new()
        .post(receiver.url())
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 204);
    let watched = remcall::dashboard::Watched::from(Vec::new()).inbox(inbox);
    let dashboard = remcall::dashboard::serve("127.0.0.1:0", watched)
        .await
        .unwrap();

    let (dom, log) = load(&dashboard.url()).await;
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    let section = dom
        .split("data-webhooks=\"Hooks\"")
        .nth(1)
        .unwrap_or_else(|| panic!("no receiver section in {dom}"));
    assert!(section.contains("Hooks webhooks"), "{section}");
    assert!(section.contains("1 received · 1 handled"), "{section}");
}
