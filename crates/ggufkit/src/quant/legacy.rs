//! The 32-element "legacy" formats: q4_0, q4_1, q5_0, q5_1, q8_0, q8_1.
//!
//! Every function here takes little-endian blocks (the dispatcher in `mod.rs` swaps big-endian data
//! first) and whole blocks only: `data.len() == blocks * type_size`, `out.len() == blocks * 32`.
//!
//! q8_1 has no float form in ggml; it dequantizes here as `d * q` like q8_0 (its second f16, `s`,
//! is `d * sum(q)`, a by-product for dot products, and is ignored).

#![forbid(unsafe_code)]

use super::float::{f16_le, put_f16};
use super::layout::block;
use super::{c_trunc_i32, fmax_c, signed_absmax};

pub(crate) fn dequant_q4_0(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_q4_0(data, out) {
        return;
    }
    dequant_q4_0_scalar(data, out);
}

pub(crate) fn dequant_q4_0_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q4_0.bytes)
        .zip(out.chunks_exact_mut(block::Q4_0.elems))
    {
        let d = f16_le(b, 0);
        let qs = &b[2..block::Q4_0.bytes];
        let (lo, hi) = y.split_at_mut(16);
        for j in 0..16 {
            lo[j] = ((qs[j] & 0x0f) as i32 - 8) as f32 * d;
            hi[j] = ((qs[j] >> 4) as i32 - 8) as f32 * d;
        }
    }
}

pub(crate) fn dequant_q4_1(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_q4_1(data, out) {
        return;
    }
    dequant_q4_1_scalar(data, out);
}

pub(crate) fn dequant_q4_1_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q4_1.bytes)
        .zip(out.chunks_exact_mut(block::Q4_1.elems))
    {
        let d = f16_le(b, 0);
        let m = f16_le(b, 2);
        let qs = &b[4..block::Q4_1.bytes];
        let (lo, hi) = y.split_at_mut(16);
        for j in 0..16 {
            lo[j] = f32::from(qs[j] & 0x0f) * d + m;
            hi[j] = f32::from(qs[j] >> 4) * d + m;
        }
    }
}

pub(crate) fn dequant_q5_0(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_q5_0(data, out) {
        return;
    }
    dequant_q5_0_scalar(data, out);
}

pub(crate) fn dequant_q5_0_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q5_0.bytes)
        .zip(out.chunks_exact_mut(block::Q5_0.elems))
    {
        let d = f16_le(b, 0);
        let qh = u32::from_le_bytes([b[2], b[3], b[4], b[5]]);
        let qs = &b[6..block::Q5_0.bytes];
        let (lo, hi) = y.split_at_mut(16);
        for j in 0..16 {
            let h0 = ((qh >> j) << 4) & 0x10;
            let h1 = (qh >> (j + 12)) & 0x10;
            lo[j] = ((u32::from(qs[j] & 0x0f) | h0) as i32 - 16) as f32 * d;
            hi[j] = ((u32::from(qs[j] >> 4) | h1) as i32 - 16) as f32 * d;
        }
    }
}

pub(crate) fn dequant_q5_1(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_q5_1(data, out) {
        return;
    }
    dequant_q5_1_scalar(data, out);
}

pub(crate) fn dequant_q5_1_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q5_1.bytes)
        .zip(out.chunks_exact_mut(block::Q5_1.elems))
    {
        let d = f16_le(b, 0);
        let m = f16_le(b, 2);
        let qh = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        let qs = &b[8..block::Q5_1.bytes];
        let (lo, hi) = y.split_at_mut(16);
        for j in 0..16 {
            let h0 = ((qh >> j) << 4) & 0x10;
            let h1 = (qh >> (j + 12)) & 0x10;
            lo[j] = (u32::from(qs[j] & 0x0f) | h0) as f32 * d + m;
            hi[j] = (u32::from(qs[j] >> 4) | h1) as f32 * d + m;
        }
    }
}

pub(crate) fn dequant_q8_0(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_q8_0(data, out) {
        return;
    }
    dequant_q8_0_scalar(data, out);
}

