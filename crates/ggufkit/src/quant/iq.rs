//! The i-quants: iq2_xxs, iq2_xs, iq2_s, iq3_xxs, iq3_s, iq1_s, iq1_m (lattice codebooks in
//! `iq_grids`), and the non-linear iq4_nl, iq4_xs.
//!
//! Dequantization multiplies in ggml's order (`db * grid * ±1`), so even the rounding of products
//! with subnormal or huge scales matches.

#![forbid(unsafe_code)]

use super::float::{f16_le, f16_to_f32};
use super::iq_grids::{
    IQ1S_GRID, IQ2S_GRID, IQ2XS_GRID, IQ2XXS_GRID, IQ3S_GRID, IQ3XXS_GRID, KSIGNS_IQ2XS,
};
use super::layout::{block, QK_K};

/// The 16 non-linear levels of iq4_nl and iq4_xs.
pub(crate) const KVALUES_IQ4NL: [i8; 16] = [
    -127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113,
];

const IQ1S_DELTA: f32 = 0.125;

#[inline(always)]
fn signed(v: f32, signs: u8, j: usize) -> f32 {
    // the sign bit flipped, not a multiplication by -1: ggml's optimised build negates, which
    // flips the sign of a NaN too, where a multiplication would keep it (and an unoptimised
    // build of ours then disagreed with ggml on NaN blocks)
    f32::from_bits(v.to_bits() ^ (u32::from(signs >> j & 1) << 31))
}

#[inline(always)]
fn u16_at(b: &[u8], off: usize) -> u16 {
    u16::from_le_bytes([b[off], b[off + 1]])
}

#[inline(always)]
fn u32_at(b: &[u8], off: usize) -> u32 {
    u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// Eight outputs from a u64 grid entry: `db * grid[j] * ±1`.
#[inline(always)]
fn emit8(y: &mut [f32], db: f32, grid: u64, signs: u8) {
    for (j, o) in y.iter_mut().enumerate().take(8) {
        *o = signed(db * ((grid >> (8 * j)) as u8) as f32, signs, j);
    }
}

pub(crate) fn dequant_iq2_xxs(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ2_XXS.bytes)
        .zip(out.chunks_exact_mut(block::IQ2_XXS.elems))
    {
        let d = f16_le(b, 0);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let o = 2 + 8 * ib;
            let aux1 = u32_at(b, o + 4);
            let db = d * (0.5 + (aux1 >> 28) as f32) * 0.25;
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let grid = IQ2XXS_GRID[usize::from(b[o + l])];
                let signs = KSIGNS_IQ2XS[((aux1 >> (7 * l)) & 127) as usize];
                emit8(y8, db, grid, signs);
            }
        }
    }
}

pub(crate) fn dequant_iq2_xs(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ2_XS.bytes)
        .zip(out.chunks_exact_mut(block::IQ2_XS.elems))
    {
        let d = f16_le(b, 0);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let sc = b[66 + ib];
            let db = [
                d * (0.5 + f32::from(sc & 0x0f)) * 0.25,
                d * (0.5 + f32::from(sc >> 4)) * 0.25,
            ];
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let q = u16_at(b, 2 + 2 * (4 * ib + l));
                let grid = IQ2XS_GRID[usize::from(q & 511)];
                let signs = KSIGNS_IQ2XS[usize::from(q >> 9)];
                emit8(y8, db[l / 2], grid, signs);
            }
        }
    }
}

pub(crate) fn dequant_iq2_s(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ2_S.bytes)
        .zip(out.chunks_exact_mut(block::IQ2_S.elems))
    {
        let d = f16_le(b, 0);
        let qs = &b[2..34];
        let signs = &b[34..66];
        let qh = &b[66..74];
        let scales = &b[74..block::IQ2_S.bytes];
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let sc = scales[ib];
            let db = [
                d * (0.5 + f32::from(sc & 0x0f)) * 0.25,
                d * (0.5 + f32::from(sc >> 4)) * 0.25,
            ];
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let hi = (usize::from(qh[ib]) << (8 - 2 * l)) & 0x300;
                let grid = IQ2S_GRID[usize::from(qs[4 * ib + l]) | hi];
                emit8(y8, db[l / 2], grid, signs[4 * ib + l]);
            }
        }
    }
}

