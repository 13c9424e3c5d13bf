//! The K-quants' decoders: q2_k, q3_k, q4_k, q5_k and q6_k (q8_k's is q8_0's, in `legacy.rs`).
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{f16c_le, load32, put8};
use crate::quant::kquants::scale_min_k4;
use crate::quant::layout::block;

/// `x * d - m` as the scalar decoders compute it: the product rounded, then the difference.
/// With `FUSED`, one fused multiply-subtract, which rounds once and gives the same bits when
/// `x * d` is exact and `m` finite. The k-quant decoders fuse only blocks whose f16 scale and
/// minimum are finite: their codes have at most 5 bits and `d` (the f16 scale times a 6-bit
/// sub-scale) at most 17 significant bits, so every product fits f32's 24 exactly.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn mul_sub<const FUSED: bool>(x: __m256, d: __m256, m: __m256) -> __m256 {
    if FUSED {
        _mm256_fmsub_ps(x, d, m)
    } else {
        _mm256_sub_ps(_mm256_mul_ps(x, d), m)
    }
}

/// Runs `$block::<STREAM, FUSED>` on each k-quant super-block of `$data`/`$out`, fused when
/// its f16 scale and minimum (bytes 0-3) are finite ([`mul_sub`]).
macro_rules! fused_when_finite {
    ($block:ident, $layout:expr, $data:ident, $out:ident) => {
        for (b, y) in $data
            .chunks_exact($layout.bytes)
            .zip($out.chunks_exact_mut($layout.elems))
        {
            let (d, min) = (f16c_le(b, 0), f16c_le(b, 2));
            if d.is_finite() && min.is_finite() {
                $block::<STREAM, true>(b, y, d, min);
            } else {
                $block::<STREAM, false>(b, y, d, min);
            }
        }
    };
}

/// # Safety
/// The CPU must support AVX2, F16C and FMA.
#[target_feature(enable = "avx2,f16c,fma")]
pub(super) unsafe fn dequant_q4_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    fused_when_finite!(q4_k_block, block::Q4_K, data, out);
}

/// One q4_k super-block `b` (scale `d`, minimum `min`) into `y`.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn q4_k_block<const STREAM: bool, const FUSED: bool>(b: &[u8], y: &mut [f32], d: f32, min: f32) {
    let m4 = _mm256_set1_epi32(0x0f);
    let scales: &[u8; 12] = b[4..16].try_into().expect("12 bytes");
    for (i, y) in y.chunks_exact_mut(64).enumerate() {
        let (sc1, m1) = scale_min_k4(2 * i, scales);
        let (sc2, m2) = scale_min_k4(2 * i + 1, scales);
        let (d1, n1) = (
            _mm256_set1_ps(d * f32::from(sc1)),
            _mm256_set1_ps(min * f32::from(m1)),
        );
        let (d2, n2) = (
            _mm256_set1_ps(d * f32::from(sc2)),
            _mm256_set1_ps(min * f32::from(m2)),
        );
        let (lo, hi) = y.split_at_mut(32);
        // Eight bytes at a time, widened straight from memory: their low nibbles are
        // elements 8k.., their high nibbles 32 + 8k.. (no shuffles to split a wide load).
        for ((q, lo), hi) in b[16 + 32 * i..48 + 32 * i]
            .chunks_exact(8)
            .zip(lo.chunks_exact_mut(8))
            .zip(hi.chunks_exact_mut(8))
        {
            // SAFETY: `q` is 8 readable bytes (chunks_exact); unaligned 8-byte load.
            let v = _mm256_cvtepu8_epi32(unsafe { _mm_loadl_epi64(q.as_ptr().cast()) });
            let l = _mm256_cvtepi32_ps(_mm256_and_si256(v, m4));
            let h = _mm256_cvtepi32_ps(_mm256_srli_epi32(v, 4));
            put8::<STREAM>(lo, mul_sub::<FUSED>(l, d1, n1));
            put8::<STREAM>(hi, mul_sub::<FUSED>(h, d2, n2));
        }
    }
}

/// The 32 bytes of `v` (as unsigned) → `d * v - m` ([`mul_sub`]), stored to `y[..32]`.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn emit32_u8<const STREAM: bool, const FUSED: bool>(y: &mut [f32], v: __m256i, d: f32, m: f32) {
    assert!(y.len() >= 32);
    let (dv, mv) = (_mm256_set1_ps(d), _mm256_set1_ps(m));
    let lo = _mm256_castsi256_si128(v);
    let hi = _mm256_extracti128_si256(v, 1);
    let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
    for (k, p) in parts.into_iter().enumerate() {
        let f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(p));
        put8::<STREAM>(&mut y[8 * k..], mul_sub::<FUSED>(f, dv, mv));
    }
}

