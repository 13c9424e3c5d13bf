//! A planned tensor's output bytes, a run of whole rows at a time, straight from the mapped
//! safetensors: the one rule by which a conversion makes a tensor, shared by `convert`'s writer
//! ([`execute`](super::execute)) and the quantizer's input ([`one_step`](super::one_step)). The
//! transforms pick and reorder the source's outermost rows, so any run of the output's elements
//! is gathered from the map, widened, shifted and narrowed on its own: the same bytes as the
//! whole tensor made at once, in the memory of the run. Pages of the map read by one run are
//! given back at the next (or when the reader is dropped): resident memory follows the run,
//! never the checkpoint.
#![forbid(unsafe_code)]

use std::ops::Range;

use crate::convert::arch::{permute_order, TensorSource, Transform};
use crate::convert::folder::HfFolder;
use crate::convert::fp8::{self, Scale};
use crate::convert::outtype::Elements;
use crate::convert::plan::PlannedTensor;
use crate::convert::safetensors::Dtype;
use crate::error::{CheckpointError, Result};
use crate::types::GgmlType;

/// One source tensor of a planned tensor (a stacked part, or the only one), as its transforms
/// leave it: outermost rows of `row_len` elements, picked from the source by `map`.
struct Part<'f> {
    /// Its index in [`HfFolder::tensors`].
    id: usize,
    /// Its bytes in the map.
    bytes: &'f [u8],
    dtype: Dtype,
    /// Bytes per element.
    elem: usize,
    /// Elements per outermost source row.
    row_len: usize,
    /// The source rows in output order (`None`: all, in order).
    map: Option<Vec<usize>>,
    /// One added to every element (Gemma's norms).
    add_one: bool,
    /// Elements after the transforms.
    len: u64,
    /// The source's shape.
    shape: &'f [u64],
    /// Its scale (an FP8 weight), by which its rows are dequantized, and the scale's bytes.
    scale: Option<(&'f Scale, &'f [u8])>,
}

enum Kind<'f> {
    Values(&'f [f32]),
    Parts(Vec<Part<'f>>),
}

/// The bytes of planned tensor `t` as the conversion writes them, made a run of elements at a
/// time ([`TensorRows::get`]).
pub struct TensorRows<'f> {
    folder: &'f HfFolder,
    t: &'f PlannedTensor,
    kind: Kind<'f>,
    /// Where each part starts among the tensor's elements, and the total last.
    starts: Vec<u64>,
    /// A stack whose parts decode to different kinds (f16 and f32) widens them all to f32,
    /// as torch's type promotion does when the script stacks them.
    widen: bool,
    /// The output's row length in elements (the innermost dimension).
    row_len: u64,
    gathered: Vec<u8>,
    out: Vec<u8>,
    /// The parts' byte ranges the last run read, given back at the next.
    read: Vec<(usize, Range<usize>)>,
}

impl std::fmt::Debug for TensorRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TensorRows")
            .field("tensor", &self.t.out.name)
            .field("elements", &self.len())
            .finish()
    }
}

