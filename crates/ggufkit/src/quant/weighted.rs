//! Importance-weighted quantizers of the legacy types and the K-quants: ggml's
//! `quantize_row_{q4_0,q4_1,q5_0,q5_1,q2_K,q3_K,q4_K,q5_K}_impl` with `quant_weights`, which
//! `ggml_quantize_chunk` runs instead of the reference quantizers when given an imatrix.
//!
//! Each function quantizes one row (`x`) with its importance `qw` (one weight per column, so
//! `qw.len() == x.len()`): the legacy types take the row's mean square as `sigma2`, the K-quants
//! each super-block's. Floating point follows ggml's operation order (no fused multiply-add);
//! ggml's `uint8_t` stores of unclamped levels wrap as they do in C.

#![forbid(unsafe_code)]

use super::float::{f16_le, put_f16};
use super::kquants::{arr12, make_qx_quants, pack_2bit, scale_min_k4};
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
/// `None`), searched over `nstep + 1` candidate scales. Returns `(scale, -min)`.
#[allow(clippy::too_many_arguments)]
fn make_qkx3_quants(
    nmax: i32,
    x: &[f32],
    w: Option<&[f32]>,
    l_out: &mut [u8],
    laux: &mut [u8],
    rmin: f32,
    rdelta: f32,
    nstep: i32,
) -> (f32, f32) {
    let n = x.len();
    let wt = |i: usize| match w {
        Some(w) => w[i],
        None => x[i] * x[i],
    };
    let mut min = x[0];
    let mut max = x[0];
    let mut sum_w = wt(0);
    let mut sum_x = sum_w * x[0];
    for (i, &xi) in x.iter().enumerate().skip(1) {
        if xi < min {
            min = xi;
        }
        if xi > max {
            max = xi;
        }
        let wi = wt(i);
        sum_w += wi;
        sum_x += wi * xi;
    }
    if min > 0.0 {
        min = 0.0;
    }
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

pub(crate) fn quant_q4_0_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    let sigma2 = row_sigma2(x);
    let mut weight = [0f32; 32];
    let mut l = [0i8; 32];
    for ((xb, qb), y) in x
        .chunks_exact(32)
        .zip(qw.chunks_exact(32))
        .zip(out.chunks_exact_mut(block::Q4_0.bytes))
    {
        weights_of(xb, qb, sigma2, &mut weight);
        let d = make_qx_quants(8, xb, &mut l, Some(&weight));
        put_f16(y, 0, d);
        for j in 0..16 {
            y[2 + j] = (l[j] as u8) | ((l[j + 16] as u8) << 4);
        }
    }
}

pub(crate) fn quant_q5_0_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    let sigma2 = row_sigma2(x);
    let mut weight = [0f32; 32];
    let mut l = [0i8; 32];
    for ((xb, qb), y) in x
        .chunks_exact(32)
        .zip(qw.chunks_exact(32))
        .zip(out.chunks_exact_mut(block::Q5_0.bytes))
    {
        weights_of(xb, qb, sigma2, &mut weight);
        let d = make_qx_quants(16, xb, &mut l, Some(&weight));
        put_f16(y, 0, d);
        let mut qh = 0u32;
        for j in 0..16 {
            let (a, b) = (l[j] as u8, l[j + 16] as u8);
            y[6 + j] = (a & 0x0f) | ((b & 0x0f) << 4);
            qh |= u32::from((a & 0x10) >> 4) << j;
            qh |= u32::from((b & 0x10) >> 4) << (j + 16);
        }
        y[2..6].copy_from_slice(&qh.to_le_bytes());
    }
}

