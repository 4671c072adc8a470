#[test]
fn a_generators_affix_comes_off_the_operation_id() {
    let trimmed = |id: &str, verb: &str, route: &str| without_generator_affix(id, verb, route);
    assert_eq!(
        trimmed("read_flows_flows_filter_post", "post", "/flows/filter").as_deref(),
        Some("read_flows")
    );
    assert_eq!(
        trimmed(
            "create_flow_run_from_deployment_deployments__id__create_flow_run_post",
            "post",
            "/deployments/{id}/create_flow_run"
        )
        .as_deref(),
        Some("create_flow_run_from_deployment")
    );
    assert_eq!(
        trimmed("UsersController_findAll", "get", "/users").as_deref(),
        Some("find_all")
    );
    assert_eq!(
        trimmed("getUserUsingGET_1", "get", "/users/{id}").as_deref(),
        Some("get_user")
    );
    assert_eq!(trimmed("listPets", "get", "/pets"), None);
    // Nothing left but the route and verb: the id is kept.
    assert_eq!(trimmed("pets_get", "get", "/pets"), None);
    // A verb that is not the operation's: no affix.
    assert_eq!(
        trimmed("read_flows_flows_filter_get", "post", "/flows/filter"),
        None
    );
    assert_eq!(trimmed("Controller_find", "get", "/x"), None);
    assert_eq!(trimmed("findUsingGETAll", "get", "/x"), None);
}

use super::*;

#[test]
fn names_from_messy_descriptions() {
    assert_eq!(type_name("repo-search-result-item"), "RepoSearchResultItem");
    assert_eq!(type_name("File"), "ApiFile");
    assert_eq!(type_name("2fa"), "T2fa");
    for raw in [
        "v1.A",
        "R2 V4 Response",
        "ABCDef",
        "a1B2c3",
        "X-Y-Z",
        "ÀB",
        "é",
        "1A",
    ] {
        let name = type_name(raw);
        assert!(is_pascal_identifier(&name), "{raw} → {name}");
    }
    assert_eq!(word("+1"), "plus_1");
    assert_eq!(word("-1"), "minus_1");
    assert_eq!(word("X-RateLimit-Limit"), "x_rate_limit_limit");
    assert_eq!(word("self"), "self_");
    assert_eq!(method("new"), "new_call");
    assert_eq!(
        from_route("GET", "/accounts/{id}/transactions"),
        "get_account_transactions"
    );
    assert_eq!(from_route("POST", "/categories"), "post_categories");
    // One item of a collection is named in the singular, a count or a choice is not, and
    // a route that is its verb says it once.
    for (verb, route, name) in [
        ("GET", "/pets/{petId}", "get_pet"),
        ("GET", "/users/{username}", "get_user"),
        ("GET", "/repos/{owner}/{repo}", "get_repo"),
        ("GET", "/statuses/{id}", "get_status"),
        ("GET", "/addresses/{address_id}", "get_address"),
        ("GET", "/categories/{category}", "get_category"),
        ("GET", "/status/{codes}", "get_status"),
        ("GET", "/stream-bytes/{n}", "get_stream_bytes"),
        ("GET", "/get", "get"),
        ("POST", "/post", "post"),
        ("DELETE", "/delete", "delete"),
        ("GET", "/delete", "get_delete"),
    ] {
        assert_eq!(from_route(verb, route), name, "{verb} {route}");
    }
    let mut taken: Taken = ["get_user"].into_iter().collect();
    assert_eq!(unique("get_user", "_", &mut taken), "get_user_2");
    let listed: Vec<String> = taken.iter().cloned().collect();
    assert_eq!(unique_among("Get_User", "_", &listed), "Get_User_3");
    assert_eq!(taken.first_free("Get_User", "_"), "Get_User_3");
}

/// A set of names and a next suffix per base give what a scan of the list gives, in any
/// order of bases, cases and separators.
#[test]
fn taken_names_number_as_a_scan_would() {
    let mut taken = Taken::default();
    let mut listed: Vec<String> = Vec::new();
    for base in ["a", "A", "a_2", "b", "a", "a", "A_2", "a", "b"] {
        for sep in ["", "_"] {
            let expected = unique_among(base, sep, &listed);
            assert_eq!(
                taken.unique(base, sep),
                expected,
                "{base}{sep} after {listed:?}"
            );
            listed.push(expected);
        }
    }
    assert!(taken.contains("B") && taken.contains_exactly("b") && !taken.contains_exactly("B"));
}

#[test]
fn variants_of_values_that_are_not_identifiers() {
    for (wire, expected) in [
        ("in_progress", "InProgress"),
        ("+1", "Plus1"),
        ("-1", "Minus1"),
        ("", "Empty"),
        ("2", "V2"),
        ("*", "Any"),
        ("*/*", "Any"),
        ("image/*", "ImageAny"),
        ("application/json", "ApplicationJson"),
        (">=", "Ge"),
        ("!=", "Ne"),
        ("~", "Value7"),
        ("self", "Self_"),
        ("0²", "Value7"),
    ] {
        assert_eq!(variant(wire, 7), expected, "{wire}");
    }
}
