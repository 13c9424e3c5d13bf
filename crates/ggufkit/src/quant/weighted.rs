//! Importance-weighted quantizers of the legacy types and the K-quants: ggml's
//! `quantize_row_{q4_0,q4_1,q5_0,q5_1,q2_K,q3_K,q4_K,q5_K}_impl` with `quant_weights`, which
//! `ggml_quantize_chunk` runs instead of the reference quantizers when given an imatrix.
//!
//! Each function quantizes one row (`x`) with its importance `qw` (one weight per column, so
//! `qw.len() == x.len()`): the legacy types take the row's mean square as `sigma2`, the K-quants
//! each super-block's. Floating point follows ggml's operation order (no fused multiply-add);
//! ggml's `uint8_t` stores of unclamped levels wrap as they do in C.

#![forbid(unsafe_code)]

use super::float::put_f16;
use super::kquants::{
    finish_q2_k, finish_q3_k, make_qx_quants, pack_k4_scale_levels, pack_q4_k_levels,
    pack_q5_k_levels, requantize_k4,
};
use super::ksearch::{qkx_search, QkxGroup};
use super::layout::{block, QK_K};
use super::nearest_int;

/// `qw * sqrt(sigma2 + x^2)`, ggml's importance weights of a group.
#[inline]
fn weights_of(x: &[f32], qw: &[f32], sigma2: f32, w: &mut [f32]) {
    for ((w, &q), &v) in w.iter_mut().zip(qw).zip(x) {
        *w = q * (sigma2 + v * v).sqrt();
    }
}

#[inline]
fn sum_sq(x: &[f32]) -> f32 {
    let mut s = 0.0f32;
    for &v in x {
        s += v * v;
    }
    s
}

/// ggml's `make_qkx3_quants`: scale and min of an asymmetric group under weights `w` (x² when
/// `None`), searched over `nstep + 1` candidate scales (side by side, [`super::ksearch`]).
/// Returns `(scale, -min)`.
#[allow(clippy::too_many_arguments)]
pub(super) fn make_qkx3_quants<const N: usize>(
    nmax: i32,
    x: &[f32],
    w: Option<&[f32]>,
    l_out: &mut [u8],
    rmin: f32,
    rdelta: f32,
    nstep: i32,
) -> (f32, f32) {
    let (x, l_out) = (&x[..N], &mut l_out[..N]);
    let mut wt = [0f32; N];
    for (i, o) in wt.iter_mut().enumerate() {
        *o = match w {
            Some(w) => w[i],
            None => x[i] * x[i],
        };
    }
    let (min, max, sum_w, sum_x) = super::ksearch::group_range(x, &wt);
    if max <= min {
        l_out.iter_mut().for_each(|l| *l = 0);
        return (0.0, -min);
    }
    if nstep < 1 {
        let iscale = nmax as f32 / (max - min);
        for (o, &xi) in l_out.iter_mut().zip(x) {
            *o = nearest_int(iscale * (xi - min)).clamp(0, nmax) as u8;
        }
        return (1.0 / iscale, -min);
    }
    let g = QkxGroup {
        x,
        w: &wt,
        nmax,
        sum_w,
        sum_x,
        mad: false,
    };
    qkx_search(&g, min, max, (rmin, rdelta, nstep), l_out)
}

