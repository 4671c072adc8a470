use super::next::link;
use super::*;

fn response_with_link(value: &'static str) -> Response {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert(
        reqwest::header::LINK,
        reqwest::header::HeaderValue::from_static(value),
    );
    Response::new(reqwest::StatusCode::OK, headers, bytes::Bytes::new())
}

#[test]
fn link_headers_as_github_writes_them() {
    let response = response_with_link(
        r#"<https://api.test/repos?page=3>; rel="next", <https://api.test/repos?page=9>; rel="last""#,
    );
    assert_eq!(
        link(&response, "next").as_deref(),
        Some("https://api.test/repos?page=3")
    );
    assert_eq!(
        link(&response, "last").as_deref(),
        Some("https://api.test/repos?page=9")
    );
    assert_eq!(link(&response, "prev"), None);
}
