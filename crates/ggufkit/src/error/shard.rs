//! Splitting a file into shards, and opening the shards of a split model (local or remote).
#![forbid(unsafe_code)]

use crate::endian::Endian;
use crate::error::{Diagnostic, Location};

/// Why a split or a split model was refused ([`Error::Shard`](super::Error::Shard)).
///
/// Shards are numbered from 1 where a field says "number" (as in their file names), and
/// `split.no` values are given as stored (from 0).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// A `--max-size` that is not a positive whole number followed by `M` or `G`.
    #[error(
        "size '{text}' is not a positive number followed by a unit: K, M, G, T (10^3, 10^6, 10^9, 10^12 bytes, as gguf-split reads M and G) or KiB, MiB, GiB, TiB; for example 500M, 100MB, 1.5G"
    )]
    Size {
        /// The text given.
        text: String,
    },
    /// A limit of 0 tensors per shard.
    #[error("--max-tensors must be at least 1")]
    ZeroMaxTensors,
    /// A tensor larger than the size limit would leave a shard empty.
    #[error(
        "shard {shard} would hold no tensors: tensor '{tensor}' alone takes {size} bytes, more than the size limit"
    )]
    EmptyShard {
        /// The number of the shard that would be empty, from 1.
        shard: usize,
        /// The tensor too large for the limit.
        tensor: String,
        /// Its size, padded to 32 bytes as `gguf-split` counts it.
        size: u64,
    },
    /// More shards or tensors than the split keys can count.
    #[error("{shards} shards of {tensors} tensors do not fit the split keys (uint16 and int32)")]
    TooManyShards {
        /// Shards the plan needs.
        shards: usize,
        /// Tensors of the model.
        tensors: usize,
    },
    /// A split key whose value is not a non-negative integer.
    #[error("{file}: {key} at byte {offset} is not a non-negative integer")]
    SplitKeyType {
        /// The shard.
        file: Location,
        /// The key (`split.no`, `split.count` or `split.tensors.count`).
        key: &'static str,
        /// Where its pair starts.
        offset: u64,
    },
    /// A `split.count` outside 1..=65535.
    #[error("{file}: split.count is {count}, expected 1 to 65535")]
    SplitCount {
        /// The first shard.
        file: Location,
        /// The value found.
        count: u64,
    },
    /// The file opened as the first shard says it is another one.
    #[error("{file} is shard {} of the model (split.no = {no}), not the first", no + 1)]
    NotFirst {
        /// The file given.
        file: Location,
        /// Its `split.no`.
        no: u64,
    },
    /// A first shard of several whose name does not end in `-00001-of-0000N.gguf`.
    #[error(
        "{file} is not named like a first shard ({}-00001-of-{count:05}.gguf)",
        name_word(file)
    )]
    FirstShardName {
        /// The file given.
        file: Location,
        /// Its `split.count`.
        count: u32,
    },
    /// A first shard whose name and split keys disagree.
    #[error(
        "{file} is named as shard {} of {name_count}, but its split keys say shard 1 of {count}",
        name_no + 1
    )]
    NameMismatch {
        /// The file given.
        file: Location,
        /// The shard number in its name, from 0.
        name_no: u32,
        /// The shard count in its name.
        name_count: u32,
        /// Its `split.count`.
        count: u32,
    },
    /// A shard whose split keys give another number or count than its place among the shards.
    #[error(
        "{file}: its split keys say shard {} of {}, expected shard {} of {expected_count}",
        shown(no.map(|n| n + 1)),
        shown(*count),
        expected_no + 1
    )]
    Numbering {
        /// The shard.
        file: Location,
        /// Its `split.no`, when it has one.
        no: Option<u64>,
        /// Its `split.count`, when it has one.
        count: Option<u64>,
        /// The `split.no` expected (its place, from 0).
        expected_no: u32,
        /// The first shard's `split.count`.
        expected_count: u32,
    },
    /// A shard in the other byte order than the first.
    #[error("{file} is {found}-endian, but the first shard is {expected}-endian")]
    Endian {
        /// The shard.
        file: Location,
        /// Its byte order.
        found: Endian,
        /// The first shard's.
        expected: Endian,
    },
    /// A shard whose `split.tensors.count` differs from the first shard's.
    #[error(
        "{file}: split.tensors.count is {}, but the first shard says {}",
        count_shown(*found),
        count_shown(*declared)
    )]
    TensorsCountDiffers {
        /// The shard.
        file: Location,
        /// Its `split.tensors.count`.
        found: Option<u64>,
        /// The first shard's.
        declared: Option<u64>,
    },
    /// A tensor name in two shards.
    #[error("tensor '{tensor}' is in {first} and again in {again}")]
    DuplicateTensor {
        /// The tensor.
        tensor: String,
        /// The shard that holds it first.
        first: Location,
        /// The shard that holds it again.
        again: Location,
    },
    /// The shards together hold another number of tensors than `split.tensors.count`.
    #[error("the shards hold {found} tensors, but split.tensors.count says {declared}")]
    TensorCount {
        /// Tensors found in all shards.
        found: usize,
        /// The first shard's `split.tensors.count`.
        declared: u64,
    },
    /// A remote shard that breaks a rule of the format.
    #[error("{file}: at byte {}: {}", diagnostic.offset, diagnostic.message)]
    Format {
        /// The shard.
        file: Location,
        /// What is wrong, and where.
        diagnostic: Diagnostic,
    },
}

/// How the name pattern calls the part before `-00001-of-...`: a local shard's prefix, a remote
/// one's stem.
fn name_word(file: &Location) -> &'static str {
    match file {
        Location::Path(_) => "PREFIX",
        Location::Url(_) => "STEM",
    }
}

/// A number, or `?` when the key is absent.
fn shown(n: Option<u64>) -> String {
    n.map_or("?".into(), |n| n.to_string())
}

/// A `split.tensors.count`, or `absent`.
fn count_shown(n: Option<u64>) -> String {
    n.map_or("absent".into(), |n| n.to_string())
}
