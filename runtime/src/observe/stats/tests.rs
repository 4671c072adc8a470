use super::*;

#[test]
fn latencies_in_json_are_whole_microseconds() {
    let stats = MethodStats {
        calls: 1,
        successes: 1,
        p50: Duration::from_nanos(2_097_151_000),
        p99: Duration::from_nanos(2_097_151_499),
        used: true,
        ..MethodStats::untouched(BreakerState::Closed)
    };
    let json = serde_json::to_string(&stats).unwrap();
    assert!(json.contains("\"p50_ms\":2097.151,"), "{json}");
    assert!(json.contains("\"p99_ms\":2097.151,"), "{json}");
}