/// ggml's `make_qkx3_quants` one candidate after the other, as ggml runs it: the reference the
/// side-by-side search is tested against.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(super) fn make_qkx3_quants_serial<const N: usize>(
    nmax: i32,
    x: &[f32],
    w: Option<&[f32]>,
    l_out: &mut [u8],
    laux: &mut [u8],
    rmin: f32,
    rdelta: f32,
    nstep: i32,
) -> (f32, f32) {
    // a group of a length known when compiling, as for `make_qkx2_quants`
    let n = N;
    let x = &x[..N];
    let w = w.map(|w| &w[..N]);
    let (l_out, laux) = (&mut l_out[..N], &mut laux[..N]);
    let weights: [f32; N] = std::array::from_fn(|i| match w {
        Some(w) => w[i],
        None => x[i] * x[i],
    });
    let wt = |i: usize| weights[i];
    let (mut min, max, sum_w, sum_x) = super::ksearch::group_range(x, &weights);
    if max <= min {
        l_out[..n].iter_mut().for_each(|l| *l = 0);
        return (0.0, -min);
    }
    let mut iscale = nmax as f32 / (max - min);
    let mut scale = 1.0 / iscale;
    let mut best_mad = 0.0f32;
    for i in 0..n {
        let l = nearest_int(iscale * (x[i] - min)).clamp(0, nmax);
        l_out[i] = l as u8;
        let diff = scale * f32::from(l_out[i]) + min - x[i];
        best_mad += wt(i) * (diff * diff);
    }
    if nstep < 1 {
        return (scale, -min);
    }
    for is in 0..=nstep {
        iscale = (rmin + rdelta * is as f32 + nmax as f32) / (max - min);
        let mut sum_l = 0.0f32;
        let mut sum_l2 = 0.0f32;
        let mut sum_xl = 0.0f32;
        for i in 0..n {
            let l = nearest_int(iscale * (x[i] - min)).clamp(0, nmax);
            laux[i] = l as u8;
            let wi = wt(i);
            let lf = l as f32;
            sum_l += wi * lf;
            sum_l2 += wi * lf * lf;
            sum_xl += wi * lf * x[i];
        }
        let dd = sum_w * sum_l2 - sum_l * sum_l;
        if dd > 0.0 {
            let mut this_scale = (sum_w * sum_xl - sum_x * sum_l) / dd;
            let mut this_min = (sum_l2 * sum_x - sum_l * sum_xl) / dd;
            if this_min > 0.0 {
                this_min = 0.0;
                this_scale = sum_xl / sum_l2;
            }
            let mut mad = 0.0f32;
            for i in 0..n {
                let diff = this_scale * f32::from(laux[i]) + this_min - x[i];
                mad += wt(i) * (diff * diff);
            }
            if mad < best_mad {
                l_out[..n].copy_from_slice(&laux[..n]);
                best_mad = mad;
                scale = this_scale;
                min = this_min;
            }
        }
    }
    (scale, -min)
}

/// ggml's `make_qp_quants`: a non-negative scale for the non-negative values `x` (the scales or
/// mins of a super-block) under weights `qw`, levels `0..=nmax` in `l_out` (stored as C's
/// `uint8_t`, so a negative level wraps).
pub(super) fn make_qp_quants(nmax: i32, x: &[f32], l_out: &mut [u8], qw: &[f32]) -> f32 {
    let n = x.len();
    let mut max = 0.0f32;
    for &v in x {
        max = super::fmax_c(max, v);
    }
    if max < 1e-15 {
        l_out[..n].iter_mut().for_each(|l| *l = 0);
        return 0.0;
    }
    let mut iscale = nmax as f32 / max;
    for i in 0..n {
        l_out[i] = nearest_int(iscale * x[i]) as u8;
    }
    let scale = 1.0 / iscale;
    let mut best_mse = 0.0f32;
    for i in 0..n {
        let diff = x[i] - scale * f32::from(l_out[i]);
        best_mse += qw[i] * diff * diff;
    }
    for is in -4..=4 {
        if is == 0 {
            continue;
        }
        let iscale_is = (0.1 * is as f32 + nmax as f32) / max;
        let scale_is = 1.0 / iscale_is;
        let mut mse = 0.0f32;
        for i in 0..n {
            let l = nearest_int(iscale_is * x[i]).min(nmax);
            let diff = x[i] - scale_is * l as f32;
            mse += qw[i] * diff * diff;
        }
        if mse < best_mse {
            best_mse = mse;
            iscale = iscale_is;
        }
    }
    let mut sumlx = 0.0f32;
    let mut suml2 = 0.0f32;
    for i in 0..n {
        let l = nearest_int(iscale * x[i]).min(nmax);
        l_out[i] = l as u8;
        let w = qw[i];
        sumlx += w * x[i] * l as f32;
        suml2 += w * l as f32 * l as f32;
    }
    for _ in 0..5 {
        let mut n_changed = 0;
        for i in 0..n {
            let w = qw[i];
            let li = f32::from(l_out[i]);
            let mut slx = sumlx - w * x[i] * li;
            let mut sl2 = suml2 - w * li * li;
            if slx > 0.0 && sl2 > 0.0 {
                let new_l = nearest_int(x[i] * sl2 / slx).min(nmax);
                if new_l != i32::from(l_out[i]) {
                    slx += w * x[i] * new_l as f32;
                    sl2 += w * new_l as f32 * new_l as f32;
                    if slx * slx * suml2 > sumlx * sumlx * sl2 {
                        l_out[i] = new_l as u8;
                        sumlx = slx;
                        suml2 = sl2;
                        n_changed += 1;
                    }
                }
            }
        }
        if n_changed == 0 {
            break;
        }
    }
    if suml2 > 0.0 {
        sumlx / suml2
    } else {
        0.0
    }
}

