//! The legacy types q4_0, q4_1, q5_0, q5_1, q8_0 and q8_1 (and q8_k, decoded as q8_0 with an f32
//! scale): their decoders, and the reference quantizers of q4_0 to q5_1 and q8_0.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{
    absmax_no_nan, f16c_splat, hmin_hmax, load_block, low_bytes32, pack_nibbles, put8, round_i32,
};
use crate::quant::float::put_f16;
use crate::quant::layout::block;
use crate::quant::legacy::inverse;

/// Eight i32 lanes → f32, times `d`, stored to `out[..8]`.
#[inline]
#[target_feature(enable = "avx2")]
fn store_scaled<const STREAM: bool>(out: &mut [f32], v: __m256i, d: __m256) {
    put8::<STREAM>(out, _mm256_mul_ps(_mm256_cvtepi32_ps(v), d));
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q4_0<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::Q4_0.bytes)
        .zip(out.chunks_exact_mut(block::Q4_0.elems))
    {
        let d = f16c_splat(b, 0);
        // SAFETY: `b` is an 18-byte block, so bytes 2..18 are readable; `y` is 32 floats and
        // each store_scaled call gets a subslice of at least 8.
        unsafe {
            let q = _mm_loadu_si128(b[2..block::Q4_0.bytes].as_ptr().cast());
            let m = _mm_set1_epi8(0x0f);
            let eight = _mm_set1_epi8(8);
            let lo = _mm_sub_epi8(_mm_and_si128(q, m), eight);
            let hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), m), eight);
            store_scaled::<STREAM>(&mut y[0..], _mm256_cvtepi8_epi32(lo), d);
            store_scaled::<STREAM>(&mut y[8..], _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)), d);
            store_scaled::<STREAM>(&mut y[16..], _mm256_cvtepi8_epi32(hi), d);
            store_scaled::<STREAM>(&mut y[24..], _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)), d);
        }
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q4_1<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    let mask = _mm_set1_epi8(0x0f);
    for (b, y) in data
        .chunks_exact(block::Q4_1.bytes)
        .zip(out.chunks_exact_mut(block::Q4_1.elems))
    {
        let d = f16c_splat(b, 0);
        let m = f16c_splat(b, 2);
        // SAFETY: `b` is a 20-byte block, so bytes 4..20 are readable; `y` is 32 floats, and
        // each store writes y[8k..8k+8] for k < 4.
        unsafe {
            let q = _mm_loadu_si128(b[4..block::Q4_1.bytes].as_ptr().cast());
            let lo = _mm_and_si128(q, mask);
            let hi = _mm_and_si128(_mm_srli_epi16(q, 4), mask);
            let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
            for (k, p) in parts.into_iter().enumerate() {
                let f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(p));
                put8::<STREAM>(&mut y[8 * k..], _mm256_add_ps(_mm256_mul_ps(f, d), m));
            }
        }
    }
}

