//! Benchmarks of ggufkit and the side-by-side comparison with the other GGUF readers.
//!
//! This crate is not published and the library does not depend on it: the peers (candle-core's
//! `gguf_file`, `ggus`, `gguf-rs-lib`) are dependencies here only.
//!
//! - [`parsers`]: each parser opens a file and fully walks what it parsed (every key, every array
//!   element, every tensor info), returning the same [`Stats`] so the walks can be checked
//!   against each other; plus the two floors (reading the header bytes, one pass over them).
//! - [`gen`]: the generated stress headers (1M tokens + 1M merges + 10k tensors; 100k tensors)
//!   and the tiny smoke file.
//! - [`files`]: where the corpus and the larger model are, so benches skip what is absent.
//! - [`codec_input`]: the signal and the valid blocks the codec benchmarks run on.
//! - [`ggml`]: ggml's codecs as a peer (a subprocess of `scripts/ggml-harness.sh`'s
//!   `codec_bench`), for `--bin codecs`.

pub mod codec_input;
pub mod files;
pub mod gen;
pub mod ggml;
pub mod parsers;

pub use parsers::{Parser, Stats};

/// Median of a list of durations in milliseconds (the mean of the two middle ones when even).
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// This process's peak resident set size in KiB (`VmHWM` of `/proc/self/status`), if known.
pub fn peak_rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}