impl<'f> TensorRows<'f> {
    /// The reader of planned tensor `t` of `folder`: the transforms checked against the
    /// sources' shapes, and the elements they give against the planned shape.
    pub fn new(folder: &'f HfFolder, t: &'f PlannedTensor) -> Result<TensorRows<'f>> {
        let mismatch = |problem: String| CheckpointError::Mismatch {
            path: folder.dir().to_path_buf(),
            problem,
        };
        let (kind, starts, widen) = match &t.out.source {
            TensorSource::Values(v) => (Kind::Values(v), vec![0, v.len() as u64], false),
            TensorSource::Tensors(ids) => {
                let mut parts = Vec::with_capacity(ids.len());
                let mut starts = vec![0u64];
                for &id in ids {
                    let p = part(folder, id, &t.out.transforms)?;
                    let end = starts[starts.len() - 1].saturating_add(p.len);
                    starts.push(end);
                    parts.push(p);
                }
                let f16 = |p: &Part<'_>| p.dtype == Dtype::F16 && p.scale.is_none();
                let widen = parts.iter().any(|p| f16(p) != f16(&parts[0]));
                (Kind::Parts(parts), starts, widen)
            }
        };
        let planned: u64 = t.out.shape.iter().product();
        let total = starts[starts.len() - 1];
        if total != planned {
            return Err(mismatch(format!(
                "tensor '{}' is planned with {planned} elements, its sources give {total}",
                t.out.name
            ))
            .into());
        }
        Ok(TensorRows {
            folder,
            t,
            kind,
            starts,
            widen,
            row_len: t.out.shape.last().copied().unwrap_or(1).max(1),
            gathered: Vec::new(),
            out: Vec::new(),
            read: Vec::new(),
        })
    }

    /// The tensor's element count.
    pub fn len(&self) -> u64 {
        self.starts[self.starts.len() - 1]
    }

    /// True when the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The output's row length in elements (its innermost dimension): runs are whole rows.
    pub fn row_len(&self) -> u64 {
        self.row_len
    }

    /// The output bytes of elements `range` of the tensor (whole rows, hence whole blocks of
    /// its type), valid until the next call: borrowed from the map where the source's bytes are
    /// already the output's, else made in a buffer the reader keeps. The pages of the map the
    /// previous call read are given back first.
    pub fn get(&mut self, range: Range<u64>) -> Result<&[u8]> {
        self.give_back();
        if range.start > range.end || range.end > self.len() {
            return Err(CheckpointError::Mismatch {
                path: self.folder.dir().to_path_buf(),
                problem: format!(
                    "elements {}..{} of tensor '{}' asked for, which has {}",
                    range.start,
                    range.end,
                    self.t.out.name,
                    self.len()
                ),
            }
            .into());
        }
        let ty = self.t.ty;
        let parts = match &self.kind {
            Kind::Values(v) => {
                let r = range.start as usize..range.end as usize;
                self.out = Elements::F32(v[r].to_vec()).encode(ty)?;
                return Ok(&self.out);
            }
            Kind::Parts(parts) => parts,
        };
        self.out.clear();
        let mut e = range.start;
        let mut p = self.starts.partition_point(|&s| s <= e).saturating_sub(1);
        while e < range.end {
            while self.starts[p + 1] <= e {
                p += 1;
            }
            let part = &parts[p];
            let (a, b) = (
                e - self.starts[p],
                range.end.min(self.starts[p + 1]) - self.starts[p],
            );
            let (a, b) = (a as usize, b as usize);
            if let Some((scale, scale_bytes)) = part.scale {
                // an FP8 weight: its lines (whole rows of the run) dequantized by its scale
                let rl = part.row_len.max(1);
                let lines: Vec<usize> = match &part.map {
                    None => (a / rl..b / rl).collect(),
                    Some(m) => m[a / rl..b / rl].to_vec(),
                };
                if part.map.is_none() {
                    self.read.push((part.id, a * part.elem..b * part.elem));
                }
                let mut values = Vec::new();
                fp8::dequantize_lines(
                    part.bytes,
                    part.dtype,
                    part.shape,
                    scale,
                    scale_bytes,
                    &lines,
                    &mut values,
                );
                let mut el = Elements::F32(values);
                if part.add_one {
                    el.add_scalar(1.0);
                }
                let bytes = el.encode(ty)?;
                append(&mut self.out, bytes);
                e = self.starts[p] + b as u64;
                continue;
            }
            let same = matches!(
                (part.dtype, ty),
                (Dtype::F32, GgmlType::F32)
                    | (Dtype::F16, GgmlType::F16)
                    | (Dtype::BF16, GgmlType::BF16)
            ) && !part.add_one
                && !self.widen;
            // the script widens bf16 to f32 and narrows it back, which keeps every value but
            // quietens a NaN: bytes are used as they are only where that changes nothing
            let as_is = |src: &[u8]| same && !(part.dtype == Dtype::BF16 && has_bf16_nan(src));
            let (src, keep): (&[u8], bool) = match &part.map {
                None => {
                    let r = a * part.elem..b * part.elem;
                    self.read.push((part.id, r.clone()));
                    let bytes: &'f [u8] = part.bytes;
                    let src = &bytes[r];
                    let keep = as_is(src);
                    let whole = e == range.start && self.starts[p] + b as u64 == range.end;
                    if whole && keep {
                        return Ok(src);
                    }
                    (src, keep)
                }
                Some(m) => {
                    gather(part, m, a..b, &mut self.gathered, &mut self.read);
                    (&self.gathered, as_is(&self.gathered))
                }
            };
            if keep {
                self.out.extend_from_slice(src);
            } else {
                let mut el = Elements::decode(part.dtype, src)
                    .ok_or_else(|| unsupported(self.folder, part.id))?;
                if part.add_one {
                    el.add_scalar(1.0);
                }
                if self.widen {
                    el = Elements::F32(el.to_f32());
                }
                let bytes = el.encode(ty)?;
                append(&mut self.out, bytes);
            }
            e = self.starts[p] + b as u64;
        }
        Ok(&self.out)
    }

    /// Gives back the pages the last run read.
    fn give_back(&mut self) {
        if let Kind::Parts(_) = self.kind {
            for (id, r) in self.read.drain(..) {
                let src = &self.folder.tensors()[id];
                self.folder.release(src, r);
            }
        }
    }
}

