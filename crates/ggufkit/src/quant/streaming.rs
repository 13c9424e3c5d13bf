//! When a codec's output bypasses the cache.
//!
//! An ordinary store first reads the line it writes into the cache. When the cache cannot hold
//! what a decode reads and writes, that read is wasted (the line is evicted before anyone reads
//! it back) and the output evicts everything else; non-temporal stores write it straight to
//! memory instead. When the cache can hold it, the output stays there for whoever reads it next.
//! The rule: stream when the bytes read plus the bytes written exceed two thirds of the
//! last-level cache (the last third is left to everything else). The whole cache counts, not a
//! CPU's share of it: a decode runs alone or, in parallel, divides its work among the CPUs that
//! share the cache.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

/// The last-level cache assumed where the system does not say (small for a current x86 part:
/// a desktop has 16-32 MiB, a server 32 MiB or more per group of cores).
const FALLBACK_LLC: usize = 8 << 20;

/// True when a conversion that reads `in_bytes` and writes `out_bytes` (a decode into f32s, or
/// bf16's from them) should use non-temporal stores.
pub(crate) fn streams(in_bytes: usize, out_bytes: usize) -> bool {
    static FROM_BYTES: OnceLock<usize> = OnceLock::new();
    let from = *FROM_BYTES.get_or_init(|| llc_bytes().unwrap_or(FALLBACK_LLC) / 3 * 2);
    in_bytes.saturating_add(out_bytes) > from
}

/// The size of the last-level cache that CPU 0 uses, from Linux's sysfs description of its
/// caches (the highest level that holds data).
fn llc_bytes() -> Option<usize> {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    let mut best: Option<(u32, usize)> = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let read = |name: &str| std::fs::read_to_string(entry.path().join(name)).ok();
        let (Some(level), Some(kind), Some(size)) = (read("level"), read("type"), read("size"))
        else {
            continue;
        };
        let Ok(level) = level.trim().parse::<u32>() else {
            continue;
        };
        if kind.trim() == "Instruction" || best.is_some_and(|(l, _)| l >= level) {
            continue;
        }
        if let Some(bytes) = parse_size(&size) {
            best = Some((level, bytes));
        }
    }
    best.map(|(_, bytes)| bytes)
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
    }

    #[test]
    fn small_outputs_stay_in_the_cache_and_large_ones_stream() {
        assert!(!streams(0, 0));
        assert!(!streams(4096, 4096));
        assert!(streams(1 << 30, 1 << 30));
        assert!(streams(usize::MAX, 1));
        assert!(streams(1, usize::MAX));
    }
}
