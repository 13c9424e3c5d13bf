//! The element types: f32, f16, bf16, f64, i8, i16 and i32 decoded, f32 encoded as f16 (F16C)
//! and as bf16.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{put32, put8, store_fence};

/// Decoders of element types, each written once: `$width` bytes per element, eight outputs
/// from each `8 * $width` input bytes `$s` by `$eight`, the tail by the scalar `$tail`.
macro_rules! element_decoders {
    ($($name:ident($features:literal, $width:literal, |$s:ident| $eight:expr, $tail:path);)*) => {$(
        /// # Safety
        /// The CPU must support the features this function enables.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
            let n = out.len().min(data.len() / $width);
            let mut src = data[..$width * n].chunks_exact(8 * $width);
            let mut dst = out[..n].chunks_exact_mut(8);
            for ($s, d) in (&mut src).zip(&mut dst) {
                put8::<STREAM>(d, $eight);
            }
            $tail(src.remainder(), dst.into_remainder());
        }
    )*};
}

// In each, `s` is exactly `8 * $width` bytes (chunks_exact); the loads read its start.
element_decoders! {
    dequant_f32("avx2", 4, |s| {
        // SAFETY: 32 bytes; unaligned load.
        unsafe { _mm256_loadu_ps(s.as_ptr().cast()) }
    }, crate::quant::float::dequant_f32_scalar);
    dequant_f16("avx2,f16c", 2, |s| {
        // SAFETY: 16 bytes; unaligned load.
        _mm256_cvtph_ps(unsafe { _mm_loadu_si128(s.as_ptr().cast()) })
    }, crate::quant::float::dequant_f16_scalar);
    dequant_f64("avx2", 8, |s| {
        // SAFETY: 64 bytes; two unaligned 32-byte loads.
        let (lo, hi) = unsafe {
            (_mm256_loadu_pd(s.as_ptr().cast()), _mm256_loadu_pd(s[32..].as_ptr().cast()))
        };
        _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo))
    }, crate::quant::float::dequant_f64_scalar);
    dequant_i8("avx2", 1, |s| {
        // SAFETY: 8 bytes; unaligned 8-byte load.
        let v = unsafe { _mm_loadl_epi64(s.as_ptr().cast()) };
        _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v))
    }, crate::quant::float::dequant_i8_scalar);
    dequant_i16("avx2", 2, |s| {
        // SAFETY: 16 bytes; unaligned load.
        let v = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
        _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(v))
    }, crate::quant::float::dequant_i16_scalar);
    dequant_i32("avx2", 4, |s| {
        // SAFETY: 32 bytes; unaligned load.
        _mm256_cvtepi32_ps(unsafe { _mm256_loadu_si256(s.as_ptr().cast()) })
    }, crate::quant::float::dequant_i32_scalar);
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn dequant_bf16<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
    // Byte k of the result is byte `TOP[k]` of its 128-bit lane (-1: zero): each 16-bit
    // value becomes the top half of a 32-bit lane, the low lane taking values 0-3 and the
    // high lane (the same 16 bytes, broadcast) values 4-7. One shuffle, no shift.
    #[rustfmt::skip]
    let top = _mm256_setr_epi8(
        -1, -1, 0, 1, -1, -1, 2, 3, -1, -1, 4, 5, -1, -1, 6, 7,
        -1, -1, 8, 9, -1, -1, 10, 11, -1, -1, 12, 13, -1, -1, 14, 15,
    );
    let n = out.len().min(data.len() / 2);
    let mut src = data[..2 * n].chunks_exact(16);
    let mut dst = out[..n].chunks_exact_mut(8);
    for (s, d) in (&mut src).zip(&mut dst) {
        // SAFETY: `s` is 16 bytes (chunks_exact); unaligned load.
        let h = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
        let v = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(h), top);
        put8::<STREAM>(d, _mm256_castsi256_ps(v));
    }
    crate::quant::float::dequant_bf16_scalar(src.remainder(), dst.into_remainder());
}

/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
pub(super) unsafe fn f32_to_f16(src: &[f32], out: &mut [u8]) {
    let n = src.len().min(out.len() / 2);
    let (src, out) = (&src[..n], &mut out[..2 * n]);
    let mut s8 = src.chunks_exact(8);
    let mut d16 = out.chunks_exact_mut(16);
    let nan_base = _mm_set1_epi16(0x7e00);
    let sign_bit = _mm256_set1_epi32(0x8000);
    for (s, d) in (&mut s8).zip(&mut d16) {
        // SAFETY: `s` is 8 floats and `d` 16 bytes (chunks_exact); unaligned load and store.
        unsafe {
            let v = _mm256_loadu_ps(s.as_ptr());
            let h = _mm256_cvtps_ph::<_MM_FROUND_TO_NEAREST_INT>(v);
            let nan = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(v, v));
            let nan16 = _mm_packs_epi32(
                _mm256_castsi256_si128(nan),
                _mm256_extracti128_si256(nan, 1),
            );
            let sign = _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 16), sign_bit);
            let sign16 = _mm_packus_epi32(
                _mm256_castsi256_si128(sign),
                _mm256_extracti128_si256(sign, 1),
            );
            let fixed = _mm_blendv_epi8(h, _mm_or_si128(sign16, nan_base), nan16);
            _mm_storeu_si128(d.as_mut_ptr().cast(), fixed);
        }
    }
    for (o, &x) in d16.into_remainder().chunks_exact_mut(2).zip(s8.remainder()) {
        o.copy_from_slice(&crate::quant::float::f32_to_f16(x).to_le_bytes());
    }
}

/// The bf16 bits of eight floats in the 32-bit lanes (high halves zero), as
/// `quant::f32_to_bf16`: a NaN keeps its top half with the quiet bit set, anything else is
/// rounded to nearest-even.
#[inline]
#[target_feature(enable = "avx2")]
fn bf16_lanes(u: __m256i) -> __m256i {
    let top = _mm256_srli_epi32::<16>(u);
    let odd = _mm256_and_si256(top, _mm256_set1_epi32(1));
    let bias = _mm256_add_epi32(_mm256_set1_epi32(0x7fff), odd);
    let rounded = _mm256_srli_epi32::<16>(_mm256_add_epi32(u, bias));
    let magnitude = _mm256_and_si256(u, _mm256_set1_epi32(0x7fff_ffff));
    let nan = _mm256_cmpgt_epi32(magnitude, _mm256_set1_epi32(0x7f80_0000));
    let quiet = _mm256_or_si256(top, _mm256_set1_epi32(0x40));
    _mm256_blendv_epi8(rounded, quiet, nan)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn quant_bf16<const STREAM: bool>(src: &[f32], out: &mut [u8]) {
    let n = src.len().min(out.len() / 2);
    let (src, out) = (&src[..n], &mut out[..2 * n]);
    let mut s16 = src.chunks_exact(16);
    let mut d32 = out.chunks_exact_mut(32);
    for (s, d) in (&mut s16).zip(&mut d32) {
        // SAFETY: `s` is 16 floats (chunks_exact); unaligned loads.
        unsafe {
            let lo = bf16_lanes(_mm256_loadu_si256(s.as_ptr().cast()));
            let hi = bf16_lanes(_mm256_loadu_si256(s[8..].as_ptr().cast()));
            // packus works per 128-bit half: [lo 0-3, hi 0-3, lo 4-7, hi 4-7] → element order
            let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(lo, hi));
            put32::<STREAM>(d, packed);
        }
    }
    if STREAM {
        store_fence();
    }
    crate::quant::float::quant_bf16_scalar(s16.remainder(), d32.into_remainder());
}
