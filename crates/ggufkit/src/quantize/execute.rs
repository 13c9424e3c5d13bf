//! Carrying out a plan: the output's metadata (llama-quantize's for a preset, the input's for a
//! uniform conversion), then tensor by tensor, in the plan's order, each converted a bounded run
//! of rows at a time (dequantized to f32, then encoded, both on all threads) or copied (its byte
//! order swapped when the output's differs), into atomically written files (one, or one per
//! shard with `--keep-split`).
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rayon::prelude::*;

use super::encode::{can_encode, encode_rows};
use super::input::{Input, TensorBytes};
use super::overrides::KvOverride;
use super::plan::{Importance, Plan, PlanKind, PlannedTensor, QuantizeOptions};
use crate::endian::Endian;
use crate::error::{Error, QuantizeError, Result, ShardError, WriteError};
use crate::quant;
use crate::read::Gguf;
use crate::shard::{shard_path, SPLIT_COUNT, SPLIT_NO, SPLIT_TENSORS_COUNT};
use crate::types::GgmlType;
use crate::write::{
    swap_tensor_data, AtomicFile, GgufBuilder, OwnedValue, ProgressFn, TensorDataWriter,
};

/// `general.quantization_version`: the version of the quantized formats (ggml's `GGML_QNT_VERSION`).
pub const QUANTIZATION_VERSION: u32 = 2;

/// Floats converted at a time (16 MiB of f32): the bound on the memory a tensor takes while it
/// is converted, whatever its size.
const CHUNK_ELEMS: usize = 4 << 20;

/// What the executor reads of the options: llama-quantize's, or none for a uniform conversion.
#[derive(Clone, Copy, Default)]
struct Settings<'o> {
    importance: Option<&'o Importance>,
    threads: Option<usize>,
    allow_requantize: bool,
    kv_overrides: &'o [KvOverride],
}

impl<'o> From<&'o QuantizeOptions> for Settings<'o> {
    fn from(o: &'o QuantizeOptions) -> Self {
        Settings {
            importance: o.importance.as_ref(),
            threads: o.threads,
            allow_requantize: o.allow_requantize,
            kv_overrides: &o.kv_overrides,
        }
    }
}

/// The importance values of tensor `t`: `ne0 * ne2` of them when the matrix has the tensor
/// (`None` when it has not, or for the token embeddings when their length does not match, which
/// llama-quantize tolerates).
fn importance_of<'o>(
    t: &PlannedTensor,
    importance: Option<&'o Importance>,
) -> Result<Option<&'o [f32]>> {
    let Some(m) = importance else {
        return Ok(None);
    };
    let Some(v) = m.get(&t.source_name) else {
        return Ok(None);
    };
    let ne0 = t.shape.first().copied().unwrap_or(1);
    let ne2 = t.shape.get(2).copied().unwrap_or(1);
    if v.len() as u64 == ne0 * ne2 {
        return Ok(Some(v));
    }
    if super::names::is_token_embedding(&t.name) {
        return Ok(None);
    }
    Err(QuantizeError::ImportanceLength {
        tensor: t.name.clone(),
        len: v.len(),
        ne0: ne0 * ne2,
    }
    .into())
}

/// Everything that would stop the conversion part way, found before a byte is written: a
/// big-endian input, tensor data missing (a truncated file), quantized sources without
/// `allow_requantize`, types that cannot be converted or produced, missing importance values.
/// A uniform conversion's plan reads any byte order and converts any source with a float form.
pub fn check<'a, 'g: 'a>(
    input: impl Into<Input<'a, 'g>>,
    plan: &Plan,
    opts: &QuantizeOptions,
) -> Result<()> {
    check_with(input.into(), plan, opts.into())
}

