//! Tensor data codecs: dequantization of every ggml type to f32, quantization from f32, and byte
//! order swapping, all bit-identical to ggml's reference C code.
//!
//! ```
//! use ggufkit::{quant, Endian, GgmlType};
//!
//! let x: Vec<f32> = (0..64).map(|i| i as f32 / 8.0 - 4.0).collect();
//! let mut q = Vec::new();
//! quant::quantize(GgmlType::Q8_0, &x, &mut q)?;
//! assert_eq!(q.len(), 2 * 34);
//! let y = quant::dequantize_to_vec(GgmlType::Q8_0, &q, Endian::Little)?;
//! assert!(x.iter().zip(&y).all(|(a, b)| (a - b).abs() < 0.02));
//! # Ok::<(), ggufkit::Error>(())
//! ```
//!
//! # What each type gives
//! * Every type with a float form in ggml dequantizes exactly as ggml's `to_float` does, including
//!   NaN/Inf scales and the sign of zero.
//! * q8_k dequantizes as ggml's `dequantize_row_q8_K` (`d * q`, f32 scale).
//! * q8_1 (no float form in ggml) dequantizes as `d * q`, like q8_0; its `s` field is ignored.
//! * f64 rounds to the nearest f32; i8/i16/i32/i64 convert to the nearest f32 (for statistics; an
//!   export keeps their own dtype).
//! * Quantization ([`quantize`]) gives the bytes of `ggml_quantize_chunk(type, ..., imatrix=NULL)`,
//!   which is the reference quantizer `quantize_row_*_ref` for every type but iq4_nl (ggml's chunk
//!   path searches 7 scales there; [`quantize_ref`] gives the `_ref` bytes). q8_1 and q8_k use
//!   their `_ref` quantizers. Quantized output is always little-endian.
//!
//! # Byte order
//! Decoders take the [`Endian`] of the data. Big-endian data is the little-endian block with each
//! multi-byte field reversed ([`Layout::fields`]); [`byteswap_blocks`] converts between the two.
//!
//! # Layout of the code
//! `layout` (block layouts), `float` (f32/f16/bf16/f64/integers and the scalar conversions),
//! `legacy` (q4_0..q8_1), `kquants` (q2_k..q8_k), `iq` + `iq_grids` (i-quants), `iq_quant`
//! (quantizers of iq3_xxs, iq3_s, iq2_s, iq1_m), `ternary` (tq1_0, tq2_0), `fp4` (mxfp4, nvfp4),
//! `q1_q2` (q1_0, q2_0) and `simd`, the only module with `unsafe` (AVX2/F16C kernels chosen at
//! run time, same bits as the scalar code, in files by family as these are); `streaming` says when a decoder's output is large
//! enough to bypass the cache.

mod float;
mod fp4;
mod imatrix;
mod iq;
mod iq2_quant;
mod iq_grids;
mod iq_quant;
mod kquants;
mod ksearch;
mod layout;
mod legacy;
mod q1_q2;
mod simd;
mod streaming;
mod ternary;
mod weighted;

use rayon::prelude::*;

use crate::endian::Endian;
use crate::error::{QuantError, Result};
use crate::types::GgmlType;

pub use float::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
pub use imatrix::{ImatrixFormat, ImportanceMatrix};
pub use layout::{layout, Field, Layout};

type DequantFn = fn(&[u8], &mut [f32]);
type QuantFn = fn(&[f32], &mut [u8]);

