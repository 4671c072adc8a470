//! A short run of the header fuzz (`remcall_bench::fuzz`): hostile quota and cache headers on
//! every answer, three seeds, no call may panic. The ten-minute run is the `header_fuzz` binary.

use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_quota_or_cache_header_a_server_sends_makes_a_call_panic() {
    for seed in 1..=3 {
        let outcome = remcall_bench::fuzz::run(seed, 1_500, Duration::from_secs(60), |_| {}).await;
        assert_eq!(outcome.panics, 0, "seed {seed}: {outcome:?}");
        assert!(outcome.calls >= 1_500, "seed {seed}: {outcome:?}");
        assert!(outcome.answered > 0, "seed {seed}: {outcome:?}");
    }
}
