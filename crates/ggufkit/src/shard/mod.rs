//! Split models, compatible with llama.cpp's `gguf-split`: splitting one file into shards,
//! opening the shards as one model ([`ShardedModel`]), and merging them back into one file.
//!
//! # The layout `gguf-split` writes (and so do we)
//! Shards are named `PREFIX-%05d-of-%05d.gguf`, numbered from 1. The first shard holds all the
//! metadata of the model, then the three split keys; shards 2..N hold only the split keys. The keys
//! are `split.no` (uint16, numbered from 0), `split.tensors.count` (int32, the tensors of the
//! whole model) and `split.count` (uint16), in that order, last in the metadata (ggml's `set`
//! moves a key to the end, and `gguf-split` sets `split.count` after the others). Tensors keep the
//! model's order. `--max-tensors N` starts a new shard at every N-th tensor; `--max-size S` starts
//! one when the tensors of the current shard, each padded to 32 bytes, would exceed S bytes (a
//! soft limit: metadata is not counted). A shard with no tensors is refused, as `gguf-split`
//! refuses it, except a first shard asked to hold metadata only.
//!
//! Tensor data is padded to each shard's own alignment: `general.alignment` when the shard has it
//! (only the first can), else 32, as the spec requires (`gguf-split` always pads to 32, which
//! differs only for a first shard with another alignment).
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::endian::Endian;
use crate::error::{Error, Location, Missing, Result, ShardError, WriteError};
use crate::read::{Gguf, Kv, ReadOptions, TensorInfo};
use crate::value::Value;
use crate::write::atomic::write_atomically_from;
use crate::write::writer::{GgufBuilder, ProgressFn};
use crate::write::{open_file, source_path, write_copying};

/// `split.no`: the shard's number, from 0 (uint16).
pub const SPLIT_NO: &str = "split.no";
/// `split.count`: how many shards (uint16).
pub const SPLIT_COUNT: &str = "split.count";
/// `split.tensors.count`: tensors in the whole model (int32).
pub const SPLIT_TENSORS_COUNT: &str = "split.tensors.count";
/// Padding `gguf-split` assumes when it sums tensor sizes for `--max-size`.
const SPLIT_SIZE_PADDING: u64 = 32;

/// True for the three keys that describe a split.
pub fn is_split_key(key: &[u8]) -> bool {
    key == SPLIT_NO.as_bytes()
        || key == SPLIT_COUNT.as_bytes()
        || key == SPLIT_TENSORS_COUNT.as_bytes()
}

/// The path of shard `i` (from 0) of `n`: `PREFIX-0000{i+1}-of-0000{n}.gguf`.
pub fn shard_path(prefix: &Path, i: u32, n: u32) -> PathBuf {
    let mut s = prefix.as_os_str().to_os_string();
    s.push(format!("-{:05}-of-{:05}.gguf", i + 1, n));
    PathBuf::from(s)
}

/// The prefix, shard number (from 0) and count of a path named as [`shard_path`] names shards.
pub fn parse_shard_path(path: &Path) -> Option<(PathBuf, u32, u32)> {
    let s = path.to_str()?;
    let rest = s.strip_suffix(".gguf")?;
    // "-NNNNN-of-NNNNN" is 15 bytes
    let cut = rest.len().checked_sub(15)?;
    if !rest.is_char_boundary(cut) {
        return None;
    }
    let (prefix, tail) = rest.split_at(cut);
    let tail = tail.strip_prefix('-')?;
    let (no, count) = tail.split_once("-of-")?;
    if no.len() != 5 || count.len() != 5 {
        return None;
    }
    let no: u32 = no.parse().ok()?;
    let count: u32 = count.parse().ok()?;
    (no >= 1 && no <= count).then(|| (PathBuf::from(prefix), no - 1, count))
}