fn dequant_fn(ty: GgmlType) -> Option<DequantFn> {
    use GgmlType as T;
    Some(match ty {
        T::F32 => float::dequant_f32,
        T::F16 => float::dequant_f16,
        T::BF16 => float::dequant_bf16,
        T::F64 => float::dequant_f64,
        T::I8 => float::dequant_i8,
        T::I16 => float::dequant_i16,
        T::I32 => float::dequant_i32,
        T::I64 => float::dequant_i64,
        T::Q4_0 => legacy::dequant_q4_0,
        T::Q4_1 => legacy::dequant_q4_1,
        T::Q5_0 => legacy::dequant_q5_0,
        T::Q5_1 => legacy::dequant_q5_1,
        T::Q8_0 => legacy::dequant_q8_0,
        T::Q8_1 => legacy::dequant_q8_1,
        T::Q2_K => kquants::dequant_q2_k,
        T::Q3_K => kquants::dequant_q3_k,
        T::Q4_K => kquants::dequant_q4_k,
        T::Q5_K => kquants::dequant_q5_k,
        T::Q6_K => kquants::dequant_q6_k,
        T::Q8_K => kquants::dequant_q8_k,
        T::IQ2_XXS => iq::dequant_iq2_xxs,
        T::IQ2_XS => iq::dequant_iq2_xs,
        T::IQ2_S => iq::dequant_iq2_s,
        T::IQ3_XXS => iq::dequant_iq3_xxs,
        T::IQ3_S => iq::dequant_iq3_s,
        T::IQ1_S => iq::dequant_iq1_s,
        T::IQ1_M => iq::dequant_iq1_m,
        T::IQ4_NL => iq::dequant_iq4_nl,
        T::IQ4_XS => iq::dequant_iq4_xs,
        T::TQ1_0 => ternary::dequant_tq1_0,
        T::TQ2_0 => ternary::dequant_tq2_0,
        T::MXFP4 => fp4::dequant_mxfp4,
        T::NVFP4 => fp4::dequant_nvfp4,
        T::Q1_0 => q1_q2::dequant_q1_0,
        T::Q2_0 => q1_q2::dequant_q2_0,
        T::Q4_2
        | T::Q4_3
        | T::Q4_0_4_4
        | T::Q4_0_4_8
        | T::Q4_0_8_8
        | T::IQ4_NL_4_4
        | T::IQ4_NL_4_8
        | T::IQ4_NL_8_8 => return None,
    })
}

fn quant_fn(ty: GgmlType) -> Option<QuantFn> {
    use GgmlType as T;
    Some(match ty {
        T::F32 => float::quant_f32,
        T::F16 => float::quant_f16,
        T::BF16 => float::quant_bf16,
        T::F64 => float::quant_f64,
        T::Q4_0 => legacy::quant_q4_0,
        T::Q4_1 => legacy::quant_q4_1,
        T::Q5_0 => legacy::quant_q5_0,
        T::Q5_1 => legacy::quant_q5_1,
        T::Q8_0 => legacy::quant_q8_0,
        T::Q8_1 => legacy::quant_q8_1,
        T::Q2_K => kquants::quant_q2_k,
        T::Q3_K => kquants::quant_q3_k,
        T::Q4_K => kquants::quant_q4_k,
        T::Q5_K => kquants::quant_q5_k,
        T::Q6_K => kquants::quant_q6_k,
        T::Q8_K => kquants::quant_q8_k,
        T::TQ1_0 => ternary::quant_tq1_0,
        T::TQ2_0 => ternary::quant_tq2_0,
        T::MXFP4 => fp4::quant_mxfp4,
        T::NVFP4 => fp4::quant_nvfp4,
        T::Q1_0 => q1_q2::quant_q1_0,
        T::Q2_0 => q1_q2::quant_q2_0,
        T::IQ4_NL => iq::quant_iq4_nl,
        T::IQ4_XS => iq::quant_iq4_xs,
        T::IQ3_XXS => iq_quant::quant_iq3_xxs,
        T::IQ3_S => iq_quant::quant_iq3_s,
        T::IQ2_S => iq_quant::quant_iq2_s,
        T::IQ1_M => iq_quant::quant_iq1_m,
        _ => return None,
    })
}

/// True when [`dequantize`] supports `ty`: every type a tensor may have (not the removed ids).
pub fn can_dequantize(ty: GgmlType) -> bool {
    dequant_fn(ty).is_some()
}

