use remcall_example_committed::clients::user_client::UserClient;
fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let users = UserClient::builder()
            .base_url("http://127.0.0.1:9")
            .profile(remcall::Profile::from_yaml_str("retry: { max_attempts: 1 }").unwrap())
            .build()
            .unwrap();
        let f = users.get_user(1, None, "r");
        println!("get_user future: {} bytes", std::mem::size_of_val(&f));
        let _ = f.await;
        println!("tokio Sleep: {}", std::mem::size_of::<tokio::time::Sleep>());
        println!(
            "reqwest Response: {}",
            std::mem::size_of::<reqwest::Response>()
        );
        println!(
            "reqwest Request: {}",
            std::mem::size_of::<reqwest::Request>()
        );
        println!(
            "HeaderMap: {}",
            std::mem::size_of::<reqwest::header::HeaderMap>()
        );
        println!("Url: {}", std::mem::size_of::<reqwest::Url>());
        println!("Span: {}", std::mem::size_of::<tracing::Span>());
    });
}