/// Parses a `--max-size` as people type it: a positive number, whole or decimal, and a unit,
/// any case, with or without a space and a final `B`: `K`, `M`, `G`, `T` are powers of 1,000
/// as `gguf-split` reads `M` and `G` (`100M`, `100MB`, `1.5G`), `KiB`, `MiB`, `GiB`, `TiB`
/// powers of 1,024. The bytes are exact (no rounding through a float; a fraction of a byte is
/// dropped).
pub fn parse_size(s: &str) -> Result<u64> {
    let bad = || -> Error { ShardError::Size { text: s.into() }.into() };
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(bad)?;
    let (num, unit) = (&t[..split], t[split..].trim_start().to_ascii_lowercase());
    let unit: u128 = match unit.as_str() {
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "t" | "tb" => 1_000_000_000_000,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "tib" => 1 << 40,
        _ => return Err(bad()),
    };
    let (whole, frac) = num.split_once('.').unwrap_or((num, ""));
    if whole.is_empty() && frac.is_empty() || frac.len() > 18 || frac.contains('.') {
        return Err(bad());
    }
    let digits = |d: &str| -> Result<u128> {
        if d.is_empty() {
            Ok(0)
        } else {
            d.parse::<u128>().map_err(|_| bad())
        }
    };
    let scale = 10u128.pow(frac.len() as u32);
    let frac_bytes = digits(frac)? * unit / scale;
    let bytes = digits(whole)?
        .checked_mul(unit)
        .and_then(|w| w.checked_add(frac_bytes))
        .ok_or_else(bad)?;
    match u64::try_from(bytes) {
        Ok(b) if b > 0 => Ok(b),
        _ => Err(bad()),
    }
}

/// How to split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitLimit {
    /// At most this many tensors per shard.
    MaxTensors(usize),
    /// Tensors (each padded to 32 bytes) of at most this many bytes per shard.
    MaxSize(u64),
}

/// Options of [`split`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitOptions {
    /// Where to cut.
    pub limit: SplitLimit,
    /// The first shard holds the metadata only (`gguf-split --no-tensor-first-split`).
    pub no_tensor_first_split: bool,
    /// Replace existing shard files.
    pub overwrite: bool,
}

/// One shard of a split plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardPlan {
    /// Where it is written.
    pub path: PathBuf,
    /// Indexes of the model's tensors it holds, in order.
    pub tensors: Vec<usize>,
    /// Its size in bytes.
    pub size: u64,
}

/// Decides which tensors go in which shard, as `gguf-split` decides.
pub fn plan_split(g: &Gguf<'_>, prefix: &Path, opts: &SplitOptions) -> Result<Vec<ShardPlan>> {
    let n_tensors = g.tensor_count();
    if let SplitLimit::MaxTensors(0) = opts.limit {
        return Err(ShardError::ZeroMaxTensors.into());
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new()];
    if opts.no_tensor_first_split {
        groups.push(Vec::new());
    }
    let mut current: u64 = 0;
    for (i, t) in g.tensors().enumerate() {
        let padded = crate::wire::align_up(t.size(), SPLIT_SIZE_PADDING).unwrap_or(u64::MAX);
        let next = current.saturating_add(padded);
        let cut = match opts.limit {
            SplitLimit::MaxSize(max) => next > max,
            SplitLimit::MaxTensors(n) => i > 0 && i % n == 0,
        };
        if cut {
            let last = groups.len() - 1;
            if groups[last].is_empty() {
                return Err(ShardError::EmptyShard {
                    shard: last + 1,
                    tensor: t.name().into_owned(),
                    size: padded,
                }
                .into());
            }
            groups.push(Vec::new());
            current = padded;
        } else {
            current = next;
        }
        if let Some(last) = groups.last_mut() {
            last.push(i);
        }
    }
    let n = groups.len();
    if n > usize::from(u16::MAX) || n_tensors > i32::MAX as usize {
        return Err(ShardError::TooManyShards {
            shards: n,
            tensors: n_tensors,
        }
        .into());
    }
    groups
        .into_iter()
        .enumerate()
        .map(|(i, tensors)| {
            let b = shard_builder(g, i, n, &tensors)?;
            Ok(ShardPlan {
                path: shard_path(prefix, i as u32, n as u32),
                size: b.layout()?.total_len,
                tensors,
            })
        })
        .collect()
}

/// The builder of shard `i` of `n`: metadata (first shard only), split keys, its tensors.
fn shard_builder<'g>(
    g: &'g Gguf<'_>,
    i: usize,
    n: usize,
    tensors: &[usize],
) -> Result<GgufBuilder<'g>> {
    let mut b = GgufBuilder::from_gguf(g)?;
    b.clear_tensors();
    b.tensorless_padding(false);
    if i == 0 {
        b.retain_keys(|k| !is_split_key(k));
    } else {
        b.retain_keys(|_| false);
    }
    b.set(SPLIT_NO, i as u16)?;
    b.set(SPLIT_TENSORS_COUNT, g.tensor_count() as i32)?;
    b.set(SPLIT_COUNT, n as u16)?;
    for &j in tensors {
        let t = g.tensor_at(j).ok_or(Missing::TensorIndex { index: j })?;
        b.add_tensor_raw_name(t.name_bytes(), t.ggml_type()?, t.shape(), t.data())?;
    }
    Ok(b)
}

