//! SIMD kernels: the only module of the crate's codecs with `unsafe`.
//!
//! Each public function returns `false` when the CPU lacks the features (or the target is not
//! x86-64), and the caller then runs its scalar code. The kernels do exactly the scalar code's IEEE
//! operations (integer → float conversions, which are exact, then the same multiplies and
//! subtractions in the same order, never fused), so both paths give the same bits; the unit tests
//! compare them on random blocks.
#![allow(unsafe_code)]

/// f16 → f32 for a whole slice with F16C. `data.len() == 2 * out.len()`.
pub(crate) fn f16_to_f32_slice(data: &[u8], out: &mut [f32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2_f16c() {
        // SAFETY: the CPU supports AVX2 and F16C (checked just above).
        unsafe { x86::f16_to_f32(data, out) };
        return true;
    }
    let _ = (data, out);
    false
}

/// q4_0 blocks with AVX2 (+F16C not needed: the scale is converted by scalar code).
pub(crate) fn dequant_q4_0(data: &[u8], out: &mut [f32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::q4_0(data, out) };
        return true;
    }
    let _ = (data, out);
    false
}

/// q8_0 blocks with AVX2.
pub(crate) fn dequant_q8_0(data: &[u8], out: &mut [f32]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::q8_0(data, out) };
        return true;
    }
    let _ = (data, out);
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use crate::quant::float::f16_le;

    pub(super) fn has_avx2() -> bool {
        is_x86_feature_detected!("avx2")
    }

    pub(super) fn has_avx2_f16c() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("f16c")
    }

    /// Eight i32 lanes → f32, times `d`, stored to `out[..8]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn store_scaled(out: &mut [f32], v: __m256i, d: __m256) {
        assert!(out.len() >= 8);
        // SAFETY: `out` has at least 8 floats (asserted); unaligned store.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), _mm256_mul_ps(_mm256_cvtepi32_ps(v), d)) };
    }

    /// # Safety
    /// The CPU must support AVX2 and F16C.
    #[target_feature(enable = "avx2,f16c")]
    pub(super) unsafe fn f16_to_f32(data: &[u8], out: &mut [f32]) {
        let n = out.len().min(data.len() / 2);
        let (data, out) = (&data[..2 * n], &mut out[..n]);
        let mut src = data.chunks_exact(16);
        let mut dst = out.chunks_exact_mut(8);
        for (s, d) in (&mut src).zip(&mut dst) {
            // SAFETY: `s` is 16 bytes and `d` 8 floats (chunks_exact); unaligned load and store.
            unsafe {
                let h = _mm_loadu_si128(s.as_ptr().cast());
                _mm256_storeu_ps(d.as_mut_ptr(), _mm256_cvtph_ps(h));
            }
        }
        super::super::float::dequant_f16_scalar(src.remainder(), dst.into_remainder());
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn q4_0(data: &[u8], out: &mut [f32]) {
        for (b, y) in data.chunks_exact(18).zip(out.chunks_exact_mut(32)) {
            let d = _mm256_set1_ps(f16_le(b, 0));
            // SAFETY: `b` is an 18-byte block, so bytes 2..18 are readable; `y` is 32 floats and
            // each store_scaled call gets a subslice of at least 8.
            unsafe {
                let q = _mm_loadu_si128(b[2..18].as_ptr().cast());
                let m = _mm_set1_epi8(0x0f);
                let eight = _mm_set1_epi8(8);
                let lo = _mm_sub_epi8(_mm_and_si128(q, m), eight);
                let hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(q, 4), m), eight);
                store_scaled(&mut y[0..], _mm256_cvtepi8_epi32(lo), d);
                store_scaled(&mut y[8..], _mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)), d);
                store_scaled(&mut y[16..], _mm256_cvtepi8_epi32(hi), d);
                store_scaled(&mut y[24..], _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)), d);
            }
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn q8_0(data: &[u8], out: &mut [f32]) {
        for (b, y) in data.chunks_exact(34).zip(out.chunks_exact_mut(32)) {
            let d = _mm256_set1_ps(f16_le(b, 0));
            // SAFETY: `b` is a 34-byte block, so bytes 2..34 are two readable 16-byte loads; `y`
            // is 32 floats and each store_scaled call gets a subslice of at least 8.
            unsafe {
                let q0 = _mm_loadu_si128(b[2..18].as_ptr().cast());
                let q1 = _mm_loadu_si128(b[18..34].as_ptr().cast());
                store_scaled(&mut y[0..], _mm256_cvtepi8_epi32(q0), d);
                store_scaled(&mut y[8..], _mm256_cvtepi8_epi32(_mm_srli_si128(q0, 8)), d);
                store_scaled(&mut y[16..], _mm256_cvtepi8_epi32(q1), d);
                store_scaled(&mut y[24..], _mm256_cvtepi8_epi32(_mm_srli_si128(q1, 8)), d);
            }
        }
    }
}