/// True when [`quantize`] supports `ty`.
pub fn can_quantize(ty: GgmlType) -> bool {
    quant_fn(ty).is_some()
}

fn layout_of(ty: GgmlType) -> Result<&'static Layout> {
    layout(ty).ok_or_else(|| QuantError::RemovedType { ty }.into())
}

/// Checks that `bytes` is whole blocks and `elems` the matching element count.
fn check_sizes(l: &Layout, bytes: usize, elems: usize) -> Result<()> {
    if bytes % l.block_bytes != 0 {
        return Err(QuantError::PartialBlock { ty: l.ty, bytes }.into());
    }
    let blocks = bytes / l.block_bytes;
    if blocks.checked_mul(l.block_elems) != Some(elems) {
        return Err(QuantError::ElementCount {
            ty: l.ty,
            bytes,
            holds: blocks.saturating_mul(l.block_elems),
            expected: elems,
        }
        .into());
    }
    Ok(())
}

/// Number of elements `data` holds as whole blocks of `ty`.
pub fn element_count(ty: GgmlType, data_len: usize) -> Result<usize> {
    let l = layout_of(ty)?;
    check_sizes(
        l,
        data_len,
        (data_len / l.block_bytes).saturating_mul(l.block_elems),
    )?;
    Ok(data_len / l.block_bytes * l.block_elems)
}

/// Dequantizes `data` (whole blocks of `ty`, stored in byte order `endian`) into `out`, which must
/// hold exactly the elements of those blocks.
pub fn dequantize(ty: GgmlType, data: &[u8], endian: Endian, out: &mut [f32]) -> Result<()> {
    decode(
        ty,
        data,
        endian,
        out,
        streaming::streams(data.len(), std::mem::size_of_val(out)),
    )
}

/// [`dequantize`], with non-temporal stores when `stream` (and the type has such a decoder).
fn decode(ty: GgmlType, data: &[u8], endian: Endian, out: &mut [f32], stream: bool) -> Result<()> {
    let l = layout_of(ty)?;
    let f = dequant_fn(ty).ok_or(QuantError::NoDequantizer { ty })?;
    check_sizes(l, data.len(), out.len())?;
    let f = |data: &[u8], out: &mut [f32]| {
        if !(stream && simd::dequant_streamed(ty, data, out)) {
            f(data, out);
        }
    };
    if endian == Endian::Little || l.fields.is_empty() {
        f(data, out);
        return Ok(());
    }
    // Big-endian: swap a few KiB of blocks at a time into a buffer, then decode as little-endian.
    let blocks_per_chunk = (16384 / l.block_bytes).max(1);
    let mut buf = vec![0u8; blocks_per_chunk * l.block_bytes];
    for (d, o) in data
        .chunks(blocks_per_chunk * l.block_bytes)
        .zip(out.chunks_mut(blocks_per_chunk * l.block_elems))
    {
        let b = &mut buf[..d.len()];
        b.copy_from_slice(d);
        layout::swap_fields(l, b);
        f(b, o);
    }
    Ok(())
}

/// [`dequantize`] into a new vector.
pub fn dequantize_to_vec(ty: GgmlType, data: &[u8], endian: Endian) -> Result<Vec<f32>> {
    let n = element_count(ty, data.len())?;
    let mut out = vec![0f32; n];
    dequantize(ty, data, endian, &mut out)?;
    Ok(out)
}

/// Blocks per parallel task of [`dequantize_par`] over `blocks` blocks: about eight tasks per
/// thread of the pool, so work-stealing evens out a thread that falls behind, and never fewer
/// than 64 Ki elements (256 KiB of output) each, so the cost of a task (a few microseconds of
/// splitting and stealing) stays far below its work.
fn par_blocks(l: &Layout, blocks: usize) -> usize {
    let min = (65536 / l.block_elems).max(1);
    let per_thread = blocks.div_ceil(rayon::current_num_threads().max(1) * 8);
    per_thread.max(min)
}

