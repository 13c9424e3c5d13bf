//! The 4-bit floats mxfp4 and nvfp4: decoders, and mxfp4's reference quantizer.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{
    abs8, absmax_skip_nan, byte_table, load_block, lut4x8, nibbles_lut32, pack_nibbles,
};
use crate::quant::fp4::KVALUES_FP4;
use crate::quant::layout::block;

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dequant_mxfp4<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let table = byte_table(&KVALUES_FP4);
    for (b, y) in data
        .chunks_exact(block::MXFP4.bytes)
        .zip(out.chunks_exact_mut(block::MXFP4.elems))
    {
        let d = _mm256_set1_ps(crate::quant::fp4::e8m0_half(b[0]));
        nibbles_lut32::<STREAM>(y, &b[1..], table, d);
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dequant_nvfp4<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let m4 = _mm_set1_epi8(0x0f);
    let table = byte_table(&KVALUES_FP4);
    for (b, y) in data
        .chunks_exact(block::NVFP4.bytes)
        .zip(out.chunks_exact_mut(block::NVFP4.elems))
    {
        for (s, ys) in y.chunks_exact_mut(16).enumerate() {
            let d = _mm256_set1_ps(crate::quant::fp4::ue4m3_half(b[s]));
            let mut q8 = [0u8; 8];
            q8.copy_from_slice(&b[4 + 8 * s..12 + 8 * s]);
            let q = _mm_cvtsi64_si128(i64::from_le_bytes(q8));
            lut4x8::<STREAM>(&mut ys[0..], _mm_and_si128(q, m4), table, d);
            let hi = _mm_and_si128(_mm_srli_epi16(q, 4), m4);
            lut4x8::<STREAM>(&mut ys[8..], hi, table, d);
        }
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_mxfp4(src: &[f32], out: &mut [u8]) {
    use crate::quant::fp4::{e8m0_half, mxfp4_exponent, KVALUES_FP4};
    for (x, y) in src
        .chunks_exact(block::MXFP4.elems)
        .zip(out.chunks_exact_mut(block::MXFP4.bytes))
    {
        let v = load_block(x);
        let e = mxfp4_exponent(absmax_skip_nan(&v));
        let d = e8m0_half(e);
        y[0] = e;
        // `|kvalue * d - x|` for each grid value in order, the first smallest kept (a NaN
        // error never wins); grid value 8 is a second zero, which can never win, so skipped
        let err = |k: i8, vk: __m256| abs8(_mm256_sub_ps(_mm256_set1_ps(f32::from(k) * d), vk));
        let mut best_err = v.map(|vk| err(KVALUES_FP4[0], vk));
        let mut best = [_mm256_setzero_si256(); 4];
        for (i, &k) in KVALUES_FP4.iter().enumerate().skip(1) {
            if i == 8 {
                continue;
            }
            let iv = _mm256_set1_epi32(i as i32);
            for (vk, (be, bi)) in v.iter().zip(best_err.iter_mut().zip(&mut best)) {
                let e = err(k, *vk);
                let lt = _mm256_cmp_ps::<_CMP_LT_OQ>(e, *be);
                *be = _mm256_blendv_ps(*be, e, lt);
                *bi = _mm256_blendv_epi8(*bi, iv, _mm256_castps_si256(lt));
            }
        }
        // SAFETY: `y` is a 17-byte block, so bytes 1..17 are writable; unaligned store.
        unsafe { _mm_storeu_si128(y[1..].as_mut_ptr().cast(), pack_nibbles::<0xff>(best)) };
    }
}
