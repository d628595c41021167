use super::*;

const ID: &str = "msg_01JC8ZQ4Z8Y3V6X7W5T2R1P0NM";

#[test]
fn reference_schedule_has_ten_attempts_with_the_reference_waits() {
    let s = RetrySchedule::reference();
    assert_eq!(s.max_attempts(), 10);
    let waits: Vec<u32> = (1..=10).filter_map(|a| s.base_wait_seconds(a)).collect();
    assert_eq!(waits, REFERENCE_WAITS_SECONDS);
    assert_eq!(s.base_wait_seconds(0), None);
    assert_eq!(s.base_wait_seconds(11), None);
    assert_eq!(s.base_wait_seconds(u32::MAX), None);
    // 0 + 5 s + 5 min + 30 min + 2 h + 5 h + 10 h + 14 h + 20 h + 24 h ≈ 75.6 h.
    assert_eq!(s.nominal_window_seconds(), 272_105);
    assert_eq!(s.max_window_seconds(), 326_526);
    assert_eq!(RetrySchedule::default(), s);
}

#[test]
fn jitter_stays_within_twenty_percent_and_is_deterministic() {
    let s = RetrySchedule::reference();
    for n in 0..200 {
        let id = format!("msg_{n:026}");
        for attempt in 1..=10 {
            let base = i64::from(REFERENCE_WAITS_SECONDS[attempt as usize - 1]) * 1_000;
            let w = s.wait_millis(&id, attempt).unwrap_or(-1);
            assert!(
                w * 10 >= base * 8 && w * 10 <= base * 12,
                "{id} attempt {attempt}: {w} vs {base}"
            );
            assert_eq!(s.wait_millis(&id, attempt), Some(w), "same id, same wait");
        }
        assert_eq!(
            s.wait_millis(&id, 1),
            Some(0),
            "the first attempt is immediate"
        );
    }
}

#[test]
fn jitter_function_matches_its_documentation() {
    // Recompute the documented function by hand for one input.
    let mut input = ID.as_bytes().to_vec();
    input.extend_from_slice(&3u32.to_be_bytes());
    let digest = Sha256::digest(&input);
    let r = u64::from_be_bytes([
        digest[0], digest[1], digest[2], digest[3], digest[4], digest[5], digest[6], digest[7],
    ]);
    let ppm = 800_000 + r % 400_001;
    assert_eq!(jitter_ppm(ID, 3), ppm);
    assert_eq!(
        jittered_wait_millis(300, ID, 3),
        (300_000 * ppm / 1_000_000) as i64
    );
    assert_eq!(jittered_wait_millis(0, ID, 1), 0);
    assert_eq!(jittered_wait_millis(u32::MAX, ID, 1) / 1000, {
        let ms = u64::from(u32::MAX) * jitter_ppm(ID, 1) / 1000;
        (ms / 1000) as i64
    });
}

#[test]
fn jitter_spreads_messages_and_attempts() {
    let factors: std::collections::BTreeSet<u64> = (0..100)
        .map(|n| jitter_ppm(&format!("msg_{n}"), 2))
        .collect();
    assert!(factors.len() > 95, "different ids get different factors");
    let lower = factors.iter().filter(|&&f| f < 1_000_000).count();
    assert!(
        (25..=75).contains(&lower),
        "roughly half below 1.0: {lower}"
    );
    assert_ne!(jitter_ppm(ID, 2), jitter_ppm(ID, 3), "attempts differ");
}

#[test]
fn next_attempt_walks_the_schedule_and_then_stops() {
    let s = RetrySchedule::reference();
    let now = Timestamp::from_millis(1_700_000_000_000);
    assert_eq!(next_attempt_at(&s, ID, 0, now), Some(now));
    for used in 1..10u32 {
        let at = next_attempt_at(&s, ID, used, now);
        let expected = s.wait_millis(ID, used + 1).map(|w| now.plus_millis(w));
        assert_eq!(at, expected);
        assert!(at.is_some_and(|t| t > now));
    }
    assert_eq!(next_attempt_at(&s, ID, 10, now), None);
    assert_eq!(next_attempt_at(&s, ID, 11, now), None);
    assert_eq!(next_attempt_at(&s, ID, u32::MAX, now), None);
}

#[test]
fn walking_the_whole_reference_schedule_takes_about_76_hours() {
    let s = RetrySchedule::reference();
    let start = Timestamp::from_millis(0);
    let mut now = start;
    let mut used = 0;
    while let Some(at) = next_attempt_at(&s, ID, used, now) {
        now = at;
        used += 1;
    }
    assert_eq!(used, 10);
    let hours = (now.millis() - start.millis()) as f64 / 3_600_000.0;
    assert!((60.4..=90.8).contains(&hours), "{hours}");
}