// ---------------------------------------------------------------------------------------------
// Legacy types: 32-element blocks, `sigma2` the mean square of the whole row.

fn row_sigma2(x: &[f32]) -> f32 {
    sum_sq(x) / x.len() as f32
}

/// Packs a legacy block's 32 levels after its scale (and min): elements `j` and `j + 16` share
/// a byte; with `five_bits` their fifth bits go first, into a little-endian `u32`. (ggml stores
/// the levels as `uint8_t`, so a level past the type's range wraps, as in C.)
fn pack_levels_32(l: &[u8; 32], five_bits: bool, out: &mut [u8]) {
    let qs = if five_bits {
        &mut out[4..20]
    } else {
        &mut out[..16]
    };
    let mut qh = 0u32;
    for j in 0..16 {
        let (a, b) = (l[j], l[j + 16]);
        qs[j] = (a & 0x0f) | (b << 4);
        qh |= u32::from((a & 0x10) >> 4) << j;
        qh |= u32::from((b & 0x10) >> 4) << (j + 16);
    }
    if five_bits {
        out[..4].copy_from_slice(&qh.to_le_bytes());
    }
}

pub(crate) fn quant_q4_0_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    quant_q_0_w(x, qw, out, 8);
}

pub(crate) fn quant_q5_0_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    quant_q_0_w(x, qw, out, 16);
}

/// q4_0 (`nmax` 8) and q5_0 (16): one scale per block by `make_qx_quants`.
fn quant_q_0_w(x: &[f32], qw: &[f32], out: &mut [u8], nmax: i32) {
    let sigma2 = row_sigma2(x);
    let mut weight = [0f32; 32];
    let mut l = [0i8; 32];
    let (bytes, five_bits) = if nmax == 8 {
        (block::Q4_0.bytes, false)
    } else {
        (block::Q5_0.bytes, true)
    };
    for ((xb, qb), y) in x
        .chunks_exact(32)
        .zip(qw.chunks_exact(32))
        .zip(out.chunks_exact_mut(bytes))
    {
        weights_of(xb, qb, sigma2, &mut weight);
        let d = make_qx_quants(nmax, xb, &mut l, Some(&weight));
        put_f16(y, 0, d);
        pack_levels_32(&l.map(|v| v as u8), five_bits, &mut y[2..]);
    }
}

/// q4_1 (`nmax` 15) and q5_1 (31): scale and min by `make_qkx3_quants`.
fn quant_q_1_w(x: &[f32], qw: &[f32], out: &mut [u8], nmax: i32) {
    let sigma2 = row_sigma2(x);
    let mut weight = [0f32; 32];
    let mut l = [0u8; 32];
    let bytes = if nmax == 15 {
        block::Q4_1.bytes
    } else {
        block::Q5_1.bytes
    };
    for ((xb, qb), y) in x
        .chunks_exact(32)
        .zip(qw.chunks_exact(32))
        .zip(out.chunks_exact_mut(bytes))
    {
        weights_of(xb, qb, sigma2, &mut weight);
        let (d, min) = make_qkx3_quants::<32>(nmax, xb, Some(&weight), &mut l, -0.9, 0.05, 36);
        put_f16(y, 0, d);
        put_f16(y, 2, -min);
        pack_levels_32(&l, nmax == 31, &mut y[4..]);
    }
}

pub(crate) fn quant_q4_1_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    quant_q_1_w(x, qw, out, 15);
}

pub(crate) fn quant_q5_1_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    quant_q_1_w(x, qw, out, 31);
}

// ---------------------------------------------------------------------------------------------
// K-quants: 256-element super-blocks.

