//! SIMD kernels: the only folder of the crate's codecs with `unsafe`.
//!
//! Each public function returns `false` when the CPU lacks the features (or the target is not
//! x86-64), and the caller then runs its scalar code. The kernels do exactly the scalar code's IEEE
//! operations (integer → float conversions, which are exact, then the same multiplies and
//! subtractions in the same order, fused only where that is exact: `kquants::mul_sub`), so both
//! paths give the same bits; the unit tests compare them on random blocks and special values.
//!
//! This file holds the safe entries (the CPU's features checked once per call, then the kernel)
//! and the feature detection. The kernels live by family, as the scalar codecs do: `float.rs`
//! (the element types, f16 and bf16 encoding), `legacy.rs` (q4_0..q8_1, and q8_k's decoder),
//! `kquants.rs` (the K-quants' decoders), `ksearch.rs` (the K-quants' quantizer searches),
//! `iq.rs` (the i-quants' decoders), `iq_search.rs` (the i-quants' quantizer searches),
//! `ternary.rs` (tq1_0, tq2_0), `fp4.rs` (mxfp4, nvfp4) and `q1_q2.rs` (q2_0); `lanes.rs` has
//! the vector helpers they share (loads, stores, rounding, packing, byte-table lookups).
#![allow(unsafe_code)]

#[cfg(target_arch = "x86_64")]
mod float;
#[cfg(target_arch = "x86_64")]
mod fp4;
#[cfg(target_arch = "x86_64")]
mod iq;
#[cfg(target_arch = "x86_64")]
mod iq_search;
#[cfg(target_arch = "x86_64")]
mod kquants;
#[cfg(target_arch = "x86_64")]
mod ksearch;
#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(target_arch = "x86_64")]
mod legacy;
#[cfg(target_arch = "x86_64")]
mod q1_q2;
#[cfg(target_arch = "x86_64")]
mod ternary;

use crate::types::GgmlType;

/// f32 → f16 for a whole slice with F16C (`out.len() == 2 * src.len()`), the bits of
/// [`super::float::f32_to_f16`]: the conversion rounds to nearest-even like it, and every NaN lane
/// is then replaced by ggml's `0x7E00 | sign` (F16C would keep part of the payload).
pub(crate) fn f32_to_f16_slice(src: &[f32], out: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    if has_avx2_f16c() {
        // SAFETY: the CPU supports AVX2 and F16C (checked just above).
        unsafe { float::f32_to_f16(src, out) };
        return true;
    }
    let _ = (src, out);
    false
}