/// Blocks of 32 five-bit codes (q5_0, q5_1): the f16 scale `d` at 0, with `MIN` the f16 `m`
/// at 2, then the fifth bits (a little-endian u32, element `j`'s at bit `j`) and 16 bytes of
/// nibbles (element `j`'s low, `j + 16`'s high). With `MIN` each output is `q * d + m`,
/// without `(q - 16) * d`, as ggml computes them.
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn five_bit_blocks<const STREAM: bool, const MIN: bool>(
    data: &[u8],
    out: &mut [f32],
    bytes: usize,
) {
    let qs_at = if MIN { 8 } else { 6 };
    let (one, low4, sixteen) = (
        _mm256_set1_epi32(1),
        _mm256_set1_epi32(0x0f),
        _mm256_set1_epi32(16),
    );
    // the bit of `qh` each lane takes, for outputs 0-7, 8-15, 16-23 and 24-31
    let bit = |from: i32| {
        _mm256_add_epi32(
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
            _mm256_set1_epi32(from),
        )
    };
    let bits = [bit(0), bit(8), bit(16), bit(24)];
    for (b, y) in data.chunks_exact(bytes).zip(out.chunks_exact_mut(32)) {
        let d = f16c_splat(b, 0);
        let m = if MIN {
            f16c_splat(b, 2)
        } else {
            _mm256_setzero_ps()
        };
        let qh = u32::from_le_bytes([b[qs_at - 4], b[qs_at - 3], b[qs_at - 2], b[qs_at - 1]]);
        let qh = _mm256_set1_epi32(qh as i32);
        let emit = |y: &mut [f32], codes: __m256i| {
            let v = if MIN {
                _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(codes), d), m)
            } else {
                _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(codes, sixteen)), d)
            };
            put8::<STREAM>(y, v);
        };
        let (lo, hi) = y.split_at_mut(16);
        for (j, ((q, lo), hi)) in b[qs_at..qs_at + 16]
            .chunks_exact(8)
            .zip(lo.chunks_exact_mut(8))
            .zip(hi.chunks_exact_mut(8))
            .enumerate()
        {
            // SAFETY: `q` is 8 readable bytes (chunks_exact); unaligned 8-byte load.
            let v = _mm256_cvtepu8_epi32(unsafe { _mm_loadl_epi64(q.as_ptr().cast()) });
            let fifth = |at: __m256i| {
                _mm256_slli_epi32::<4>(_mm256_and_si256(_mm256_srlv_epi32(qh, at), one))
            };
            emit(
                lo,
                _mm256_or_si256(_mm256_and_si256(v, low4), fifth(bits[j])),
            );
            emit(
                hi,
                _mm256_or_si256(_mm256_srli_epi32::<4>(v), fifth(bits[j + 2])),
            );
        }
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q5_0<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    five_bit_blocks::<STREAM, false>(data, out, block::Q5_0.bytes);
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q5_1<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    five_bit_blocks::<STREAM, true>(data, out, block::Q5_1.bytes);
}

/// Blocks of `bytes` bytes, each `elems` signed byte codes from `codes_at` on times the
/// block's scale: an f16 at its start or, with `F32_SCALE`, an f32 (q8_0, q8_1 and q8_k).
#[inline]
#[target_feature(enable = "avx2,f16c")]
fn signed_byte_blocks<const STREAM: bool, const F32_SCALE: bool>(
    data: &[u8],
    out: &mut [f32],
    (bytes, elems, codes_at): (usize, usize, usize),
) {
    for (b, y) in data.chunks_exact(bytes).zip(out.chunks_exact_mut(elems)) {
        let d = if F32_SCALE {
            _mm256_set1_ps(f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        } else {
            f16c_splat(b, 0)
        };
        // Eight codes per 8-byte load, widened straight from memory (no shuffles to split a
        // wider load: they compete with the stores on CPUs that split 256-bit operations).
        for (q, y) in b[codes_at..codes_at + elems]
            .chunks_exact(8)
            .zip(y.chunks_exact_mut(8))
        {
            // SAFETY: `q` is 8 readable bytes (chunks_exact); unaligned 8-byte load.
            let q = unsafe { _mm_loadl_epi64(q.as_ptr().cast()) };
            store_scaled::<STREAM>(y, _mm256_cvtepi8_epi32(q), d);
        }
    }
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q8_0<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    signed_byte_blocks::<STREAM, false>(data, out, (block::Q8_0.bytes, block::Q8_0.elems, 2));
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q8_1<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    signed_byte_blocks::<STREAM, false>(data, out, (block::Q8_1.bytes, block::Q8_1.elems, 4));
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn dequant_q8_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    signed_byte_blocks::<STREAM, true>(data, out, (block::Q8_K.bytes, block::Q8_K.elems, 4));
}

/// The block's element of largest magnitude, the first one of it as the scalar scan
/// (`acc < |v|`) keeps it; `None` when no element beats 0 (a NaN never enters).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn signed_absmax(x: &[f32], v: &[__m256; 4]) -> Option<f32> {
    let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
    let a = v.map(|vk| _mm256_and_ps(vk, abs_mask));
    let mut am = _mm256_setzero_ps();
    for &ak in &a {
        am = _mm256_max_ps(ak, am);
    }
    let (_, amax) = hmin_hmax(am, am);
    if amax == 0.0 {
        return None;
    }
    // the first lane equal to the maximum, found without a data-dependent branch
    let t = _mm256_set1_ps(amax);
    let hits = a.iter().enumerate().fold(0u32, |m, (k, &ak)| {
        let eq = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(ak, t)) as u32;
        m | (eq << (8 * k))
    });
    x.get(hits.trailing_zeros() as usize).copied()
}

