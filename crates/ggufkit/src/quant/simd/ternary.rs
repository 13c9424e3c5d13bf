//! The ternary types tq1_0 and tq2_0: decoders and reference quantizers.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{
    absmax_no_nan, f16c_le, f16c_splat, load32, low_bytes16, low_bytes32, put8, round_i32,
};
use crate::quant::float::put_f16;
use crate::quant::layout::block;
use crate::quant::legacy::inverse;

/// Base-3 decoding of 32 bytes at once. Each byte of `x` is multiplied (mod 256) by the
/// multiplier of its i16 lane in `p` (one lane per byte pair), and its top trit
/// `t = (3m) >> 8` is returned as the byte `-t` (0, -1 or -2).
/// `t >= 1` exactly when `m >= 86`, `t == 2` exactly when `m >= 171`.
#[inline]
#[target_feature(enable = "avx2")]
fn neg_trits32(x: __m256i, p: __m256i) -> __m256i {
    // Even bytes: the low byte of x * p. Odd bytes: (hi << 8) * p keeps hi * p (mod 256)
    // in the high byte with a zero low byte.
    let lo = _mm256_and_si256(_mm256_mullo_epi16(x, p), _mm256_set1_epi16(0x00ff));
    let hi = _mm256_mullo_epi16(_mm256_and_si256(x, _mm256_set1_epi16(-256)), p);
    let m = _mm256_or_si256(lo, hi);
    let ge86 = _mm256_cmpeq_epi8(_mm256_max_epu8(m, _mm256_set1_epi8(86)), m);
    let ge171 = _mm256_cmpeq_epi8(_mm256_max_epu8(m, _mm256_set1_epi8(-85)), m);
    _mm256_add_epi8(ge86, ge171)
}

