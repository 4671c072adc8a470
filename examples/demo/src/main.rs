//! The quick-start demo: starts a local user service and calls it with the client that build.rs
//! generated from `specs/user_service.yaml`.

use remcall_demo::service;
use remcall_demo::user_client::{User, UserClient};

#[tokio::main]
async fn main() -> Result<(), remcall::Error> {
    let url = service::start().await.map_err(|e| {
        remcall::Error::new(
            remcall::ErrorKind::Connect,
            format!("cannot start the demo service: {e}"),
        )
    })?;
    println!("user service listening on {url}");
    let client = UserClient::new(&url)?;

    let example = User {
        id: 0,
        name: "Ada".to_owned(),
        email: None,
        created_at: None,
    };
    let found = client.query_user(&example).await?;
    println!(
        "query_user(name = Ada)  -> code {} {:?}",
        found.code, found.data
    );

    // More than two optional parameters: the call names the ones it sets.
    let page = client.list_users().name("a").limit(1).await?;
    println!(
        "list_users(name a, 1)   -> {:?} (more: {})",
        page.users.iter().map(|u| &u.name).collect::<Vec<_>>(),
        page.has_more
    );

    let user = client.get_user(2, Some(true), "demo-1").await?;
    println!("get_user(2)             -> {user:?}");

    client.delete_user(2).await?;
    println!("delete_user(2)          -> ok");

    let gone = client.get_user(2, None, "demo-2").await?;
    println!("get_user(2)             -> {gone:?} (404 is None: not_found: none)");

    for (method, stats) in client.stats().methods {
        println!(
            "stats {method:<12} calls {} successes {} failures {}",
            stats.calls, stats.successes, stats.failures
        );
    }
    Ok(())
}