impl Drop for TensorRows<'_> {
    fn drop(&mut self) {
        self.give_back();
    }
}

/// The whole bytes of planned tensor `t`, as written (a run of every element).
pub fn tensor_bytes(folder: &HfFolder, t: &PlannedTensor) -> Result<Vec<u8>> {
    let mut rows = TensorRows::new(folder, t)?;
    let n = rows.len();
    Ok(rows.get(0..n)?.to_vec())
}

/// Elements `range` of `part` gathered from its source rows into `into`; the byte ranges read
/// are added to `read` (adjacent ones merged).
fn gather(
    part: &Part<'_>,
    map: &[usize],
    range: Range<usize>,
    into: &mut Vec<u8>,
    read: &mut Vec<(usize, Range<usize>)>,
) {
    into.clear();
    let (n, elem) = (part.row_len, part.elem);
    let mut e = range.start;
    while e < range.end {
        let (row, within) = (e / n, e % n);
        let take = (n - within).min(range.end - e);
        let from = map[row] * n + within;
        let bytes = from * elem..(from + take) * elem;
        into.extend_from_slice(&part.bytes[bytes.clone()]);
        match read.last_mut() {
            Some((id, r)) if *id == part.id && r.end == bytes.start => r.end = bytes.end,
            _ => read.push((part.id, bytes)),
        }
        e += take;
    }
}

fn unsupported(folder: &HfFolder, id: usize) -> CheckpointError {
    let src = &folder.tensors()[id];
    CheckpointError::Tensor {
        path: folder.shards()[src.shard].path().to_path_buf(),
        tensor: src.entry.name.clone(),
        problem: format!("dtype {} is not converted", src.entry.dtype.name()),
    }
}

