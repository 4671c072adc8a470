use super::*;

/// A hold longer than any of these tests waits.
const HOUR: Duration = Duration::from_secs(3600);

fn said(remaining: u64, reset_secs: u64) -> Announcement {
    Announcement {
        key: None,
        limit: Some(20),
        remaining: Some(remaining),
        reset_in: Some(Duration::from_secs(reset_secs)),
        pause_for: None,
    }
}

fn quota() -> (Quotas, MethodQuota) {
    (Quotas::default(), MethodQuota::default())
}

#[test]
fn no_answer_no_quota_and_no_wait() {
    let (quotas, method) = quota();
    assert!(quotas.of(&method).is_none());
}

#[test]
fn the_calls_left_are_spread_over_the_time_to_the_reset_after_a_small_burst() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    quotas.observe(&method, &said(20, 2), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let far = t0 + Duration::from_secs(60);
    let turns: Vec<Turn> = (0..20).map(|_| quota.turn(t0, far, HOUR)).collect();
    // A tenth of the limit (2) plus the first go at once; the rest, one every ~50 ms.
    let now = turns.iter().filter(|t| **t == Turn::Now).count();
    assert_eq!(now, 3, "{turns:?}");
    let Turn::At(last) = turns[19] else {
        panic!("{turns:?}")
    };
    // Spread evenly over the first half of the window: each turn after the one before,
    // the last near the half.
    assert!(last <= t0 + Duration::from_secs(1), "{:?}", last - t0);
    assert!(last >= t0 + Duration::from_millis(850), "{:?}", last - t0);
    let at = |turn: &Turn| match turn {
        Turn::At(at) => *at,
        _ => t0,
    };
    assert!(
        turns.windows(2).all(|pair| at(&pair[0]) <= at(&pair[1])),
        "{turns:?}"
    );
    // The 21st call of the window waits for the reset.
    assert_eq!(
        quota.turn(t0, far, HOUR),
        Turn::Held(t0 + Duration::from_secs(2))
    );
}

#[test]
fn a_spent_quota_holds_until_the_reset_or_refuses_a_call_that_cannot_wait() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    quotas.observe(&method, &said(0, 5), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let reset = t0 + Duration::from_secs(5);
    assert_eq!(
        quota.turn(t0, t0 + Duration::from_secs(10), HOUR),
        Turn::Held(reset)
    );
    assert_eq!(
        quota.turn(t0, t0 + Duration::from_secs(1), HOUR),
        Turn::Refused(Duration::from_secs(5))
    );
    // At the reset the window is new: the limit's calls, the first at once.
    assert_eq!(
        quota.turn(reset, reset + Duration::from_secs(1), HOUR),
        Turn::Now
    );
}

#[test]
fn a_refusals_pause_holds_the_whole_quota() {
    let (quotas, method) = quota();
    let other = MethodQuota::default();
    let t0 = Instant::now();
    quotas.observe(&method, &said(10, 60), t0, true, t0);
    let pause = Announcement {
        pause_for: Some(Duration::from_secs(3)),
        ..Announcement::default()
    };
    quotas.observe(&other, &pause, t0, true, t0);
    // Both methods follow the one unnamed quota: the pause holds the first method too.
    let quota = quotas.of(&method).unwrap();
    assert_eq!(
        quota.turn(t0, t0 + Duration::from_secs(10), HOUR),
        Turn::Held(t0 + Duration::from_secs(3))
    );
    let after = t0 + Duration::from_secs(3);
    assert_ne!(
        quota.turn(after, after + Duration::from_secs(10), HOUR),
        Turn::Held(after)
    );
}

#[test]
fn within_a_window_the_lower_count_stands_and_a_later_reset_starts_anew() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    quotas.observe(&method, &said(10, 10), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let far = t0 + Duration::from_secs(60);
    for _ in 0..4 {
        quota.turn(t0, far, HOUR);
    }
    // The first of the four answered: the server saw it, not the three still out, and says
    // 9: 6 are left, not 9.
    quotas.observe(&method, &said(9, 10), t0, true, t0);
    assert_eq!(lock(&quota.state).remaining(), Some(6));
    // The second: another replica spent 4 more, and its count, less the two out, stands.
    quotas.observe(&method, &said(4, 10), t0, true, t0);
    assert_eq!(lock(&quota.state).remaining(), Some(2));
    // The next window: its count, less the one turn still out.
    quotas.observe(&method, &said(20, 20), t0, true, t0);
    assert_eq!(lock(&quota.state).remaining(), Some(19));
}

#[test]
fn a_method_follows_the_quota_its_answers_name() {
    let (quotas, core) = quota();
    let search = MethodQuota::default();
    let t0 = Instant::now();
    let named = |key: &str, remaining| Announcement {
        key: Some(key.to_owned()),
        ..said(remaining, 60)
    };
    quotas.observe(&core, &named("core", 100), t0, true, t0);
    quotas.observe(&search, &named("search", 0), t0, true, t0);
    let far = t0 + Duration::from_secs(120);
    assert_eq!(quotas.of(&core).unwrap().turn(t0, far, HOUR), Turn::Now);
    assert!(matches!(
        quotas.of(&search).unwrap().turn(t0, far, HOUR),
        Turn::Held(_)
    ));
    assert_eq!(quotas.of(&search).unwrap().name(), "the quota `search`");
    // A method no answer of its own has named follows none: it borrows no other's.
    let fresh = MethodQuota::default();
    assert!(quotas.of(&fresh).is_none());
}