/// bf16 conversion with AVX2, the bits of `quant::f32_to_bf16` (`out.len() == 2 * src.len()`);
/// with `stream`, non-temporal stores (`super::streaming`).
pub(crate) fn quant_bf16(src: &[f32], out: &mut [u8], stream: bool) -> bool {
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe {
            if stream {
                float::quant_bf16::<true>(src, out);
            } else {
                float::quant_bf16::<false>(src, out);
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
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { ksearch::qx_sums(nmax, x, w, num, max, sumlx, suml2) };
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
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { ksearch::qkx_lanes(g, min, max, c) };
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
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { ksearch::q3_groups(nmax, x, l, scales) };
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
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { ksearch::requant_groups16(x, d, lo, hi, l) };
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
    if N == 8 && has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        *best = unsafe { iq_search::nearest_neighbour::<N>(nb, table, x, w, scale) };
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
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { iq_search::iq1m_splits(sp, pick) };
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
    if has_avx2() {
        // SAFETY: the CPU supports AVX2 (checked just above).
        unsafe { iq_search::iq1s_splits(sp, pick) };
        return true;
    }
    let _ = (sp, pick);
    false
}

/// Safe entry points of AVX2 kernels: each `$name(a, b)` runs `$module::$name` when the CPU has
/// AVX2 and returns `true`, else returns `false` for the caller's scalar code.
macro_rules! avx2_entries {
    (($a:ident: $at:ty, $b:ident: $bt:ty) { $($(#[$doc:meta])* $module:ident::$name:ident;)* }) => {$(
        $(#[$doc])*
        pub(crate) fn $name($a: $at, $b: $bt) -> bool {
            #[cfg(target_arch = "x86_64")]
            if has_avx2() {
                // SAFETY: the CPU supports AVX2 (checked just above).
                unsafe { $module::$name($a, $b) };
                return true;
            }
            let _ = ($a, $b);
            false
        }
    )*};
}

avx2_entries! { (src: &[f32], out: &mut [u8]) {
    /// q4_0 quantization with AVX2, the bytes of `quantize_row_q4_0_ref` (the largest magnitude
    /// is found by SIMD, its first element by a scalar scan, as the reference picks it).
    legacy::quant_q4_0;
    /// q4_1 quantization with AVX2, the bytes of `quantize_row_q4_1_ref` (a block whose minimum
    /// or maximum is a zero, whose sign depends on the scan order, goes through the scalar code).
    legacy::quant_q4_1;
    /// q5_0 quantization with AVX2, the bytes of `quantize_row_q5_0_ref` (the scale's element
    /// found as for q4_0).
    legacy::quant_q5_0;
    /// q5_1 quantization with AVX2, the bytes of `quantize_row_q5_1_ref` (zero extremes through
    /// the scalar code, as for q4_1).
    legacy::quant_q5_1;
    /// q8_0 quantization with AVX2, the bytes of `quantize_row_q8_0_ref` (a block with a NaN,
    /// whose scale depends on where the NaN is, goes through the scalar code).
    legacy::quant_q8_0;
    /// tq1_0 quantization with AVX2, the bytes of `quantize_row_tq1_0_ref` (NaN blocks as q8_0).
    ternary::quant_tq1_0;
    /// tq2_0 quantization with AVX2, the bytes of `quantize_row_tq2_0_ref` (NaN blocks as q8_0).
    ternary::quant_tq2_0;
    /// q2_0 quantization with AVX2, the bytes of `quantize_row_q2_0_ref`.
    q1_q2::quant_q2_0;
    /// mxfp4 quantization with AVX2, the bytes of `quantize_row_mxfp4_ref` (the nearest grid
    /// value searched in eight lanes at once, the first one kept on ties).
    fp4::quant_mxfp4;
}}

/// The AVX2 decoders. For each, a safe entry `$entry(data, out)` that decodes with ordinary
/// stores when the CPU has the kernel's features and returns `true` (else `false`, and the caller
/// runs its scalar code), and an arm of [`dequant_streamed`].
macro_rules! avx2_decoders {
    ($($(#[$doc:meta])* $ty:ident => $entry:ident, $module:ident::$kernel:ident if $has:ident;)*) => {
        $(
            $(#[$doc])*
            pub(crate) fn $entry(data: &[u8], out: &mut [f32]) -> bool {
                #[cfg(target_arch = "x86_64")]
                if $has() {
                    // SAFETY: the CPU has the kernel's features (checked just above).
                    unsafe { $module::$kernel::<false>(data, out) };
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
                $(GgmlType::$ty if $has() => {
                    // SAFETY: the CPU has the kernel's features (checked by the guard).
                    unsafe { $module::$kernel::<true>(data, out) };
                    // Orders the non-temporal stores before whatever the caller does next.
                    lanes::store_fence();
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
    F32 => dequant_f32, float::dequant_f32 if has_avx2;
    /// f16 elements with F16C (`data.len() == 2 * out.len()`).
    F16 => f16_to_f32_slice, float::dequant_f16 if has_avx2_f16c;
    /// f64 elements with AVX2 (each rounded to nearest, as `as f32`).
    F64 => dequant_f64, float::dequant_f64 if has_avx2;
    /// i8 elements with AVX2.
    I8 => dequant_i8, float::dequant_i8 if has_avx2;
    /// i16 elements with AVX2.
    I16 => dequant_i16, float::dequant_i16 if has_avx2;
    /// i32 elements with AVX2 (each rounded to nearest, as `as f32`).
    I32 => dequant_i32, float::dequant_i32 if has_avx2;
    /// bf16 elements with AVX2 (a byte shuffle puts each value in the top half of its lane).
    BF16 => dequant_bf16, float::dequant_bf16 if has_avx2;
    /// q4_0 blocks with AVX2.
    Q4_0 => dequant_q4_0, legacy::dequant_q4_0 if has_avx2_f16c;
    /// q4_1 blocks with AVX2.
    Q4_1 => dequant_q4_1, legacy::dequant_q4_1 if has_avx2_f16c;
    /// q5_0 blocks with AVX2 (each lane's fifth bit by a variable shift).
    Q5_0 => dequant_q5_0, legacy::dequant_q5_0 if has_avx2_f16c;
    /// q5_1 blocks with AVX2 (each lane's fifth bit by a variable shift).
    Q5_1 => dequant_q5_1, legacy::dequant_q5_1 if has_avx2_f16c;
    /// q8_0 blocks with AVX2.
    Q8_0 => dequant_q8_0, legacy::dequant_q8_0 if has_avx2_f16c;
    /// q6_k blocks with AVX2.
    Q6_K => dequant_q6_k, kquants::dequant_q6_k if has_avx2_f16c;
    /// q8_1 blocks with AVX2 (q8_0's decoder; the sum `s` is not read).
    Q8_1 => dequant_q8_1, legacy::dequant_q8_1 if has_avx2_f16c;
    /// q8_k blocks with AVX2 (q8_0's decoder with an f32 scale; the sums are not read).
    Q8_K => dequant_q8_k, legacy::dequant_q8_k if has_avx2_f16c;
    /// q2_k blocks with AVX2.
    Q2_K => dequant_q2_k, kquants::dequant_q2_k if has_avx2_f16c;
    /// q3_k blocks with AVX2.
    Q3_K => dequant_q3_k, kquants::dequant_q3_k if has_avx2_f16c;
    /// q4_k blocks with AVX2 and FMA (fused where that is exact: `kquants::mul_sub`).
    Q4_K => dequant_q4_k, kquants::dequant_q4_k if has_avx2_f16c_fma;
    /// q5_k blocks with AVX2 and FMA (fused where that is exact: `kquants::mul_sub`).
    Q5_K => dequant_q5_k, kquants::dequant_q5_k if has_avx2_f16c_fma;
    /// iq1_s blocks with AVX2.
    IQ1_S => dequant_iq1_s, iq::dequant_iq1_s if has_avx2_f16c;
    /// iq1_m blocks with AVX2.
    IQ1_M => dequant_iq1_m, iq::dequant_iq1_m if has_avx2;
    /// tq1_0 blocks with AVX2.
    TQ1_0 => dequant_tq1_0, ternary::dequant_tq1_0 if has_avx2_f16c;
    /// tq2_0 blocks with AVX2 (a permute looks up each 2-bit code's product).
    TQ2_0 => dequant_tq2_0, ternary::dequant_tq2_0 if has_avx2_f16c;
    /// mxfp4 blocks with AVX2 (a byte shuffle looks up the E2M1 values).
    MXFP4 => dequant_mxfp4, fp4::dequant_mxfp4 if has_avx2;
    /// iq4_nl blocks with AVX2 (a byte shuffle looks up the 16 levels).
    IQ4_NL => dequant_iq4_nl, iq::dequant_iq4_nl if has_avx2_f16c;
    /// iq4_xs blocks with AVX2 (iq4_nl's lookup under each sub-block's scale).
    IQ4_XS => dequant_iq4_xs, iq::dequant_iq4_xs if has_avx2_f16c;
    /// nvfp4 blocks with AVX2.
    NVFP4 => dequant_nvfp4, fp4::dequant_nvfp4 if has_avx2;
}

/// Whether the CPU has AVX2 (every kernel needs it).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
}

/// Whether the CPU has AVX2 and F16C (the kernels that read or write f16).
#[cfg(target_arch = "x86_64")]
fn has_avx2_f16c() -> bool {
    is_x86_feature_detected!("avx2") && is_x86_feature_detected!("f16c")
}

/// Whether the CPU has AVX2, F16C and FMA (the q4_k and q5_k decoders).
#[cfg(target_arch = "x86_64")]
fn has_avx2_f16c_fma() -> bool {
    has_avx2_f16c() && is_x86_feature_detected!("fma")
}