/// Splits `g`, a GGUF opened from a path ([`Gguf::open`]; its tensor data is copied from that
/// file), into shards named after `prefix`. Every shard path is checked before anything is
/// written; each shard is written atomically; if one fails, the shards this call wrote are removed.
pub fn split(
    g: &Gguf<'_>,
    prefix: &Path,
    opts: &SplitOptions,
    progress: Option<ProgressFn>,
) -> Result<Vec<ShardPlan>> {
    let src = source_path(g)?;
    let plan = plan_split(g, prefix, opts)?;
    if !opts.overwrite {
        if let Some(p) = plan.iter().find(|p| p.path.exists()) {
            return Err(WriteError::OutputExists {
                path: p.path.clone(),
            }
            .into());
        }
    }
    let file = open_file(src)?;
    let n = plan.len();
    let mut written: Vec<&Path> = Vec::new();
    let shared = progress.map(|f| Rc::new(RefCell::new(f)));
    for (i, shard) in plan.iter().enumerate() {
        let b = shard_builder(g, i, n, &shard.tensors)?;
        let sources: Vec<(&File, u64)> = shard
            .tensors
            .iter()
            .filter_map(|&j| g.tensor_at(j))
            .map(|t| (&file, t.absolute_offset()))
            .collect();
        // the same callback, handed to each shard in turn
        let p = shared.clone().map(|f| {
            let p: ProgressFn = Box::new(move |k| (f.borrow_mut())(k));
            p
        });
        let r = write_atomically_from(&shard.path, opts.overwrite, &[src], |w| {
            write_copying(&b, w, &sources, p).map(|_| ())
        });
        if let Err(e) = r {
            for path in written {
                let _ = std::fs::remove_file(path);
            }
            return Err(e);
        }
        written.push(&shard.path);
    }
    Ok(plan)
}

/// A model split over shards, opened as one: metadata from the first shard, tensors looked up
/// across all of them, each tensor's bytes borrowed from its own shard's map.
///
/// A file without split keys opens as a model of one shard.
pub struct ShardedModel {
    paths: Vec<PathBuf>,
    shards: Vec<Gguf<'static>>,
    /// Every tensor in model order: (shard, index in the shard).
    order: Vec<(usize, usize)>,
    by_name: HashMap<Vec<u8>, usize>,
}

impl std::fmt::Debug for ShardedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedModel")
            .field("paths", &self.paths)
            .field("tensors", &self.order.len())
            .finish()
    }
}

fn split_u64(g: &Gguf<'_>, key: &'static str, path: &Path) -> Result<Option<u64>> {
    match g.get_kv(key) {
        None => Ok(None),
        Some(kv) => kv.value.as_u64().map(Some).ok_or_else(|| {
            ShardError::SplitKeyType {
                file: path.into(),
                key,
                offset: kv.offset,
            }
            .into()
        }),
    }
}

impl ShardedModel {
    /// Opens the first shard and every other shard its name and `split.count` imply, checking
    /// they belong together: each has the right `split.no` and the same `split.count` and
    /// `split.tensors.count`, the same byte order, no tensor appears twice, and the tensors add up
    /// to `split.tensors.count`.
    pub fn open(first: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(first, &ReadOptions::default())
    }