/// Work that one thread finishes in less than this stays on it. Handing work to rayon's pool
/// from outside it wakes the workers and, at the end, the caller: on a virtual machine that
/// costs 100 µs or more, and the simple types, bound by memory more than by arithmetic, gain
/// little from a second core (BENCHMARKS.md, "Codecs against ggml").
const SERIAL_BELOW: std::time::Duration = std::time::Duration::from_micros(600);

/// Bytes of output per microsecond that no decoder exceeds on one thread (64 GB/s; a core's
/// stores reach well under half of that). An output that takes longer than [`SERIAL_BELOW`] even
/// at this pace goes to the pool at once: timing runs first would leave them serial.
const FASTEST_WRITE_PER_MICRO: usize = 64_000;

/// [`dequantize`] on all threads of rayon's pool (same result, split into runs of blocks). An
/// output too large to decode in 600 µs on one thread goes straight to the pool; for a smaller
/// one the first two runs are decoded and timed on the calling thread, and when the rest would
/// take less than 600 µs at the faster run's pace, the calling thread does the rest too.
pub fn dequantize_par(ty: GgmlType, data: &[u8], endian: Endian, out: &mut [f32]) -> Result<()> {
    let l = layout_of(ty)?;
    if !can_dequantize(ty) {
        return Err(QuantError::NoDequantizer { ty }.into());
    }
    check_sizes(l, data.len(), out.len())?;
    let nb = par_blocks(l, data.len() / l.block_bytes);
    let (task_bytes, task_elems) = (nb * l.block_bytes, nb * l.block_elems);
    let out_bytes = std::mem::size_of_val(out);
    // whether the output bypasses the cache depends on the whole decode, not on a task's part
    let stream = streaming::streams(data.len(), out_bytes);
    if task_bytes >= data.len() || rayon::current_num_threads() <= 1 {
        // one task, or one thread to run them: no pool round trip (it would wake a sleeping
        // worker and leave the calling thread waiting for it)
        return decode(ty, data, endian, out, stream);
    }
    if (out_bytes / FASTEST_WRITE_PER_MICRO) as u128 >= SERIAL_BELOW.as_micros() {
        return decode_on_pool(ty, data, endian, out, (task_bytes, task_elems), stream);
    }
    let (first, rest) = data.split_at(task_bytes);
    let (first_out, rest_out) = out.split_at_mut(task_elems);
    let started = std::time::Instant::now();
    decode(ty, first, endian, first_out, stream)?;
    let first_took = started.elapsed();
    let (second, rest) = rest.split_at(task_bytes.min(rest.len()));
    let (second_out, rest_out) = rest_out.split_at_mut(task_elems.min(rest_out.len()));
    let started = std::time::Instant::now();
    decode(ty, second, endian, second_out, stream)?;
    // the faster of the two: a cold cache or an interruption only ever slows a run down
    let pace = started.elapsed().min(first_took);
    let tasks_left = u32::try_from(rest.len().div_ceil(task_bytes)).unwrap_or(u32::MAX);
    if pace.saturating_mul(tasks_left) < SERIAL_BELOW {
        return decode(ty, rest, endian, rest_out, stream);
    }
    decode_on_pool(ty, rest, endian, rest_out, (task_bytes, task_elems), stream)
}

/// [`decode`] of `data` into `out` in tasks of `task` (bytes, elements), on rayon's pool.
fn decode_on_pool(
    ty: GgmlType,
    data: &[u8],
    endian: Endian,
    out: &mut [f32],
    (task_bytes, task_elems): (usize, usize),
    stream: bool,
) -> Result<()> {
    out.par_chunks_mut(task_elems)
        .zip(data.par_chunks(task_bytes))
        .try_for_each(|(o, d)| decode(ty, d, endian, o, stream))
}

