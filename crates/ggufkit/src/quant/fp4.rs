//! The 4-bit float (E2M1) formats: mxfp4 (32 elements, one E8M0 power-of-two scale) and nvfp4
//! (64 elements, four UE4M3 scales, one per 16). Neither has a multi-byte field.
//!
//! Scale decoding follows ggml, not the OCP spec, where they differ: E8M0 `0xFF` is 2^127 (not
//! NaN), and UE4M3 `0x7F` is 0 while `0xFF` reads its exponent from bits 3..7 and gives 240.

#![forbid(unsafe_code)]

use super::c_trunc_i32;
use super::layout::block;

/// E2M1 values, doubled (the scales are halved to match).
pub(crate) const KVALUES_FP4: [i8; 16] = [0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12];

/// E8M0 exponent → 2^(e-128), i.e. half the E8M0 value.
#[inline]
pub(crate) fn e8m0_half(e: u8) -> f32 {
    if e < 2 {
        f32::from_bits(0x0020_0000 << e)
    } else {
        f32::from_bits(u32::from(e - 1) << 23)
    }
}

/// UE4M3 byte → half its value, as ggml decodes it.
#[inline]
pub(crate) fn ue4m3_half(x: u8) -> f32 {
    if x == 0 || x == 0x7f {
        return 0.0;
    }
    let exp = u32::from((x >> 3) & 0x0f);
    let man = u32::from(x & 7);
    if exp == 0 {
        // man * 2^-9 * 0.5
        man as f32 * f32::from_bits(0x3a80_0000) // 2^-10
    } else {
        // (1 + man/8) * 2^(exp-7) * 0.5 = (8 + man) * 2^(exp-11)
        (8 + man) as f32 * f32::from_bits((exp + 127 - 11) << 23)
    }
}

/// ggml's `ggml_fp32_to_ue4m3`.
pub(crate) fn f32_to_ue4m3(mut x: f32) -> u8 {
    if x.is_nan() || x <= 0.0 {
        return 0;
    }
    if x > 448.0 {
        x = 448.0;
    }
    let bits = x.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 7;
    let man = ((bits >> 20) & 7) as i32;
    if exp <= 0 {
        let m = c_trunc_i32(x * 512.0 + 0.5).min(7);
        return if m < 1 { 0 } else { m as u8 };
    }
    if exp >= 15 {
        return 0x7e;
    }
    let mut e = exp;
    let mut m = man + ((bits >> 19) & 1) as i32;
    if m > 7 {
        m = 0;
        e += 1;
        if e >= 15 {
            return 0x7e;
        }
    }
    ((e << 3) | m) as u8
}

pub(crate) fn dequant_mxfp4(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_mxfp4(data, out) {
        return;
    }
    dequant_mxfp4_scalar(data, out);
}

pub(crate) fn dequant_mxfp4_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::MXFP4.bytes)
        .zip(out.chunks_exact_mut(block::MXFP4.elems))
    {
        let d = e8m0_half(b[0]);
        let (lo, hi) = y.split_at_mut(16);
        for j in 0..16 {
            let q = b[1 + j];
            lo[j] = f32::from(KVALUES_FP4[usize::from(q & 0x0f)]) * d;
            hi[j] = f32::from(KVALUES_FP4[usize::from(q >> 4)]) * d;
        }
    }
}

pub(crate) fn dequant_nvfp4(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_nvfp4(data, out) {
        return;
    }
    dequant_nvfp4_scalar(data, out);
}

pub(crate) fn dequant_nvfp4_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::NVFP4.bytes)
        .zip(out.chunks_exact_mut(block::NVFP4.elems))
    {
        for (s, ys) in y.chunks_exact_mut(16).enumerate() {
            let d = ue4m3_half(b[s]);
            let qs = &b[4 + 8 * s..12 + 8 * s];
            let (lo, hi) = ys.split_at_mut(8);
            for j in 0..8 {
                lo[j] = f32::from(KVALUES_FP4[usize::from(qs[j] & 0x0f)]) * d;
                hi[j] = f32::from(KVALUES_FP4[usize::from(qs[j] >> 4)]) * d;
            }
        }
    }
}

/// The first grid index whose scaled value is nearest to `x`.
#[inline]
fn best_index(x: f32, e: f32) -> u8 {
    let mut best = 0u8;
    let mut best_err = (f32::from(KVALUES_FP4[0]) * e - x).abs();
    for (i, &k) in KVALUES_FP4.iter().enumerate().skip(1) {
        let err = (f32::from(k) * e - x).abs();
        if err < best_err {
            best = i as u8;
            best_err = err;
        }
    }
    best
}

fn abs_max(x: &[f32]) -> f32 {
    let mut amax = 0.0f32;
    for &v in x {
        if amax < v.abs() {
            amax = v.abs();
        }
    }
    amax
}

pub(crate) fn quant_mxfp4(src: &[f32], out: &mut [u8]) {
    if super::simd::quant_mxfp4(src, out) {
        return;
    }
    quant_mxfp4_scalar(src, out);
}

/// The E8M0 exponent of a block whose largest magnitude is `amax` (0 for an all-zero block).
#[inline]
pub(crate) fn mxfp4_exponent(amax: f32) -> u8 {
    // floorf(log2f(amax)): glibc's log2f rounds up just below a power of two, and ggml's
    // exponent follows it, so this must be the library log2, not an exponent extraction.
    if amax > 0.0 {
        c_trunc_i32(amax.log2().floor() - 2.0 + 127.0) as u8
    } else {
        0
    }
}

pub(crate) fn quant_mxfp4_scalar(src: &[f32], out: &mut [u8]) {
    for (x, y) in src
        .chunks_exact(block::MXFP4.elems)
        .zip(out.chunks_exact_mut(block::MXFP4.bytes))
    {
        let e = mxfp4_exponent(abs_max(x));
        let d = e8m0_half(e);
        y[0] = e;
        for j in 0..16 {
            y[1 + j] = best_index(x[j], d) | (best_index(x[j + 16], d) << 4);
        }
    }
}

pub(crate) fn quant_nvfp4(src: &[f32], out: &mut [u8]) {
    for (x, y) in src
        .chunks_exact(block::NVFP4.elems)
        .zip(out.chunks_exact_mut(block::NVFP4.bytes))
    {
        for (s, xs) in x.chunks_exact(16).enumerate() {
            let ue = f32_to_ue4m3(abs_max(xs) / 6.0);
            y[s] = ue;
            let d = ue4m3_half(ue);
            for j in 0..8 {
                y[4 + 8 * s + j] = best_index(xs[j], d) | (best_index(xs[j + 8], d) << 4);
            }
        }
    }
}