    /// [`ShardedModel::open`], each shard read with `options` (permissively, for instance).
    pub fn open_with(first: impl AsRef<Path>, options: &ReadOptions) -> Result<Self> {
        let first = first.as_ref();
        let g0 = Gguf::open_with(first, options)?;
        let Some(count) = split_u64(&g0, SPLIT_COUNT, first)? else {
            return Self::from_shards(vec![first.to_path_buf()], vec![g0], None);
        };
        let count = u32::try_from(count)
            .ok()
            .filter(|&c| c >= 1 && c <= u32::from(u16::MAX))
            .ok_or_else(|| ShardError::SplitCount {
                file: first.into(),
                count,
            })?;
        let no = split_u64(&g0, SPLIT_NO, first)?.unwrap_or(0);
        if no != 0 {
            return Err(ShardError::NotFirst {
                file: first.into(),
                no,
            }
            .into());
        }
        let (prefix, name_no, name_count) = if count == 1 {
            parse_shard_path(first).unwrap_or((first.to_path_buf(), 0, 1))
        } else {
            parse_shard_path(first).ok_or_else(|| ShardError::FirstShardName {
                file: first.into(),
                count,
            })?
        };
        if count > 1 && (name_no != 0 || name_count != count) {
            return Err(ShardError::NameMismatch {
                file: first.into(),
                name_no,
                name_count,
                count,
            }
            .into());
        }
        let mut paths = vec![first.to_path_buf()];
        let mut shards = vec![g0];
        for i in 1..count {
            let p = shard_path(&prefix, i, count);
            if !p.exists() {
                return Err(Missing::Shard {
                    shard: i + 1,
                    count,
                    path: p,
                }
                .into());
            }
            let g = Gguf::open_with(&p, options)?;
            let no = split_u64(&g, SPLIT_NO, &p)?;
            let c = split_u64(&g, SPLIT_COUNT, &p)?;
            if no != Some(u64::from(i)) || c != Some(u64::from(count)) {
                return Err(ShardError::Numbering {
                    file: p.as_path().into(),
                    no,
                    count: c,
                    expected_no: i,
                    expected_count: count,
                }
                .into());
            }
            paths.push(p);
            shards.push(g);
        }
        let declared = split_u64(&shards[0], SPLIT_TENSORS_COUNT, first)?;
        Self::from_shards(paths, shards, declared)
    }

    fn from_shards(
        paths: Vec<PathBuf>,
        shards: Vec<Gguf<'static>>,
        declared: Option<u64>,
    ) -> Result<Self> {
        let named: Vec<(&Gguf<'_>, Location)> = shards
            .iter()
            .zip(&paths)
            .map(|(g, p)| (g, p.as_path().into()))
            .collect();
        let (order, by_name) = index_shards(&named, declared, |s| {
            split_u64(&shards[s], SPLIT_TENSORS_COUNT, &paths[s])
        })?;
        Ok(ShardedModel {
            paths,
            shards,
            order,
            by_name,
        })
    }

    /// Number of shards.
    pub fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// The shards, in order.
    pub fn shards(&self) -> &[Gguf<'static>] {
        &self.shards
    }

    /// The shard paths, in order.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The byte order of the model.
    pub fn endian(&self) -> Endian {
        self.shards[0].endian()
    }

    /// The model's metadata: the first shard's pairs, split keys included.
    pub fn metadata(&self) -> impl ExactSizeIterator<Item = Kv<'_>> + '_ {
        self.shards[0].metadata()
    }

    /// A metadata value of the model.
    pub fn get(&self, key: &str) -> Option<Value<'_>> {
        self.shards[0].get(key)
    }

    /// Number of tensors in the whole model.
    pub fn tensor_count(&self) -> usize {
        self.order.len()
    }

    /// Every tensor in model order, each borrowing its data from its own shard.
    pub fn tensors(&self) -> impl Iterator<Item = TensorInfo<'_>> + '_ {
        self.order
            .iter()
            .filter_map(|&(s, i)| self.shards[s].tensor_at(i))
    }

    /// The tensor with this name, from whichever shard holds it.
    pub fn tensor(&self, name: &str) -> Option<TensorInfo<'_>> {
        let &k = self.by_name.get(name.as_bytes())?;
        let (s, i) = self.order[k];
        self.shards[s].tensor_at(i)
    }

    /// The shard (from 0) holding the tensor with this name.
    pub fn tensor_shard(&self, name: &str) -> Option<usize> {
        self.by_name.get(name.as_bytes()).map(|&k| self.order[k].0)
    }

    /// One file holding the whole model: the first shard's metadata without the split keys, then
    /// every tensor in model order.
    pub fn merged_builder(&self) -> Result<GgufBuilder<'_>> {
        let mut b = GgufBuilder::from_gguf(&self.shards[0])?;
        b.clear_tensors();
        b.tensorless_padding(false);
        b.retain_keys(|k| !is_split_key(k));
        for t in self.tensors() {
            b.add_tensor_raw_name(t.name_bytes(), t.ggml_type()?, t.shape(), t.data())?;
        }
        Ok(b)
    }

    /// Writes the merged model to `out` (atomically; an existing `out` only with `overwrite`),
    /// copying tensor data file to file.
    pub fn merge_to(
        &self,
        out: &Path,
        overwrite: bool,
        progress: Option<ProgressFn>,
    ) -> Result<()> {
        let b = self.merged_builder()?;
        let files: Vec<File> = self
            .paths
            .iter()
            .map(|p| open_file(p))
            .collect::<Result<_>>()?;
        let sources: Vec<(&File, u64)> = self
            .order
            .iter()
            .filter_map(|&(s, i)| {
                let t = self.shards[s].tensor_at(i)?;
                Some((&files[s], t.absolute_offset()))
            })
            .collect();
        let inputs: Vec<&Path> = self.paths.iter().map(PathBuf::as_path).collect();
        write_atomically_from(out, overwrite, &inputs, |w| {
            write_copying(&b, w, &sources, progress).map(|_| ())
        })
    }
}