/// The block's minimum and maximum as the scalar scan (`v < acc ? v : acc`) finds them, from
/// `f32::MAX` and `-f32::MAX`: a NaN never enters.
#[inline]
#[target_feature(enable = "avx2")]
fn block_min_max(v: &[__m256; 4]) -> (f32, f32) {
    let (mut mn, mut mx) = (_mm256_set1_ps(f32::MAX), _mm256_set1_ps(-f32::MAX));
    for &vk in v {
        mn = _mm256_min_ps(vk, mn);
        mx = _mm256_max_ps(vk, mx);
    }
    hmin_hmax(mn, mx)
}

/// `min(15, (int8_t)(int)v)` on eight lanes, as C on x86-64 computes it (`cvttps2dq`: NaN
/// and out of range give `i32::MIN`, whose low byte is 0).
#[inline]
#[target_feature(enable = "avx2")]
fn nibble_lanes(v: __m256) -> __m256i {
    let t = _mm256_cvttps_epi32(v);
    let b = _mm256_srai_epi32::<24>(_mm256_slli_epi32::<24>(t));
    _mm256_min_epi32(b, _mm256_set1_epi32(15))
}

/// `min(15, (int8_t)(int)((x - min) * id + 0.5))` on eight lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn q4_1_lanes(x: __m256, min: __m256, id: __m256) -> __m256i {
    nibble_lanes(_mm256_add_ps(
        _mm256_mul_ps(_mm256_sub_ps(x, min), id),
        _mm256_set1_ps(0.5),
    ))
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_q4_0(src: &[f32], out: &mut [u8]) {
    use crate::quant::legacy::{inverse, quant_q4_0_block};
    for (x, b) in src
        .chunks_exact(block::Q4_0.elems)
        .zip(out.chunks_exact_mut(block::Q4_0.bytes))
    {
        let v = load_block(x);
        let Some(max) = signed_absmax(x, &v) else {
            // no element beat the initial 0: the scalar code keeps max = +0
            quant_q4_0_block(x, 0.0 / -8.0, b);
            continue;
        };
        let d = max / -8.0;
        let id = inverse(d);
        crate::quant::float::put_f16(b, 0, d);
        let (idv, off) = (_mm256_set1_ps(id), _mm256_set1_ps(8.5));
        let q = v.map(|vk| nibble_lanes(_mm256_add_ps(_mm256_mul_ps(vk, idv), off)));
        // SAFETY: `b` is an 18-byte block, so bytes 2..18 are writable; unaligned store.
        unsafe {
            _mm_storeu_si128(
                b[2..block::Q4_0.bytes].as_mut_ptr().cast(),
                pack_nibbles::<0xff>(q),
            )
        };
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_q4_1(src: &[f32], out: &mut [u8]) {
    use crate::quant::float::put_f16;
    use crate::quant::legacy::{inverse, quant_q4_1_block};
    for (x, b) in src
        .chunks_exact(block::Q4_1.elems)
        .zip(out.chunks_exact_mut(block::Q4_1.bytes))
    {
        let v = load_block(x);
        let (min, max) = block_min_max(&v);
        if min == 0.0 || max == 0.0 {
            quant_q4_1_block(x, b);
            continue;
        }
        let d = (max - min) / 15.0;
        let id = inverse(d);
        put_f16(b, 0, d);
        put_f16(b, 2, min);
        let (minv, idv) = (_mm256_set1_ps(min), _mm256_set1_ps(id));
        let q = v.map(|vk| q4_1_lanes(vk, minv, idv));
        let bytes = pack_nibbles::<0xff>(q);
        // SAFETY: `b` is a 20-byte block, so bytes 4..20 are writable; unaligned store.
        unsafe { _mm_storeu_si128(b[4..block::Q4_1.bytes].as_mut_ptr().cast(), bytes) };
    }
}

/// The fifth bits of 32 elements (bit 4 of each lane) as `qh`: element `j`'s bit at `j`.
#[inline]
#[target_feature(enable = "avx2")]
fn fifth_bits(q: [__m256i; 4]) -> u32 {
    q.iter().enumerate().fold(0u32, |qh, (k, &v)| {
        let top = _mm256_castsi256_ps(_mm256_slli_epi32::<27>(v));
        qh | ((_mm256_movemask_ps(top) as u32) << (8 * k))
    })
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_q5_0(src: &[f32], out: &mut [u8]) {
    use crate::quant::legacy::{inverse, quant_q5_0_block};
    for (x, b) in src
        .chunks_exact(block::Q5_0.elems)
        .zip(out.chunks_exact_mut(block::Q5_0.bytes))
    {
        let v = load_block(x);
        let Some(max) = signed_absmax(x, &v) else {
            quant_q5_0_block(x, 0.0 / -16.0, b);
            continue;
        };
        let d = max / -16.0;
        let id = inverse(d);
        crate::quant::float::put_f16(b, 0, d);
        let (idv, off) = (_mm256_set1_ps(id), _mm256_set1_ps(16.5));
        // `min(31, (int8_t)(int)(x * id + 16.5))`
        let q = v.map(|vk| {
            let t = _mm256_cvttps_epi32(_mm256_add_ps(_mm256_mul_ps(vk, idv), off));
            let s = _mm256_srai_epi32::<24>(_mm256_slli_epi32::<24>(t));
            _mm256_min_epi32(s, _mm256_set1_epi32(31))
        });
        b[2..6].copy_from_slice(&fifth_bits(q).to_le_bytes());
        // SAFETY: `b` is a 22-byte block, so bytes 6..22 are writable; unaligned store.
        unsafe {
            _mm_storeu_si128(
                b[6..block::Q5_0.bytes].as_mut_ptr().cast(),
                pack_nibbles::<0x0f>(q),
            )
        };
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_q5_1(src: &[f32], out: &mut [u8]) {
    use crate::quant::float::put_f16;
    use crate::quant::legacy::{inverse, quant_q5_1_block};
    for (x, b) in src
        .chunks_exact(block::Q5_1.elems)
        .zip(out.chunks_exact_mut(block::Q5_1.bytes))
    {
        let v = load_block(x);
        let (min, max) = block_min_max(&v);
        if min == 0.0 || max == 0.0 {
            quant_q5_1_block(x, b);
            continue;
        }
        let d = (max - min) / 31.0;
        let id = inverse(d);
        put_f16(b, 0, d);
        put_f16(b, 2, min);
        let (minv, idv, half) = (_mm256_set1_ps(min), _mm256_set1_ps(id), _mm256_set1_ps(0.5));
        // `(uint8_t)(int)((x - min) * id + 0.5)`: the low byte is all that is used
        let q = v.map(|vk| {
            _mm256_cvttps_epi32(_mm256_add_ps(
                _mm256_mul_ps(_mm256_sub_ps(vk, minv), idv),
                half,
            ))
        });
        b[4..8].copy_from_slice(&fifth_bits(q).to_le_bytes());
        // SAFETY: `b` is a 24-byte block, so bytes 8..24 are writable; unaligned store.
        unsafe {
            _mm_storeu_si128(
                b[8..block::Q5_1.bytes].as_mut_ptr().cast(),
                pack_nibbles::<0x0f>(q),
            )
        };
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_q8_0(src: &[f32], out: &mut [u8]) {
    use crate::quant::legacy::quant_q8_0_block;
    for (x, b) in src
        .chunks_exact(block::Q8_0.elems)
        .zip(out.chunks_exact_mut(block::Q8_0.bytes))
    {
        let v = load_block(x);
        let Some(amax) = absmax_no_nan(&v) else {
            quant_q8_0_block(x, b);
            continue;
        };
        let d = amax / 127.0;
        let id = _mm256_set1_ps(inverse(d));
        put_f16(b, 0, d);
        let q = low_bytes32(v.map(|vk| round_i32(_mm256_mul_ps(vk, id))));
        // SAFETY: `b` is a 34-byte block, so bytes 2..34 are writable; unaligned store.
        unsafe { _mm256_storeu_si256(b[2..block::Q8_0.bytes].as_mut_ptr().cast(), q) };
    }
}
