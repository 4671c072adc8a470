use remcall_profile::Window;

use super::*;

fn settings(window: Window, min_calls: u32, half_open_calls: u32) -> BreakerSettings {
    BreakerSettings {
        scope: remcall_profile::Scope::Method,
        window,
        min_calls,
        failure_rate: 50.0,
        slow_call: None,
        open_for: Duration::from_secs(5),
        open_for_max: Duration::from_secs(60),
        half_open_calls,
        half_open: HalfOpenRule::Rate,
        record: Vec::new(),
    }
}

const F: Outcome = Outcome::Failure;
const S: Outcome = Outcome::Success { slow: false };

fn call(breaker: &Breaker, outcome: Outcome, now: Instant) -> Result<(), Duration> {
    let permit = breaker.try_acquire(now)?;
    breaker.record(permit, outcome, now);
    Ok(())
}

/// Opens the breaker at `t0` with five failures.
fn tripped(s: BreakerSettings, t0: Instant) -> Breaker {
    let breaker = Breaker::new(BreakerSettings { min_calls: 5, ..s }, "C", "m", t0);
    for _ in 0..5 {
        call(&breaker, F, t0).unwrap();
    }
    assert_eq!(breaker.state(), BreakerState::Open);
    breaker
}

#[test]
fn a_count_window_opens_on_the_fifth_call_and_short_circuits_the_sixth() {
    let t0 = Instant::now();
    let breaker = Breaker::new(settings(Window::Calls(10), 5, 4), "C", "m", t0);
    for (i, outcome) in [F, F, F, S].into_iter().enumerate() {
        call(&breaker, outcome, t0).unwrap();
        assert_eq!(
            breaker.state(),
            BreakerState::Closed,
            "after call {}",
            i + 1
        );
    }
    call(&breaker, S, t0).unwrap();
    assert_eq!(
        breaker.state(),
        BreakerState::Open,
        "3 of 5 failed: 60% ≥ 50%"
    );
    let wait = call(&breaker, S, t0 + Duration::from_secs(1)).unwrap_err();
    assert_eq!(
        wait,
        Duration::from_secs(4),
        "says how long until half-open"
    );
}

#[test]
fn a_count_window_forgets_calls_that_slid_out() {
    let t0 = Instant::now();
    let breaker = Breaker::new(settings(Window::Calls(4), 4, 4), "C", "m", t0);
    for outcome in [F, S, S, S, S, S, F] {
        call(&breaker, outcome, t0).unwrap();
    }
    // The window holds S S S F: 25%.
    assert_eq!(breaker.state(), BreakerState::Closed);
    call(&breaker, F, t0).unwrap();
    assert_eq!(breaker.state(), BreakerState::Open, "S S F F: 50%");
}

#[test]
fn a_success_that_brings_the_window_to_min_calls_is_judged() {
    let t0 = Instant::now();
    for window in [Window::Calls(10), Window::Time(Duration::from_secs(10))] {
        let breaker = Breaker::new(settings(window, 4, 1), "C", "m", t0);
        for outcome in [F, F, S] {
            call(&breaker, outcome, t0).unwrap();
        }
        assert_eq!(breaker.state(), BreakerState::Closed, "{window:?}: 3 calls");
        call(&breaker, S, t0).unwrap();
        assert_eq!(breaker.state(), BreakerState::Open, "{window:?}: 2 of 4");
    }
}

#[test]
fn a_success_after_the_time_window_moved_on_is_judged() {
    let t0 = Instant::now();
    let breaker = Breaker::new(
        settings(Window::Time(Duration::from_secs(10)), 4, 1),
        "C",
        "m",
        t0,
    );
    for _ in 0..4 {
        call(&breaker, S, t0).unwrap();
    }
    let t5 = t0 + Duration::from_secs(5);
    for _ in 0..3 {
        call(&breaker, F, t5).unwrap();
    }
    assert_eq!(breaker.state(), BreakerState::Closed, "3 of 7");
    // The four successes leave the window; the next call, a success, sees 3 of 4 failed.
    call(&breaker, S, t0 + Duration::from_millis(10_500)).unwrap();
    assert_eq!(breaker.state(), BreakerState::Open);
}

