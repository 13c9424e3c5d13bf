//! The ternary formats of BitNet b1.58 and TriLMs: tq1_0 (base-3 packing, 1.6875 bits per weight)
//! and tq2_0 (2 bits per weight). Both have one f16 scale per 256 elements, stored last.

#![forbid(unsafe_code)]

use super::float::{f16_le, put_f16};
use super::layout::block;
use super::{c_lroundf, fmax_c};
const POW3: [u8; 5] = [1, 3, 9, 27, 81];

/// The trit in the top position of a base-3 fixed-point byte, after `q * 3^n` (mod 256).
#[inline(always)]
fn trit(q: u8, n: usize) -> f32 {
    let q = q.wrapping_mul(POW3[n]);
    (((u16::from(q) * 3) >> 8) as i32 - 1) as f32
}

pub(crate) fn dequant_tq1_0(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_tq1_0(data, out) {
        return;
    }
    dequant_tq1_0_scalar(data, out);
}

pub(crate) fn dequant_tq1_0_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::TQ1_0.bytes)
        .zip(out.chunks_exact_mut(block::TQ1_0.elems))
    {
        let d = f16_le(b, 52);
        let (y0, rest) = y.split_at_mut(160);
        let (y1, y2) = rest.split_at_mut(80);
        for (n, yn) in y0.chunks_exact_mut(32).enumerate() {
            for (o, &q) in yn.iter_mut().zip(&b[0..32]) {
                *o = trit(q, n) * d;
            }
        }
        for (n, yn) in y1.chunks_exact_mut(16).enumerate() {
            for (o, &q) in yn.iter_mut().zip(&b[32..48]) {
                *o = trit(q, n) * d;
            }
        }
        dequant_tq1_0_tail(b, y2);
    }
}

/// The last 16 elements of a tq1_0 block (four per `qh` byte).
pub(crate) fn dequant_tq1_0_tail(b: &[u8], y2: &mut [f32]) {
    let d = f16_le(b, 52);
    for (n, yn) in y2.chunks_exact_mut(4).enumerate() {
        for (o, &q) in yn.iter_mut().zip(&b[48..52]) {
            *o = trit(q, n) * d;
        }
    }
}

pub(crate) fn dequant_tq2_0(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_tq2_0(data, out) {
        return;
    }
    dequant_tq2_0_scalar(data, out);
}

pub(crate) fn dequant_tq2_0_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::TQ2_0.bytes)
        .zip(out.chunks_exact_mut(block::TQ2_0.elems))
    {
        let d = f16_le(b, 64);
        for (qs, y) in b[0..64].chunks_exact(32).zip(y.chunks_exact_mut(128)) {
            for (l, yl) in y.chunks_exact_mut(32).enumerate() {
                for (o, &q) in yl.iter_mut().zip(qs) {
                    *o = (i32::from((q >> (2 * l)) & 3) - 1) as f32 * d;
                }
            }
        }
    }
}

#[inline]
fn amax_and_inverse(x: &[f32]) -> (f32, f32) {
    let d = x.iter().fold(0.0f32, |m, &v| fmax_c(m, v.abs()));
    (d, if d != 0.0 { 1.0 / d } else { 0.0 })
}

/// `lroundf(x * id) + 1`, as the byte arithmetic of ggml keeps it (mod 256).
#[inline(always)]
fn tern(x: f32, id: f32) -> u8 {
    (c_lroundf(x * id) as u8).wrapping_add(1)
}

/// Packs `n` trits (first one most significant) into a byte as base-3 fixed point (ceiling).
#[inline(always)]
fn pack5(trits: impl Iterator<Item = u8>) -> u8 {
    let q = trits.fold(0u8, |q, t| q.wrapping_mul(3).wrapping_add(t));
    (u16::from(q) * 256).div_ceil(243) as u8
}

pub(crate) fn quant_tq1_0(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_tq1_0(src, out) {
        return;
    }
    quant_tq1_0_scalar(src, out);
}

pub(crate) fn quant_tq1_0_scalar(src: &[f32], out: &mut [u8]) {
    for (x, y) in src
        .chunks_exact(block::TQ1_0.elems)
        .zip(out.chunks_exact_mut(block::TQ1_0.bytes))
    {
        quant_tq1_0_block(x, y);
    }
}

/// One tq1_0 block (256 floats → 54 bytes), as `quantize_row_tq1_0_ref`.
pub(crate) fn quant_tq1_0_block(x: &[f32], y: &mut [u8]) {
    let (d, id) = amax_and_inverse(x);
    put_f16(y, 52, d);
    let (x0, rest) = x.split_at(160);
    let (x1, x2) = rest.split_at(80);
    for m in 0..32 {
        y[m] = pack5((0..5).map(|n| tern(x0[m + 32 * n], id)));
    }
    for m in 0..16 {
        y[32 + m] = pack5((0..5).map(|n| tern(x1[m + 16 * n], id)));
    }
    for j in 0..4 {
        // four trits, then shifted up by one position (times 3) before the packing
        y[48 + j] = pack5((0..4).map(|m| tern(x2[j + 4 * m], id)).chain(Some(0)));
    }
}

pub(crate) fn quant_tq2_0(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_tq2_0(src, out) {
        return;
    }
    quant_tq2_0_scalar(src, out);
}

pub(crate) fn quant_tq2_0_scalar(src: &[f32], out: &mut [u8]) {
    for (x, y) in src
        .chunks_exact(block::TQ2_0.elems)
        .zip(out.chunks_exact_mut(block::TQ2_0.bytes))
    {
        quant_tq2_0_block(x, y);
    }
}

/// One tq2_0 block (256 floats → 66 bytes), as `quantize_row_tq2_0_ref`.
pub(crate) fn quant_tq2_0_block(x: &[f32], y: &mut [u8]) {
    let (d, id) = amax_and_inverse(x);
    put_f16(y, 64, d);
    for (h, xs) in x.chunks_exact(128).enumerate() {
        for m in 0..32 {
            let mut q = 0u8;
            for n in 0..4 {
                q = q.wrapping_add((tern(xs[m + 32 * n], id) & 3) << (2 * n));
            }
            y[32 * h + m] = q;
        }
    }
}
