//! A conversion's output in shards, cut as convert_hf_to_gguf.py cuts it with
//! `--split-max-size`, `--split-max-tensors` and `--no-tensor-first-split` (gguf-py's
//! `GGUFWriter`): which tensors go to which file, the files' names and the split keys.
//!
//! The shards load as `gguf-split`'s do (names, keys and their types are [`crate::shard`]'s),
//! but the script's writer cuts by its own rule, which differs from `gguf-split`'s in three
//! places, kept here so that the bytes are the script's:
//! - a tensor starts a new shard when the current one holds at least one tensor and either holds
//!   `max_tensors` already or its tensors' bytes, unpadded, plus this tensor's would exceed
//!   `max_size` (`gguf-split` pads each to 32 bytes and refuses a tensor larger than the limit;
//!   the script puts it alone in a shard);
//! - the split keys come last in the first shard's metadata and alone in the others, in the order
//!   `split.no`, `split.count`, `split.tensors.count` (`gguf-split` sets `split.count` last);
//! - a cut that leaves one shard writes the output file itself, without split keys; more are
//!   named after the output's stem (`model.gguf` → `model-00001-of-00003.gguf`, beside it).
#![forbid(unsafe_code)]

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::convert::plan::{ConvertOptions, KvList, Plan};
use crate::error::{CheckpointError, Result, ShardError};
use crate::shard::{shard_path, SPLIT_COUNT, SPLIT_NO, SPLIT_TENSORS_COUNT};
use crate::write::{tensor_size, OwnedValue};

/// Where to cut a conversion's output (all zero and false: one file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SplitLimits {
    /// `--split-max-size`: the most tensor bytes per shard (0: no limit; a soft limit, a tensor
    /// larger than it gets a shard of its own).
    pub max_size: u64,
    /// `--split-max-tensors`: the most tensors per shard (0: no limit).
    pub max_tensors: usize,
    /// `--no-tensor-first-split`: the first shard holds the metadata only.
    pub no_tensor_first: bool,
}

impl SplitLimits {
    /// The limits a conversion's options ask for.
    pub fn of(opts: &ConvertOptions) -> Self {
        SplitLimits {
            max_size: opts.split_max_size,
            max_tensors: opts.split_max_tensors,
            no_tensor_first: opts.no_tensor_first_split,
        }
    }

    /// True when any limit is set.
    pub fn splits(&self) -> bool {
        self.max_size != 0 || self.max_tensors != 0 || self.no_tensor_first
    }
}

/// The script's `--split-max-size` text in bytes: a whole number, optionally followed by `K`,
/// `M` or `G` (powers of 1000, upper case, as its `split_str_to_n_bytes` reads them); 0 is no
/// limit.
pub fn parse_split_size(text: &str) -> Result<u64> {
    let bad = || {
        CheckpointError::Option(format!(
            "--split-max-size '{text}': a whole number of bytes, optionally followed by K, M or G"
        ))
    };
    let (digits, unit) = match text.as_bytes().last() {
        Some(b'K') => (&text[..text.len() - 1], 1_000),
        Some(b'M') => (&text[..text.len() - 1], 1_000_000),
        Some(b'G') => (&text[..text.len() - 1], 1_000_000_000),
        _ => (text, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad().into());
    }
    let n: u64 = digits.parse().map_err(|_| bad())?;
    Ok(n.checked_mul(unit).ok_or_else(bad)?)
}

/// One file of a conversion's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputShard {
    /// Where it is written.
    pub path: PathBuf,
    /// The plan's tensors it holds (in the plan's order, the shards one after the other).
    pub tensors: Range<usize>,
    /// Their bytes, unpadded (what the size limit counts).
    pub tensor_bytes: u64,
}

/// The files the output of `plan` is written to, for the output path `out`: `out` alone, or the
/// shards `limits` cut (see the module's page for the rule).
pub fn output_shards(plan: &Plan, out: &Path, limits: &SplitLimits) -> Result<Vec<OutputShard>> {
    let sizes = plan
        .tensors
        .iter()
        .map(|t| tensor_size(&t.out.name, t.ty, &t.gguf_shape()))
        .collect::<Result<Vec<u64>>>()?;
    let groups = cut(&sizes, limits);
    let n = groups.len();
    if n > usize::from(u16::MAX) || sizes.len() > i32::MAX as usize {
        return Err(ShardError::TooManyShards {
            shards: n,
            tensors: sizes.len(),
        }
        .into());
    }
    let paths = if n == 1 {
        vec![out.to_path_buf()]
    } else {
        let stem = out.file_stem().ok_or_else(|| {
            CheckpointError::Option(format!(
                "{}: a split output needs a file name to name its shards after",
                out.display()
            ))
        })?;
        let prefix = out.with_file_name(stem);
        (0..n as u32)
            .map(|i| shard_path(&prefix, i, n as u32))
            .collect()
    };
    Ok(groups
        .into_iter()
        .zip(paths)
        .map(|(tensors, path)| OutputShard {
            tensor_bytes: sizes[tensors.clone()].iter().sum(),
            path,
            tensors,
        })
        .collect())
}