#[test]
fn calls_older_than_the_time_window_stop_counting() {
    let t0 = Instant::now();
    let breaker = Breaker::new(
        settings(Window::Time(Duration::from_secs(10)), 4, 4),
        "C",
        "m",
        t0,
    );
    for _ in 0..3 {
        call(&breaker, F, t0).unwrap();
    }
    // Ten seconds later those failures have left the window.
    let later = t0 + Duration::from_secs(10);
    for _ in 0..3 {
        call(&breaker, S, later).unwrap();
    }
    call(&breaker, F, later).unwrap();
    assert_eq!(
        breaker.state(),
        BreakerState::Closed,
        "1 of 4 in the window"
    );
    // Within the window they still count.
    let breaker = Breaker::new(
        settings(Window::Time(Duration::from_secs(10)), 4, 4),
        "C",
        "m",
        t0,
    );
    for _ in 0..3 {
        call(&breaker, F, t0).unwrap();
    }
    call(&breaker, S, t0 + Duration::from_secs(9)).unwrap();
    assert_eq!(breaker.state(), BreakerState::Open, "3 of 4 within 10s");
}

#[test]
fn half_open_admits_exactly_the_trial_calls() {
    let t0 = Instant::now();
    let breaker = tripped(settings(Window::Calls(10), 5, 4), t0);
    let t1 = t0 + Duration::from_secs(5);
    let permits: Vec<_> = (0..4).map(|_| breaker.try_acquire(t1).unwrap()).collect();
    assert_eq!(breaker.state(), BreakerState::HalfOpen);
    assert!(
        breaker.try_acquire(t1).is_err(),
        "a fifth call is short-circuited"
    );
    for permit in permits {
        breaker.record(permit, S, t1);
    }
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[test]
fn trials_f_f_s_f_reopen_and_f_s_s_s_close() {
    let t0 = Instant::now();
    let breaker = tripped(settings(Window::Calls(10), 5, 4), t0);
    let t1 = t0 + Duration::from_secs(5);
    for outcome in [F, F, S, F] {
        call(&breaker, outcome, t1).unwrap();
    }
    assert_eq!(breaker.state(), BreakerState::Open);

    let breaker = tripped(settings(Window::Calls(10), 5, 4), t0);
    for outcome in [F, S, S, S] {
        call(&breaker, outcome, t1).unwrap();
    }
    assert_eq!(breaker.state(), BreakerState::Closed, "25% < 50%");
}

fn counting(close_after: u32, reopen_after: u32, half_open_calls: u32) -> BreakerSettings {
    BreakerSettings {
        half_open: HalfOpenRule::Count {
            close_after,
            reopen_after,
        },
        ..settings(Window::Calls(10), 5, half_open_calls)
    }
}

#[test]
fn counting_admits_trials_one_at_a_time_until_close_after_successes() {
    let t0 = Instant::now();
    let breaker = tripped(counting(3, 1, 1), t0);
    let t1 = t0 + Duration::from_secs(5);
    for n in 1..=3 {
        let trial = breaker
            .try_acquire(t1)
            .expect("the previous trial finished");
        assert!(trial.is_trial());
        assert_eq!(
            breaker.try_acquire(t1).unwrap_err(),
            Duration::ZERO,
            "one at a time"
        );
        breaker.record(trial, S, t1);
        let expected = if n < 3 {
            BreakerState::HalfOpen
        } else {
            BreakerState::Closed
        };
        assert_eq!(breaker.state(), expected, "after {n} good trials");
    }
    assert!(!breaker.try_acquire(t1).unwrap().is_trial());
}

#[test]
fn counting_reopens_at_reopen_after_failures_whatever_the_successes() {
    let t0 = Instant::now();
    let breaker = tripped(counting(5, 2, 5), t0);
    let t1 = t0 + Duration::from_secs(5);
    for outcome in [S, F, S, S] {
        call(&breaker, outcome, t1).unwrap();
        assert_eq!(breaker.state(), BreakerState::HalfOpen);
    }
    call(&breaker, F, t1).unwrap();
    assert_eq!(
        breaker.state(),
        BreakerState::Open,
        "the second failed trial"
    );
    assert_eq!(
        breaker.try_acquire(t1).unwrap_err(),
        Duration::from_secs(10),
        "doubled"
    );
}

#[test]
fn counting_takes_a_slow_trial_for_a_failed_one() {
    let t0 = Instant::now();
    let mut s = counting(2, 1, 2);
    s.slow_call = Some((Duration::from_secs(1), 100.0));
    let breaker = tripped(s, t0);
    let t1 = t0 + Duration::from_secs(5);
    call(&breaker, S, t1).unwrap();
    call(&breaker, Outcome::Success { slow: true }, t1).unwrap();
    assert_eq!(breaker.state(), BreakerState::Open);
}

#[test]
fn slow_successes_alone_can_open_it() {
    let t0 = Instant::now();
    let mut s = settings(Window::Calls(10), 4, 4);
    s.slow_call = Some((Duration::from_secs(2), 75.0));
    let breaker = Breaker::new(s, "C", "m", t0);
    let slow = Outcome::Success { slow: true };
    for outcome in [slow, slow, S] {
        call(&breaker, outcome, t0).unwrap();
    }
    call(&breaker, slow, t0).unwrap();
    assert_eq!(breaker.state(), BreakerState::Open, "3 of 4 slow: 75%");
}

#[test]
fn open_for_doubles_on_each_reopen_and_caps() {
    let t0 = Instant::now();
    let mut s = settings(Window::Calls(10), 5, 1);
    s.open_for_max = Duration::from_secs(30);
    let breaker = tripped(s, t0);
    let mut now = t0;
    for expected in [5, 10, 20, 30, 30] {
        assert_eq!(
            breaker.try_acquire(now).unwrap_err(),
            Duration::from_secs(expected)
        );
        now += Duration::from_secs(expected);
        call(&breaker, F, now).unwrap(); // the one trial fails: re-open
    }
    // A successful trial closes it and resets the doubling.
    now += Duration::from_secs(30);
    call(&breaker, S, now).unwrap();
    assert_eq!(breaker.state(), BreakerState::Closed);
    for _ in 0..5 {
        call(&breaker, F, now).unwrap();
    }
    assert_eq!(
        breaker.try_acquire(now).unwrap_err(),
        Duration::from_secs(5)
    );
}

#[test]
fn an_ignored_outcome_releases_its_half_open_slot() {
    let t0 = Instant::now();
    let breaker = tripped(settings(Window::Calls(10), 5, 1), t0);
    let t1 = t0 + Duration::from_secs(5);
    let trial = breaker.try_acquire(t1).unwrap();
    assert!(breaker.try_acquire(t1).is_err());
    breaker.record(trial, Outcome::Ignored, t1);
    assert_eq!(
        breaker.state(),
        BreakerState::HalfOpen,
        "a 4xx decides nothing"
    );
    let trial = breaker.try_acquire(t1).expect("the slot was released");
    breaker.record(trial, S, t1);
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[test]
fn a_trial_dropped_mid_flight_releases_its_slot() {
    let t0 = Instant::now();
    let breaker = tripped(settings(Window::Calls(10), 5, 1), t0);
    let t1 = t0 + Duration::from_secs(5);
    let trial = breaker.try_acquire(t1).unwrap();
    drop(trial);
    let trial = breaker
        .try_acquire(t1)
        .expect("the dropped trial's slot is free");
    breaker.record(trial, S, t1);
    assert_eq!(breaker.state(), BreakerState::Closed);
}

#[test]
fn a_call_admitted_before_a_transition_does_not_count_after_it() {
    let t0 = Instant::now();
    let breaker = Breaker::new(settings(Window::Calls(10), 5, 1), "C", "m", t0);
    let early = breaker.try_acquire(t0).unwrap();
    for _ in 0..5 {
        call(&breaker, F, t0).unwrap();
    }
    let t1 = t0 + Duration::from_secs(5);
    let trial = breaker.try_acquire(t1).unwrap();
    breaker.record(early, F, t1); // from the closed period: ignored
    breaker.record(trial, S, t1);
    assert_eq!(breaker.state(), BreakerState::Closed);
}