/// Where each tensor of a split model lives: `(shard, index in the shard)` in model order, and the
/// position in that order by name.
pub(crate) type ShardIndex = (Vec<(usize, usize)>, HashMap<Vec<u8>, usize>);

/// Indexes the tensors of a split model's shards (local files or remote objects alike), with the
/// checks that they belong together: one byte order, the same `split.tensors.count` in every
/// shard (`count_of(s)` reads shard `s`'s), no tensor twice, and as many tensors as declared.
/// Each shard comes with the location its errors name (a path or a URL).
pub(crate) fn index_shards(
    shards: &[(&Gguf<'_>, Location)],
    declared: Option<u64>,
    count_of: impl Fn(usize) -> Result<Option<u64>>,
) -> Result<ShardIndex> {
    let endian = shards[0].0.endian();
    let mut order: Vec<(usize, usize)> = Vec::new();
    let mut by_name: HashMap<Vec<u8>, usize> = HashMap::new();
    for (s, (g, name)) in shards.iter().enumerate() {
        if g.endian() != endian {
            return Err(ShardError::Endian {
                file: name.clone(),
                found: g.endian(),
                expected: endian,
            }
            .into());
        }
        if s > 0 {
            let tc = count_of(s)?;
            if tc != declared {
                return Err(ShardError::TensorsCountDiffers {
                    file: name.clone(),
                    found: tc,
                    declared,
                }
                .into());
            }
        }
        for (i, t) in g.tensors().enumerate() {
            if let Some(&prev) = by_name.get(t.name_bytes()) {
                let (ps, _) = order[prev];
                return Err(ShardError::DuplicateTensor {
                    tensor: t.name().into_owned(),
                    first: shards[ps].1.clone(),
                    again: name.clone(),
                }
                .into());
            }
            by_name.insert(t.name_bytes().to_vec(), order.len());
            order.push((s, i));
        }
    }
    if let Some(d) = declared {
        if d != order.len() as u64 {
            return Err(ShardError::TensorCount {
                found: order.len(),
                declared: d,
            }
            .into());
        }
    }
    Ok((order, by_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_names() {
        let p = shard_path(Path::new("out/model"), 1, 3);
        assert_eq!(p, Path::new("out/model-00002-of-00003.gguf"));
        assert_eq!(
            parse_shard_path(&p),
            Some((PathBuf::from("out/model"), 1, 3))
        );
        assert_eq!(parse_shard_path(Path::new("model.gguf")), None);
        assert_eq!(parse_shard_path(Path::new("m-00004-of-00003.gguf")), None);
    }

    #[test]
    fn sizes_as_people_type_them() {
        assert_eq!(parse_size("500M").unwrap(), 500_000_000);
        assert_eq!(parse_size("2G").unwrap(), 2_000_000_000);
        assert_eq!(parse_size("100MB").unwrap(), 100_000_000);
        assert_eq!(parse_size("100 mb").unwrap(), 100_000_000);
        assert_eq!(parse_size("1.5G").unwrap(), 1_500_000_000);
        assert_eq!(parse_size("1.5GB").unwrap(), 1_500_000_000);
        assert_eq!(parse_size(".5g").unwrap(), 500_000_000);
        assert_eq!(parse_size("2K").unwrap(), 2_000);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("512MiB").unwrap(), 512 << 20);
        for bad in [
            "0M",
            "2",
            "-1G",
            "G",
            "1.2.3G",
            "0.0000001K",
            "99999999999999G",
            "12X",
            "1,5G",
            "",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