pub(crate) fn dequant_q8_0_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q8_0.bytes)
        .zip(out.chunks_exact_mut(block::Q8_0.elems))
    {
        let d = f16_le(b, 0);
        for (o, &q) in y.iter_mut().zip(&b[2..block::Q8_0.bytes]) {
            *o = f32::from(q as i8) * d;
        }
    }
}

pub(crate) fn dequant_q8_1(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_q8_1(data, out) {
        return;
    }
    dequant_q8_1_scalar(data, out);
}

pub(crate) fn dequant_q8_1_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q8_1.bytes)
        .zip(out.chunks_exact_mut(block::Q8_1.elems))
    {
        let d = f16_le(b, 0);
        for (o, &q) in y.iter_mut().zip(&b[4..block::Q8_1.bytes]) {
            *o = f32::from(q as i8) * d;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Reference quantizers. Rounding follows ggml exactly: q4/q5 truncate `x + 8.5` (ties up), q8 uses
// `roundf` (ties away from zero); C's float→int conversion is emulated by `c_trunc_i32`.

#[inline]
fn min_max(x: &[f32]) -> (f32, f32) {
    let mut min = f32::MAX;
    let mut max = -f32::MAX;
    for &v in x {
        if v < min {
            min = v;
        }
        if v > max {
            max = v;
        }
    }
    (min, max)
}

#[inline]
pub(crate) fn inverse(d: f32) -> f32 {
    if d != 0.0 {
        1.0 / d
    } else {
        0.0
    }
}

pub(crate) fn quant_q4_0(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_q4_0(src, out) {
        return;
    }
    quant_q4_0_scalar(src, out);
}

pub(crate) fn quant_q4_0_scalar(src: &[f32], out: &mut [u8]) {
    for (x, b) in src
        .chunks_exact(block::Q4_0.elems)
        .zip(out.chunks_exact_mut(block::Q4_0.bytes))
    {
        let d = signed_absmax(x) / -8.0;
        quant_q4_0_block(x, d, b);
    }
}

/// One q4_0 block (32 floats → 18 bytes) with its scale `d`, as `quantize_row_q4_0_ref`.
pub(crate) fn quant_q4_0_block(x: &[f32], d: f32, b: &mut [u8]) {
    let id = inverse(d);
    put_f16(b, 0, d);
    for j in 0..16 {
        let q0 = 15.min(c_trunc_i32(x[j] * id + 8.5) as i8 as i32) as u8;
        let q1 = 15.min(c_trunc_i32(x[j + 16] * id + 8.5) as i8 as i32) as u8;
        b[2 + j] = q0 | (q1 << 4);
    }
}

pub(crate) fn quant_q4_1(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_q4_1(src, out) {
        return;
    }
    quant_q4_1_scalar(src, out);
}

pub(crate) fn quant_q4_1_scalar(src: &[f32], out: &mut [u8]) {
    for (x, b) in src
        .chunks_exact(block::Q4_1.elems)
        .zip(out.chunks_exact_mut(block::Q4_1.bytes))
    {
        quant_q4_1_block(x, b);
    }
}

/// One q4_1 block (32 floats → 20 bytes), as `quantize_row_q4_1_ref`.
pub(crate) fn quant_q4_1_block(x: &[f32], b: &mut [u8]) {
    let (min, max) = min_max(x);
    let d = (max - min) / 15.0;
    let id = inverse(d);
    put_f16(b, 0, d);
    put_f16(b, 2, min);
    for j in 0..16 {
        let q0 = 15.min(c_trunc_i32((x[j] - min) * id + 0.5) as i8 as i32) as u8;
        let q1 = 15.min(c_trunc_i32((x[j + 16] - min) * id + 0.5) as i8 as i32) as u8;
        b[4 + j] = q0 | (q1 << 4);
    }
}

pub(crate) fn quant_q5_0(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_q5_0(src, out) {
        return;
    }
    quant_q5_0_scalar(src, out);
}

pub(crate) fn quant_q5_0_scalar(src: &[f32], out: &mut [u8]) {
    for (x, b) in src
        .chunks_exact(block::Q5_0.elems)
        .zip(out.chunks_exact_mut(block::Q5_0.bytes))
    {
        quant_q5_0_block(x, signed_absmax(x) / -16.0, b);
    }
}

/// One q5_0 block (32 floats → 22 bytes) with its scale `d`, as `quantize_row_q5_0_ref`.
pub(crate) fn quant_q5_0_block(x: &[f32], d: f32, b: &mut [u8]) {
    let id = inverse(d);
    put_f16(b, 0, d);
    let mut qh = 0u32;
    for j in 0..16 {
        let q0 = 31.min(c_trunc_i32(x[j] * id + 16.5) as i8 as i32) as u8;
        let q1 = 31.min(c_trunc_i32(x[j + 16] * id + 16.5) as i8 as i32) as u8;
        b[6 + j] = (q0 & 0x0f) | ((q1 & 0x0f) << 4);
        qh |= u32::from((q0 & 0x10) >> 4) << j;
        qh |= u32::from((q1 & 0x10) >> 4) << (j + 16);
    }
    b[2..6].copy_from_slice(&qh.to_le_bytes());
}

pub(crate) fn quant_q5_1(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_q5_1(src, out) {
        return;
    }
    quant_q5_1_scalar(src, out);
}

pub(crate) fn quant_q5_1_scalar(src: &[f32], out: &mut [u8]) {
    for (x, b) in src
        .chunks_exact(block::Q5_1.elems)
        .zip(out.chunks_exact_mut(block::Q5_1.bytes))
    {
        quant_q5_1_block(x, b);
    }
}

/// One q5_1 block (32 floats → 24 bytes), as `quantize_row_q5_1_ref`.
pub(crate) fn quant_q5_1_block(x: &[f32], b: &mut [u8]) {
    let (min, max) = min_max(x);
    let d = (max - min) / 31.0;
    let id = inverse(d);
    put_f16(b, 0, d);
    put_f16(b, 2, min);
    let mut qh = 0u32;
    for j in 0..16 {
        let q0 = c_trunc_i32((x[j] - min) * id + 0.5) as u8;
        let q1 = c_trunc_i32((x[j + 16] - min) * id + 0.5) as u8;
        b[8 + j] = (q0 & 0x0f) | ((q1 & 0x0f) << 4);
        qh |= u32::from((q0 & 0x10) >> 4) << j;
        qh |= u32::from((q1 & 0x10) >> 4) << (j + 16);
    }
    b[4..8].copy_from_slice(&qh.to_le_bytes());
}

#[inline]
fn absmax_c(x: &[f32]) -> f32 {
    x.iter().fold(0.0f32, |m, &v| fmax_c(m, v.abs()))
}

pub(crate) fn quant_q8_0(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_q8_0(src, out) {
        return;
    }
    quant_q8_0_scalar(src, out);
}

pub(crate) fn quant_q8_0_scalar(src: &[f32], out: &mut [u8]) {
    for (x, b) in src
        .chunks_exact(block::Q8_0.elems)
        .zip(out.chunks_exact_mut(block::Q8_0.bytes))
    {
        quant_q8_0_block(x, b);
    }
}

/// One q8_0 block (32 floats → 34 bytes), as `quantize_row_q8_0_ref`.
pub(crate) fn quant_q8_0_block(x: &[f32], b: &mut [u8]) {
    let d = absmax_c(x) / 127.0;
    let id = inverse(d);
    put_f16(b, 0, d);
    for (o, &v) in b[2..].iter_mut().zip(x) {
        *o = c_trunc_i32((v * id).round()) as u8;
    }
}

pub(crate) fn quant_q8_1(src: &[f32], out: &mut [u8]) {
    for (x, b) in src
        .chunks_exact(block::Q8_1.elems)
        .zip(out.chunks_exact_mut(block::Q8_1.bytes))
    {
        let d = absmax_c(x) / 127.0;
        let id = inverse(d);
        put_f16(b, 0, d);
        let mut sum = 0i32;
        for (o, &v) in b[4..].iter_mut().zip(x) {
            let q = c_trunc_i32((v * id).round()) as i8;
            *o = q as u8;
            sum += i32::from(q);
        }
        put_f16(b, 2, sum as f32 * d);
    }
}
