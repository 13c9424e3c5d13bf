//! The i-quants' decoders with a SIMD form: iq1_s, iq1_m, iq4_nl and iq4_xs.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{byte_table, f16c_le, f16c_splat, nibbles_lut32, put8};
use crate::quant::iq::{iq1_m_scale, iq4_xs_scale, KVALUES_IQ4NL};
use crate::quant::iq_grids::IQ1S_GRID;
use crate::quant::layout::block;

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_iq1_s<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ1_S.bytes)
        .zip(out.chunks_exact_mut(block::IQ1_S.elems))
    {
        let d = f16c_le(b, 0);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let qh = u16::from_le_bytes([b[34 + 2 * ib], b[35 + 2 * ib]]);
            let dl = _mm256_set1_ps(d * (2 * ((qh >> 12) & 7) + 1) as f32);
            let delta = _mm256_set1_ps(if qh & 0x8000 != 0 { -0.125 } else { 0.125 });
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let idx = usize::from(b[2 + 4 * ib + l]) | (usize::from((qh >> (3 * l)) & 7) << 8);
                let g = _mm_cvtsi64_si128(IQ1S_GRID[idx] as i64);
                let f = _mm256_add_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(g)), delta);
                put8::<STREAM>(y8, _mm256_mul_ps(dl, f));
            }
        }
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dequant_iq1_m<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ1_M.bytes)
        .zip(out.chunks_exact_mut(block::IQ1_M.elems))
    {
        let sc: [u16; 4] =
            std::array::from_fn(|k| u16::from_le_bytes([b[48 + 2 * k], b[49 + 2 * k]]));
        let d = iq1_m_scale(&sc);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let s = sc[ib / 2] >> (6 * (ib % 2));
            let dl1 = _mm256_set1_ps(d * (2 * (s & 7) + 1) as f32);
            let dl2 = _mm256_set1_ps(d * (2 * ((s >> 3) & 7) + 1) as f32);
            let h = [usize::from(b[32 + 2 * ib]), usize::from(b[33 + 2 * ib])];
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let hl = h[l / 2] >> (4 * (l % 2));
                let idx = usize::from(b[4 * ib + l]) | ((hl & 7) << 8);
                let delta = _mm256_set1_ps(if hl & 8 != 0 { -0.125 } else { 0.125 });
                let g = _mm_cvtsi64_si128(IQ1S_GRID[idx] as i64);
                let f = _mm256_add_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(g)), delta);
                let dl = if l < 2 { dl1 } else { dl2 };
                put8::<STREAM>(y8, _mm256_mul_ps(dl, f));
            }
        }
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_iq4_nl<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let table = byte_table(&KVALUES_IQ4NL);
    for (b, y) in data
        .chunks_exact(block::IQ4_NL.bytes)
        .zip(out.chunks_exact_mut(block::IQ4_NL.elems))
    {
        nibbles_lut32::<STREAM>(y, &b[2..], table, f16c_splat(b, 0));
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_iq4_xs<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let table = byte_table(&KVALUES_IQ4NL);
    for (b, y) in data
        .chunks_exact(block::IQ4_XS.bytes)
        .zip(out.chunks_exact_mut(block::IQ4_XS.elems))
    {
        let d = f16c_le(b, 0);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let dl = d * f32::from(iq4_xs_scale(b, ib));
            nibbles_lut32::<STREAM>(y, &b[8 + 16 * ib..], table, _mm256_set1_ps(dl));
        }
    }
}