fn check_with(input: Input<'_, '_>, plan: &Plan, s: Settings<'_>) -> Result<()> {
    let uniform = matches!(plan.kind, PlanKind::Uniform { .. });
    if !uniform && !input.is_little_endian() {
        return Err(QuantizeError::BigEndian.into());
    }
    for t in &plan.tensors {
        if let Some(offset) = input.missing_data(t.shard, t.index)? {
            return Err(Error::TensorDataMissing {
                tensor: t.name.clone(),
                offset,
            });
        }
        let imatrix = importance_of(t, s.importance)?;
        if t.needs_imatrix && imatrix.is_none() {
            return Err(QuantizeError::NeedsImatrix {
                tensor: t.name.clone(),
                ty: t.to,
            }
            .into());
        }
        if !t.converts() {
            continue;
        }
        let from = t.from;
        if uniform {
            if from.is_integer() || !quant::can_dequantize(from) {
                return Err(QuantizeError::CannotConvert {
                    tensor: t.name.clone(),
                    ty: from,
                }
                .into());
            }
        } else if from.is_quantized() {
            if !s.allow_requantize {
                return Err(QuantizeError::RequantizeRefused {
                    tensor: t.name.clone(),
                    ty: from,
                }
                .into());
            }
            if !quant::can_dequantize(from) {
                return Err(QuantizeError::CannotConvert {
                    tensor: t.name.clone(),
                    ty: from,
                }
                .into());
            }
        } else if !matches!(from, GgmlType::F32 | GgmlType::F16 | GgmlType::BF16) {
            return Err(QuantizeError::CannotConvert {
                tensor: t.name.clone(),
                ty: from,
            }
            .into());
        }
        if !can_encode(t.to, imatrix.is_some()) {
            return Err(QuantizeError::NoQuantizer {
                tensor: t.name.clone(),
                ty: t.to,
                weighted: imatrix.is_some(),
            }
            .into());
        }
    }
    Ok(())
}

/// Sets `key` the way ggml's `gguf_set_val_*` does: an existing pair is removed and the new one
/// appended.
fn set_last(b: &mut GgufBuilder<'_>, key: &str, v: OwnedValue) -> Result<()> {
    b.remove(key);
    b.set(key, v)
}

/// The output's header (the first shard's with `--keep-split`): see [`output_builders`].
pub fn output_builder<'a, 'g: 'a>(
    input: impl Into<Input<'a, 'g>>,
    plan: &Plan,
    opts: &QuantizeOptions,
) -> Result<GgufBuilder<'a>> {
    let mut all = output_builders(input, plan, opts)?;
    Ok(all.swap_remove(0))
}

/// The header of each output file. For a preset's plan the first holds the input's pairs in
/// order (its first shard's), then `general.quantization_version` and `general.file_type` (moved
/// to the end), no `split.*` keys, the overrides last. With `--keep-split`, the other shards
/// start empty, and when there are several every shard ends with `split.no`, `split.count` and
/// `split.tensors.count` (the tensors of the whole output), in that order, as llama-quantize sets
/// them. Each holds its tensors in the plan's order with their new types. A uniform conversion's
/// one output is the input's header in the plan's byte order, with the new types.
pub fn output_builders<'a, 'g: 'a>(
    input: impl Into<Input<'a, 'g>>,
    plan: &Plan,
    opts: &QuantizeOptions,
) -> Result<Vec<GgufBuilder<'a>>> {
    builders(input.into(), plan, opts.into())
}

fn builders<'a>(
    input: Input<'a, '_>,
    plan: &Plan,
    s: Settings<'_>,
) -> Result<Vec<GgufBuilder<'a>>> {
    let mut b = input.builder()?;
    let file_type = match plan.kind {
        PlanKind::Preset { file_type, .. } => file_type,
        PlanKind::Uniform { endian, .. } => {
            b.endian(endian);
            for t in plan.converted() {
                b.retype_tensor(t.index, t.to)?;
            }
            return Ok(vec![b]);
        }
    };
    set_last(
        &mut b,
        "general.quantization_version",
        OwnedValue::U32(QUANTIZATION_VERSION),
    )?;
    set_last(&mut b, "general.file_type", OwnedValue::U32(file_type))?;
    for k in ["split.no", "split.count", "split.tensors.count"] {
        b.remove(k);
    }
    for o in s.kv_overrides {
        set_last(&mut b, &o.key, o.value.clone())?;
    }
    if let (Some(n), Some(arch)) = (plan.block_count, input.architecture()) {
        let key = format!("{arch}.block_count");
        set_last(
            &mut b,
            &key,
            OwnedValue::U32(u32::try_from(n).unwrap_or(u32::MAX)),
        )?;
    }
    b.clear_tensors();
    let mut all = vec![b];
    all.resize_with(plan.output_shards.max(1), GgufBuilder::new);
    let n = all.len();
    if n > 1 {
        let too_many = || ShardError::TooManyShards {
            shards: n,
            tensors: plan.tensors.len(),
        };
        let count = u16::try_from(n).map_err(|_| too_many())?;
        let tensors = i32::try_from(plan.tensors.len()).map_err(|_| too_many())?;
        for (i, b) in all.iter_mut().enumerate() {
            set_last(b, SPLIT_NO, OwnedValue::U16(i as u16))?;
            set_last(b, SPLIT_COUNT, OwnedValue::U16(count))?;
            set_last(b, SPLIT_TENSORS_COUNT, OwnedValue::I32(tensors))?;
        }
    }
    for b in &mut all {
        // ggml pads the header to the alignment even when no tensor follows
        b.tensorless_padding(true);
    }
    for t in &plan.tensors {
        let b = &mut all[t.output_shard.min(n - 1)];
        if t.name == t.source_name {
            b.add_tensor_raw_name(input.name_bytes(t.shard, t.index)?, t.to, &t.shape, None)?;
        } else {
            b.add_tensor(&t.name, t.to, &t.shape)?;
        }
    }
    Ok(all)
}

