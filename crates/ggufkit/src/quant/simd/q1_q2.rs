//! q2_0's reference quantizer.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{absmax_skip_nan, load_block, low_bytes16, low_bytes32, round_i32};
use crate::quant::float::put_f16;
use crate::quant::layout::block;

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_q2_0(src: &[f32], out: &mut [u8]) {
    let (one, three, zero) = (
        _mm256_set1_epi32(1),
        _mm256_set1_epi32(3),
        _mm256_setzero_si256(),
    );
    for (x, y) in src
        .chunks_exact(block::Q2_0.elems)
        .zip(out.chunks_exact_mut(block::Q2_0.bytes))
    {
        let (v0, v1) = (load_block(&x[..32]), load_block(&x[32..]));
        let v: [__m256; 8] = std::array::from_fn(|k| if k < 4 { v0[k] } else { v1[k - 4] });
        let amax = absmax_skip_nan(&v);
        let id = _mm256_set1_ps(if amax > 0.0 { 1.0 / amax } else { 0.0 });
        put_f16(y, 0, amax);
        // clamp((int)roundf(w * id) + 1, 0, 3)
        let q = v.map(|vk| {
            let q = _mm256_add_epi32(round_i32(_mm256_mul_ps(vk, id)), one);
            _mm256_min_epi32(_mm256_max_epi32(q, zero), three)
        });
        // four levels per byte, the first in the low bits
        let quads = |b: __m256i| {
            let pairs = _mm256_maddubs_epi16(b, _mm256_set1_epi16(0x0401));
            _mm256_madd_epi16(pairs, _mm256_set1_epi32(0x0010_0001))
        };
        let lo = quads(low_bytes32([q[0], q[1], q[2], q[3]]));
        let hi = quads(low_bytes32([q[4], q[5], q[6], q[7]]));
        // SAFETY: `y` is an 18-byte block, so bytes 2..18 are writable; unaligned store.
        unsafe { _mm_storeu_si128(y[2..].as_mut_ptr().cast(), low_bytes16(lo, hi)) };
    }
}