/// Quantizes `src` to `ty` and appends the little-endian blocks to `out`. `src.len()` must be a
/// multiple of the block size. Rows are irrelevant: every format quantizes block by block.
pub fn quantize(ty: GgmlType, src: &[f32], out: &mut Vec<u8>) -> Result<()> {
    let l = layout_of(ty)?;
    let start = out.len();
    let bytes = quant_len(l, src.len())?;
    out.resize(start + bytes, 0);
    quantize_into(ty, src, &mut out[start..])
}

fn quant_len(l: &Layout, n: usize) -> Result<usize> {
    if n % l.block_elems != 0 {
        return Err(QuantError::PartialBlockElements {
            ty: l.ty,
            elements: n,
        }
        .into());
    }
    Ok(n / l.block_elems * l.block_bytes)
}

/// Like [`quantize`], but through ggml's `from_float_ref` path (`quantize_row_*_ref`). Identical
/// to [`quantize`] for every type except iq4_nl, whose reference searches no extra scales
/// (`ntry = -1`, where `ggml_quantize_chunk` uses 7).
pub fn quantize_ref(ty: GgmlType, src: &[f32], out: &mut Vec<u8>) -> Result<()> {
    let l = layout_of(ty)?;
    let f = quant_ref_fn(ty).ok_or(QuantError::NoQuantizer { ty })?;
    let bytes = quant_len(l, src.len())?;
    let start = out.len();
    out.resize(start + bytes, 0);
    f(src, &mut out[start..]);
    Ok(())
}

fn quant_ref_fn(ty: GgmlType) -> Option<QuantFn> {
    match ty {
        GgmlType::IQ4_NL => Some(iq::quant_iq4_nl_ref),
        _ => quant_fn(ty),
    }
}

/// Quantizes `src` into `out`, which must be exactly the size of the blocks.
pub fn quantize_into(ty: GgmlType, src: &[f32], out: &mut [u8]) -> Result<()> {
    let l = layout_of(ty)?;
    let f = quant_fn(ty).ok_or(QuantError::NoQuantizer { ty })?;
    check_sizes(l, out.len(), src.len())?;
    f(src, out);
    Ok(())
}

/// [`quantize_into`] on all threads of rayon's pool (same bytes).
pub fn quantize_par(ty: GgmlType, src: &[f32], out: &mut [u8]) -> Result<()> {
    let l = layout_of(ty)?;
    if !can_quantize(ty) {
        return Err(QuantError::NoQuantizer { ty }.into());
    }
    check_sizes(l, out.len(), src.len())?;
    let nb = (4096 / l.block_elems).max(1);
    out.par_chunks_mut(nb * l.block_bytes)
        .zip(src.par_chunks(nb * l.block_elems))
        .try_for_each(|(o, s)| quantize_into(ty, s, o))
}

/// A row quantizer with importance weights: one row, its importance (one weight per column),
/// the row's blocks.
type RowFn = fn(&[f32], &[f32], &mut [u8]);

/// The quantizer `ggml_quantize_chunk` runs when given an importance matrix, for the types whose
/// quantization reads it (the others ignore it: q8_0, tq1_0, tq2_0, mxfp4, nvfp4, q1_0, q2_0 and
/// the float types).
fn importance_fn(ty: GgmlType) -> Option<RowFn> {
    use GgmlType as T;
    Some(match ty {
        T::Q4_0 => weighted::quant_q4_0_w,
        T::Q4_1 => weighted::quant_q4_1_w,
        T::Q5_0 => weighted::quant_q5_0_w,
        T::Q5_1 => weighted::quant_q5_1_w,
        T::Q2_K => weighted::quant_q2_k_w,
        T::Q3_K => weighted::quant_q3_k_w,
        T::Q4_K => weighted::quant_q4_k_w,
        T::Q5_K => weighted::quant_q5_k_w,
        T::Q6_K => |x, q, o| kquants::quant_q6_k_w(x, Some(q), o),
        T::IQ2_XXS => iq2_quant::quant_iq2_xxs_w,
        T::IQ2_XS => iq2_quant::quant_iq2_xs_w,
        T::IQ1_S => iq2_quant::quant_iq1_s_w,
        T::IQ2_S => |x, q, o| iq_quant::quant_iq2_s_w(x, Some(q), o),
        T::IQ3_XXS => |x, q, o| iq_quant::quant_iq3_xxs_w(x, Some(q), o),
        T::IQ3_S => |x, q, o| iq_quant::quant_iq3_s_w(x, Some(q), o),
        T::IQ1_M => |x, q, o| iq_quant::quant_iq1_m_w(x, Some(q), o),
        T::IQ4_NL => |x, q, o| iq::quant_iq4_nl_w(x, Some(q), o, 7),
        T::IQ4_XS => |x, q, o| iq::quant_iq4_xs_w(x, Some(q), o),
        _ => return None,
    })
}