/// Eight outputs from two u32 grid entries: `db * grid[j] * ±1`.
#[inline(always)]
fn emit4x2(y: &mut [f32], db: f32, g1: u32, g2: u32, signs: u8) {
    for j in 0..4 {
        y[j] = signed(db * ((g1 >> (8 * j)) as u8) as f32, signs, j);
        y[j + 4] = signed(db * ((g2 >> (8 * j)) as u8) as f32, signs, j + 4);
    }
}

pub(crate) fn dequant_iq3_xxs(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ3_XXS.bytes)
        .zip(out.chunks_exact_mut(block::IQ3_XXS.elems))
    {
        let d = f16_le(b, 0);
        let qs = &b[2..66];
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let aux = u32_at(b, 66 + 4 * ib);
            let db = d * (0.5 + (aux >> 28) as f32) * 0.5;
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let signs = KSIGNS_IQ2XS[((aux >> (7 * l)) & 127) as usize];
                let g1 = IQ3XXS_GRID[usize::from(qs[8 * ib + 2 * l])];
                let g2 = IQ3XXS_GRID[usize::from(qs[8 * ib + 2 * l + 1])];
                emit4x2(y8, db, g1, g2, signs);
            }
        }
    }
}

pub(crate) fn dequant_iq3_s(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ3_S.bytes)
        .zip(out.chunks_exact_mut(block::IQ3_S.elems))
    {
        let d = f16_le(b, 0);
        let qs = &b[2..66];
        let qh = &b[66..74];
        let signs = &b[74..106];
        let scales = &b[106..block::IQ3_S.bytes];
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let s = (scales[ib / 2] >> (4 * (ib % 2))) & 0x0f;
            let db = d * (1 + 2 * i32::from(s)) as f32;
            let h = usize::from(qh[ib]);
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let i1 = usize::from(qs[8 * ib + 2 * l]) | ((h << (8 - 2 * l)) & 256);
                let i2 = usize::from(qs[8 * ib + 2 * l + 1]) | ((h << (7 - 2 * l)) & 256);
                emit4x2(y8, db, IQ3S_GRID[i1], IQ3S_GRID[i2], signs[4 * ib + l]);
            }
        }
    }
}

/// Eight outputs from an iq1 grid entry (signed bytes): `dl * (grid[j] + delta)`.
#[inline(always)]
fn emit_iq1(y: &mut [f32], dl: f32, grid: u64, delta: f32) {
    for (j, o) in y.iter_mut().enumerate().take(8) {
        *o = dl * (f32::from((grid >> (8 * j)) as u8 as i8) + delta);
    }
}

pub(crate) fn dequant_iq1_s(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_iq1_s(data, out) {
        return;
    }
    dequant_iq1_s_scalar(data, out);
}

pub(crate) fn dequant_iq1_s_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ1_S.bytes)
        .zip(out.chunks_exact_mut(block::IQ1_S.elems))
    {
        let d = f16_le(b, 0);
        let qs = &b[2..34];
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let qh = u16_at(b, 34 + 2 * ib);
            let dl = d * (2 * ((qh >> 12) & 7) + 1) as f32;
            let delta = if qh & 0x8000 != 0 {
                -IQ1S_DELTA
            } else {
                IQ1S_DELTA
            };
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let idx = usize::from(qs[4 * ib + l]) | (usize::from((qh >> (3 * l)) & 7) << 8);
                emit_iq1(y8, dl, IQ1S_GRID[idx], delta);
            }
        }
    }
}

/// The f16 super-block scale of iq1_m, spread over the top nibbles of its four u16 scale words.
#[inline(always)]
pub(crate) fn iq1_m_scale(sc: &[u16; 4]) -> f32 {
    let bits = (sc[0] >> 12) | ((sc[1] >> 8) & 0x00f0) | ((sc[2] >> 4) & 0x0f00) | (sc[3] & 0xf000);
    f16_to_f32(bits)
}

