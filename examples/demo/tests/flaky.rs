//! The flaky demo, run as a user runs it: the breaker's states as a reader expects them.

use std::process::Command;

#[test]
fn the_flaky_demo_shows_the_breaker_open_and_close_in_plain_words() {
    let output = Command::new(env!("CARGO_BIN_EXE_flaky"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    for expected in [
        "call  1: Ok(Some(\"Ada\")) (breaker Closed)",
        "(breaker Open)",
        "(breaker HalfOpen)",
        "call 12: Ok(Some(\"Ada\")) (breaker Closed)",
    ] {
        assert!(stdout.contains(expected), "`{expected}` not in:\n{stdout}");
    }
    assert!(!stdout.contains("breaker Some("), "{stdout}");
}