/// q4_1 (`nmax` 15) and q5_1 (31): scale and min by `make_qkx3_quants`.
fn quant_q_1_w(x: &[f32], qw: &[f32], out: &mut [u8], nmax: i32) {
    let sigma2 = row_sigma2(x);
    let mut weight = [0f32; 32];
    let mut l = [0u8; 32];
    let mut laux = [0u8; 32];
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
        let (d, min) = make_qkx3_quants(nmax, xb, Some(&weight), &mut l, &mut laux, -0.9, 0.05, 36);
        put_f16(y, 0, d);
        put_f16(y, 2, -min);
        if nmax == 15 {
            for j in 0..16 {
                y[4 + j] = l[j] | (l[j + 16] << 4);
            }
        } else {
            let mut qh = 0u32;
            for j in 0..16 {
                let (a, b) = (l[j], l[j + 16]);
                y[8 + j] = (a & 0x0f) | ((b & 0x0f) << 4);
                qh |= u32::from((a & 0x10) >> 4) << j;
                qh |= u32::from((b & 0x10) >> 4) << (j + 16);
            }
            y[4..8].copy_from_slice(&qh.to_le_bytes());
        }
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
        let mut laux = [0u8; 16];
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
            let (s, m) = make_qkx3_quants(
                3,
                xs,
                Some(&weight),
                &mut l[16 * j..16 * j + 16],
                &mut laux,
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
        let (sc, rest) = y.split_at_mut(16);
        put_f16(rest, 64, dm);
        put_f16(rest, 66, mm);
        let dm = f16_le(rest, 64);
        let mm = f16_le(rest, 66);
        for j in 0..16 {
            sc[j] = ls[j] | (lm[j] << 4);
        }
        for j in 0..16 {
            let d = dm * f32::from(sc[j] & 0x0f);
            if d == 0.0 {
                continue;
            }
            let m = mm * f32::from(sc[j] >> 4);
            for ii in 0..16 {
                let q = nearest_int((x[16 * j + ii] + m) / d).clamp(0, 3);
                l[16 * j + ii] = q as u8;
            }
        }
        pack_2bit(&l, &mut rest[..64]);
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
        let mut ls = [0i8; 16];
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
        let (hmask, rest) = y.split_at_mut(32);
        let (qs, rest) = rest.split_at_mut(64);
        let (sc, dpart) = rest.split_at_mut(12);
        sc.iter_mut().for_each(|s| *s = 0);
        let d_block = make_qx_quants(32, &scales, &mut ls, Some(&sw));
        for j in 0..16 {
            let lv = ls[j] as u8;
            if j < 8 {
                sc[j] = lv & 0x0f;
            } else {
                sc[j - 8] |= (lv & 0x0f) << 4;
            }
            sc[j % 4 + 8] |= (lv >> 4) << (2 * (j / 4));
        }
        put_f16(dpart, 0, d_block);
        let d_all = f16_le(dpart, 0);
        for j in 0..16 {
            let lo = if j < 8 { sc[j] & 0x0f } else { sc[j - 8] >> 4 };
            let s = (lo | (((sc[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) as i8 - 32;
            let d = d_all * f32::from(s);
            if d == 0.0 {
                continue;
            }
            for ii in 0..16 {
                let q = nearest_int(x[16 * j + ii] / d).clamp(-4, 3);
                l[16 * j + ii] = (q + 4) as i8;
            }
        }
        hmask.iter_mut().for_each(|h| *h = 0);
        let mut lu = [0u8; QK_K];
        for j in 0..QK_K {
            let mut v = l[j] as u8;
            if l[j] > 3 {
                hmask[j % 32] |= 1 << (j / 32);
                v = v.wrapping_sub(4);
            }
            lu[j] = v;
        }
        pack_2bit(&lu, qs);
    }
}

/// The shared part of q4_k (`nmax` 15) and q5_k (31) with importance: scales, mins, header and
/// the requantized levels in `l`.
fn quant_k4_w(x: &[f32], qw: &[f32], y: &mut [u8], nmax: i32, l: &mut [u8; QK_K]) {
    let mut laux = [0u8; 32];
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
        let (s, m) = make_qkx3_quants(
            nmax,
            xs,
            Some(&weights),
            &mut l[32 * j..32 * j + 32],
            &mut laux,
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
    let sc = &mut y[4..16];
    for j in 0..8 {
        let (mut a, mut b) = (ls[j], lm[j]);
        if nmax == 31 {
            a = a.min(63);
            b = b.min(63);
        }
        if j < 4 {
            sc[j] = a;
            sc[j + 4] = b;
        } else {
            sc[j + 4] = (a & 0x0f) | ((b & 0x0f) << 4);
            sc[j - 4] |= (a >> 4) << 6;
            sc[j] |= (b >> 4) << 6;
        }
    }
    put_f16(y, 0, d_block);
    put_f16(y, 2, m_block);
    let d_all = f16_le(y, 0);
    let m_all = f16_le(y, 2);
    let sc = *arr12(&y[4..16]);
    for j in 0..8 {
        let (s, m) = scale_min_k4(j, &sc);
        let d = d_all * f32::from(s);
        if d == 0.0 {
            continue;
        }
        let dm = m_all * f32::from(m);
        for ii in 0..32 {
            let q = nearest_int((x[32 * j + ii] + dm) / d).clamp(0, nmax);
            l[32 * j + ii] = q as u8;
        }
    }
}

pub(crate) fn quant_q4_k_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    for ((x, qw), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::Q4_K.bytes))
    {
        let mut l = [0u8; QK_K];
        quant_k4_w(x, qw, y, 15, &mut l);
        for (h, q) in y[16..block::Q4_K.bytes].chunks_exact_mut(32).enumerate() {
            let j = 64 * h;
            for (k, o) in q.iter_mut().enumerate() {
                *o = l[j + k] | (l[j + k + 32] << 4);
            }
        }
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
        let (qh, ql) = y[16..block::Q5_K.bytes].split_at_mut(32);
        qh.iter_mut().for_each(|h| *h = 0);
        for (h, q) in ql.chunks_exact_mut(32).enumerate() {
            let n = 64 * h;
            let (m1, m2) = (1u8 << (2 * h), 2u8 << (2 * h));
            for j in 0..32 {
                let mut l1 = l[n + j];
                if l1 > 15 {
                    l1 -= 16;
                    qh[j] |= m1;
                }
                let mut l2 = l[n + j + 32];
                if l2 > 15 {
                    l2 -= 16;
                    qh[j] |= m2;
                }
                q[j] = l1 | (l2 << 4);
            }
        }
    }
}
