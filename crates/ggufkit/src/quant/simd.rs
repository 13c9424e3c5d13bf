//! SIMD kernels: the only module of the crate's codecs with `unsafe`.
//!
//! Each public function returns `false` when the CPU lacks the features (or the target is not
//! x86-64), and the caller then runs its scalar code. The kernels do exactly the scalar code's IEEE
//! operations (integer → float conversions, which are exact, then the same multiplies and
//! subtractions in the same order, fused only where that is exact: `x86::mul_sub`), so both paths
//! give the same bits; the unit tests compare them on random blocks and special values.
#![allow(unsafe_code)]

use crate::types::GgmlType;

/// f32 → f16 for a whole slice with F16C (`out.len() == 2 * src.len()`), the bits of
/// [`super::float::f32_to_f16`]: the conversion rounds to nearest-even like it, and every NaN lane
/// is then replaced by ggml's `0x7E00 | sign` (F16C would keep part of the payload).
pub(crate) fn f32_to_f16_slice(src: &[f32], out: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2_f16c() {
        // SAFETY: the CPU supports AVX2 and F16C (checked just above).
        unsafe { x86::f32_to_f16(src, out) };
        return true;
    }
    let _ = (src, out);
    false
}

/// bf16 conversion with AVX2, the bits of `quant::f32_to_bf16` (`out.len() == 2 * src.len()`);
/// with `stream`, non-temporal stores (`super::streaming`).
pub(crate) fn quant_bf16(src: &[f32], out: &mut [u8], stream: bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe {
            if stream {
                x86_quant::quant_bf16::<true>(src, out);
            } else {
                x86_quant::quant_bf16::<false>(src, out);
            }
        }
        return true;
    }
    let _ = (src, out, stream);
    false
}

/// The candidate sums of ggml's `make_qx_quants` with AVX2, one candidate per lane: lane `k`
/// takes `iscale = num[k] / max` and sums `(w·x)·l` into `sumlx[k]` and `(w·l)·l` into
/// `suml2[k]` in element order, `l = clamp(nearest_int(iscale·x), -nmax, nmax - 1)`: the scalar
/// loop's operations, lane by lane.
pub(crate) fn qx_sums(
    nmax: i32,
    x: &[f32],
    w: &[f32],
    num: &[f32; 24],
    max: f32,
    sumlx: &mut [f32; 24],
    suml2: &mut [f32; 24],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::qx_sums(nmax, x, w, num, max, sumlx, suml2) };
        return true;
    }
    let _ = (nmax, x, w, num, max, sumlx, suml2);
    false
}

/// The candidates of a `make_qkx2_quants`/`make_qkx3_quants` search with AVX2, eight per
/// vector: the scalar [`super::ksearch::qkx_lanes_scalar`]'s operations, lane by lane.
pub(crate) fn qkx_lanes(
    g: &super::ksearch::QkxGroup,
    min: f32,
    max: f32,
    c: &mut super::ksearch::QkxLanes,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::qkx_lanes(g, min, max, c) };
        return true;
    }
    let _ = (g, min, max, c);
    false
}

/// ggml's `make_q3_quants` (`do_rmse`) on the sixteen 16-element groups of a super-block with
/// AVX2, one group per lane: levels to `l` (offset by `nmax`, or 0 for an all-zero group),
/// scales to `scales`. Each lane runs the scalar search's operations, its level changes masked
/// where the scalar code would not make them, and stops where the scalar loop would break.
pub(crate) fn q3_groups(nmax: i32, x: &[f32], l: &mut [i8], scales: &mut [f32; 16]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::q3_groups(nmax, x, l, scales) };
        return true;
    }
    let _ = (nmax, x, l, scales);
    false
}

/// The requantization of q3_k and q6_k with AVX2: for each 16-element group `j` of `x` whose
/// scale `d[j]` is not zero, `l = clamp(nearest_int(x / d[j]), lo, hi) - lo`; the other groups'
/// levels are left as they are.
pub(crate) fn requant_groups16(x: &[f32], d: &[f32; 16], lo: i32, hi: i32, l: &mut [i8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::requant_groups16(x, d, lo, hi, l) };
        return true;
    }
    let _ = (x, d, lo, hi, l);
    false
}

/// The lattice quantizers' neighbour search with AVX2 (`Lattice::nearest`): the distances of
/// eight neighbours side by side, each lane summing `w * (scale * table[l] - x)^2` in element
/// order, and the first smallest kept. Writes the neighbour's position to `best`. Only for
/// points of eight levels (`false` otherwise): the four-level iq3 points are quantized about 20%
/// faster by the scalar loop (BENCHMARKS.md), so their lists carry no transposed runs.
pub(crate) fn nearest_neighbour<const N: usize>(
    nb: &super::iq_quant::Neighbours,
    table: &super::iq_quant::LevelTable,
    x: &[f32],
    w: &[f32],
    scale: f32,
    best: &mut Option<usize>,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if N == 8 && x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        *best = unsafe { x86::nearest_neighbour::<N>(nb, table, x, w, scale) };
        return true;
    }
    let _ = (nb, table, x, w, scale, best);
    false
}

/// iq1_m's split search with AVX2: eight values of `i2` per vector, and only the vectors where
/// some candidate beats the current best go through [`super::iq_quant::SplitPick::offer`] one by
/// one, in ggml's order.
pub(crate) fn iq1m_splits(
    sp: &super::iq_quant::Iq1mSplits,
    pick: &mut super::iq_quant::SplitPick,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::iq1m_splits(sp, pick) };
        return true;
    }
    let _ = (sp, pick);
    false
}

/// iq1_s's split search with AVX2, as [`iq1m_splits`].
pub(crate) fn iq1s_splits(
    sp: &super::iq2_quant::Iq1sSplits,
    pick: &mut super::iq_quant::SplitPick,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if x86::has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { x86::iq1s_splits(sp, pick) };
        return true;
    }
    let _ = (sp, pick);
    false
}

