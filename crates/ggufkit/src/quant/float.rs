//! Plain float and integer element types (f32, f16, bf16, f64, i8..i64) and the scalar conversions
//! every block format builds on.
//!
//! The half-precision conversions reproduce ggml's portable code bit for bit:
//! * f16 → f32 is exact; a NaN keeps its payload and gets its quiet bit set.
//! * f32 → f16 rounds to nearest-even, overflows to ±Inf, and turns every NaN into `0x7E00 | sign`.
//! * bf16 → f32 is exact (a shift); f32 → bf16 rounds to nearest-even, keeps subnormals, and turns a
//!   NaN into `(bits >> 16) | 0x0040`.
//!
//! f64 has no float form in ggml; here it converts to f32 by round-to-nearest-even (Rust's `as`).
//! The integer types convert to the nearest f32 (exact up to 2^24), for statistics; exports keep
//! their own dtype.

#![forbid(unsafe_code)]

use super::layout::block;

/// f16 bits → f32, exactly as ggml's `ggml_compute_fp16_to_fp32` (NaN: quiet bit set, payload kept).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    let h = u32::from(h);
    let sign = (h & 0x8000) << 16;
    let exp = (h >> 10) & 0x1f;
    let man = h & 0x3ff;
    let bits = if exp == 0x1f {
        // Inf keeps a zero mantissa; a NaN gets the quiet bit.
        let quiet = if man != 0 { 0x0040_0000 } else { 0 };
        0x7f80_0000 | (man << 13) | quiet
    } else if exp == 0 {
        // Subnormal or zero: man * 2^-24 is exact in f32.
        (man as f32 * f32::from_bits(0x3380_0000)).to_bits()
    } else {
        ((exp + 112) << 23) | (man << 13)
    };
    f32::from_bits(sign | bits)
}

/// f32 → f16 bits, exactly as ggml's `ggml_compute_fp32_to_fp16`: round to nearest-even, overflow to
/// Inf, every NaN to `0x7E00 | sign`.
#[inline]
pub fn f32_to_f16(f: f32) -> u16 {
    let x = f.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let a = x & 0x7fff_ffff;
    if a > 0x7f80_0000 {
        return sign | 0x7e00;
    }
    let e = (a >> 23) as i32 - 127;
    if e > 15 {
        return sign | 0x7c00;
    }
    let mant = a & 0x007f_ffff;
    if e >= -14 {
        let h = (((e + 15) as u32) << 10) | (mant >> 13);
        // Rounded up past half, or at half to even. Computed without branches: for most inputs
        // the dropped bits are noise, so a branch on them is mispredicted half the time.
        let rem = mant & 0x1fff;
        let up = u32::from(rem > 0x1000) | (u32::from(rem == 0x1000) & h & 1);
        // A carry out of the mantissa correctly bumps the exponent (up to Inf).
        return sign | (h + up) as u16;
    }
    if e < -25 {
        return sign;
    }
    // Subnormal half: the value is m * 2^(e-23); in units of 2^-24 that is m >> -(e+1).
    let m = mant | 0x0080_0000;
    let shift = (-(e + 1)) as u32; // 14..=24
    let h = m >> shift;
    let rem = m & ((1u32 << shift) - 1);
    let half = 1u32 << (shift - 1);
    let up = u32::from(rem > half) | (u32::from(rem == half) & h & 1);
    sign | (h + up) as u16
}

/// bf16 bits → f32 (exact).
#[inline]
pub fn bf16_to_f32(h: u16) -> f32 {
    f32::from_bits(u32::from(h) << 16)
}

/// f32 → bf16 bits, exactly as ggml's `ggml_compute_fp32_to_bf16`.
#[inline]
pub fn f32_to_bf16(f: f32) -> u16 {
    let u = f.to_bits();
    if (u & 0x7fff_ffff) > 0x7f80_0000 {
        return ((u >> 16) | 0x40) as u16;
    }
    (u.wrapping_add(0x7fff + ((u >> 16) & 1)) >> 16) as u16
}

/// Reads the little-endian f16 at `off` of a block and widens it.
#[inline(always)]
pub(crate) fn f16_le(b: &[u8], off: usize) -> f32 {
    f16_to_f32(u16::from_le_bytes([b[off], b[off + 1]]))
}

/// Writes `v` as a little-endian f16 at `off`.
#[inline(always)]
pub(crate) fn put_f16(b: &mut [u8], off: usize, v: f32) {
    b[off..off + 2].copy_from_slice(&f32_to_f16(v).to_le_bytes());
}

// ---------------------------------------------------------------------------------------------
// Element types (block size 1). `data` is little-endian and exactly `out.len()` elements long.

pub(crate) fn dequant_f32(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_f32(data, out) {
        return;
    }
    dequant_f32_scalar(data, out);
}

pub(crate) fn dequant_f32_scalar(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::F32.bytes)) {
        *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
}

pub(crate) fn dequant_f16(data: &[u8], out: &mut [f32]) {
    if super::simd::f16_to_f32_slice(data, out) {
        return;
    }
    dequant_f16_scalar(data, out);
}

pub(crate) fn dequant_f16_scalar(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::F16.bytes)) {
        *o = f16_to_f32(u16::from_le_bytes([b[0], b[1]]));
    }
}