/// The files the output of `plan` is written to: `out`, or with `--keep-split` one per shard,
/// named as llama.cpp names shards after `out` less a final `.gguf`
/// (`out-00001-of-00003.gguf`, ...; `-00001-of-00001` for an input that is not split).
pub fn output_paths(out: &Path, plan: &Plan) -> Vec<PathBuf> {
    if !plan.keep_split {
        return vec![out.to_path_buf()];
    }
    let prefix = match out.to_str().and_then(|s| s.strip_suffix(".gguf")) {
        Some(p) => PathBuf::from(p),
        None => out.to_path_buf(),
    };
    let n = plan.output_shards.max(1) as u32;
    (0..n).map(|i| shard_path(&prefix, i, n)).collect()
}

/// Carries out `plan` on `input` (opened from files), writing the [`output_paths`] of `out`
/// atomically (existing files only with `overwrite`), and returns them. Everything that can be
/// checked is checked first ([`check`]); a failure later leaves no output behind: every file is
/// written beside its target and renamed only once all of them are complete.
pub fn quantize_file<'a, 'g: 'a>(
    input: impl Into<Input<'a, 'g>>,
    out: &Path,
    plan: &Plan,
    opts: &QuantizeOptions,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<Vec<PathBuf>> {
    execute(input.into(), out, plan, opts.into(), overwrite, progress)
}