/// 32 outputs from the bytes `-t` of [`neg_trits32`]: output `k` is `(t[k] - 1) * d`, the
/// scalar code's product (a conversion and a multiply, cheaper here than `vpermps`). The
/// bytes `t - 1` are the complements of the bytes `-t`.
#[inline]
#[target_feature(enable = "avx2")]
fn emit32_trits<const STREAM: bool>(y: &mut [f32], neg_t: __m256i, d: __m256) {
    assert!(y.len() >= 32);
    let t_minus_1 = _mm256_xor_si256(neg_t, _mm256_set1_epi8(-1));
    let lo = _mm256_castsi256_si128(t_minus_1);
    let hi = _mm256_extracti128_si256(t_minus_1, 1);
    let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
    for (k, v) in parts.into_iter().enumerate() {
        let f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
        put8::<STREAM>(&mut y[8 * k..], _mm256_mul_ps(f, d));
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_tq1_0<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let splat = |p: i16| _mm256_set1_epi16(p);
    // Multipliers 3^n for the pairs of 16-byte halves: (1 | 3), (9 | 27), (81 | tail).
    let half = |a: i16, b: i16| _mm256_setr_epi16(a, a, a, a, a, a, a, a, b, b, b, b, b, b, b, b);
    let (p01, p23) = (half(1, 3), half(9, 27));
    // Tail lanes: bytes qh[0..4] repeated, multiplied by 1, 3, 9, 27 per group of four.
    let p4t = _mm256_setr_epi16(81, 81, 81, 81, 81, 81, 81, 81, 1, 1, 3, 3, 9, 9, 27, 27);
    for (b, y) in data
        .chunks_exact(block::TQ1_0.bytes)
        .zip(out.chunks_exact_mut(block::TQ1_0.elems))
    {
        let d = f16c_splat(b, 52);
        let qh = u32::from_le_bytes([b[48], b[49], b[50], b[51]]);
        let xa = load32(&b[0..32]);
        // SAFETY: `b[32..48]` is 16 readable bytes of the 54-byte block; unaligned load.
        let xm = unsafe { _mm_loadu_si128(b[32..48].as_ptr().cast()) };
        let xmm = _mm256_set_m128i(xm, xm);
        let xt = _mm256_set_m128i(_mm_set1_epi32(qh as i32), xm);
        let mut p = 1i16;
        for n in 0..5 {
            let t = neg_trits32(xa, splat(p));
            emit32_trits::<STREAM>(&mut y[32 * n..], t, d);
            p *= 3;
        }
        emit32_trits::<STREAM>(&mut y[160..], neg_trits32(xmm, p01), d);
        emit32_trits::<STREAM>(&mut y[192..], neg_trits32(xmm, p23), d);
        emit32_trits::<STREAM>(&mut y[224..], neg_trits32(xt, p4t), d);
    }
}

/// 32 outputs from 32 code bytes: output `k` is lane `t[k] & 7` of `tbl`, which holds each
/// code's product as the scalar code computes it (tq2_0: `(q - 1) * d` at lane `q`).
#[inline]
#[target_feature(enable = "avx2")]
fn emit32_lut<const STREAM: bool>(y: &mut [f32], t: __m256i, tbl: __m256) {
    assert!(y.len() >= 32);
    let lo = _mm256_castsi256_si128(t);
    let hi = _mm256_extracti128_si256(t, 1);
    let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
    for (k, v) in parts.into_iter().enumerate() {
        let f = _mm256_permutevar8x32_ps(tbl, _mm256_cvtepi8_epi32(v));
        put8::<STREAM>(&mut y[8 * k..], f);
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_tq2_0<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let three = _mm256_set1_epi8(3);
    for (b, y) in data
        .chunks_exact(block::TQ2_0.bytes)
        .zip(out.chunks_exact_mut(block::TQ2_0.elems))
    {
        let d = f16c_le(b, 64);
        let tbl = _mm256_mul_ps(
            _mm256_setr_ps(-1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 0.0),
            _mm256_set1_ps(d),
        );
        // Each 32-byte half of the codes holds four 32-element runs, at bits 2l..2l+2.
        for (qs, y) in b[0..64].chunks_exact(32).zip(y.chunks_exact_mut(128)) {
            let q = load32(qs);
            for (l, y) in y.chunks_exact_mut(32).enumerate() {
                let sh = _mm_cvtsi32_si128(2 * l as i32);
                let codes = _mm256_and_si256(_mm256_srl_epi16(q, sh), three);
                emit32_lut::<STREAM>(y, codes, tbl);
            }
        }
    }
}

/// A 256-float super-block as 32 vectors of eight.
#[inline]
#[target_feature(enable = "avx2")]
fn load_256(x: &[f32]) -> [__m256; 32] {
    // Loops rather than `array::from_fn` or `map`: with arrays this large their closures are
    // left out of line, and every call copies a kilobyte (tq1_0 and tq2_0 ran at half speed).
    let mut v = [_mm256_setzero_ps(); 32];
    for (vk, xk) in v.iter_mut().zip(x[..256].chunks_exact(8)) {
        // SAFETY: `xk` is 8 floats (chunks_exact); unaligned load.
        *vk = unsafe { _mm256_loadu_ps(xk.as_ptr()) };
    }
    v
}

/// The ternary digits of a super-block: `lroundf(x * id) + 1` per lane (0, 1 or 2; 1 for a
/// NaN or infinite product, whose `lroundf` has a zero low byte).
#[inline]
#[target_feature(enable = "avx2")]
fn trits_256(v: &[__m256; 32], id: f32) -> [__m256i; 32] {
    let (idv, one) = (_mm256_set1_ps(id), _mm256_set1_epi32(1));
    let mut t = [one; 32];
    for (tk, &vk) in t.iter_mut().zip(v) {
        *tk = _mm256_add_epi32(round_i32(_mm256_mul_ps(vk, idv)), one);
    }
    t
}

/// `q * 3 + t` on eight i32 lanes (the low byte is what C's `uint8_t` arithmetic keeps).
#[inline]
#[target_feature(enable = "avx2")]
fn horner3(q: __m256i, t: __m256i) -> __m256i {
    _mm256_add_epi32(_mm256_add_epi32(_mm256_add_epi32(q, q), q), t)
}

/// tq1_0's base-3 fixed point of a packed byte: `((uint16_t)(q & 0xff) * 256 + 242) / 243`,
/// by an f32 division (exact below 2^16: a quotient is never within rounding of the next
/// integer).
#[inline]
#[target_feature(enable = "avx2")]
fn ceil_243(q: __m256i) -> __m256i {
    let v = _mm256_add_epi32(
        _mm256_slli_epi32::<8>(_mm256_and_si256(q, _mm256_set1_epi32(0xff))),
        _mm256_set1_epi32(242),
    );
    _mm256_cvttps_epi32(_mm256_div_ps(_mm256_cvtepi32_ps(v), _mm256_set1_ps(243.0)))
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_tq1_0(src: &[f32], out: &mut [u8]) {
    use crate::quant::ternary::quant_tq1_0_block;
    for (x, y) in src
        .chunks_exact(block::TQ1_0.elems)
        .zip(out.chunks_exact_mut(block::TQ1_0.bytes))
    {
        let v = load_256(x);
        let Some(d) = absmax_no_nan(&v) else {
            quant_tq1_0_block(x, y);
            continue;
        };
        put_f16(y, 52, d);
        let t = trits_256(&v, inverse(d));
        // five trits per byte; trit n of byte j is vector `first + stride * n`, lane j
        let pack5 = |first: usize, stride: usize| {
            let q = (1..5).fold(t[first], |q, n| horner3(q, t[first + stride * n]));
            ceil_243(q)
        };
        // bytes 0..32: x[m + 32n]; bytes 32..48: x[160 + m + 16n]
        let a = low_bytes32(std::array::from_fn(|k| pack5(k, 4)));
        let b = low_bytes16(pack5(20, 2), pack5(21, 2));
        // bytes 48..52: x[240 + j + 4m] for m < 4 (lanes j of the four half-vectors), then
        // one more position up
        let (lo, hi) = (_mm256_castsi256_si128, _mm256_extracti128_si256::<1>);
        let h3 = |q: __m128i, t: __m128i| _mm_add_epi32(_mm_add_epi32(_mm_add_epi32(q, q), q), t);
        let q = h3(lo(t[30]), hi(t[30]));
        let q = h3(h3(q, lo(t[31])), hi(t[31]));
        let q = h3(q, _mm_setzero_si128());
        let c = ceil_243(_mm256_zextsi128_si256(q));
        let tail = _mm256_castsi256_si128(low_bytes32([c; 4]));
        // SAFETY: `y` is a 54-byte block: bytes 0..32 and 32..48 are written by unaligned
        // stores.
        unsafe {
            _mm256_storeu_si256(y[0..32].as_mut_ptr().cast(), a);
            _mm_storeu_si128(y[32..48].as_mut_ptr().cast(), b);
        }
        y[48..52].copy_from_slice(&(_mm_cvtsi128_si32(tail) as u32).to_le_bytes());
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_tq2_0(src: &[f32], out: &mut [u8]) {
    use crate::quant::ternary::quant_tq2_0_block;
    let three = _mm256_set1_epi32(3);
    for (x, y) in src
        .chunks_exact(block::TQ2_0.elems)
        .zip(out.chunks_exact_mut(block::TQ2_0.bytes))
    {
        let v = load_256(x);
        let Some(d) = absmax_no_nan(&v) else {
            quant_tq2_0_block(x, y);
            continue;
        };
        put_f16(y, 64, d);
        let t = trits_256(&v, inverse(d));
        for (h, yh) in y[..64].chunks_exact_mut(32).enumerate() {
            // byte m of half h: the trits of x[128h + m + 32n], two bits each
            let q = std::array::from_fn(|k| {
                let tr = |n: usize| _mm256_and_si256(t[16 * h + 4 * n + k], three);
                let q01 = _mm256_or_si256(tr(0), _mm256_slli_epi32::<2>(tr(1)));
                let q23 =
                    _mm256_or_si256(_mm256_slli_epi32::<4>(tr(2)), _mm256_slli_epi32::<6>(tr(3)));
                _mm256_or_si256(q01, q23)
            });
            // SAFETY: `yh` is 32 bytes (chunks_exact); unaligned store.
            unsafe { _mm256_storeu_si256(yh.as_mut_ptr().cast(), low_bytes32(q)) };
        }
    }
}