/// The tensors of each shard, as `GGUFWriter.add_tensor_info` cuts them: contiguous ranges, the
/// first empty with `no_tensor_first`, every other one holding at least one tensor.
fn cut(sizes: &[u64], limits: &SplitLimits) -> Vec<Range<usize>> {
    let mut groups: Vec<Range<usize>> = Vec::with_capacity(2);
    groups.push(0..0);
    if limits.no_tensor_first {
        groups.push(0..0);
    }
    let mut bytes = 0u64;
    for (i, &size) in sizes.iter().enumerate() {
        let last = groups.len() - 1;
        let current = &groups[last];
        if !current.is_empty()
            && ((limits.max_tensors != 0 && current.len() >= limits.max_tensors)
                || (limits.max_size != 0 && bytes.saturating_add(size) > limits.max_size))
        {
            groups.push(i..i);
            bytes = 0;
        }
        let last = groups.len() - 1;
        if groups[last].is_empty() {
            groups[last] = i..i;
        }
        groups[last].end = i + 1;
        bytes = bytes.saturating_add(size);
    }
    groups
}

/// The metadata of shard `i` of `n`: every pair of `kvs` in the first shard, none in the others,
/// then, when there are several, `split.no`, `split.count` and `split.tensors.count` (the
/// tensors of the whole output), in that order.
pub fn shard_metadata(kvs: &KvList, i: usize, n: usize, tensors: usize) -> KvList {
    let mut out = if i == 0 {
        kvs.clone()
    } else {
        KvList::default()
    };
    if n > 1 {
        out.set(SPLIT_NO.into(), OwnedValue::U16(i as u16));
        out.set(SPLIT_COUNT.into(), OwnedValue::U16(n as u16));
        out.set(SPLIT_TENSORS_COUNT.into(), OwnedValue::I32(tensors as i32));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(max_size: u64, max_tensors: usize, no_tensor_first: bool) -> SplitLimits {
        SplitLimits {
            max_size,
            max_tensors,
            no_tensor_first,
        }
    }

    #[test]
    fn sizes_as_the_script_reads_them() {
        assert_eq!(parse_split_size("0").unwrap(), 0);
        assert_eq!(parse_split_size("1234").unwrap(), 1234);
        assert_eq!(parse_split_size("2K").unwrap(), 2_000);
        assert_eq!(parse_split_size("2M").unwrap(), 2_000_000);
        assert_eq!(parse_split_size("5G").unwrap(), 5_000_000_000);
        for bad in [
            "",
            "M",
            "2m",
            "2MB",
            "-1",
            "+1",
            "1.5G",
            " 2M",
            "99999999999999999999G",
        ] {
            assert!(parse_split_size(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cuts_as_the_scripts_writer_does() {
        let sizes = [10, 10, 10, 10, 10];
        let whole = cut(&sizes, &SplitLimits::default());
        assert_eq!((whole.len(), &whole[0]), (1, &(0..5)));
        assert_eq!(cut(&sizes, &limits(0, 2, false)), vec![0..2, 2..4, 4..5]);
        // unpadded sums: 20 fits 20, 30 does not
        assert_eq!(cut(&sizes, &limits(20, 0, false)), vec![0..2, 2..4, 4..5]);
        // a tensor over the limit is alone, never an empty shard
        assert_eq!(
            cut(&[5, 50, 5, 5], &limits(12, 0, false)),
            vec![0..1, 1..2, 2..4]
        );
        assert_eq!(cut(&sizes, &limits(1, 0, false)).len(), 5);
        // either limit cuts
        assert_eq!(cut(&sizes, &limits(30, 2, false)), vec![0..2, 2..4, 4..5]);
        assert_eq!(cut(&sizes, &limits(0, 0, true)), vec![0..0, 0..5]);
        assert_eq!(cut(&sizes, &limits(0, 3, true)), vec![0..0, 0..3, 3..5]);
        let none = cut(&[], &limits(0, 3, false));
        assert_eq!((none.len(), &none[0]), (1, &(0..0)));
        assert_eq!(cut(&[], &limits(0, 3, true)), vec![0..0, 0..0]);
    }

    #[test]
    fn split_keys_close_the_first_shard_and_fill_the_others() {
        let mut kvs = KvList::default();
        kvs.set("general.architecture".into(), OwnedValue::from("llama"));
        let first = shard_metadata(&kvs, 0, 3, 7);
        let keys: Vec<&str> = first.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "general.architecture",
                "split.no",
                "split.count",
                "split.tensors.count"
            ]
        );
        assert_eq!(first.get("split.tensors.count"), Some(&OwnedValue::I32(7)));
        let second = shard_metadata(&kvs, 1, 3, 7);
        assert_eq!(second.len(), 3);
        assert_eq!(second.get("split.no"), Some(&OwnedValue::U16(1)));
        assert_eq!(shard_metadata(&kvs, 0, 1, 7), kvs);
    }
}
