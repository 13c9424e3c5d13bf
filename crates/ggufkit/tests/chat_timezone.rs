//! `strftime_now` writes the local time, as transformers' `datetime.now().strftime(...)` does:
//! in the zone of the `TZ` variable (POSIX rules or a zone of the system's database), else
//! `/etc/localtime`. This test sets `TZ`, so it is a binary of its own with a single test (the
//! variable is the process's); each setting is read on a new thread (the zone is cached per
//! thread, and re-read at most once a second).
#![forbid(unsafe_code)]

use ggufkit::chat::{ChatTemplate, RenderRequest, SpecialTokens};

/// `strftime_now`'s day, hour and minute with `TZ` set to `tz`, in minutes since some Monday.
fn local_minutes(tz: &str) -> i64 {
    std::env::set_var("TZ", tz);
    let text = std::thread::spawn(|| {
        let t = ChatTemplate::new("{{ strftime_now('%u %H %M') }}", SpecialTokens::new()).unwrap();
        let req = RenderRequest::from_json(r#"{"messages": [{"role": "user", "content": "x"}]}"#)
            .unwrap();
        t.render(&req).unwrap()
    })
    .join()
    .unwrap();
    let parts: Vec<i64> = text.split(' ').map(|p| p.parse().unwrap()).collect();
    ((parts[0] - 1) * 24 + parts[1]) * 60 + parts[2]
}

/// How many minutes `tz` is ahead of UTC now, by `strftime_now` (retried when a minute turns
/// between the two renders).
fn offset_minutes(tz: &str) -> i64 {
    loop {
        let utc = local_minutes("UTC0");
        let local = local_minutes(tz);
        if local_minutes("UTC0") == utc {
            let week = 7 * 24 * 60;
            let d = (local - utc).rem_euclid(week);
            return if d > week / 2 { d - week } else { d };
        }
    }
}

#[test]
fn strftime_now_writes_the_local_time_of_tz() {
    // POSIX rules: the offset is west of Greenwich, so `-5:30` is 5 h 30 ahead of UTC
    assert_eq!(offset_minutes("IST-5:30"), 330);
    assert_eq!(offset_minutes("XST+11"), -660);
    assert_eq!(offset_minutes("UTC0"), 0);
    // a zone of the system's database, when it has one (no daylight saving time in either)
    for (zone, minutes) in [("Asia/Kolkata", 330), ("Pacific/Honolulu", -600)] {
        if std::path::Path::new("/usr/share/zoneinfo")
            .join(zone)
            .is_file()
        {
            assert_eq!(offset_minutes(zone), minutes, "{zone}");
        } else {
            println!("SKIPPED {zone}: not in /usr/share/zoneinfo");
        }
    }
    // a fixed time is a wall-clock time: written as it is in every zone
    std::env::set_var("TZ", "IST-5:30");
    let text = std::thread::spawn(|| {
        let t = ChatTemplate::new("{{ strftime_now('%H:%M') }}", SpecialTokens::new()).unwrap();
        t.set_fixed_time(Some(1_741_356_309));
        let req = RenderRequest::from_json(r#"{"messages": [{"role": "user", "content": "x"}]}"#)
            .unwrap();
        t.render(&req).unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(text, "14:05");
}
