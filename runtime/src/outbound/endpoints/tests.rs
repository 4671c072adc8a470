use super::*;

#[test]
fn a_base_urls_user_and_password_are_never_shown() {
    let endpoint = Endpoint::new("https://app:s3cret@api.example.com/v1".into(), None, 1);
    assert_eq!(&*endpoint.shown, "https://api.example.com/v1");
    assert!(!format!("{endpoint:?}").contains("s3cret"), "{endpoint:?}");
    let plain = Endpoint::new("http://127.0.0.1:8080/api".into(), None, 1);
    assert_eq!(&*plain.shown, "http://127.0.0.1:8080/api");
}

#[test]
fn a_base_url_with_a_query_is_refused_without_showing_it() {
    let error = parse_base("https://api.example.com/v1?api_key=abc123#top").unwrap_err();
    let text = error.to_string();
    assert_eq!(error.kind(), ErrorKind::Config);
    assert!(text.contains("must not have a query or fragment"), "{text}");
    assert!(text.contains("https://api.example.com/v1?…"), "{text}");
    assert!(!text.contains("abc123") && !text.contains("top"), "{text}");
    let error = parse_base("ftp://ada:pw@h/?key=abc123")
        .unwrap_err()
        .to_string();
    assert!(
        !error.contains("abc123") && !error.contains("pw"),
        "{error}"
    );
}

#[test]
fn an_attempt_url_is_the_base_with_the_path_set() {
    let url = |base: &str, path: &str| {
        Endpoint::new(base.to_owned(), None, 1)
            .url(path)
            .map(String::from)
    };
    assert_eq!(
        url("http://127.0.0.1:8080", "/users/7").unwrap(),
        "http://127.0.0.1:8080/users/7"
    );
    assert_eq!(
        url("http://h:1/v1/api", "/users/a%2Fb%20c").unwrap(),
        "http://h:1/v1/api/users/a%2Fb%20c",
        "the base path stays, an encoded segment stays encoded"
    );
    assert_eq!(url("https://h/base/", "/x").unwrap(), "https://h/base/x");
    assert_eq!(url("http://h", "").unwrap(), "http://h/");
    // A base that does not parse is reported when an attempt is made, not before.
    let error = url("not a url", "/x").unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Encode);
}