pub(crate) fn dequant_bf16(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_bf16(data, out) {
        return;
    }
    dequant_bf16_scalar(data, out);
}

pub(crate) fn dequant_bf16_scalar(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::BF16.bytes)) {
        *o = bf16_to_f32(u16::from_le_bytes([b[0], b[1]]));
    }
}

pub(crate) fn dequant_f64(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_f64(data, out) {
        return;
    }
    dequant_f64_scalar(data, out);
}

pub(crate) fn dequant_f64_scalar(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::F64.bytes)) {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        *o = f64::from_le_bytes(a) as f32;
    }
}

pub(crate) fn dequant_i8(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_i8(data, out) {
        return;
    }
    dequant_i8_scalar(data, out);
}

pub(crate) fn dequant_i8_scalar(data: &[u8], out: &mut [f32]) {
    for (o, &b) in out.iter_mut().zip(data) {
        *o = f32::from(b as i8);
    }
}

pub(crate) fn dequant_i16(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_i16(data, out) {
        return;
    }
    dequant_i16_scalar(data, out);
}

pub(crate) fn dequant_i16_scalar(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::I16.bytes)) {
        *o = f32::from(i16::from_le_bytes([b[0], b[1]]));
    }
}

pub(crate) fn dequant_i32(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_i32(data, out) {
        return;
    }
    dequant_i32_scalar(data, out);
}

pub(crate) fn dequant_i32_scalar(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::I32.bytes)) {
        *o = i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32;
    }
}

pub(crate) fn dequant_i64(data: &[u8], out: &mut [f32]) {
    for (o, b) in out.iter_mut().zip(data.chunks_exact(block::I64.bytes)) {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        *o = i64::from_le_bytes(a) as f32;
    }
}

/// f32 → little-endian f32. On a little-endian target one `memcpy`, which for large copies
/// writes past the cache as ggml's own copy does.
pub(crate) fn quant_f32(src: &[f32], out: &mut [u8]) {
    if cfg!(target_endian = "little") {
        let n = src.len().min(out.len() / 4);
        out[..4 * n].copy_from_slice(bytemuck::cast_slice(&src[..n]));
        return;
    }
    for (o, &x) in out.chunks_exact_mut(block::F32.bytes).zip(src) {
        o.copy_from_slice(&x.to_le_bytes());
    }
}

pub(crate) fn quant_f64(src: &[f32], out: &mut [u8]) {
    for (o, &x) in out.chunks_exact_mut(block::F64.bytes).zip(src) {
        o.copy_from_slice(&f64::from(x).to_le_bytes());
    }
}

pub(crate) fn quant_f16(src: &[f32], out: &mut [u8]) {
    if super::simd::f32_to_f16_slice(src, out) {
        return;
    }
    quant_f16_scalar(src, out);
}

pub(crate) fn quant_f16_scalar(src: &[f32], out: &mut [u8]) {
    for (o, &x) in out.chunks_exact_mut(block::F16.bytes).zip(src) {
        o.copy_from_slice(&f32_to_f16(x).to_le_bytes());
    }
}

/// f32 → bf16, past the cache when the conversion is larger than it (`super::streaming`).
pub(crate) fn quant_bf16(src: &[f32], out: &mut [u8]) {
    let stream = super::streaming::streams(std::mem::size_of_val(src), out.len());
    if super::simd::quant_bf16(src, out, stream) {
        return;
    }
    quant_bf16_scalar(src, out);
}

pub(crate) fn quant_bf16_scalar(src: &[f32], out: &mut [u8]) {
    for (o, &x) in out.chunks_exact_mut(block::BF16.bytes).zip(src) {
        o.copy_from_slice(&f32_to_bf16(x).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trips_every_non_nan_pattern() {
        for h in 0..=u16::MAX {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert_eq!(f32_to_f16(f), (h & 0x8000) | 0x7e00);
                assert_eq!(
                    f.to_bits() & 0x0040_0000,
                    0x0040_0000,
                    "quiet bit for {h:#x}"
                );
            } else {
                assert_eq!(f32_to_f16(f), h, "{h:#x}");
            }
        }
    }

    #[test]
    fn f16_rounding_edges() {
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65519.99), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00); // tie to even rounds up to Inf
        assert_eq!(f32_to_f16(f32::INFINITY), 0x7c00);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        assert_eq!(f32_to_f16(2f32.powi(-25)), 0); // tie to even: 0
        assert_eq!(f32_to_f16(2f32.powi(-25) * 1.0000001), 1);
        assert_eq!(f32_to_f16(2f32.powi(-24) * 1.5), 2); // tie: 1.5 ulp -> 2
        assert_eq!(f32_to_f16(f32::from_bits(1)), 0);
    }

    #[test]
    fn bf16_rules() {
        assert_eq!(f32_to_bf16(f32::from_bits(0x7f80_0001)), 0x7fc0);
        assert_eq!(f32_to_bf16(f32::from_bits(0xff80_0001)), 0xffc0);
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f80_8000)), 0x3f80); // tie to even
        assert_eq!(f32_to_bf16(f32::from_bits(0x3f81_8000)), 0x3f82);
        assert_eq!(f32_to_bf16(f32::from_bits(0x0000_8001)), 0x0001); // subnormals kept
        assert_eq!(bf16_to_f32(0x3f80), 1.0);
    }
}