/// True when ggml's quantization of `ty` reads an importance matrix when given one (so
/// [`quantize_rows`] with importance differs from without).
pub fn uses_importance(ty: GgmlType) -> bool {
    importance_fn(ty).is_some()
}

/// True when ggml cannot quantize `ty` without an importance matrix
/// (`ggml_quantize_requires_imatrix`: iq2_xxs, iq2_xs, iq1_s).
pub fn requires_importance(ty: GgmlType) -> bool {
    matches!(ty, GgmlType::IQ2_XXS | GgmlType::IQ2_XS | GgmlType::IQ1_S)
}

/// True when [`quantize_rows`] supports `ty` (with an importance matrix when
/// [`requires_importance`]).
pub fn can_quantize_rows(ty: GgmlType) -> bool {
    can_quantize(ty) || uses_importance(ty)
}

/// Checks the arguments of [`quantize_rows`]: the row length, whole rows, the output size and
/// the importance.
fn check_rows(
    ty: GgmlType,
    src: usize,
    n_per_row: usize,
    importance: Option<&[f32]>,
    out: usize,
) -> Result<&'static Layout> {
    let l = layout_of(ty)?;
    if !can_quantize_rows(ty) {
        return Err(QuantError::NoQuantizer { ty }.into());
    }
    if n_per_row == 0 || n_per_row % l.block_elems != 0 {
        return Err(QuantError::RowLength { ty, n_per_row }.into());
    }
    if src % n_per_row != 0 {
        return Err(QuantError::PartialRow {
            ty,
            elements: src,
            n_per_row,
        }
        .into());
    }
    check_sizes(l, out, src)?;
    match importance {
        Some(w) if w.len() != n_per_row => Err(QuantError::ImportanceLength {
            ty,
            expected: n_per_row,
            found: w.len(),
        }
        .into()),
        None if requires_importance(ty) => Err(QuantError::ImportanceRequired { ty }.into()),
        _ => Ok(l),
    }
}

/// Quantizes rows of `n_per_row` floats (`src`, whole rows) to `ty` into `out` (exactly the
/// rows' blocks), with optional per-column importance weights (`importance`, `n_per_row`
/// values, the same for every row): the bytes of ggml's
/// `ggml_quantize_chunk(ty, src, out, 0, nrows, n_per_row, importance)`.
///
/// Without importance this is [`quantize_into`]. Types that ignore an importance matrix in ggml
/// (q8_0, tq1_0, tq2_0, mxfp4, nvfp4, q1_0, q2_0, floats) give the same bytes either way; iq2_xxs,
/// iq2_xs and iq1_s need one ([`QuantError::ImportanceRequired`]). llama-quantize's importance of
/// a tensor is [`ImportanceMatrix::get`] (for a tensor with experts, the slice of each expert's
/// rows).
pub fn quantize_rows(
    ty: GgmlType,
    src: &[f32],
    n_per_row: usize,
    importance: Option<&[f32]>,
    out: &mut [u8],
) -> Result<()> {
    let l = check_rows(ty, src.len(), n_per_row, importance, out.len())?;
    quantize_rows_unchecked(ty, l, src, n_per_row, importance, out);
    Ok(())
}

