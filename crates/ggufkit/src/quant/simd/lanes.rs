//! The vector helpers the kernels share: loads and stores (the streaming store among them), an
//! f16 scale broadcast by F16C, horizontal extremes, C's rounding on eight lanes, the packing of
//! lanes into bytes and nibbles, and lookups in a 16-entry byte table.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

/// The little-endian f16 at `b[off..off + 2]` in all eight lanes, converted by F16C: the
/// bits of [`crate::quant::f16_to_f32`] (a NaN quieted, its payload kept). The value is
/// broadcast before the conversion, so no lane waits on an earlier result (inserting it into
/// a register would make each block wait on the previous block's last instruction).
#[inline]
#[target_feature(enable = "avx2,f16c")]
pub(super) fn f16c_splat(b: &[u8], off: usize) -> __m256 {
    let h = u16::from_le_bytes([b[off], b[off + 1]]);
    _mm256_cvtph_ps(_mm_set1_epi16(h as i16))
}

/// [`f16c_splat`]'s first lane: the f16 at `b[off..off + 2]` as f32.
#[inline]
#[target_feature(enable = "avx2,f16c")]
pub(super) fn f16c_le(b: &[u8], off: usize) -> f32 {
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
pub(super) fn put8<const STREAM: bool>(out: &mut [f32], v: __m256) {
    put32::<STREAM>(
        bytemuck::cast_slice_mut(&mut out[..8]),
        _mm256_castps_si256(v),
    );
}

/// Eight floats from `v[..8]`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load8(v: &[f32]) -> __m256 {
    let v = &v[..8];
    // SAFETY: `v` is 8 floats (sliced above); unaligned load.
    unsafe { _mm256_loadu_ps(v.as_ptr()) }
}

/// Stores eight lanes to `out[..8]`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn store8(out: &mut [f32], v: __m256) {
    let out = &mut out[..8];
    // SAFETY: `out` is 8 floats (sliced above); unaligned store.
    unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) }
}

/// Loads 32 bytes from the start of `b`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn load32(b: &[u8]) -> __m256i {
    assert!(b.len() >= 32);
    // SAFETY: at least 32 readable bytes (asserted); unaligned load.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
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

/// `|v|` on eight lanes (the sign bit cleared, NaN payloads kept).
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn abs8(v: __m256) -> __m256 {
    _mm256_andnot_ps(_mm256_set1_ps(-0.0), v)
}

/// The largest magnitude, as ggml's fold `amax = MAX(amax, fabsf(v))` from 0 finds it, or
/// `None` when a lane is NaN (the fold then depends on the NaN's position). The magnitudes
/// are compared as integers: their order is the float order, and NaN is above infinity.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn absmax_no_nan(v: &[__m256]) -> Option<f32> {
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
pub(super) fn absmax_skip_nan(v: &[__m256]) -> f32 {
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
pub(super) fn round_away(v: __m256) -> __m256 {
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
pub(super) fn round_i32(v: __m256) -> __m256i {
    _mm256_cvttps_epi32(round_away(v))
}

/// The low bytes of 32 i32 lanes (four vectors of eight), in order.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn low_bytes32(q: [__m256i; 4]) -> __m256i {
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
pub(super) fn low_bytes16(a: __m256i, b: __m256i) -> __m128i {
    let m = _mm256_set1_epi32(0xff);
    let p = _mm256_packus_epi32(_mm256_and_si256(a, m), _mm256_and_si256(b, m));
    let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(p);
    _mm_packus_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256::<1>(p))
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

/// A 16-entry table of signed bytes in a register, for `_mm_shuffle_epi8` lookups.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn byte_table(values: &[i8; 16]) -> __m128i {
    // SAFETY: `values` is 16 readable bytes; unaligned load.
    unsafe { _mm_loadu_si128(values.as_ptr().cast()) }
}

/// Eight 4-bit codes (the first 8 bytes of `q`, each below 16) → `table[code] * d`, stored
/// to `y[..8]`.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn lut4x8<const STREAM: bool>(y: &mut [f32], q: __m128i, table: __m128i, d: __m256) {
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
pub(super) fn nibbles_lut32<const STREAM: bool>(
    y: &mut [f32],
    q: &[u8],
    table: __m128i,
    d: __m256,
) {
    let m4 = _mm_set1_epi8(0x0f);
    let q = &q[..16];
    // SAFETY: `q` is 16 readable bytes (sliced above); unaligned load.
    let q = unsafe { _mm_loadu_si128(q.as_ptr().cast()) };
    let lo = _mm_and_si128(q, m4);
    let hi = _mm_and_si128(_mm_srli_epi16(q, 4), m4);
    lut4x8::<STREAM>(&mut y[0..], lo, table, d);
    lut4x8::<STREAM>(&mut y[8..], _mm_srli_si128(lo, 8), table, d);
    lut4x8::<STREAM>(&mut y[16..], hi, table, d);
    lut4x8::<STREAM>(&mut y[24..], _mm_srli_si128(hi, 8), table, d);
}