/// # Safety
/// The CPU must support AVX2, F16C and FMA.
#[target_feature(enable = "avx2,f16c,fma")]
pub(super) unsafe fn dequant_q5_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    fused_when_finite!(q5_k_block, block::Q5_K, data, out);
}

/// One q5_k super-block `b` (scale `d`, minimum `min`) into `y`.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn q5_k_block<const STREAM: bool, const FUSED: bool>(b: &[u8], y: &mut [f32], d: f32, min: f32) {
    let m4 = _mm256_set1_epi8(0x0f);
    let sixteen = _mm256_set1_epi8(16);
    let zero = _mm256_setzero_si256();
    let scales: &[u8; 12] = b[4..16].try_into().expect("12 bytes");
    let qh = load32(&b[16..48]);
    for (i, y) in y.chunks_exact_mut(64).enumerate() {
        let (sc1, m1) = scale_min_k4(2 * i, scales);
        let (sc2, m2) = scale_min_k4(2 * i + 1, scales);
        let (u1, u2) = ((1u8 << (2 * i)) as i8, (2u8 << (2 * i)) as i8);
        let q = load32(&b[48 + 32 * i..]);
        let bit = |u: i8| {
            let set = _mm256_cmpeq_epi8(_mm256_and_si256(qh, _mm256_set1_epi8(u)), zero);
            _mm256_andnot_si256(set, sixteen)
        };
        let lo = _mm256_add_epi8(_mm256_and_si256(q, m4), bit(u1));
        let hi = _mm256_add_epi8(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), bit(u2));
        emit32_u8::<STREAM, FUSED>(&mut y[..32], lo, d * f32::from(sc1), min * f32::from(m1));
        emit32_u8::<STREAM, FUSED>(&mut y[32..], hi, d * f32::from(sc2), min * f32::from(m2));
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q2_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let three = _mm256_set1_epi32(3);
    for (b, y) in data
        .chunks_exact(block::Q2_K.bytes)
        .zip(out.chunks_exact_mut(block::Q2_K.elems))
    {
        let (d, min) = (f16c_le(b, 80), f16c_le(b, 82));
        // 32 bytes of codes per 128 outputs, the two bits at `shift` of byte `l` for output
        // `32 * j + l` (`shift = 2 * j`); 16 outputs per scale
        for (n, (q, y)) in b[16..80]
            .chunks_exact(32)
            .zip(y.chunks_exact_mut(128))
            .enumerate()
        {
            let mut v = [_mm256_setzero_si256(); 4];
            for (vk, qk) in v.iter_mut().zip(q.chunks_exact(8)) {
                // SAFETY: `qk` is 8 readable bytes (chunks_exact); unaligned 8-byte load.
                *vk = _mm256_cvtepu8_epi32(unsafe { _mm_loadl_epi64(qk.as_ptr().cast()) });
            }
            for (j, y) in y.chunks_exact_mut(32).enumerate() {
                let sh = _mm_cvtsi32_si128(2 * j as i32);
                for (h, y) in y.chunks_exact_mut(16).enumerate() {
                    let sc = b[n * 8 + 2 * j + h];
                    let dl = _mm256_set1_ps(d * f32::from(sc & 0x0f));
                    let ml = _mm256_set1_ps(min * f32::from(sc >> 4));
                    for (k, y) in y.chunks_exact_mut(8).enumerate() {
                        let c = _mm256_and_si256(_mm256_srl_epi32(v[2 * h + k], sh), three);
                        let f = _mm256_cvtepi32_ps(c);
                        put8::<STREAM>(y, _mm256_sub_ps(_mm256_mul_ps(dl, f), ml));
                    }
                }
            }
        }
    }
}

