//! `strftime_now(format)`: the current time written with C's `strftime` directives, as Python's
//! `datetime.now().strftime(format)` writes it in the C locale: the local time, in the zone the
//! process runs in (the `TZ` variable, else `/etc/localtime`, read by `chrono` as the C
//! library reads them), with no zone attached (`%z` and `%Z` write nothing). A fixed
//! wall-clock time can replace the clock, for reproducible renders.
#![forbid(unsafe_code)]

use std::fmt::Write;
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
use std::time::{SystemTime, UNIX_EPOCH};

#[cfg(not(target_arch = "wasm32"))]
use chrono::{Local, Offset, TimeZone, Utc};

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A civil date and time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Civil {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    /// Monday = 0.
    weekday: u32,
    /// January 1st = 1.
    yearday: u32,
}

/// Seconds since the Unix epoch now (negative before it). WebAssembly without a host has no
/// clock (`SystemTime::now` would trap there): the epoch stands in, and the wasm package sets
/// the page's time with [`super::ChatTemplate::set_fixed_time`] before every render.
#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
fn now_unix() -> i64 {
    0
}

/// Seconds since the Unix epoch now (negative before it).
#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
fn now_unix() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
        Err(e) => -i64::try_from(e.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// The local wall-clock time now, as the Unix seconds at which a UTC clock shows it.
pub(crate) fn local_now() -> i64 {
    let now = now_unix();
    now.saturating_add(local_offset(now))
}

/// Seconds the local time zone is ahead of UTC at `unix` (none in WebAssembly).
#[cfg(target_arch = "wasm32")]
fn local_offset(_unix: i64) -> i64 {
    0
}

/// Seconds the local time zone is ahead of UTC at `unix`.
#[cfg(not(target_arch = "wasm32"))]
fn local_offset(unix: i64) -> i64 {
    match Utc.timestamp_opt(unix, 0) {
        chrono::LocalResult::Single(utc) => i64::from(
            Local
                .offset_from_utc_datetime(&utc.naive_utc())
                .fix()
                .local_minus_utc(),
        ),
        _ => 0,
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// The civil date of `unix` seconds (Howard Hinnant's days-to-civil).
fn civil(unix: i64) -> Civil {
    let days = unix.div_euclid(86_400);
    let secs = unix.rem_euclid(86_400) as u32;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    const CUMULATIVE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
    let yearday = CUMULATIVE[month as usize - 1] + day + u32::from(month > 2 && is_leap(year));
    Civil {
        year,
        month,
        day,
        hour: secs / 3600,
        minute: secs / 60 % 60,
        second: secs % 60,
        // 1970-01-01 was a Thursday (3)
        weekday: (days + 3).rem_euclid(7) as u32,
        yearday,
    }
}

/// `format` with its `%` directives replaced by the parts of the wall-clock time `wall` (the
/// Unix seconds at which a UTC clock shows it). A `-` after `%` drops the padding of a number,
/// as glibc does; an unknown directive is written as it is.
pub(crate) fn strftime(format: &str, wall: i64) -> String {
    let t = civil(wall);
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut spec = chars.next();
        let no_pad = spec == Some('-');
        if no_pad {
            spec = chars.next();
        }
        let num = |out: &mut String, n: i64, width: usize, pad: char| {
            if no_pad {
                let _ = write!(out, "{n}");
            } else if pad == ' ' {
                let _ = write!(out, "{n:>width$}");
            } else {
                let _ = write!(out, "{n:0width$}");
            }
        };
        let hour12 = match t.hour % 12 {
            0 => 12,
            h => h,
        };
        match spec {
            Some('Y') => {
                let _ = write!(out, "{}", t.year);
            }
            Some('y') => num(&mut out, t.year.rem_euclid(100), 2, '0'),
            Some('C') => num(&mut out, t.year.div_euclid(100), 2, '0'),
            Some('m') => num(&mut out, t.month.into(), 2, '0'),
            Some('d') => num(&mut out, t.day.into(), 2, '0'),
            Some('e') => num(&mut out, t.day.into(), 2, ' '),
            Some('H') => num(&mut out, t.hour.into(), 2, '0'),
            Some('I') => num(&mut out, hour12.into(), 2, '0'),
            Some('M') => num(&mut out, t.minute.into(), 2, '0'),
            Some('S') => num(&mut out, t.second.into(), 2, '0'),
            Some('j') => num(&mut out, t.yearday.into(), 3, '0'),
            Some('f') => out.push_str("000000"),
            Some('u') => num(&mut out, (t.weekday + 1).into(), 1, '0'),
            Some('w') => num(&mut out, ((t.weekday + 1) % 7).into(), 1, '0'),
            Some('p') => out.push_str(if t.hour < 12 { "AM" } else { "PM" }),
            Some('a') => out.push_str(&DAYS[t.weekday as usize][..3]),
            Some('A') => out.push_str(DAYS[t.weekday as usize]),
            Some('b') | Some('h') => out.push_str(&MONTHS[t.month as usize - 1][..3]),
            Some('B') => out.push_str(MONTHS[t.month as usize - 1]),
            Some('F') => {
                let _ = write!(out, "{}-{:02}-{:02}", t.year, t.month, t.day);
            }
            Some('D') | Some('x') => {
                let _ = write!(
                    out,
                    "{:02}/{:02}/{:02}",
                    t.month,
                    t.day,
                    t.year.rem_euclid(100)
                );
            }
            Some('T') | Some('X') => {
                let _ = write!(out, "{:02}:{:02}:{:02}", t.hour, t.minute, t.second);
            }
            Some('R') => {
                let _ = write!(out, "{:02}:{:02}", t.hour, t.minute);
            }
            Some('c') => {
                let _ = write!(
                    out,
                    "{} {} {:>2} {:02}:{:02}:{:02} {}",
                    &DAYS[t.weekday as usize][..3],
                    &MONTHS[t.month as usize - 1][..3],
                    t.day,
                    t.hour,
                    t.minute,
                    t.second,
                    t.year
                );
            }
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            // a naive datetime has no zone: Python writes nothing for these
            Some('z') | Some('Z') => {}
            Some('%') => out.push('%'),
            Some(other) => {
                out.push('%');
                if no_pad {
                    out.push('-');
                }
                out.push(other);
            }
            None => {
                out.push('%');
                if no_pad {
                    out.push('-');
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2025-03-07 14:05:09 UTC, a Friday.
    const T: i64 = 1_741_356_309;

    #[test]
    fn civil_dates() {
        let c = civil(T);
        assert_eq!((c.year, c.month, c.day), (2025, 3, 7));
        assert_eq!(
            (c.hour, c.minute, c.second, c.weekday, c.yearday),
            (14, 5, 9, 4, 66)
        );
        let c = civil(0);
        assert_eq!((c.year, c.month, c.day, c.weekday), (1970, 1, 1, 3));
        let c = civil(951_782_400); // 2000-02-29
        assert_eq!((c.year, c.month, c.day, c.yearday), (2000, 2, 29, 60));
        let c = civil(-1);
        assert_eq!((c.year, c.month, c.day, c.hour), (1969, 12, 31, 23));
    }

    #[test]
    fn directives_as_python_writes_them() {
        assert_eq!(strftime("%d %b %Y", T), "07 Mar 2025");
        assert_eq!(strftime("%B %d, %Y", T), "March 07, 2025");
        assert_eq!(strftime("%Y-%m-%d", T), "2025-03-07");
        assert_eq!(
            strftime("%A %a %H:%M:%S %I%p %j", T),
            "Friday Fri 14:05:09 02PM 066"
        );
        assert_eq!(
            strftime("%-d/%-m %e|%c", T),
            "7/3  7|Fri Mar  7 14:05:09 2025"
        );
        assert_eq!(strftime("100%% %Q %", T), "100% %Q %");
    }
}
