//! When a decoder's output bypasses the cache.
//!
//! An ordinary store first reads the line it writes into the cache. For an output larger than
//! this thread's share of the last-level cache, that read is wasted (the line is evicted before
//! anyone reads it back) and the output evicts everything else; non-temporal stores write it
//! straight to memory instead. The threshold is glibc's for `memcpy`: three quarters of the
//! last-level cache divided among the CPUs that share it.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

/// The share of the last-level cache assumed where the system does not say (a typical desktop
/// part gives each hardware thread 1.5-4 MiB).
const FALLBACK_SHARE: usize = 2 << 20;

/// True when decoding `floats` f32s should use non-temporal stores.
pub(crate) fn streams(floats: usize) -> bool {
    static FROM_BYTES: OnceLock<usize> = OnceLock::new();
    let from = *FROM_BYTES.get_or_init(|| llc_share().unwrap_or(FALLBACK_SHARE) / 4 * 3);
    floats.saturating_mul(4) > from
}

/// Bytes of the last-level cache per CPU sharing it, from Linux's sysfs description of CPU 0's
/// caches (the highest level that holds data).
fn llc_share() -> Option<usize> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut best: Option<(u32, usize)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let (Some(level), Some(kind), Some(size), Some(cpus)) = (
            read("level"),
            read("type"),
            read("size"),
            read("shared_cpu_list"),
        ) else {
            continue;
        };
        let Ok(level) = level.trim().parse::<u32>() else {
            continue;
        };
        if kind.trim() == "Instruction" || best.is_some_and(|(l, _)| l >= level) {
            continue;
        }
        if let (Some(bytes), Some(n)) = (parse_size(&size), count_cpus(&cpus)) {
            best = Some((level, bytes / n.max(1)));
        }
    }
    best.map(|(_, share)| share)
}

/// `"8192K"`, `"32M"` or a plain byte count.
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

/// The number of CPUs in a list such as `"0-3,8-11"` or `"5"`.
fn count_cpus(list: &str) -> Option<usize> {
    let mut n = 0usize;
    for part in list.trim().split(',').filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => b
                .parse::<usize>()
                .ok()?
                .checked_sub(a.parse::<usize>().ok()?)?
                .checked_add(1)?,
            None => part.parse::<usize>().map(|_| 1).ok()?,
        };
    }
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sysfs_cache_descriptions_parse() {
        assert_eq!(parse_size("8192K\n"), Some(8 << 20));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("65536"), Some(65536));
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("99999999999999999999G"), None);
        assert_eq!(count_cpus("0-1\n"), Some(2));
        assert_eq!(count_cpus("0-3,8-11"), Some(8));
        assert_eq!(count_cpus("5"), Some(1));
        assert_eq!(count_cpus("3-1"), None);
        assert_eq!(count_cpus(""), None);
    }

    #[test]
    fn small_outputs_stay_in_the_cache_and_large_ones_stream() {
        assert!(!streams(0));
        assert!(!streams(1024));
        assert!(streams(1 << 30));
        assert!(streams(usize::MAX));
    }
}
