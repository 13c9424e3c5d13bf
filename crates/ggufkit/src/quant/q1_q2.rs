//! q1_0 (128 signs and one f16 scale: ±d) and q2_0 (64 two-bit levels −1, 0, +1, +2 times d).

#![forbid(unsafe_code)]

use super::c_trunc_i32;
use super::float::{f16_le, put_f16};
use super::layout::block;

pub(crate) fn dequant_q1_0(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q1_0.bytes)
        .zip(out.chunks_exact_mut(block::Q1_0.elems))
    {
        let d = f16_le(b, 0);
        let pm = [-d, d];
        for (y8, &q) in y.chunks_exact_mut(8).zip(&b[2..block::Q1_0.bytes]) {
            for (k, o) in y8.iter_mut().enumerate() {
                *o = pm[usize::from((q >> k) & 1)];
            }
        }
    }
}

pub(crate) fn dequant_q2_0(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q2_0.bytes)
        .zip(out.chunks_exact_mut(block::Q2_0.elems))
    {
        let d = f16_le(b, 0);
        // (q - 1) * d as ggml computes it: a multiply, so a NaN scale keeps its sign.
        #[allow(clippy::neg_multiply)]
        let lut = [-1.0 * d, 0.0 * d, d, 2.0 * d];
        for (y4, &q) in y.chunks_exact_mut(4).zip(&b[2..block::Q2_0.bytes]) {
            for (k, o) in y4.iter_mut().enumerate() {
                *o = lut[usize::from((q >> (2 * k)) & 3)];
            }
        }
    }
}

pub(crate) fn quant_q1_0(src: &[f32], out: &mut [u8]) {
    for (x, y) in src
        .chunks_exact(block::Q1_0.elems)
        .zip(out.chunks_exact_mut(block::Q1_0.bytes))
    {
        let mut sum_abs = 0.0f32;
        for &v in x {
            sum_abs += v.abs();
        }
        put_f16(y, 0, sum_abs / 128.0);
        for (o, x8) in y[2..].iter_mut().zip(x.chunks_exact(8)) {
            *o = x8
                .iter()
                .enumerate()
                .fold(0u8, |acc, (k, &v)| acc | (u8::from(v >= 0.0) << k));
        }
    }
}

pub(crate) fn quant_q2_0(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_q2_0(src, out) {
        return;
    }
    quant_q2_0_scalar(src, out);
}

pub(crate) fn quant_q2_0_scalar(src: &[f32], out: &mut [u8]) {
    for (x, y) in src
        .chunks_exact(block::Q2_0.elems)
        .zip(out.chunks_exact_mut(block::Q2_0.bytes))
    {
        let mut amax = 0.0f32;
        for &v in x {
            if v.abs() > amax {
                amax = v.abs();
            }
        }
        let id = if amax > 0.0 { 1.0 / amax } else { 0.0 };
        put_f16(y, 0, amax);
        for (o, x4) in y[2..].iter_mut().zip(x.chunks_exact(4)) {
            *o = x4.iter().enumerate().fold(0u8, |acc, (k, &w)| {
                let q = (c_trunc_i32((w * id).round()).wrapping_add(1)).clamp(0, 3) as u8;
                acc | (q << (2 * k))
            });
        }
    }
}