/// Source tensor `id` under `transforms`.
fn part<'f>(folder: &'f HfFolder, id: usize, transforms: &[Transform]) -> Result<Part<'f>> {
    let src = &folder.tensors()[id];
    let bytes = folder.data(src);
    let dtype = src.entry.dtype;
    let elem = match dtype {
        Dtype::F32 => 4,
        Dtype::F16 | Dtype::BF16 => 2,
        Dtype::F8E4M3 | Dtype::F8E5M2 => 1,
        Dtype::I8 if src.scale.is_some() => 1,
        _ => return Err(unsupported(folder, id).into()),
    };
    // rows are lines: the innermost dimension (an element of a tensor of one dimension), the
    // outermost rows of a matrix
    let shape = &src.entry.shape;
    let rows = fp8::line_count(shape).max(1);
    let row_len = bytes.len() / elem / rows;
    let (map, add_one) = row_plan(folder, &src.name, rows, shape, transforms)?;
    let len = match &map {
        None => (bytes.len() / elem) as u64,
        Some(m) => (m.len() * row_len) as u64,
    };
    Ok(Part {
        id,
        bytes,
        dtype,
        elem,
        row_len,
        map,
        add_one,
        len,
        shape,
        scale: src.scale.as_deref().map(|s| (s, folder.scale_data(s))),
    })
}

/// The source rows the transforms select, in output order (`None`: all, in order), and whether
/// one is added to every element.
fn row_plan(
    folder: &HfFolder,
    name: &str,
    rows: usize,
    shape: &[u64],
    transforms: &[Transform],
) -> Result<(Option<Vec<usize>>, bool)> {
    let mut map: Option<Vec<usize>> = None;
    let mut add_one = false;
    let mismatch = |problem: String| CheckpointError::Mismatch {
        path: folder.dir().to_path_buf(),
        problem,
    };
    for tr in transforms {
        let current = map.as_ref().map_or(rows, Vec::len);
        match tr {
            Transform::PermuteHeads(heads) => {
                let order = permute_order(current, *heads).ok_or_else(|| {
                    mismatch(format!(
                        "tensor '{name}' has {current} rows, which {heads} heads of two halves do not divide"
                    ))
                })?;
                map = Some(match &map {
                    Some(m) => order.iter().map(|&o| m[o]).collect(),
                    None => order,
                });
            }
            Transform::AddOne => add_one = true,
            Transform::Rows(r) => {
                if r.end > current || r.start > r.end {
                    return Err(mismatch(format!(
                        "tensor '{name}' has {current} rows, fewer than the {} its split needs",
                        r.end
                    ))
                    .into());
                }
                map = Some(match &map {
                    Some(m) => m[r.clone()].to_vec(),
                    None => r.clone().collect(),
                });
            }
            Transform::InnerRows(r) => {
                let order = inner_rows(current, shape, r.clone()).ok_or_else(|| {
                    mismatch(format!(
                        "tensor '{name}' of shape {shape:?} has too few rows for its split {r:?}"
                    ))
                })?;
                map = Some(match &map {
                    Some(m) => order.iter().map(|&o| m[o]).collect(),
                    None => order,
                });
            }
        }
    }
    Ok((map, add_one))
}

/// The lines of `r` in each slice of the second-to-last dimension of `shape` (`lines` lines in
/// all), in order; `None` when they do not fit.
fn inner_rows(lines: usize, shape: &[u64], r: Range<usize>) -> Option<Vec<usize>> {
    let per = *shape.get(shape.len().checked_sub(2)?)? as usize;
    if per == 0 || lines % per != 0 || r.end > per || r.start > r.end {
        return None;
    }
    Some(
        (0..lines / per)
            .flat_map(|o| r.clone().map(move |l| o * per + l))
            .collect(),
    )
}

/// True when little-endian bf16 `bytes` hold a NaN.
fn has_bf16_nan(bytes: &[u8]) -> bool {
    bytes
        .chunks_exact(2)
        .any(|c| u16::from_le_bytes([c[0], c[1]]) & 0x7fff > 0x7f80)
}

/// `bytes` after `out`: taken over whole when `out` is empty (the usual single-part run), so the
/// encoded run is not copied a second time.
fn append(out: &mut Vec<u8>, bytes: Vec<u8>) {
    if out.is_empty() {
        *out = bytes;
    } else {
        out.extend_from_slice(&bytes);
    }
}
