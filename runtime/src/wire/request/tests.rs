use super::*;

static GET: MethodSpec = MethodSpec {
    index: 0,
    name: "get",
    http_method: "GET",
    path: "/users/{id}",
    idempotent: true,
    reads: true,
    not_found_none: false,
    streams: false,
    profile: "",
};

#[test]
fn a_profile_query_parameter_steps_aside_for_one_already_there() {
    let profile = ProfileQuery(vec![
        ("api_key".into(), "k".into()),
        ("v".into(), "2".into()),
    ]);
    let mut url = reqwest::Url::parse("http://h/p?v=1").unwrap();
    add_profile_query(&mut url, &profile);
    assert_eq!(url.query(), Some("v=1&api_key=k"));
    // A next page's URL that echoes the key, or a request with no query at all.
    add_profile_query(&mut url, &profile);
    assert_eq!(url.query(), Some("v=1&api_key=k"));
    let mut bare = reqwest::Url::parse("http://h/p").unwrap();
    add_profile_query(&mut bare, &ProfileQuery::default());
    assert_eq!(bare.as_str(), "http://h/p");
}

#[test]
fn a_path_parameter_stays_one_segment() {
    let request = GET.request().path("id", "a/b c?#%");
    assert_eq!(request.fill_path().unwrap(), "/users/a%2Fb%20c%3F%23%25");
    let dots = GET.request().path("id", "..");
    assert_eq!(dots.error.as_ref().unwrap().kind(), ErrorKind::Encode);
}

#[test]
fn a_path_list_is_comma_separated_in_one_segment() {
    let request = GET.request().path("id", ["red", "a,b/c"]);
    assert_eq!(request.fill_path().unwrap(), "/users/red,a%2Cb%2Fc");
    let empty = GET.request().path("id", Vec::<String>::new());
    assert_eq!(empty.error.as_ref().unwrap().kind(), ErrorKind::Encode);
}

#[test]
fn header_injection_is_refused() {
    let request = GET.request().header("X-Id", "a\r\nX-Admin: yes");
    let error = request.error.clone().unwrap();
    assert_eq!(error.kind(), ErrorKind::Encode);
    assert!(!error.to_string().contains("X-Admin"));
}

#[test]
fn none_is_left_out_and_vectors_repeat() {
    let request = GET
        .request()
        .query("verbose", Option::<bool>::None)
        .query("tag", ["x", "y"]);
    assert_eq!(
        request.query,
        [
            ("tag".into(), "x".to_owned()),
            ("tag".into(), "y".to_owned())
        ]
    );
}