#[test]
fn a_long_wait_never_overflows() {
    let s = RetrySchedule::new(
        &[u32::MAX],
        &ScheduleBounds {
            min_wait_seconds: 0,
            max_wait_seconds: u32::MAX,
            max_attempts: 2,
            max_total_window_seconds: u64::MAX,
        },
    );
    let Ok(s) = s else { panic!("{s:?}") };
    let at = next_attempt_at(&s, ID, 1, Timestamp::from_millis(i64::MAX - 5));
    assert_eq!(at, Some(Timestamp::from_millis(i64::MAX)));
}

#[test]
fn overrides_are_validated_against_each_bound() {
    let b = ScheduleBounds::DEFAULT;
    type Case = (&'static [u32], Result<u32, &'static str>);
    let cases: &[Case] = &[
        (&[], Ok(1)),
        (&[5], Ok(2)),
        (&[60, 600, 3_600], Ok(4)),
        (&[86_400; 3], Ok(4)),
        (&[4], Err("retry_schedule_wait_below_minimum")),
        (&[60, 0], Err("retry_schedule_wait_below_minimum")),
        (&[86_401], Err("retry_schedule_wait_above_maximum")),
        (&[5; 14], Ok(15)),
        (&[5; 15], Err("retry_schedule_too_many_attempts")),
        // 4 × 24 h = 96 h nominal, 115.2 h with jitter: over the window.
        (&[86_400; 4], Err("retry_schedule_window_too_long")),
        // 80 h nominal is 96 h with jitter: exactly at the limit.
        (&[72_000, 72_000, 72_000, 72_000], Ok(5)),
        (
            &[72_000, 72_000, 72_000, 72_001],
            Err("retry_schedule_window_too_long"),
        ),
    ];
    for (waits, expected) in cases {
        let got = RetrySchedule::new(waits, &b)
            .map(|s| s.max_attempts())
            .map_err(|e| e.code());
        assert_eq!(&got, expected, "{waits:?}");
    }
}

#[test]
fn errors_say_which_attempt_broke_the_bound() {
    let b = ScheduleBounds::DEFAULT;
    assert_eq!(
        RetrySchedule::new(&[60, 3, 60], &b),
        Err(ScheduleError::WaitBelowMinimum {
            attempt: 3,
            wait_seconds: 3,
            min_wait_seconds: 5
        })
    );
    let e = RetrySchedule::new(&[100_000], &b).err();
    assert_eq!(
        e.map(|e| e.to_string()).as_deref(),
        Some("the wait before attempt 2 is 100000 s; the maximum is 86400 s")
    );
}

#[test]
fn the_reference_schedule_fits_the_default_bounds() {
    let r = RetrySchedule::reference();
    let s = RetrySchedule::new(r.retry_waits_seconds(), &ScheduleBounds::DEFAULT);
    assert_eq!(s, Ok(r));
}

#[test]
fn endpoint_without_override_uses_the_reference() {
    let b = ScheduleBounds {
        max_attempts: 2,
        ..ScheduleBounds::DEFAULT
    };
    assert_eq!(
        RetrySchedule::for_endpoint(None, &b),
        Ok(RetrySchedule::reference())
    );
    assert_eq!(
        RetrySchedule::for_endpoint(Some(&[5, 5]), &b).map_err(|e| e.code()),
        Err("retry_schedule_too_many_attempts")
    );
}

#[test]
fn hard_cap_applies_even_when_bounds_allow_more() {
    let b = ScheduleBounds {
        min_wait_seconds: 0,
        max_wait_seconds: 10,
        max_attempts: u32::MAX,
        max_total_window_seconds: u64::MAX,
    };
    let waits = vec![1; HARD_MAX_ATTEMPTS as usize];
    assert_eq!(
        RetrySchedule::new(&waits, &b),
        Err(ScheduleError::TooManyAttempts {
            attempts: u64::from(HARD_MAX_ATTEMPTS) + 1,
            max_attempts: HARD_MAX_ATTEMPTS
        })
    );
}

#[test]
fn bounds_validation_names_the_problem() {
    let ok = ScheduleBounds::DEFAULT;
    assert_eq!(ok.validate(), Ok(()));
    let cases = [
        (
            ScheduleBounds {
                max_attempts: 0,
                ..ok
            },
            "retry_bounds_no_attempts",
        ),
        (
            ScheduleBounds {
                max_attempts: 51,
                ..ok
            },
            "retry_bounds_attempts_above_cap",
        ),
        (
            ScheduleBounds {
                min_wait_seconds: 10,
                max_wait_seconds: 9,
                ..ok
            },
            "retry_bounds_min_above_max",
        ),
    ];
    for (b, code) in cases {
        assert_eq!(b.validate().map_err(|e| e.code()), Err(code), "{b:?}");
    }
}