pub(crate) fn dequant_iq1_m(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_iq1_m(data, out) {
        return;
    }
    dequant_iq1_m_scalar(data, out);
}

pub(crate) fn dequant_iq1_m_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ1_M.bytes)
        .zip(out.chunks_exact_mut(block::IQ1_M.elems))
    {
        let qs = &b[0..32];
        let qh = &b[32..48];
        let sc: [u16; 4] = std::array::from_fn(|k| u16_at(b, 48 + 2 * k));
        let d = iq1_m_scale(&sc);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let s = sc[ib / 2] >> (6 * (ib % 2));
            let dl1 = d * (2 * (s & 7) + 1) as f32;
            let dl2 = d * (2 * ((s >> 3) & 7) + 1) as f32;
            let h0 = usize::from(qh[2 * ib]);
            let h1 = usize::from(qh[2 * ib + 1]);
            let q = &qs[4 * ib..4 * ib + 4];
            let idx = [
                usize::from(q[0]) | ((h0 << 8) & 0x700),
                usize::from(q[1]) | ((h0 << 4) & 0x700),
                usize::from(q[2]) | ((h1 << 8) & 0x700),
                usize::from(q[3]) | ((h1 << 4) & 0x700),
            ];
            let delta = |h: usize, m: usize| if h & m != 0 { -IQ1S_DELTA } else { IQ1S_DELTA };
            let deltas = [
                delta(h0, 0x08),
                delta(h0, 0x80),
                delta(h1, 0x08),
                delta(h1, 0x80),
            ];
            for (l, y8) in y.chunks_exact_mut(8).enumerate() {
                let dl = if l < 2 { dl1 } else { dl2 };
                emit_iq1(y8, dl, IQ1S_GRID[idx[l]], deltas[l]);
            }
        }
    }
}

pub(crate) fn dequant_iq4_nl(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_iq4_nl(data, out) {
        return;
    }
    dequant_iq4_nl_scalar(data, out);
}

pub(crate) fn dequant_iq4_nl_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ4_NL.bytes)
        .zip(out.chunks_exact_mut(block::IQ4_NL.elems))
    {
        let d = f16_le(b, 0);
        let (lo, hi) = y.split_at_mut(16);
        for j in 0..16 {
            let q = b[2 + j];
            lo[j] = d * f32::from(KVALUES_IQ4NL[usize::from(q & 0x0f)]);
            hi[j] = d * f32::from(KVALUES_IQ4NL[usize::from(q >> 4)]);
        }
    }
}

pub(crate) fn dequant_iq4_xs(data: &[u8], out: &mut [f32]) {
    if super::simd::dequant_iq4_xs(data, out) {
        return;
    }
    dequant_iq4_xs_scalar(data, out);
}

/// The signed 6-bit scale of iq4_xs sub-block `ib` of block `b`: its low four bits from
/// `b[4 + ib / 2]`, its high two from the u16 `scales_h` (bytes 2-3), minus 32.
#[inline]
pub(crate) fn iq4_xs_scale(b: &[u8], ib: usize) -> i8 {
    let scales_h = u16_at(b, 2);
    let lo = (b[4 + ib / 2] >> (4 * (ib % 2))) & 0x0f;
    let hi = ((scales_h >> (2 * ib)) & 3) as u8;
    (lo | (hi << 4)) as i8 - 32
}