#[test]
fn a_hold_lasts_at_most_the_users_cap_then_one_probe_goes_and_the_rest_wait_again() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    // None left, and the reset a day away.
    quotas.observe(&method, &said(0, 86_400), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let cap = Duration::from_secs(2);
    let far = t0 + Duration::from_secs(60);
    assert_eq!(quota.turn(t0, far, cap), Turn::Held(t0 + cap));
    // A call that cannot wait the cap is refused with the cap's wait, not the day's.
    assert_eq!(
        quota.turn(t0, t0 + Duration::from_secs(1), cap),
        Turn::Refused(cap)
    );
    let later = t0 + cap;
    assert_eq!(quota.turn(later, far, cap), Turn::Now, "the probe");
    assert_eq!(quota.turn(later, far, cap), Turn::Held(later + cap));
    // A zero cap holds nothing: every call asks the server.
    let (quotas, method) = self::quota();
    quotas.observe(&method, &said(0, 86_400), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    for _ in 0..3 {
        assert_eq!(quota.turn(t0, far, Duration::ZERO), Turn::Now);
    }
}

#[test]
fn a_new_windows_calls_all_out_before_its_first_answer_hold_the_next_one() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    let limit_two = Announcement {
        limit: Some(2),
        ..said(0, 1)
    };
    quotas.observe(&method, &limit_two, t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let reset = t0 + Duration::from_secs(1);
    let far = reset + Duration::from_secs(60);
    // Past the reset: the limit's two calls go, and the third waits for an answer of the
    // new window to say when it resets, instead of going past the limit.
    assert_eq!(quota.turn(reset, far, HOUR), Turn::Now);
    assert_eq!(quota.turn(reset, far, HOUR), Turn::Now);
    assert_eq!(
        quota.turn(reset, far, HOUR),
        Turn::Held(reset + AWAITING_AN_ANSWER)
    );
}

#[test]
fn an_answer_to_a_request_sent_after_a_pause_ends_it() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    let pause = Announcement {
        pause_for: Some(Duration::from_secs(30)),
        ..Announcement::default()
    };
    quotas.observe(&method, &pause, t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let far = t0 + Duration::from_secs(60);
    assert!(matches!(quota.turn(t0, far, HOUR), Turn::Held(_)));
    // An answer to a request sent before the pause was heard proves nothing.
    quota.answered_ok(t0 - Duration::from_millis(1));
    assert!(matches!(quota.turn(t0, far, HOUR), Turn::Held(_)));
    quota.answered_ok(t0 + Duration::from_millis(1));
    assert_eq!(quota.turn(t0, far, HOUR), Turn::Now);
}

#[test]
fn a_server_naming_a_new_quota_on_every_answer_does_not_grow_the_client() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    for n in 0..10_000u64 {
        let named = Announcement {
            key: Some(format!("q-{n}")),
            ..said(5, 60)
        };
        let at = t0 + Duration::from_micros(n);
        quotas.observe(&method, &named, at, true, at);
    }
    assert_eq!(lock(&quotas.known).len(), MAX_QUOTAS);
    assert_eq!(quotas.snapshot(t0).len(), MAX_QUOTAS);
    // The method follows the last one named, which is kept.
    assert_eq!(quotas.of(&method).unwrap().name(), "the quota `q-9999`");
}

#[test]
fn an_answer_to_an_older_windows_request_is_ignored() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    quotas.observe(&method, &said(0, 2), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let reset = t0 + Duration::from_secs(2);
    // The reset passes: a new window of the limit's calls.
    assert_eq!(
        quota.turn(reset, reset + Duration::from_secs(9), HOUR),
        Turn::Now
    );
    // A late answer to a request sent before the reset says none are left: not this window.
    quotas.observe(&method, &said(0, 1), t0, true, reset);
    assert_eq!(lock(&quota.state).remaining(), Some(19));
}

#[test]
fn calls_sent_before_any_answer_are_not_counted_as_turns() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    quotas.observe(&method, &said(16, 10), t0, false, t0);
    let quota = quotas.of(&method).unwrap();
    let far = t0 + Duration::from_secs(60);
    for _ in 0..3 {
        quota.turn(t0, far, HOUR);
    }
    // Three more answers to the first, turnless calls: the three turns are still out.
    for left in [15, 14, 13] {
        quotas.observe(&method, &said(left, 10), t0, false, t0);
    }
    assert_eq!(lock(&quota.state).remaining(), Some(10));
}

#[test]
fn the_answers_to_a_new_windows_first_turns_count_whichever_comes_first() {
    let (quotas, method) = quota();
    let t0 = Instant::now();
    quotas.observe(&method, &said(0, 2), t0, true, t0);
    let quota = quotas.of(&method).unwrap();
    let reset = t0 + Duration::from_secs(2);
    let far = reset + Duration::from_secs(60);
    // Past the reset, four turns a millisecond apart.
    let sent: Vec<Instant> = (0..4).map(|i| reset + Duration::from_millis(i)).collect();
    for at in &sent {
        assert_eq!(quota.turn(*at, far, HOUR), Turn::Now);
    }
    // The last sent is answered first, then the three before it: the server counted all
    // four, and none is out any more.
    for at in sent.iter().rev() {
        quotas.observe(&method, &said(16, 2), *at, true, sent[3]);
    }
    assert_eq!(lock(&quota.state).remaining(), Some(16));
}
