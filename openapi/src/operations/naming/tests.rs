use super::operation_names;
use serde_json::json;

fn named(routes: &[(&str, &str)]) -> Vec<String> {
    let all: Vec<super::Found> = routes
        .iter()
        .map(|(verb, route)| super::Found::bare(route, verb, json!({ "responses": {} })))
        .collect();
    let named = operation_names(&all);
    all.iter()
        .map(|found| named.names[&(found.route.clone(), found.verb)].clone())
        .collect()
}

#[test]
fn routes_are_named_by_what_they_do_to_which_resource() {
    let routes = [
        ("get", "/api/v3/admin/gift_cards"),
        ("post", "/api/v3/admin/gift_cards"),
        ("get", "/api/v3/admin/gift_cards/{id}"),
        ("put", "/api/v3/admin/gift_cards/{id}"),
        ("patch", "/api/v3/admin/gift_cards/{id}"),
        ("delete", "/api/v3/admin/gift_cards/{id}"),
        ("get", "/api/v3/admin/products/{product_id}/variants"),
        ("get", "/api/v3/admin/products/{product_id}/variants/{id}"),
        (
            "post",
            "/api/v3/admin/products/{product_id}/tags/bulk_remove",
        ),
        ("post", "/api/v3/admin/tickets/{id}/close"),
        ("get", "/api/v3/admin/tickets/search"),
        ("get", "/api/v3/admin/appprofile/"),
        ("get", "/api/v3/admin/appprofile/schema/"),
        ("get", "/health"),
        ("post", "/api/v3/admin/users/{id}/keys:batchAdd"),
        ("patch", "/api/v3/admin/requests/{id}/approve"),
    ];
    // One resource under a shared prefix: the resource stays.
    let helpdesk = [
        ("get", "/api/v1/tickets/"),
        ("post", "/api/v1/tickets/"),
        ("get", "/api/v1/tickets/{id}/"),
        ("patch", "/api/v1/tickets/{id}/"),
        ("delete", "/api/v1/tickets/{id}/"),
        ("post", "/api/v1/tickets/{id}/close/"),
        ("post", "/api/v1/tickets/bulk/"),
        ("get", "/api/v1/tickets/{id}/attachment/"),
    ];
    assert_eq!(
        named(&helpdesk),
        [
            "list_tickets",
            "create_ticket",
            "get_ticket",
            "patch_ticket",
            "delete_ticket",
            "close_ticket",
            "bulk_tickets",
            "get_ticket_attachment"
        ]
    );
    assert_eq!(
        named(&routes),
        [
            "list_gift_cards",
            "create_gift_card",
            "get_gift_card",
            "update_gift_card",
            "patch_gift_card",
            "delete_gift_card",
            "list_product_variants",
            "get_product_variant",
            "bulk_remove_product_tags",
            "close_ticket",
            "search_tickets",
            "get_appprofile",
            "get_appprofile_schema",
            "get_health",
            "batch_add_user_keys",
            "approve_request",
        ]
    );
}

#[test]
fn operations_sharing_an_id_are_told_apart_by_their_routes() {
    let all: Vec<super::Found> = [
        "/Dlna/{id}/ConnectionManager",
        "/Dlna/{id}/ConnectionManager/ConnectionManager",
        "/Dlna/{id}/ConnectionManager/ConnectionManager.xml",
    ]
    .iter()
    .map(|route| {
        super::Found::bare(
            route,
            "get",
            json!({ "operationId": "GetConnectionManager" }),
        )
    })
    .collect();
    let named = operation_names(&all);
    let name = |i: usize| named.names.get(&(all[i].route.clone(), "get")).cloned();
    assert_eq!(name(0), None, "the first keeps its id");
    assert_eq!(
        name(1).as_deref(),
        Some("get_connection_manager_connection_manager")
    );
    assert_eq!(
        name(2).as_deref(),
        Some("get_connection_manager_connection_manager_xml")
    );
}

#[test]
fn an_id_that_spells_its_route_is_named_as_the_route_is() {
    use super::spells_route;
    assert!(spells_route("GET_v3-teammates", "get", "/v3/teammates"));
    assert!(spells_route(
        "PATCH_v3-senders-sender_id",
        "patch",
        "/v3/senders/{sender_id}"
    ));
    assert!(!spells_route("getTeammates", "get", "/v3/teammates"));
    assert!(!spells_route("GET_teammates", "get", "/teammates"));
    assert!(!spells_route("GET_v3-invite", "get", "/v3/teammates"));
}

#[test]
fn names_that_meet_take_more_of_their_route_never_a_number() {
    let routes = [
        ("get", "/v1/repos"),
        ("get", "/v1/users/{user}/repos"),
        ("get", "/v1/orgs/{org}/repos"),
        ("get", "/v1/orgs/{org}/teams/{team}/repos"),
        ("get", "/v1/users/{user}/teams/{team}/repos"),
    ];
    let names = named(&routes);
    assert_eq!(names[0], "list_repos");
    assert_eq!(names[1], "list_user_repos");
    assert_eq!(names[2], "list_org_repos");
    assert_ne!(names[3], names[4]);
    assert!(
        names.iter().all(|n| !n.ends_with(char::is_numeric)),
        "{names:?}"
    );
}