pub(crate) fn quant_q2_k_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    for ((x, qw), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::Q2_K.bytes))
    {
        let mut l = [0u8; QK_K];
        let mut mins = [0f32; 16];
        let mut scales = [0f32; 16];
        let mut sw = [0f32; 16];
        let mut weight = [0f32; 16];
        let sigma2 = sum_sq(x) / QK_K as f32;
        for j in 0..16 {
            let xs = &x[16 * j..16 * j + 16];
            weights_of(xs, &qw[16 * j..16 * j + 16], sigma2, &mut weight);
            for &w in &weight {
                sw[j] += w;
            }
            let (s, m) = make_qkx3_quants::<16>(
                3,
                xs,
                Some(&weight),
                &mut l[16 * j..16 * j + 16],
                -0.9,
                0.05,
                36,
            );
            scales[j] = s;
            mins[j] = m;
        }
        let mut ls = [0u8; 16];
        let mut lm = [0u8; 16];
        let dm = make_qp_quants(15, &scales, &mut ls, &sw);
        let mm = make_qp_quants(15, &mins, &mut lm, &sw);
        for j in 0..16 {
            y[j] = ls[j] | (lm[j] << 4);
        }
        put_f16(y, 80, dm);
        put_f16(y, 82, mm);
        finish_q2_k(x, y, &mut l);
    }
}

pub(crate) fn quant_q3_k_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    for ((x, qw), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::Q3_K.bytes))
    {
        let mut l = [0i8; QK_K];
        let mut scales = [0f32; 16];
        let mut weight = [0f32; 16];
        let mut sw = [0f32; 16];
        let sigma2 = 2.0 * sum_sq(x) / QK_K as f32;
        for j in 0..16 {
            let xs = &x[16 * j..16 * j + 16];
            weights_of(xs, &qw[16 * j..16 * j + 16], sigma2, &mut weight);
            let mut sumw = 0.0f32;
            for &w in &weight {
                sumw += w;
            }
            sw[j] = sumw;
            scales[j] = make_qx_quants(4, xs, &mut l[16 * j..16 * j + 16], Some(&weight));
        }
        let mut ls = [0i8; 16];
        let d_block = make_qx_quants(32, &scales, &mut ls, Some(&sw));
        finish_q3_k(x, y, &ls.map(|v| v as u8), d_block, &mut l);
    }
}

/// The shared part of q4_k (`nmax` 15) and q5_k (31) with importance: scales, mins, header and
/// the requantized levels in `l`.
fn quant_k4_w(x: &[f32], qw: &[f32], y: &mut [u8], nmax: i32, l: &mut [u8; QK_K]) {
    let mut weights = [0f32; 32];
    let mut sw = [0f32; 8];
    let mut mins = [0f32; 8];
    let mut scales = [0f32; 8];
    let sigma2 = 2.0 * sum_sq(x) / QK_K as f32;
    for j in 0..8 {
        let xs = &x[32 * j..32 * j + 32];
        weights_of(xs, &qw[32 * j..32 * j + 32], sigma2, &mut weights);
        let mut sumw = 0.0f32;
        for &w in &weights {
            sumw += w;
        }
        sw[j] = sumw;
        let (s, m) = make_qkx3_quants::<32>(
            nmax,
            xs,
            Some(&weights),
            &mut l[32 * j..32 * j + 32],
            -0.9,
            0.05,
            36,
        );
        scales[j] = s;
        mins[j] = m;
    }
    let mut ls = [0u8; 8];
    let mut lm = [0u8; 8];
    let d_block = make_qp_quants(63, &scales, &mut ls, &sw);
    let m_block = make_qp_quants(63, &mins, &mut lm, &sw);
    if nmax == 31 {
        ls = ls.map(|v| v.min(63));
        lm = lm.map(|v| v.min(63));
    }
    pack_k4_scale_levels(&ls, &lm, &mut y[4..16]);
    put_f16(y, 0, d_block);
    put_f16(y, 2, m_block);
    requantize_k4(x, y, nmax, l);
}

pub(crate) fn quant_q4_k_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    for ((x, qw), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::Q4_K.bytes))
    {
        let mut l = [0u8; QK_K];
        quant_k4_w(x, qw, y, 15, &mut l);
        pack_q4_k_levels(&l, y);
    }
}

pub(crate) fn quant_q5_k_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    for ((x, qw), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::Q5_K.bytes))
    {
        let mut l = [0u8; QK_K];
        quant_k4_w(x, qw, y, 31, &mut l);
        pack_q5_k_levels(&l, y);
    }
}