/// Carries out a uniform conversion's `plan` ([`plan_uniform`](super::plan_uniform)) on `g`
/// (opened from a file), writing `out` atomically (an existing file only with `overwrite`), as
/// [`quantize_file`] does: checked first, then converted on all threads in bounded memory.
pub fn convert_file(
    g: &Gguf<'_>,
    out: &Path,
    plan: &Plan,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<()> {
    execute(
        g.into(),
        out,
        plan,
        Settings::default(),
        overwrite,
        progress,
    )
    .map(|_| ())
}

fn execute(
    input: Input<'_, '_>,
    out: &Path,
    plan: &Plan,
    s: Settings<'_>,
    overwrite: bool,
    progress: Option<ProgressFn>,
) -> Result<Vec<PathBuf>> {
    check_with(input, plan, s)?;
    let builders = builders(input, plan, s)?;
    let paths = output_paths(out, plan);
    let to = plan.endian();
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = s.threads {
        pool = pool.num_threads(n.max(1));
    }
    let pool = pool
        .build()
        .map_err(|e| Error::io("starting the worker threads", std::io::Error::other(e)))?;
    let inputs = input.paths();
    let mut files = paths
        .iter()
        .map(|p| AtomicFile::create_from(p, overwrite, &inputs))
        .collect::<Result<Vec<_>>>()?;
    // the same callback, handed to each file in turn
    let shared = progress.map(|f| Rc::new(RefCell::new(f)));
    let mut floats = Vec::new();
    let mut bytes = Vec::new();
    for (shard, (b, file)) in builders.iter().zip(&mut files).enumerate() {
        let target = file.target().to_path_buf();
        let mut w = file.writer();
        let mut dw = b.write_header(&mut w)?;
        if let Some(f) = &shared {
            let f = Rc::clone(f);
            dw.on_progress(Box::new(move |k| (f.borrow_mut())(k)));
        }
        for t in plan.tensors.iter().filter(|t| t.output_shard == shard) {
            let mut held = input.data(t.shard, t.index, &t.name)?;
            if t.converts() {
                let imatrix = importance_of(t, s.importance)?;
                convert(
                    &pool,
                    t,
                    &mut held,
                    imatrix,
                    to,
                    &mut dw,
                    &mut floats,
                    &mut bytes,
                )
                .map_err(|e| WriteError::Requantize {
                    name: t.name.clone(),
                    source: Box::new(e),
                })?;
            } else {
                copy(&pool, t, &mut held, input, to, &mut dw, &mut bytes)?;
            }
        }
        dw.finish()?;
        w.flush()
            .map_err(|e| Error::io_at("writing the output", &target, e))?;
    }
    for f in files {
        f.commit()?;
    }
    Ok(paths)
}

/// Writes tensor `t` as it is (`source` in `t.from`), its byte order swapped when `to` differs:
/// a file's bytes in one piece, a made tensor's a bounded run of rows at a time.
fn copy<W: Write>(
    pool: &rayon::ThreadPool,
    t: &PlannedTensor,
    source: &mut TensorBytes<'_>,
    input: Input<'_, '_>,
    to: Endian,
    dw: &mut TensorDataWriter<'_, W>,
    bytes: &mut Vec<u8>,
) -> Result<()> {
    let endian = source.endian();
    if let TensorBytes::Held { data, .. } = source {
        if endian == to {
            return dw.write_tensor(data);
        }
        if let Some(info) = input.file_tensor(t.shard, t.index)? {
            return crate::write::swap_tensor(&info, dw, bytes);
        }
    }
    let too_large = || WriteError::TensorTooLarge {
        name: t.name.clone(),
    };
    let ne0 = t.shape.first().copied().unwrap_or(1).max(1);
    let total_rows = t.n_elements() / ne0;
    if total_rows == 0 {
        return dw.write_part(&[]);
    }
    let row_bytes =
        usize::try_from(t.from.bytes_for(ne0).ok_or_else(too_large)?).map_err(|_| too_large())?;
    let rows_per_chunk = (CHUNK_ELEMS as u64 / ne0).max(1);
    let mut row = 0u64;
    while row < total_rows {
        let end = (row + rows_per_chunk).min(total_rows);
        let s = &mut *source;
        let part = pool.install(move || s.rows(row..end, row_bytes, &t.name))?;
        if endian == to {
            dw.write_part(part)?;
        } else {
            bytes.clear();
            bytes.extend_from_slice(part);
            swap_tensor_data(t.from, bytes)?;
            dw.write_part(bytes)?;
        }
        row = end;
    }
    Ok(())
}

/// Converts tensor `t` (`source` in `t.from`) to `t.to` in byte order `to`, a run of rows at a
/// time, never across a matrix (expert) boundary, each with its own importance values.
#[allow(clippy::too_many_arguments)]
fn convert<W: Write>(
    pool: &rayon::ThreadPool,
    t: &PlannedTensor,
    source: &mut TensorBytes<'_>,
    imatrix: Option<&[f32]>,
    to: Endian,
    dw: &mut TensorDataWriter<'_, W>,
    floats: &mut Vec<f32>,
    bytes: &mut Vec<u8>,
) -> Result<()> {
    let ne0 = t.shape.first().copied().unwrap_or(1).max(1);
    let ne1 = t.shape.get(1).copied().unwrap_or(1);
    let ne2 = t.shape.get(2).copied().unwrap_or(1).max(1);
    let total = t.n_elements();
    if total == 0 {
        // an empty tensor still takes its turn (and its padding) in the output
        return dw.write_part(&[]);
    }
    let endian = source.endian();
    let too_large = || WriteError::TensorTooLarge {
        name: t.name.clone(),
    };
    let ne0u = usize::try_from(ne0).map_err(|_| too_large())?;
    let in_row = t.from.bytes_for(ne0).ok_or_else(too_large)? as usize;
    let out_row = t.to.bytes_for(ne0).ok_or_else(too_large)? as usize;
    let rows_per_chunk = (CHUNK_ELEMS / ne0u).max(1) as u64;
    let matrices = total / (ne0 * ne1.max(1));
    // Rows per parallel task: about 64 Ki floats, at least one row.
    let task_rows = (65536 / ne0u).max(1);
    for m in 0..matrices {
        let weights = imatrix.map(|w| {
            let e = (m % ne2) as usize;
            &w[e * ne0u..(e + 1) * ne0u]
        });
        let mut row = 0u64;
        while row < ne1.max(1) {
            let rows = rows_per_chunk.min(ne1.max(1) - row) as usize;
            let first = m * ne1.max(1) + row;
            floats.clear();
            floats.resize(rows * ne0u, 0.0);
            bytes.clear();
            bytes.resize(rows * out_row, 0);
            let (f, b) = (&mut *floats, &mut *bytes);
            pool.install(|| {
                let src = source.rows(first..first + rows as u64, in_row, &t.name)?;
                quant::dequantize_par(t.from, src, endian, f)?;
                b.par_chunks_mut(task_rows * out_row)
                    .zip(f.par_chunks(task_rows * ne0u))
                    .try_for_each(|(o, s)| encode_rows(t.to, s, ne0u, weights, o))
            })?;
            if to == Endian::Big {
                swap_tensor_data(t.to, bytes)?;
            }
            dw.write_part(bytes)?;
            row += rows as u64;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantize::{plan_tensors, ModelInfo, Preset, TensorDesc};

    /// Two layers over two shards, in the file order a converter writes (not the loader's).
    fn descs() -> Vec<TensorDesc> {
        let mut v = Vec::new();
        for (shard, names) in [
            (0, &["token_embd.weight", "blk.0.attn_q.weight"][..]),
            (1, &["blk.1.attn_q.weight", "output.weight"][..]),
        ] {
            for (index, name) in names.iter().enumerate() {
                v.push(TensorDesc {
                    shard,
                    index,
                    offset: 1024 * index as u64,
                    name: name.to_string(),
                    ty: GgmlType::F16,
                    shape: vec![256, 8],
                });
            }
        }
        v
    }

    fn model() -> ModelInfo {
        ModelInfo {
            arch: "llama".into(),
            n_layer: 2,
            n_head: 2,
            n_head_kv: 2,
            n_expert: 0,
        }
    }

    #[test]
    fn keep_split_keeps_each_tensor_in_its_shard_in_file_order() {
        let mut opts = QuantizeOptions::new(Preset::parse("Q8_0").unwrap());
        let whole = plan_tensors(&descs(), &model(), Some(1), &opts).unwrap();
        let names = |p: &Plan| -> Vec<(String, usize)> {
            p.tensors
                .iter()
                .map(|t| (t.name.clone(), t.output_shard))
                .collect()
        };
        // the loader's order: unnumbered tensors first, by name, then by layer
        assert_eq!(
            names(&whole),
            [
                ("output.weight".to_string(), 0),
                ("token_embd.weight".to_string(), 0),
                ("blk.0.attn_q.weight".to_string(), 0),
                ("blk.1.attn_q.weight".to_string(), 0),
            ]
        );
        assert_eq!(
            output_paths(Path::new("q.gguf"), &whole),
            [Path::new("q.gguf")]
        );
        opts.keep_split = true;
        let kept = plan_tensors(&descs(), &model(), Some(1), &opts).unwrap();
        assert_eq!(kept.output_shards, 2);
        assert_eq!(
            names(&kept),
            [
                ("token_embd.weight".to_string(), 0),
                ("blk.0.attn_q.weight".to_string(), 0),
                ("blk.1.attn_q.weight".to_string(), 1),
                ("output.weight".to_string(), 1),
            ]
        );
        assert_eq!(
            output_paths(Path::new("out/q.gguf"), &kept),
            [
                Path::new("out/q-00001-of-00002.gguf"),
                Path::new("out/q-00002-of-00002.gguf")
            ]
        );
        // a last shard left empty by pruning is not written (llama-quantize counts the shards
        // of the tensors it keeps); one in the middle cannot be
        opts.prune_layers = vec![1];
        let mut d = descs();
        d.retain(|d| d.name.starts_with("blk."));
        assert_eq!(
            plan_tensors(&d, &model(), Some(1), &opts)
                .unwrap()
                .output_shards,
            1
        );
        let mut d = descs();
        d[3].shard = 2;
        assert!(matches!(
            plan_tensors(&d, &model(), Some(1), &opts),
            Err(Error::Quantize(QuantizeError::EmptyOutputShard {
                shard: 2,
                count: 3
            }))
        ));
    }
}