/// Sixteen signed bytes → `dl * v`, stored to `y[..16]`.
#[inline]
#[target_feature(enable = "avx2")]
fn emit16_i8<const STREAM: bool>(y: &mut [f32], v: __m128i, dl: f32) {
    assert!(y.len() >= 16);
    let dv = _mm256_set1_ps(dl);
    let a = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), dv);
    let b = _mm256_mul_ps(
        _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v, 8))),
        dv,
    );
    put8::<STREAM>(&mut y[..8], a);
    put8::<STREAM>(&mut y[8..], b);
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q3_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let m3 = _mm256_set1_epi8(3);
    let four = _mm256_set1_epi8(4);
    let zero = _mm256_setzero_si256();
    for (b, y) in data
        .chunks_exact(block::Q3_K.bytes)
        .zip(out.chunks_exact_mut(block::Q3_K.elems))
    {
        let scales = crate::quant::kquants::q3_k_scales(&b[96..108]);
        let d_all = f16c_le(b, 108);
        let hm = load32(&b[0..32]);
        for (n, y) in y.chunks_exact_mut(128).enumerate() {
            let q = load32(&b[32 + 32 * n..]);
            for (j, y) in y.chunks_exact_mut(32).enumerate() {
                let m = (1u8 << (4 * n + j)) as i8;
                let dl0 = d_all * scales[n * 8 + 2 * j] as f32;
                let dl1 = d_all * scales[n * 8 + 2 * j + 1] as f32;
                let sh = _mm_cvtsi32_si128(2 * j as i32);
                let v = _mm256_and_si256(_mm256_srl_epi16(q, sh), m3);
                let clear = _mm256_cmpeq_epi8(_mm256_and_si256(hm, _mm256_set1_epi8(m)), zero);
                let v = _mm256_sub_epi8(v, _mm256_and_si256(clear, four));
                emit16_i8::<STREAM>(&mut y[..16], _mm256_castsi256_si128(v), dl0);
                emit16_i8::<STREAM>(&mut y[16..], _mm256_extracti128_si256(v, 1), dl1);
            }
        }
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q6_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    // a code's low four bits, its two high bits (4 and 5), and its offset
    let (low4, high2, minus32) = (
        _mm256_set1_epi32(0x0f),
        _mm256_set1_epi32(0x30),
        _mm256_set1_epi32(32),
    );
    for (b, y) in data
        .chunks_exact(block::Q6_K.bytes)
        .zip(out.chunks_exact_mut(block::Q6_K.elems))
    {
        let d = f16c_le(b, 208);
        for (n, y) in y.chunks_exact_mut(128).enumerate() {
            let (ql, qh) = (&b[64 * n..64 * n + 64], &b[128 + 32 * n..128 + 32 * n + 32]);
            let sc = &b[192 + 8 * n..192 + 8 * n + 8];
            // d times each sub-block's scale first, as ggml (the product with q rounds again)
            let ds: [__m256; 8] =
                std::array::from_fn(|k| _mm256_set1_ps(d * f32::from(sc[k] as i8)));
            let emit = |y: &mut [f32], codes: __m256i, ds: __m256| {
                let q = _mm256_cvtepi32_ps(_mm256_sub_epi32(codes, minus32));
                put8::<STREAM>(y, _mm256_mul_ps(ds, q));
            };
            // Outputs l, l + 32, l + 64, l + 96 for eight l at a time, each byte widened
            // straight from memory to its lane.
            for k in 0..4 {
                let l = 8 * k;
                // SAFETY: `ql` is 64 and `qh` 32 readable bytes (sliced above), and
                // `l + 32 + 8 <= 64`; unaligned 8-byte loads.
                let (a, c, h) = unsafe {
                    (
                        _mm256_cvtepu8_epi32(_mm_loadl_epi64(ql[l..].as_ptr().cast())),
                        _mm256_cvtepu8_epi32(_mm_loadl_epi64(ql[l + 32..l + 40].as_ptr().cast())),
                        _mm256_cvtepu8_epi32(_mm_loadl_epi64(qh[l..l + 8].as_ptr().cast())),
                    )
                };
                let is = l / 16;
                let q1 = _mm256_or_si256(
                    _mm256_and_si256(a, low4),
                    _mm256_and_si256(_mm256_slli_epi32::<4>(h), high2),
                );
                let q2 = _mm256_or_si256(
                    _mm256_and_si256(c, low4),
                    _mm256_and_si256(_mm256_slli_epi32::<2>(h), high2),
                );
                let q3 = _mm256_or_si256(_mm256_srli_epi32::<4>(a), _mm256_and_si256(h, high2));
                let q4 = _mm256_or_si256(
                    _mm256_srli_epi32::<4>(c),
                    _mm256_and_si256(_mm256_srli_epi32::<2>(h), high2),
                );
                emit(&mut y[l..], q1, ds[is]);
                emit(&mut y[l + 32..], q2, ds[is + 2]);
                emit(&mut y[l + 64..], q3, ds[is + 4]);
                emit(&mut y[l + 96..], q4, ds[is + 6]);
            }
        }
    }
}