/// Safe entry points of AVX2 kernels: each `$name(a, b)` runs `$module::$name` when the CPU has
/// AVX2 and returns `true`, else returns `false` for the caller's scalar code.
macro_rules! avx2_entries {
    ($module:ident ($a:ident: $at:ty, $b:ident: $bt:ty) { $($(#[$doc:meta])* $name:ident;)* }) => {$(
        $(#[$doc])*
        pub(crate) fn $name($a: $at, $b: $bt) -> bool {
            #[cfg(target_arch = "x86_64")]
            if x86::has_avx2() {
                // SAFETY: the CPU supports AVX2 (checked just above).
                unsafe { $module::$name($a, $b) };
                return true;
            }
            let _ = ($a, $b);
            false
        }
    )*};
}

avx2_entries! { x86 (src: &[f32], out: &mut [u8]) {
    /// q4_0 quantization with AVX2, the bytes of `quantize_row_q4_0_ref` (the largest magnitude
    /// is found by SIMD, its first element by a scalar scan, as the reference picks it).
    quant_q4_0;
    /// q4_1 quantization with AVX2, the bytes of `quantize_row_q4_1_ref` (a block whose minimum
    /// or maximum is a zero, whose sign depends on the scan order, goes through the scalar code).
    quant_q4_1;
    /// q5_0 quantization with AVX2, the bytes of `quantize_row_q5_0_ref` (the scale's element
    /// found as for q4_0).
    quant_q5_0;
    /// q5_1 quantization with AVX2, the bytes of `quantize_row_q5_1_ref` (zero extremes through
    /// the scalar code, as for q4_1).
    quant_q5_1;
}}

/// The AVX2 decoders. For each, a safe entry `$entry(data, out)` that decodes with ordinary
/// stores when the CPU has the kernel's features and returns `true` (else `false`, and the caller
/// runs its scalar code), and an arm of [`dequant_streamed`].
macro_rules! avx2_decoders {
    ($($(#[$doc:meta])* $ty:ident => $entry:ident, $kernel:ident if $has:ident;)*) => {
        $(
            $(#[$doc])*
            pub(crate) fn $entry(data: &[u8], out: &mut [f32]) -> bool {
                #[cfg(target_arch = "x86_64")]
                if x86::$has() {
                    // SAFETY: the CPU has the kernel's features (checked just above).
                    unsafe { x86::$kernel::<false>(data, out) };
                    return true;
                }
                let _ = (data, out);
                false
            }
        )*

        /// Decodes little-endian `data` of type `ty` into `out` with non-temporal stores, which
        /// send the output to memory without first reading its lines into the cache (for outputs
        /// no cache would keep: `super::streaming`). `false` when `ty` has no AVX2 decoder or the
        /// CPU lacks its features; the caller then decodes as usual.
        pub(crate) fn dequant_streamed(ty: GgmlType, data: &[u8], out: &mut [f32]) -> bool {
            #[cfg(target_arch = "x86_64")]
            match ty {
                $(GgmlType::$ty if x86::$has() => {
                    // SAFETY: the CPU has the kernel's features (checked by the guard).
                    unsafe { x86::$kernel::<true>(data, out) };
                    // Orders the non-temporal stores before whatever the caller does next.
                    x86::store_fence();
                    return true;
                })*
                _ => {}
            }
            let _ = (ty, data, out);
            false
        }
    };
}

avx2_decoders! {
    /// f32 elements copied with AVX2.
    F32 => dequant_f32, dequant_f32 if has_avx2;
    /// f16 elements with F16C (`data.len() == 2 * out.len()`).
    F16 => f16_to_f32_slice, dequant_f16 if has_avx2_f16c;
    /// f64 elements with AVX2 (each rounded to nearest, as `as f32`).
    F64 => dequant_f64, dequant_f64 if has_avx2;
    /// i8 elements with AVX2.
    I8 => dequant_i8, dequant_i8 if has_avx2;
    /// i16 elements with AVX2.
    I16 => dequant_i16, dequant_i16 if has_avx2;
    /// i32 elements with AVX2 (each rounded to nearest, as `as f32`).
    I32 => dequant_i32, dequant_i32 if has_avx2;
    /// bf16 elements with AVX2 (a byte shuffle puts each value in the top half of its lane).
    BF16 => dequant_bf16, dequant_bf16 if has_avx2;
    /// q4_0 blocks with AVX2.
    Q4_0 => dequant_q4_0, dequant_q4_0 if has_avx2_f16c;
    /// q4_1 blocks with AVX2.
    Q4_1 => dequant_q4_1, dequant_q4_1 if has_avx2_f16c;
    /// q5_0 blocks with AVX2 (each lane's fifth bit by a variable shift).
    Q5_0 => dequant_q5_0, dequant_q5_0 if has_avx2_f16c;
    /// q5_1 blocks with AVX2 (each lane's fifth bit by a variable shift).
    Q5_1 => dequant_q5_1, dequant_q5_1 if has_avx2_f16c;
    /// q8_0 blocks with AVX2.
    Q8_0 => dequant_q8_0, dequant_q8_0 if has_avx2_f16c;
    /// q6_k blocks with AVX2.
    Q6_K => dequant_q6_k, dequant_q6_k if has_avx2_f16c;
    /// q8_1 blocks with AVX2 (q8_0's decoder; the sum `s` is not read).
    Q8_1 => dequant_q8_1, dequant_q8_1 if has_avx2_f16c;
    /// q8_k blocks with AVX2 (q8_0's decoder with an f32 scale; the sums are not read).
    Q8_K => dequant_q8_k, dequant_q8_k if has_avx2_f16c;
    /// q2_k blocks with AVX2.
    Q2_K => dequant_q2_k, dequant_q2_k if has_avx2_f16c;
    /// q3_k blocks with AVX2.
    Q3_K => dequant_q3_k, dequant_q3_k if has_avx2_f16c;
    /// q4_k blocks with AVX2 and FMA (fused where that is exact: `x86::mul_sub`).
    Q4_K => dequant_q4_k, dequant_q4_k if has_avx2_f16c_fma;
    /// q5_k blocks with AVX2 and FMA (fused where that is exact: `x86::mul_sub`).
    Q5_K => dequant_q5_k, dequant_q5_k if has_avx2_f16c_fma;
    /// iq1_s blocks with AVX2.
    IQ1_S => dequant_iq1_s, dequant_iq1_s if has_avx2_f16c;
    /// iq1_m blocks with AVX2.
    IQ1_M => dequant_iq1_m, dequant_iq1_m if has_avx2;
    /// tq1_0 blocks with AVX2.
    TQ1_0 => dequant_tq1_0, dequant_tq1_0 if has_avx2_f16c;
    /// tq2_0 blocks with AVX2 (a permute looks up each 2-bit code's product).
    TQ2_0 => dequant_tq2_0, dequant_tq2_0 if has_avx2_f16c;
    /// mxfp4 blocks with AVX2 (a byte shuffle looks up the E2M1 values).
    MXFP4 => dequant_mxfp4, dequant_mxfp4 if has_avx2;
    /// iq4_nl blocks with AVX2 (a byte shuffle looks up the 16 levels).
    IQ4_NL => dequant_iq4_nl, dequant_iq4_nl if has_avx2_f16c;
    /// iq4_xs blocks with AVX2 (iq4_nl's lookup under each sub-block's scale).
    IQ4_XS => dequant_iq4_xs, dequant_iq4_xs if has_avx2_f16c;
    /// nvfp4 blocks with AVX2.
    NVFP4 => dequant_nvfp4, dequant_nvfp4 if has_avx2;
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use crate::quant::fp4::KVALUES_FP4;
    use crate::quant::iq::{iq1_m_scale, iq4_xs_scale, KVALUES_IQ4NL};
    use crate::quant::iq_grids::IQ1S_GRID;
    use crate::quant::kquants::scale_min_k4;
    use crate::quant::layout::block;

    pub(super) fn has_avx2() -> bool {
        is_x86_feature_detected!("avx2")
    }

    pub(super) fn has_avx2_f16c() -> bool {
        is_x86_feature_detected!("avx2") && is_x86_feature_detected!("f16c")
    }

    pub(super) fn has_avx2_f16c_fma() -> bool {
        has_avx2_f16c() && is_x86_feature_detected!("fma")
    }

    /// The little-endian f16 at `b[off..off + 2]` in all eight lanes, converted by F16C: the
    /// bits of [`crate::quant::f16_to_f32`] (a NaN quieted, its payload kept). The value is
    /// broadcast before the conversion, so no lane waits on an earlier result (inserting it into
    /// a register would make each block wait on the previous block's last instruction).
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn f16c_splat(b: &[u8], off: usize) -> __m256 {
        let h = u16::from_le_bytes([b[off], b[off + 1]]);
        _mm256_cvtph_ps(_mm_set1_epi16(h as i16))
    }

    /// [`f16c_splat`]'s first lane: the f16 at `b[off..off + 2]` as f32.
    #[inline]
    #[target_feature(enable = "avx2,f16c")]
    fn f16c_le(b: &[u8], off: usize) -> f32 {
        _mm256_cvtss_f32(f16c_splat(b, off))
    }

    /// Orders the non-temporal stores of this thread before its later stores (`sfence`).
    pub(super) fn store_fence() {
        // SAFETY: `sfence` is part of SSE, which every x86-64 CPU has.
        unsafe { _mm_sfence() }
    }

    /// A store of 32 bytes to `out[..32]`. With `STREAM`, a non-temporal one (two 16-byte
    /// halves, written to memory without reading the line into the cache first) when `out` is
    /// 16-byte aligned, as the outputs worth streaming are; otherwise an ordinary store.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn put32<const STREAM: bool>(out: &mut [u8], v: __m256i) {
        let out = &mut out[..32];
        let p: *mut __m128i = out.as_mut_ptr().cast();
        if STREAM && p.addr() % 16 == 0 {
            // SAFETY: `out` is 32 bytes (sliced above) and `p` 16-byte aligned, so `p` and
            // `p + 1` are aligned 16-byte destinations inside it.
            unsafe {
                _mm_stream_si128(p, _mm256_castsi256_si128(v));
                _mm_stream_si128(p.add(1), _mm256_extracti128_si256::<1>(v));
            }
        } else {
            // SAFETY: `out` is 32 bytes (sliced above); unaligned store.
            unsafe { _mm256_storeu_si256(p.cast(), v) }
        }
    }

    /// A decoder's store of eight floats to `out[..8]` ([`put32`]).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn put8<const STREAM: bool>(out: &mut [f32], v: __m256) {
        put32::<STREAM>(
            bytemuck::cast_slice_mut(&mut out[..8]),
            _mm256_castps_si256(v),
        );
    }

    /// Eight i32 lanes → f32, times `d`, stored to `out[..8]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store_scaled<const STREAM: bool>(out: &mut [f32], v: __m256i, d: __m256) {
        put8::<STREAM>(out, _mm256_mul_ps(_mm256_cvtepi32_ps(v), d));
    }

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
        }, super::super::float::dequant_f32_scalar);
        dequant_f16("avx2,f16c", 2, |s| {
            // SAFETY: 16 bytes; unaligned load.
            _mm256_cvtph_ps(unsafe { _mm_loadu_si128(s.as_ptr().cast()) })
        }, super::super::float::dequant_f16_scalar);
        dequant_f64("avx2", 8, |s| {
            // SAFETY: 64 bytes; two unaligned 32-byte loads.
            let (lo, hi) = unsafe {
                (_mm256_loadu_pd(s.as_ptr().cast()), _mm256_loadu_pd(s[32..].as_ptr().cast()))
            };
            _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo))
        }, super::super::float::dequant_f64_scalar);
        dequant_i8("avx2", 1, |s| {
            // SAFETY: 8 bytes; unaligned 8-byte load.
            let v = unsafe { _mm_loadl_epi64(s.as_ptr().cast()) };
            _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v))
        }, super::super::float::dequant_i8_scalar);
        dequant_i16("avx2", 2, |s| {
            // SAFETY: 16 bytes; unaligned load.
            let v = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
            _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(v))
        }, super::super::float::dequant_i16_scalar);
        dequant_i32("avx2", 4, |s| {
            // SAFETY: 32 bytes; unaligned load.
            _mm256_cvtepi32_ps(unsafe { _mm256_loadu_si256(s.as_ptr().cast()) })
        }, super::super::float::dequant_i32_scalar);
    }

    /// Eight floats from `v[..8]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load8(v: &[f32]) -> __m256 {
        let v = &v[..8];
        // SAFETY: `v` is 8 floats (sliced above); unaligned load.
        unsafe { _mm256_loadu_ps(v.as_ptr()) }
    }

    /// Stores eight lanes to `out[..8]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn store8(out: &mut [f32], v: __m256) {
        let out = &mut out[..8];
        // SAFETY: `out` is 8 floats (sliced above); unaligned store.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) }
    }

    /// ggml's `nearest_int` on eight lanes: `v + 1.5·2^23`, its low 23 bits minus `2^22`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nearest_int8(v: __m256) -> __m256i {
        let t = _mm256_castps_si256(_mm256_add_ps(v, _mm256_set1_ps(12_582_912.0)));
        _mm256_sub_epi32(
            _mm256_and_si256(t, _mm256_set1_epi32(0x007f_ffff)),
            _mm256_set1_epi32(0x0040_0000),
        )
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn nearest_neighbour<const N: usize>(
        nb: &crate::quant::iq_quant::Neighbours,
        table: &crate::quant::iq_quant::LevelTable,
        x: &[f32],
        w: &[f32],
        scale: f32,
    ) -> Option<usize> {
        let (x, w) = (&x[..N], &w[..N]);
        let tab = load8(table);
        let vs = _mm256_set1_ps(scale);
        let xv: [__m256; N] = std::array::from_fn(|i| _mm256_set1_ps(x[i]));
        let wv: [__m256; N] = std::array::from_fn(|i| _mm256_set1_ps(w[i]));
        // per lane: the smallest distance so far (strictly smaller replaces) and its run
        let mut best_d2 = _mm256_set1_ps(f32::MAX);
        let mut best_run = _mm256_setzero_si256();
        for (r, run) in nb.runs.chunks_exact(8 * N).enumerate() {
            let mut d2 = _mm256_setzero_ps();
            for i in 0..N {
                let mut b = [0u8; 8];
                b.copy_from_slice(&run[8 * i..8 * i + 8]);
                let l = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(i64::from_le_bytes(b)));
                let q = _mm256_permutevar8x32_ps(tab, l);
                let diff = _mm256_sub_ps(_mm256_mul_ps(vs, q), xv[i]);
                d2 = _mm256_add_ps(d2, _mm256_mul_ps(_mm256_mul_ps(wv[i], diff), diff));
            }
            let lt = _mm256_cmp_ps::<_CMP_LT_OQ>(d2, best_d2);
            best_d2 = _mm256_blendv_ps(best_d2, d2, lt);
            best_run = _mm256_blendv_epi8(
                best_run,
                _mm256_set1_epi32(r as i32),
                _mm256_castps_si256(lt),
            );
        }
        let mut d2 = [0f32; 8];
        let mut run = [0i32; 8];
        store8(&mut d2, best_d2);
        // SAFETY: `run` is 8 i32 (32 bytes); unaligned store.
        unsafe { _mm256_storeu_si256(run.as_mut_ptr().cast(), best_run) };
        // the lanes' first minima; across lanes, the smallest distance, then the first position
        let mut best: Option<(f32, usize)> = None;
        for lane in 0..8 {
            // a lane still at f32::MAX never took a distance (those taken are below it, not NaN)
            if d2[lane] == f32::MAX {
                continue;
            }
            let at = 8 * run[lane] as usize + lane;
            let better = match best {
                None => true,
                Some((bd, bat)) => d2[lane] < bd || (d2[lane] == bd && at < bat),
            };
            if better {
                best = Some((d2[lane], at));
            }
        }
        // a padding lane repeats the last neighbour, which comes first on the tie
        best.map(|(_, at)| at.min(nb.index.len().saturating_sub(1)))
    }

    /// Offers the candidates of one vector of splits `(i1, base + lane, k)` to `pick` when some
    /// valid lane (`lane < valid`) beats its current best: lane after lane, `k` after `k`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn offer_lanes<const K: usize>(
        qx: &[__m256; K],
        q2: &[__m256; K],
        valid: usize,
        (i1, base): (usize, usize),
        pick: &mut crate::quant::iq_quant::SplitPick,
    ) {
        let best = _mm256_set1_ps(pick.score);
        let zero = _mm256_setzero_ps();
        let mut any = _mm256_setzero_ps();
        for k in 0..K {
            let pos = _mm256_cmp_ps::<_CMP_GT_OQ>(q2[k], zero);
            let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(
                _mm256_mul_ps(qx[k], qx[k]),
                _mm256_mul_ps(best, q2[k]),
            );
            any = _mm256_or_ps(any, _mm256_and_ps(pos, gt));
        }
        let mask = _mm256_movemask_ps(any) as u32 & ((1u32 << valid) - 1);
        if mask == 0 {
            return;
        }
        let mut x = [[0f32; 8]; K];
        let mut y = [[0f32; 8]; K];
        for k in 0..K {
            store8(&mut x[k], qx[k]);
            store8(&mut y[k], q2[k]);
        }
        for lane in mask.trailing_zeros() as usize..valid {
            for k in 0..K {
                pick.offer(x[k][lane], y[k][lane], (i1, base + lane, k));
            }
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn iq1m_splits(
        sp: &crate::quant::iq_quant::Iq1mSplits,
        pick: &mut crate::quant::iq_quant::SplitPick,
    ) {
        use crate::quant::iq_quant::{IQ1M_CM1, IQ1M_CM2, IQ1M_CP1, IQ1M_CP2, X_M, X_P};
        const BS: usize = 16;
        let (px, pw) = (&sp.px, &sp.pw);
        let txs = [px[0][BS], px[1][BS]];
        let tws = [pw[0][BS], pw[1][BS]];
        let (p2, m2) = (X_P[2], X_M[2]);
        let (cp2, cm2) = (_mm256_set1_ps(IQ1M_CP2), _mm256_set1_ps(IQ1M_CM2));
        for i1 in 0..=BS {
            // the scalar search's terms that do not depend on i2, rounded as it rounds them
            let a: [__m256; 2] = std::array::from_fn(|h| _mm256_set1_ps(px[h][i1]));
            let tp: [__m256; 2] = std::array::from_fn(|h| _mm256_set1_ps(txs[h] * p2));
            let tm: [__m256; 2] = std::array::from_fn(|h| _mm256_set1_ps(txs[h] * m2));
            let cp: [__m256; 2] =
                std::array::from_fn(|h| _mm256_set1_ps(tws[h] * p2 * p2 + pw[h][i1] * IQ1M_CP1));
            let cm: [__m256; 2] =
                std::array::from_fn(|h| _mm256_set1_ps(tws[h] * m2 * m2 + pw[h][i1] * IQ1M_CM1));
            for base in (i1..=BS).step_by(8) {
                let mut qx_p = [_mm256_setzero_ps(); 2];
                let mut qx_m = [_mm256_setzero_ps(); 2];
                let mut q2_p = [_mm256_setzero_ps(); 2];
                let mut q2_m = [_mm256_setzero_ps(); 2];
                for h in 0..2 {
                    let sx = _mm256_add_ps(a[h], load8(&px[h][base..]));
                    qx_p[h] = _mm256_sub_ps(tp[h], sx);
                    qx_m[h] = _mm256_sub_ps(tm[h], sx);
                    let w2 = load8(&pw[h][base..]);
                    q2_p[h] = _mm256_add_ps(cp[h], _mm256_mul_ps(w2, cp2));
                    q2_m[h] = _mm256_add_ps(cm[h], _mm256_mul_ps(w2, cm2));
                }
                let qx = [
                    _mm256_add_ps(qx_p[0], qx_p[1]),
                    _mm256_add_ps(qx_p[0], qx_m[1]),
                    _mm256_add_ps(qx_m[0], qx_p[1]),
                    _mm256_add_ps(qx_m[0], qx_m[1]),
                ];
                let q2 = [
                    _mm256_add_ps(q2_p[0], q2_p[1]),
                    _mm256_add_ps(q2_p[0], q2_m[1]),
                    _mm256_add_ps(q2_m[0], q2_p[1]),
                    _mm256_add_ps(q2_m[0], q2_m[1]),
                ];
                offer_lanes(&qx, &q2, (BS + 1 - base).min(8), (i1, base), pick);
            }
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn iq1s_splits(
        sp: &crate::quant::iq2_quant::Iq1sSplits,
        pick: &mut crate::quant::iq_quant::SplitPick,
    ) {
        use crate::quant::iq2_quant::IQ1S_VALUES;
        const BS: usize = 32;
        let (sumx, sumw) = (&sp.sumx, &sp.sumw);
        let v1: [__m256; 2] = std::array::from_fn(|k| _mm256_set1_ps(IQ1S_VALUES[k][1]));
        let v2: [__m256; 2] = std::array::from_fn(|k| _mm256_set1_ps(IQ1S_VALUES[k][2]));
        let (tx, tw) = (_mm256_set1_ps(sumx[BS]), _mm256_set1_ps(sumw[BS]));
        for i1 in 0..=BS {
            let (x1, w1) = (_mm256_set1_ps(sumx[i1]), _mm256_set1_ps(sumw[i1]));
            // the terms of i1 alone, rounded as the scalar search rounds them
            let ax: [__m256; 2] =
                std::array::from_fn(|k| _mm256_set1_ps((sumx[i1] - sumx[0]) * IQ1S_VALUES[k][0]));
            let aw: [__m256; 2] = std::array::from_fn(|k| {
                let v0 = IQ1S_VALUES[k][0];
                _mm256_set1_ps((sumw[i1] - sumw[0]) * v0 * v0)
            });
            for base in (i1..=BS).step_by(8) {
                let (x2, w2) = (load8(&sumx[base..]), load8(&sumw[base..]));
                let (dx1, dx2) = (_mm256_sub_ps(x2, x1), _mm256_sub_ps(tx, x2));
                let (dw1, dw2) = (_mm256_sub_ps(w2, w1), _mm256_sub_ps(tw, w2));
                let qx: [__m256; 2] = std::array::from_fn(|k| {
                    let t = _mm256_add_ps(ax[k], _mm256_mul_ps(dx1, v1[k]));
                    _mm256_add_ps(t, _mm256_mul_ps(dx2, v2[k]))
                });
                let q2: [__m256; 2] = std::array::from_fn(|k| {
                    let t1 = _mm256_mul_ps(_mm256_mul_ps(dw1, v1[k]), v1[k]);
                    let t2 = _mm256_mul_ps(_mm256_mul_ps(dw2, v2[k]), v2[k]);
                    _mm256_add_ps(_mm256_add_ps(aw[k], t1), t2)
                });
                offer_lanes(&qx, &q2, (BS + 1 - base).min(8), (i1, base), pick);
            }
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn qx_sums(
        nmax: i32,
        x: &[f32],
        w: &[f32],
        num: &[f32; 24],
        max: f32,
        sumlx: &mut [f32; 24],
        suml2: &mut [f32; 24],
    ) {
        let n = x.len().min(w.len());
        let (x, w) = (&x[..n], &w[..n]);
        let (lo, hi) = (_mm256_set1_epi32(-nmax), _mm256_set1_epi32(nmax - 1));
        let vmax = _mm256_set1_ps(max);
        for v in 0..3 {
            let iscale = _mm256_div_ps(load8(&num[8 * v..]), vmax);
            let (mut slx, mut sl2) = (_mm256_setzero_ps(), _mm256_setzero_ps());
            for (&xi, &wi) in x.iter().zip(w) {
                let (xv, wv) = (_mm256_set1_ps(xi), _mm256_set1_ps(wi));
                let l = nearest_int8(_mm256_mul_ps(iscale, xv));
                let l = _mm256_cvtepi32_ps(_mm256_min_epi32(_mm256_max_epi32(l, lo), hi));
                slx = _mm256_add_ps(slx, _mm256_mul_ps(_mm256_mul_ps(wv, xv), l));
                sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(wv, l), l));
            }
            store8(&mut sumlx[8 * v..], slx);
            store8(&mut suml2[8 * v..], sl2);
        }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn qkx_lanes(
        g: &crate::quant::ksearch::QkxGroup,
        min: f32,
        max: f32,
        c: &mut crate::quant::ksearch::QkxLanes,
    ) {
        match (g.x.len().min(g.w.len()), g.mad) {
            (16, true) => qkx_pass::<16, true>(g, min, max, c),
            (16, false) => qkx_pass::<16, false>(g, min, max, c),
            (32, true) => qkx_pass::<32, true>(g, min, max, c),
            (32, false) => qkx_pass::<32, false>(g, min, max, c),
            _ => crate::quant::ksearch::qkx_lanes_scalar(g, min, max, c),
        }
    }

    /// One pass of eight candidates over a group of `N` (so its loops unroll), absolute errors
    /// when `MAD`, else squared.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn qkx_pass<const N: usize, const MAD: bool>(
        g: &crate::quant::ksearch::QkxGroup,
        min: f32,
        max: f32,
        c: &mut crate::quant::ksearch::QkxLanes,
    ) {
        let (x, w) = (&g.x[..N], &g.w[..N]);
        let vmin = _mm256_set1_ps(min);
        let (zero, nmax) = (_mm256_setzero_si256(), _mm256_set1_epi32(g.nmax));
        let (sw, sx) = (_mm256_set1_ps(g.sum_w), _mm256_set1_ps(g.sum_x));
        let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
        let iscale = _mm256_div_ps(load8(&c.num), _mm256_set1_ps(max - min));
        let mut lv = [_mm256_setzero_ps(); N];
        let (mut sl, mut sl2, mut sxl) = (
            _mm256_setzero_ps(),
            _mm256_setzero_ps(),
            _mm256_setzero_ps(),
        );
        for i in 0..N {
            let xv = _mm256_set1_ps(x[i]);
            let l = nearest_int8(_mm256_mul_ps(iscale, _mm256_sub_ps(xv, vmin)));
            let l = _mm256_cvtepi32_ps(_mm256_min_epi32(_mm256_max_epi32(l, zero), nmax));
            lv[i] = l;
            let wl = _mm256_mul_ps(_mm256_set1_ps(w[i]), l);
            sl = _mm256_add_ps(sl, wl);
            sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(wl, l));
            sxl = _mm256_add_ps(sxl, _mm256_mul_ps(wl, xv));
        }
        let d = _mm256_sub_ps(_mm256_mul_ps(sw, sl2), _mm256_mul_ps(sl, sl));
        let scale = _mm256_div_ps(
            _mm256_sub_ps(_mm256_mul_ps(sw, sxl), _mm256_mul_ps(sx, sl)),
            d,
        );
        let this_min = _mm256_div_ps(
            _mm256_sub_ps(_mm256_mul_ps(sl2, sx), _mm256_mul_ps(sl, sxl)),
            d,
        );
        let pos = _mm256_cmp_ps::<_CMP_GT_OQ>(this_min, _mm256_setzero_ps());
        let mut this_min = _mm256_blendv_ps(this_min, _mm256_setzero_ps(), pos);
        let mut scale = _mm256_blendv_ps(scale, _mm256_div_ps(sxl, sl2), pos);
        if c.initial {
            scale = _mm256_blend_ps::<1>(scale, _mm256_div_ps(_mm256_set1_ps(1.0), iscale));
            this_min = _mm256_blend_ps::<1>(this_min, vmin);
        }
        let mut err = _mm256_setzero_ps();
        for i in 0..N {
            let diff = _mm256_add_ps(_mm256_mul_ps(scale, lv[i]), this_min);
            let diff = _mm256_sub_ps(diff, _mm256_set1_ps(x[i]));
            let e = if MAD {
                _mm256_and_ps(diff, abs_mask)
            } else {
                _mm256_mul_ps(diff, diff)
            };
            err = _mm256_add_ps(err, _mm256_mul_ps(_mm256_set1_ps(w[i]), e));
        }
        store8(&mut c.d, d);
        store8(&mut c.scale, scale);
        store8(&mut c.min, this_min);
        store8(&mut c.err, err);
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn requant_groups16(
        x: &[f32],
        d: &[f32; 16],
        lo: i32,
        hi: i32,
        l: &mut [i8],
    ) {
        let (x, l) = (&x[..256], &mut l[..256]);
        let (vlo, vhi) = (_mm256_set1_epi32(lo), _mm256_set1_epi32(hi));
        for (j, &dj) in d.iter().enumerate() {
            if dj == 0.0 {
                continue;
            }
            let dv = _mm256_set1_ps(dj);
            let q = [0, 8].map(|k| {
                let v = _mm256_div_ps(load8(&x[16 * j + k..]), dv);
                _mm256_sub_epi32(clamp8(vlo, vhi, nearest_int8(v)), vlo)
            });
            // eight i32 lanes twice → sixteen bytes in element order (every level fits)
            let p = _mm256_packs_epi32(q[0], q[1]);
            let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(p);
            let b = _mm_packs_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256::<1>(p));
            let out = &mut l[16 * j..16 * j + 16];
            // SAFETY: `out` is 16 bytes; unaligned store.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), b) };
        }
    }

    /// `v` clamped to `lo..=hi`, lane by lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn clamp8(lo: __m256i, hi: __m256i, v: __m256i) -> __m256i {
        _mm256_min_epi32(_mm256_max_epi32(v, lo), hi)
    }

    /// Element `i` of eight consecutive 16-element groups of `x`, one group per lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn group_lanes(x: &[f32], i: usize) -> __m256 {
        let x = &x[..128];
        assert!(i < 16);
        let idx = _mm256_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112);
        // SAFETY: the lanes read x[i + 16 k] for k < 8, all below 128 (`x` is 128 floats).
        unsafe { _mm256_i32gather_ps::<4>(x[i..].as_ptr(), idx) }
    }

    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn q3_groups(nmax: i32, x: &[f32], l: &mut [i8], scales: &mut [f32; 16]) {
        let (x, l) = (&x[..256], &mut l[..256]);
        let (lo, hi) = (_mm256_set1_epi32(-nmax), _mm256_set1_epi32(nmax - 1));
        let zero = _mm256_setzero_ps();
        let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
        for half in 0..2 {
            let xs = &x[128 * half..128 * half + 128];
            let mut xv = [zero; 16];
            for (i, o) in xv.iter_mut().enumerate() {
                *o = group_lanes(xs, i);
            }
            let (mut max, mut amax) = (zero, zero);
            for &v in &xv {
                let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_and_ps(v, abs_mask), amax);
                amax = _mm256_blendv_ps(amax, _mm256_and_ps(v, abs_mask), gt);
                max = _mm256_blendv_ps(max, v, gt);
            }
            // the groups with a level search (the others are all zero)
            let live = _mm256_cmp_ps::<_CMP_GE_OQ>(amax, _mm256_set1_ps(1e-15));
            let iscale = _mm256_div_ps(_mm256_set1_ps(-(nmax as f32)), max);
            let mut lv = [_mm256_setzero_si256(); 16];
            let (mut sumlx, mut suml2) = (zero, zero);
            for i in 0..16 {
                let li = clamp8(lo, hi, nearest_int8(_mm256_mul_ps(iscale, xv[i])));
                lv[i] = li;
                let (w, lf) = (_mm256_mul_ps(xv[i], xv[i]), _mm256_cvtepi32_ps(li));
                sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_mul_ps(w, xv[i]), lf));
                suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, lf), lf));
            }
            let mut active = live;
            for _ in 0..5 {
                let mut changed = zero;
                for i in 0..16 {
                    let w = _mm256_mul_ps(xv[i], xv[i]);
                    let wx = _mm256_mul_ps(w, xv[i]);
                    let li = _mm256_cvtepi32_ps(lv[i]);
                    let slx = _mm256_sub_ps(sumlx, _mm256_mul_ps(wx, li));
                    let sl2 = _mm256_sub_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, li), li));
                    let q = _mm256_div_ps(_mm256_mul_ps(xv[i], sl2), slx);
                    let new_l = clamp8(lo, hi, nearest_int8(q));
                    let nf = _mm256_cvtepi32_ps(new_l);
                    let slx2 = _mm256_add_ps(slx, _mm256_mul_ps(wx, nf));
                    let sl22 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(w, nf), nf));
                    let better = _mm256_cmp_ps::<_CMP_GT_OQ>(
                        _mm256_mul_ps(_mm256_mul_ps(slx2, slx2), suml2),
                        _mm256_mul_ps(_mm256_mul_ps(sumlx, sumlx), sl22),
                    );
                    let same = _mm256_castsi256_ps(_mm256_cmpeq_epi32(new_l, lv[i]));
                    let upd = _mm256_and_ps(
                        _mm256_and_ps(active, _mm256_cmp_ps::<_CMP_GT_OQ>(slx, zero)),
                        _mm256_andnot_ps(
                            same,
                            _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(sl22, zero), better),
                        ),
                    );
                    lv[i] = _mm256_blendv_epi8(lv[i], new_l, _mm256_castps_si256(upd));
                    sumlx = _mm256_blendv_ps(sumlx, slx2, upd);
                    suml2 = _mm256_blendv_ps(suml2, sl22, upd);
                    changed = _mm256_or_ps(changed, upd);
                }
                active = _mm256_and_ps(active, changed);
                if _mm256_movemask_ps(active) == 0 {
                    break;
                }
            }
            let pos = _mm256_cmp_ps::<_CMP_GT_OQ>(suml2, zero);
            let scale = _mm256_and_ps(_mm256_and_ps(_mm256_div_ps(sumlx, suml2), pos), live);
            store8(&mut scales[8 * half..], scale);
            let off = _mm256_and_si256(_mm256_set1_epi32(nmax), _mm256_castps_si256(live));
            let mut lt = [[0i32; 8]; 16];
            for (o, &v) in lt.iter_mut().zip(&lv) {
                let v = _mm256_and_si256(_mm256_add_epi32(v, off), _mm256_castps_si256(live));
                // SAFETY: `o` is 8 i32s; unaligned store.
                unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), v) };
            }
            for g in 0..8 {
                for i in 0..16 {
                    l[128 * half + 16 * g + i] = lt[i][g] as i8;
                }
            }
        }
    }

    /// Horizontal minimum and maximum of eight lanes (no NaN among them).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn hmin_hmax(mn: __m256, mx: __m256) -> (f32, f32) {
        let mn = _mm_min_ps(_mm256_castps256_ps128(mn), _mm256_extractf128_ps(mn, 1));
        let mx = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
        let mn = _mm_min_ps(mn, _mm_movehl_ps(mn, mn));
        let mx = _mm_max_ps(mx, _mm_movehl_ps(mx, mx));
        let mn = _mm_min_ss(mn, _mm_shuffle_ps::<1>(mn, mn));
        let mx = _mm_max_ss(mx, _mm_shuffle_ps::<1>(mx, mx));
        (_mm_cvtss_f32(mn), _mm_cvtss_f32(mx))
    }

    /// A 32-float block as four vectors of eight.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn load_block(x: &[f32]) -> [__m256; 4] {
        let x = &x[..32];
        std::array::from_fn(|k| {
            // SAFETY: `x` is 32 floats (sliced above): four unaligned 8-float loads.
            unsafe { _mm256_loadu_ps(x[8 * k..].as_ptr()) }
        })
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

    /// 16 bytes `(q[j] & LO) | (q[j + 16] << 4)` (u8 arithmetic) from 32 elements in four
    /// vectors of eight: `LO` is 0xff for the 4-bit formats (the whole low byte, as C's `q0 |
    /// q1 << 4`), 0x0f for the 5-bit ones (whose fifth bits go to `qh`).
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) fn pack_nibbles<const LO: i32>(q: [__m256i; 4]) -> __m128i {
        let comb = |lo: __m256i, hi: __m256i| {
            _mm256_or_si256(
                _mm256_and_si256(lo, _mm256_set1_epi32(LO)),
                _mm256_slli_epi32::<4>(_mm256_and_si256(hi, _mm256_set1_epi32(0x0f))),
            )
        };
        let w = _mm256_packus_epi32(comb(q[0], q[2]), comb(q[1], q[3]));
        let w = _mm256_permute4x64_epi64::<0b11_01_10_00>(w);
        _mm_packus_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256::<1>(w))
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
                let sign =
                    _mm256_and_si256(_mm256_srli_epi32(_mm256_castps_si256(v), 16), sign_bit);
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
                store_scaled::<STREAM>(
                    &mut y[24..],
                    _mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)),
                    d,
                );
            }
        }
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

    /// The 32 bytes of `v` (as unsigned) → `d * v - m` ([`mul_sub`]), stored to `y[..32]`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn emit32_u8<const STREAM: bool, const FUSED: bool>(
        y: &mut [f32],
        v: __m256i,
        d: f32,
        m: f32,
    ) {
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

    /// Loads 32 bytes from the start of `b`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn load32(b: &[u8]) -> __m256i {
        assert!(b.len() >= 32);
        // SAFETY: at least 32 readable bytes (asserted); unaligned load.
        unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
    }

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
    fn q4_k_block<const STREAM: bool, const FUSED: bool>(
        b: &[u8],
        y: &mut [f32],
        d: f32,
        min: f32,
    ) {
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

    /// # Safety
    /// The CPU must support AVX2, F16C and FMA.
    #[target_feature(enable = "avx2,f16c,fma")]
    pub(super) unsafe fn dequant_q5_k<const STREAM: bool>(data: &[u8], out: &mut [f32]) {
        fused_when_finite!(q5_k_block, block::Q5_K, data, out);
    }

    /// One q5_k super-block `b` (scale `d`, minimum `min`) into `y`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    fn q5_k_block<const STREAM: bool, const FUSED: bool>(
        b: &[u8],
        y: &mut [f32],
        d: f32,
        min: f32,
    ) {
        let m4 = _mm256_set1_epi8(0x0f);
        let sixteen = _mm256_set1_epi8(16);
        let zero = _mm256_setzero_si256();
        let scales: &[u8; 12] = b[4..16].try_into().expect("12 bytes");
        // SAFETY: AVX2 is enabled for this function; slices are bounds-checked.
        let qh = unsafe { load32(&b[16..48]) };
        for (i, y) in y.chunks_exact_mut(64).enumerate() {
            let (sc1, m1) = scale_min_k4(2 * i, scales);
            let (sc2, m2) = scale_min_k4(2 * i + 1, scales);
            let (u1, u2) = ((1u8 << (2 * i)) as i8, (2u8 << (2 * i)) as i8);
            // SAFETY: AVX2 is enabled for this function; slices are bounds-checked.
            unsafe {
                let q = load32(&b[48 + 32 * i..]);
                let bit = |u: i8| {
                    let set = _mm256_cmpeq_epi8(_mm256_and_si256(qh, _mm256_set1_epi8(u)), zero);
                    _mm256_andnot_si256(set, sixteen)
                };
                let lo = _mm256_add_epi8(_mm256_and_si256(q, m4), bit(u1));
                let hi = _mm256_add_epi8(_mm256_and_si256(_mm256_srli_epi16(q, 4), m4), bit(u2));
                emit32_u8::<STREAM, FUSED>(
                    &mut y[..32],
                    lo,
                    d * f32::from(sc1),
                    min * f32::from(m1),
                );
                emit32_u8::<STREAM, FUSED>(
                    &mut y[32..],
                    hi,
                    d * f32::from(sc2),
                    min * f32::from(m2),
                );
            }
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
                            _mm256_cvtepu8_epi32(_mm_loadl_epi64(
                                ql[l + 32..l + 40].as_ptr().cast(),
                            )),
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

    /// Sixteen signed bytes → `dl * v`, stored to `y[..16]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn emit16_i8<const STREAM: bool>(y: &mut [f32], v: __m128i, dl: f32) {
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
            // SAFETY: AVX2 is enabled for this function; slices are bounds-checked.
            let hm = unsafe { load32(&b[0..32]) };
            for (n, y) in y.chunks_exact_mut(128).enumerate() {
                // SAFETY: as above.
                let q = unsafe { load32(&b[32 + 32 * n..]) };
                for (j, y) in y.chunks_exact_mut(32).enumerate() {
                    let m = (1u8 << (4 * n + j)) as i8;
                    let dl0 = d_all * scales[n * 8 + 2 * j] as f32;
                    let dl1 = d_all * scales[n * 8 + 2 * j + 1] as f32;
                    // SAFETY: as above.
                    unsafe {
                        let sh = _mm_cvtsi32_si128(2 * j as i32);
                        let v = _mm256_and_si256(_mm256_srl_epi16(q, sh), m3);
                        let clear =
                            _mm256_cmpeq_epi8(_mm256_and_si256(hm, _mm256_set1_epi8(m)), zero);
                        let v = _mm256_sub_epi8(v, _mm256_and_si256(clear, four));
                        emit16_i8::<STREAM>(&mut y[..16], _mm256_castsi256_si128(v), dl0);
                        emit16_i8::<STREAM>(&mut y[16..], _mm256_extracti128_si256(v, 1), dl1);
                    }
                }
            }
        }
    }

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
                    let idx =
                        usize::from(b[2 + 4 * ib + l]) | (usize::from((qh >> (3 * l)) & 7) << 8);
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

    /// Base-3 decoding of 32 bytes at once. Each byte of `x` is multiplied (mod 256) by the
    /// multiplier of its i16 lane in `p` (one lane per byte pair), and its top trit
    /// `t = (3m) >> 8` is returned as the byte `-t` (0, -1 or -2).
    /// `t >= 1` exactly when `m >= 86`, `t == 2` exactly when `m >= 171`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn neg_trits32(x: __m256i, p: __m256i) -> __m256i {
        // Even bytes: the low byte of x * p. Odd bytes: (hi << 8) * p keeps hi * p (mod 256)
        // in the high byte with a zero low byte.
        let lo = _mm256_and_si256(_mm256_mullo_epi16(x, p), _mm256_set1_epi16(0x00ff));
        let hi = _mm256_mullo_epi16(_mm256_and_si256(x, _mm256_set1_epi16(-256)), p);
        let m = _mm256_or_si256(lo, hi);
        let ge86 = _mm256_cmpeq_epi8(_mm256_max_epu8(m, _mm256_set1_epi8(86)), m);
        let ge171 = _mm256_cmpeq_epi8(_mm256_max_epu8(m, _mm256_set1_epi8(-85)), m);
        _mm256_add_epi8(ge86, ge171)
    }

    /// 32 outputs from 32 code bytes: output `k` is lane `t[k] & 7` of `tbl`, which holds each
    /// code's product as the scalar code computes it (tq2_0: `(q - 1) * d` at lane `q`).
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn emit32_lut<const STREAM: bool>(y: &mut [f32], t: __m256i, tbl: __m256) {
        assert!(y.len() >= 32);
        let lo = _mm256_castsi256_si128(t);
        let hi = _mm256_extracti128_si256(t, 1);
        let parts = [lo, _mm_srli_si128(lo, 8), hi, _mm_srli_si128(hi, 8)];
        for (k, v) in parts.into_iter().enumerate() {
            let f = _mm256_permutevar8x32_ps(tbl, _mm256_cvtepi8_epi32(v));
            put8::<STREAM>(&mut y[8 * k..], f);
        }
    }

    /// 32 outputs from the bytes `-t` of [`neg_trits32`]: output `k` is `(t[k] - 1) * d`, the
    /// scalar code's product (a conversion and a multiply, cheaper here than `vpermps`). The
    /// bytes `t - 1` are the complements of the bytes `-t`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn emit32_trits<const STREAM: bool>(y: &mut [f32], neg_t: __m256i, d: __m256) {
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
        let half =
            |a: i16, b: i16| _mm256_setr_epi16(a, a, a, a, a, a, a, a, b, b, b, b, b, b, b, b);
        let (p01, p23) = (half(1, 3), half(9, 27));
        // Tail lanes: bytes qh[0..4] repeated, multiplied by 1, 3, 9, 27 per group of four.
        let p4t = _mm256_setr_epi16(81, 81, 81, 81, 81, 81, 81, 81, 1, 1, 3, 3, 9, 9, 27, 27);
        for (b, y) in data
            .chunks_exact(block::TQ1_0.bytes)
            .zip(out.chunks_exact_mut(block::TQ1_0.elems))
        {
            let d = f16c_splat(b, 52);
            let qh = u32::from_le_bytes([b[48], b[49], b[50], b[51]]);
            // SAFETY: AVX2 is enabled; the loads read b[0..32] and b[32..48] of the 54-byte block.
            unsafe {
                let xa = _mm256_loadu_si256(b[0..32].as_ptr().cast());
                let xm = _mm_loadu_si128(b[32..48].as_ptr().cast());
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
                // SAFETY: `qs` is 32 bytes (chunks_exact); unaligned load.
                let q = unsafe { load32(qs) };
                for (l, y) in y.chunks_exact_mut(32).enumerate() {
                    let sh = _mm_cvtsi32_si128(2 * l as i32);
                    let codes = _mm256_and_si256(_mm256_srl_epi16(q, sh), three);
                    // SAFETY: AVX2 is enabled; `y` is 32 floats (chunks_exact).
                    unsafe { emit32_lut::<STREAM>(y, codes, tbl) };
                }
            }
        }
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

    /// A 16-entry table of signed bytes in a register, for `_mm_shuffle_epi8` lookups.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn byte_table(values: &[i8; 16]) -> __m128i {
        // SAFETY: `values` is 16 readable bytes; unaligned load.
        unsafe { _mm_loadu_si128(values.as_ptr().cast()) }
    }

    /// Eight 4-bit codes (the first 8 bytes of `q`, each below 16) → `table[code] * d`, stored
    /// to `y[..8]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn lut4x8<const STREAM: bool>(y: &mut [f32], q: __m128i, table: __m128i, d: __m256) {
        assert!(y.len() >= 8);
        let v = _mm_shuffle_epi8(table, q);
        let f = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
        put8::<STREAM>(y, _mm256_mul_ps(f, d));
    }

    /// The 32 outputs of 16 code bytes at the start of `q` laid out as mxfp4's and iq4_nl's
    /// blocks are (element `j`'s code in byte `j`'s low nibble, `j + 16`'s in its high one):
    /// `table[code] * d`, stored to `y[..32]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn nibbles_lut32<const STREAM: bool>(y: &mut [f32], q: &[u8], table: __m128i, d: __m256) {
        let m4 = _mm_set1_epi8(0x0f);
        // SAFETY: `q[..16]` is 16 readable bytes (sliced); `y` has 32 floats (each call asserts
        // its 8).
        unsafe {
            let q = _mm_loadu_si128(q[..16].as_ptr().cast());
            let lo = _mm_and_si128(q, m4);
            let hi = _mm_and_si128(_mm_srli_epi16(q, 4), m4);
            lut4x8::<STREAM>(&mut y[0..], lo, table, d);
            lut4x8::<STREAM>(&mut y[8..], _mm_srli_si128(lo, 8), table, d);
            lut4x8::<STREAM>(&mut y[16..], hi, table, d);
            lut4x8::<STREAM>(&mut y[24..], _mm_srli_si128(hi, 8), table, d);
        }
    }

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
                // SAFETY: the ys slices are in bounds (16 floats).
                unsafe {
                    lut4x8::<STREAM>(&mut ys[0..], _mm_and_si128(q, m4), table, d);
                    let hi = _mm_and_si128(_mm_srli_epi16(q, 4), m4);
                    lut4x8::<STREAM>(&mut ys[8..], hi, table, d);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Quantizers of the types without a K-quant layout: q8_0, tq1_0, tq2_0, q2_0, mxfp4, bf16, and the
// importance-weighted scale search of q4_0 and q5_0.

avx2_entries! { x86_quant (src: &[f32], out: &mut [u8]) {
    /// q8_0 quantization with AVX2, the bytes of `quantize_row_q8_0_ref` (a block with a NaN,
    /// whose scale depends on where the NaN is, goes through the scalar code).
    quant_q8_0;
    /// tq1_0 quantization with AVX2, the bytes of `quantize_row_tq1_0_ref` (NaN blocks as q8_0).
    quant_tq1_0;
    /// tq2_0 quantization with AVX2, the bytes of `quantize_row_tq2_0_ref` (NaN blocks as q8_0).
    quant_tq2_0;
    /// q2_0 quantization with AVX2, the bytes of `quantize_row_q2_0_ref`.
    quant_q2_0;
    /// mxfp4 quantization with AVX2, the bytes of `quantize_row_mxfp4_ref` (the nearest grid
    /// value searched in eight lanes at once, the first one kept on ties).
    quant_mxfp4;
}}

#[cfg(target_arch = "x86_64")]
mod x86_quant {
    use std::arch::x86_64::*;

    use super::x86::{hmin_hmax, load_block, pack_nibbles, put32};
    use crate::quant::float::put_f16;
    use crate::quant::layout::block;
    use crate::quant::legacy::inverse;

    /// `|v|` on eight lanes (the sign bit cleared, NaN payloads kept).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn abs8(v: __m256) -> __m256 {
        _mm256_andnot_ps(_mm256_set1_ps(-0.0), v)
    }

    /// The largest magnitude, as ggml's fold `amax = MAX(amax, fabsf(v))` from 0 finds it, or
    /// `None` when a lane is NaN (the fold then depends on the NaN's position). The magnitudes
    /// are compared as integers: their order is the float order, and NaN is above infinity.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn absmax_no_nan(v: &[__m256]) -> Option<f32> {
        let mut m = _mm256_setzero_si256();
        for &vk in v {
            m = _mm256_max_epi32(m, _mm256_castps_si256(abs8(vk)));
        }
        let m = _mm_max_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
        let m = _mm_max_epi32(m, _mm_shuffle_epi32::<0b01_00_11_10>(m));
        let m = _mm_max_epi32(m, _mm_shuffle_epi32::<0b10_11_00_01>(m));
        let bits = _mm_cvtsi128_si32(m) as u32;
        (bits <= 0x7f80_0000).then(|| f32::from_bits(bits))
    }

    /// The largest magnitude as the scan `if (amax < fabsf(v)) amax = fabsf(v)` from 0 finds
    /// it: a NaN never enters (`maxps` keeps its second operand when the first is NaN).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn absmax_skip_nan(v: &[__m256]) -> f32 {
        let mut m = _mm256_setzero_ps();
        for &vk in v {
            m = _mm256_max_ps(abs8(vk), m);
        }
        hmin_hmax(m, m).1
    }

    /// C's `roundf` (half away from zero) on eight lanes, exactly: the truncation plus one
    /// step away from zero when the dropped fraction (an exact difference) is at least a half.
    /// NaN stays NaN and infinities stay infinite.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn round_away(v: __m256) -> __m256 {
        let t = _mm256_round_ps::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(v);
        let frac = abs8(_mm256_sub_ps(v, t));
        let up = _mm256_cmp_ps::<_CMP_GE_OQ>(frac, _mm256_set1_ps(0.5));
        let sign = _mm256_and_ps(v, _mm256_set1_ps(-0.0));
        let step = _mm256_or_ps(_mm256_and_ps(up, _mm256_set1_ps(1.0)), sign);
        _mm256_add_ps(t, step)
    }

    /// `(int)roundf(v)` on eight lanes as x86-64 C computes it (`cvttss2si`: NaN and out of
    /// range give `i32::MIN`, whose low byte is 0, as glibc's `lroundf` gives `i64::MIN`).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn round_i32(v: __m256) -> __m256i {
        _mm256_cvttps_epi32(round_away(v))
    }

    /// The low bytes of 32 i32 lanes (four vectors of eight), in order.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn low_bytes32(q: [__m256i; 4]) -> __m256i {
        let m = _mm256_set1_epi32(0xff);
        let a = _mm256_packus_epi32(_mm256_and_si256(q[0], m), _mm256_and_si256(q[1], m));
        let b = _mm256_packus_epi32(_mm256_and_si256(q[2], m), _mm256_and_si256(q[3], m));
        // dwords: q0[0..4] q1[0..4] q2[0..4] q3[0..4] | q0[4..8] q1[4..8] q2[4..8] q3[4..8]
        let c = _mm256_packus_epi16(a, b);
        _mm256_permutevar8x32_epi32(c, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
    }

    /// The low bytes of 16 i32 lanes (two vectors of eight), in order.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn low_bytes16(a: __m256i, b: __m256i) -> __m128i {
        let m = _mm256_set1_epi32(0xff);
        let p = _mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m));
        let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(p);
        _mm_packus_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256::<1>(p))
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
            let h3 =
                |q: __m128i, t: __m128i| _mm_add_epi32(_mm_add_epi32(_mm_add_epi32(q, q), q), t);
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
                    let q23 = _mm256_or_si256(
                        _mm256_slli_epi32::<4>(tr(2)),
                        _mm256_slli_epi32::<6>(tr(3)),
                    );
                    _mm256_or_si256(q01, q23)
                });
                // SAFETY: `yh` is 32 bytes (chunks_exact); unaligned store.
                unsafe { _mm256_storeu_si256(yh.as_mut_ptr().cast(), low_bytes32(q)) };
            }
        }
    }

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
            super::x86::store_fence();
        }
        super::super::float::quant_bf16_scalar(s16.remainder(), d32.into_remainder());
    }
}