fn quantize_rows_unchecked(
    ty: GgmlType,
    l: &Layout,
    src: &[f32],
    n_per_row: usize,
    importance: Option<&[f32]>,
    out: &mut [u8],
) {
    match (importance, importance_fn(ty)) {
        (Some(w), Some(f)) => {
            let row_bytes = n_per_row / l.block_elems * l.block_bytes;
            for (x, o) in src
                .chunks_exact(n_per_row)
                .zip(out.chunks_exact_mut(row_bytes))
            {
                f(x, w, o);
            }
        }
        _ => {
            if let Some(f) = quant_fn(ty) {
                f(src, out);
            }
        }
    }
}

/// [`quantize_rows`] on all threads of rayon's pool, split into runs of whole rows (same bytes).
pub fn quantize_rows_par(
    ty: GgmlType,
    src: &[f32],
    n_per_row: usize,
    importance: Option<&[f32]>,
    out: &mut [u8],
) -> Result<()> {
    let l = check_rows(ty, src.len(), n_per_row, importance, out.len())?;
    if src.is_empty() {
        return Ok(());
    }
    let row_bytes = n_per_row / l.block_elems * l.block_bytes;
    // About 16 Ki elements per task, at least one row.
    let rows = (16384 / n_per_row).max(1);
    out.par_chunks_mut(rows * row_bytes)
        .zip(src.par_chunks(rows * n_per_row))
        .for_each(|(o, s)| quantize_rows_unchecked(ty, l, s, n_per_row, importance, o));
    Ok(())
}

/// Reverses the byte order of every multi-byte field of every block of `ty` in `data`, converting
/// little-endian blocks to big-endian ones and back (f32/f16/bf16/f64/i16/i32/i64 elements are
/// their own single field; packed bits and i8 stay as they are).
pub fn byteswap_blocks(ty: GgmlType, data: &mut [u8]) -> Result<()> {
    let l = layout_of(ty)?;
    if data.len() % l.block_bytes != 0 {
        return Err(QuantError::PartialBlock {
            ty,
            bytes: data.len(),
        }
        .into());
    }
    layout::swap_fields(l, data);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// C arithmetic the reference code relies on, shared by the families.

/// ggml's `nearest_int`: rounds to nearest, ties to even, through the 1.5·2^23 trick (garbage in,
/// the same garbage out, for |x| > 2^22).
#[inline(always)]
pub(crate) fn nearest_int(fval: f32) -> i32 {
    let val = fval + 12_582_912.0;
    (val.to_bits() & 0x007f_ffff) as i32 - 0x0040_0000
}

/// C's float → int conversion as x86-64 compiles it (`cvttss2si`): truncation toward zero, and
/// `i32::MIN` for NaN and values out of range. Narrower C targets (`(int8_t)x`) keep the low bits.
#[inline(always)]
pub(crate) fn c_trunc_i32(x: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        x as i32
    } else {
        i32::MIN
    }
}

/// glibc's `lroundf` on x86-64: half away from zero; `i64::MIN` for NaN and out of range.
#[inline(always)]
pub(crate) fn c_lroundf(x: f32) -> i64 {
    let r = x.round();
    if (-9.223_372e18..9.223_372e18).contains(&r) {
        r as i64
    } else {
        i64::MIN
    }
}

/// The element with the largest magnitude, sign kept (the first one on ties; 0 for an empty or
/// all-NaN slice), as ggml's quantizers find their scale.
#[inline]
pub(crate) fn signed_absmax(x: &[f32]) -> f32 {
    let mut amax = 0.0f32;
    let mut max = 0.0f32;
    for &v in x {
        if amax < v.abs() {
            amax = v.abs();
            max = v;
        }
    }
    max
}

/// ggml's `MAX(a, b)` macro: `a > b ? a : b` (NaN handling included).
#[inline(always)]
pub(crate) fn fmax_c(a: f32, b: f32) -> f32 {
    if a > b {
        a
    } else {
        b
    }
}

#[cfg(test)]
mod simd_quant_tests;
#[cfg(test)]
mod tests;
