//! How big a generated call's future is, beside reqwest's own for the same request.
//!
//! A future is copied into the one that awaits it, level by level, on every call; with 64 calls
//! in flight on one thread their states also compete for the L1 cache. Cachegrind showed the
//! copies as remcall's largest extra cost per call, so the size is worth watching.
//!
//! `cargo run --release -p remcall-bench --bin futuresize`

use remcall_example_committed::clients::user_client::{User, UserClient};

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let users = UserClient::new("http://127.0.0.1:9").expect("client");
        let reqwest = reqwest::Client::new();
        let remcall_call = users.get_user(1, None, "r");
        let reqwest_call = async {
            let response = reqwest.get("http://127.0.0.1:9/v1/api/users/1").send().await;
            response?.json::<User>().await
        };
        println!(
            "| the future of | bytes |\n| --- | --- |\n| remcall: `users.get_user(1, None, \"r\")` | {} |\n| reqwest: `get(..).send()` then `.json::<User>()` | {} |",
            std::mem::size_of_val(&remcall_call),
            std::mem::size_of_val(&reqwest_call)
        );
    });
}