pub(crate) fn dequant_iq4_xs_scalar(data: &[u8], out: &mut [f32]) {
    for (b, y) in data
        .chunks_exact(block::IQ4_XS.bytes)
        .zip(out.chunks_exact_mut(block::IQ4_XS.elems))
    {
        let d = f16_le(b, 0);
        for (ib, y) in y.chunks_exact_mut(32).enumerate() {
            let dl = d * f32::from(iq4_xs_scale(b, ib));
            let qs = &b[8 + 16 * ib..24 + 16 * ib];
            let (y0, y1) = y.split_at_mut(16);
            for j in 0..16 {
                y0[j] = dl * f32::from(KVALUES_IQ4NL[usize::from(qs[j] & 0x0f)]);
                y1[j] = dl * f32::from(KVALUES_IQ4NL[usize::from(qs[j] >> 4)]);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// iq4_nl / iq4_xs quantization (ggml's `quantize_row_iq4_nl_impl`, no importance matrix).

/// ggml's `best_index_int8` over the 16 iq4 levels: the nearest level, the upper one on ties.
#[inline]
fn best_index_iq4(x: f32) -> u8 {
    let val = &KVALUES_IQ4NL;
    if x <= f32::from(val[0]) {
        return 0;
    }
    if x >= f32::from(val[15]) {
        return 15;
    }
    let (mut ml, mut mu) = (0usize, 15usize);
    while mu - ml > 1 {
        let mav = (ml + mu) / 2;
        if x < f32::from(val[mav]) {
            mu = mav;
        } else {
            ml = mav;
        }
    }
    if x - f32::from(val[mu - 1]) < f32::from(val[mu]) - x {
        (mu - 1) as u8
    } else {
        mu as u8
    }
}

/// The scale of one 32-element group and its levels in `l`; `None` for an all-zero group (ggml
/// then leaves the levels as they were).
fn iq4_group(xb: &[f32], l: &mut [u8], ntry: i32, weight: &[f32; 32]) -> Option<f32> {
    let v0 = f32::from(KVALUES_IQ4NL[0]);
    let max = super::signed_absmax(xb);
    if max.abs() < 1e-15 {
        return None;
    }
    let d = if ntry > 0 { -max / v0 } else { max / v0 };
    let id = 1.0 / d;
    let mut sumqx = 0.0f32;
    let mut sumq2 = 0.0f32;
    for (j, &x) in xb.iter().enumerate() {
        let li = best_index_iq4(id * x);
        l[j] = li;
        let q = f32::from(KVALUES_IQ4NL[usize::from(li)]);
        let w = weight[j];
        sumqx += w * q * x;
        sumq2 += w * q * q;
    }
    let mut d = if sumq2 > 0.0 { sumqx / sumq2 } else { 0.0 };
    let mut best = d * sumqx;
    for itry in -ntry..=ntry {
        let id = (itry + i32::from(KVALUES_IQ4NL[0])) as f32 / max;
        sumqx = 0.0;
        sumq2 = 0.0;
        for (j, &x) in xb.iter().enumerate() {
            let q = f32::from(KVALUES_IQ4NL[usize::from(best_index_iq4(id * x))]);
            let w = weight[j];
            sumqx += w * q * x;
            sumq2 += w * q * q;
        }
        if sumq2 > 0.0 && sumqx * sumqx > best * sumq2 {
            d = sumqx / sumq2;
            best = d * sumqx;
        }
    }
    Some(d)
}

fn pack_iq4(l: &[u8], q4: &mut [u8]) {
    for (i, q) in q4.chunks_exact_mut(16).enumerate() {
        for (j, o) in q.iter_mut().enumerate() {
            *o = l[32 * i + j] | (l[32 * i + 16 + j] << 4);
        }
    }
}

/// The weights of a 32-element iq4 group: `x^2`, or with importance `qw * sqrt(sigma2 + x^2)`
/// where `sigma2` is `2/n` times the sum of squares of the `n`-element super-block.
fn iq4_weights(xb: &[f32], qw: Option<&[f32]>, sigma2: f32) -> [f32; 32] {
    match qw {
        Some(q) => std::array::from_fn(|j| q[j] * (sigma2 + xb[j] * xb[j]).sqrt()),
        None => std::array::from_fn(|j| xb[j] * xb[j]),
    }
}

fn iq4_sigma2(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for &v in x {
        s += v * v;
    }
    s * (2.0 / x.len() as f32)
}

/// iq4_nl with `ntry` extra scale candidates and optional importance `qw` aligned with `src`.
pub(crate) fn quant_iq4_nl_w(src: &[f32], qw: Option<&[f32]>, out: &mut [u8], ntry: i32) {
    for (ib, (x, y)) in src
        .chunks_exact(block::IQ4_NL.elems)
        .zip(out.chunks_exact_mut(block::IQ4_NL.bytes))
        .enumerate()
    {
        let qwb = qw.map(|q| &q[32 * ib..32 * ib + 32]);
        let weight = iq4_weights(x, qwb, if qwb.is_some() { iq4_sigma2(x) } else { 0.0 });
        // ggml's chunk path keeps one level buffer across blocks; for ntry > 0 it is always
        // rewritten below, and the reference path (ntry < 0) leaves an all-zero block's levels
        // unspecified: here they are 0.
        let mut l = [0u8; block::IQ4_NL.elems];
        let scale = iq4_group(x, &mut l, ntry, &weight).unwrap_or(0.0);
        super::float::put_f16(y, 0, scale);
        if ntry > 0 {
            let id = if scale != 0.0 { 1.0 / scale } else { 0.0 };
            for (lj, &xj) in l.iter_mut().zip(x) {
                *lj = best_index_iq4(id * xj);
            }
        }
        pack_iq4(&l, &mut y[2..block::IQ4_NL.bytes]);
    }
}

/// iq4_nl as `ggml_quantize_chunk` makes it (7 extra scale candidates).
pub(crate) fn quant_iq4_nl(src: &[f32], out: &mut [u8]) {
    quant_iq4_nl_w(src, None, out, 7);
}

/// iq4_nl as `quantize_row_iq4_nl_ref` makes it (no extra candidates).
pub(crate) fn quant_iq4_nl_ref(src: &[f32], out: &mut [u8]) {
    quant_iq4_nl_w(src, None, out, -1);
}

pub(crate) fn quant_iq4_xs(src: &[f32], out: &mut [u8]) {
    quant_iq4_xs_w(src, None, out);
}

/// iq4_xs with optional importance `qw` aligned with `src`.
pub(crate) fn quant_iq4_xs_w(src: &[f32], qw: Option<&[f32]>, out: &mut [u8]) {
    for (ibl, (x, y)) in src
        .chunks_exact(block::IQ4_XS.elems)
        .zip(out.chunks_exact_mut(block::IQ4_XS.bytes))
        .enumerate()
    {
        let qwl = qw.map(|q| &q[QK_K * ibl..QK_K * ibl + QK_K]);
        let sigma2 = if qwl.is_some() { iq4_sigma2(x) } else { 0.0 };
        let mut l = [0u8; QK_K];
        let mut scales = [0f32; 8];
        let mut max_scale = 0.0f32;
        let mut amax_scale = 0.0f32;
        for (ib, scale) in scales.iter_mut().enumerate() {
            let r = 32 * ib..32 * ib + 32;
            let weight = iq4_weights(&x[r.clone()], qwl.map(|q| &q[r.clone()]), sigma2);
            match iq4_group(&x[r.clone()], &mut l[r], 7, &weight) {
                None => *scale = 0.0,
                Some(d) => {
                    *scale = d;
                    if d.abs() > amax_scale {
                        amax_scale = d.abs();
                        max_scale = d;
                    }
                }
            }
        }
        let d = -max_scale / 32.0;
        super::float::put_f16(y, 0, d);
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut scales_h = 0u16;
        let scales_l = &mut [0u8; 4];
        for (ib, &scale) in scales.iter().enumerate() {
            let ls = super::nearest_int(id * scale).clamp(-32, 31);
            let dl = d * ls as f32;
            let idl = if dl != 0.0 { 1.0 / dl } else { 0.0 };
            for j in 0..32 {
                l[32 * ib + j] = best_index_iq4(idl * x[32 * ib + j]);
            }
            let ls = (ls + 32) as u8;
            scales_l[ib / 2] |= (ls & 0x0f) << (4 * (ib % 2));
            scales_h |= u16::from(ls >> 4) << (2 * ib);
        }
        y[2..4].copy_from_slice(&scales_h.to_le_bytes());
        y[4..8].copy_from_slice(scales_l);
        pack_iq4(&l, &mut y[8..block::IQ4_XS.bytes]);
    }
}
