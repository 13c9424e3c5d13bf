//! The quantizers that exist only with an importance matrix: iq2_xxs, iq2_xs and iq1_s, as
//! ggml's `quantize_row_iq2_xxs_impl`, `quantize_row_iq2_xs_impl` and `quantize_row_iq1_s_impl`
//! make them (ggml asserts that `quant_weights` is given; `quantize_rows` refuses the call
//! without one).
//!
//! Each quantizes one row `x` with its importance `qw` (`qw.len() == x.len()`), with the lattice
//! machinery of `iq_quant` and ggml's operation order.

#![forbid(unsafe_code)]

use super::float::put_f16;
use super::iq_quant::{
    best_neighbour, block_sigma2, iq1_best_neighbour, iq1s_lattice, iq2xs_lattice, iq2xxs_lattice,
    sorted_order, sums_odd, GridSearch, Lattice, SplitPick,
};
use super::layout::{block, QK_K};
use super::weighted::make_qp_quants;
use super::{fmax_c, nearest_int};

/// `qw * sqrt(sigma2 + x^2)`.
#[inline]
fn weights<const B: usize>(xb: &[f32], qw: &[f32], sigma2: f32) -> [f32; B] {
    std::array::from_fn(|i| qw[i] * (sigma2 + xb[i] * xb[i]).sqrt())
}

/// The sign handling of iq2_xxs/iq2_xs: `xval = |x|`, the sign bits of each group of 8, and an
/// even number of flips per group (the flip of the element with the smallest `w x^2` undone).
fn even_signs<const B: usize>(xb: &[f32], weight: &[f32; B], xval: &mut [f32; B]) -> [u8; 4] {
    let mut signs = [0u8; 4];
    for k in 0..B / 8 {
        let mut nflip = 0;
        let mut s = 0u8;
        for i in 0..8 {
            let v = xb[8 * k + i];
            if v >= 0.0 {
                xval[8 * k + i] = v;
            } else {
                xval[8 * k + i] = -v;
                nflip += 1;
                s |= 1 << i;
            }
        }
        if nflip % 2 == 1 {
            let mut imin = 0;
            let mut min = weight[8 * k] * xb[8 * k] * xb[8 * k];
            for i in 1..8 {
                let ax = weight[8 * k + i] * xb[8 * k + i] * xb[8 * k + i];
                if ax < min {
                    min = ax;
                    imin = i;
                }
            }
            xval[8 * k + imin] = -xval[8 * k + imin];
            s ^= 1 << imin;
        }
        signs[k] = s & 127;
    }
    signs
}

/// Levels of a group rounded at inverse scale `id`: `clamp(round((id x - 1) / 2), 0, 2)`.
#[inline]
fn round_levels(xval: &[f32], id: f32, l: &mut [u8]) {
    for (o, &x) in l.iter_mut().zip(xval) {
        *o = nearest_int(0.5 * (id * x - 1.0)).clamp(0, 2) as u8;
    }
}

/// Places one group of 8 levels at inverse scale `id` (scale `scale`) on the grid: the rounded
/// point when it is a grid point, else its best neighbour; the levels go to `l`.
fn place(lat: &Lattice<8>, xval: &[f32], waux: &[f32], id: f32, scale: f32, l: &mut [u8]) {
    let mut lv = [0u8; 8];
    round_levels(&xval[..8], id, &mut lv);
    let u = lat.code(&lv);
    match lat.index(u) {
        Some(_) => l[..8].copy_from_slice(&lv),
        None => {
            best_neighbour(lat, u, xval, waux, scale, l);
        }
    }
}

pub(crate) fn quant_iq2_xxs_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    const KMAXQ: i32 = 3;
    let lat = iq2xxs_lattice();
    for ((xbl, qwl), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::IQ2_XXS.bytes))
    {
        y.fill(0);
        let mut q2 = [0u32; 16];
        let mut scales = [0f32; 8];
        let mut max_scale = 0.0f32;
        let mut sumx2 = 0.0f32;
        for &v in xbl {
            sumx2 += v * v;
        }
        let sigma2 = sumx2 / QK_K as f32;
        for ib in 0..8 {
            let xb = &xbl[32 * ib..32 * ib + 32];
            let weight = weights::<32>(xb, &qwl[32 * ib..], sigma2);
            let waux: [f32; 32] = std::array::from_fn(|i| weight[i].sqrt());
            let mut xval = [0f32; 32];
            let mut signs = even_signs(xb, &weight, &mut xval);
            let mut max = xval[0];
            for &v in &xval[1..] {
                max = fmax_c(max, v);
            }
            if max < 1e-15 {
                continue;
            }
            let mut l = [0u8; 32];
            let mut scale = make_qp_quants(KMAXQ + 1, &xval, &mut l, &weight);
            let eff_max = scale * KMAXQ as f32;
            if eff_max <= 0.0 {
                continue;
            }
            let mut best = 0.0f32;
            let mut laux = [0u8; 32];
            for is in -6..=6 {
                let id = ((2 * KMAXQ - 1) as f32 + is as f32 * 0.1) / eff_max;
                let this_scale = 1.0 / id;
                for k in 0..4 {
                    let g = 8 * k..8 * k + 8;
                    round_levels(&xval[g.clone()], id, &mut laux[g.clone()]);
                    let u = lat.code(&laux[g.clone()]);
                    if lat.index(u).is_none() {
                        best_neighbour(
                            lat,
                            u,
                            &xval[8 * k..],
                            &waux[8 * k..],
                            this_scale,
                            &mut laux[g],
                        );
                    }
                }
                let (sumqx, sumq2) = sums_odd(&weight, &xval, &laux);
                if sumq2 > 0.0 && sumqx * sumqx > best * sumq2 {
                    scale = sumqx / sumq2;
                    best = scale * sumqx;
                    l = laux;
                }
            }
            if scale > 0.0 {
                let id = 1.0 / scale;
                for k in 0..4 {
                    let g = 8 * k..8 * k + 8;
                    place(lat, &xval[8 * k..], &waux[8 * k..], id, scale, &mut l[g]);
                }
                let (sumqx, sumq2) = sums_odd(&weight, &xval, &l);
                if sumq2 > 0.0 {
                    scale = sumqx / sumq2;
                }
            }
            if scale < 0.0 {
                scale = -scale;
                for s in &mut signs {
                    *s = !*s & 127;
                }
            }
            for k in 0..4 {
                // On the grid by construction (ggml aborts otherwise).
                let gi = lat.index(lat.code(&l[8 * k..8 * k + 8])).unwrap_or(0);
                q2[2 * ib] |= u32::from(gi) << (8 * k);
                q2[2 * ib + 1] |= u32::from(signs[k]) << (7 * k);
            }
            scales[ib] = scale;
            max_scale = fmax_c(max_scale, scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let d = max_scale / 31.0;
        put_f16(y, 0, d);
        let id = 1.0 / d;
        for (ib, &s) in scales.iter().enumerate() {
            let l = nearest_int(0.5 * (id * s - 1.0)).clamp(0, 15);
            q2[2 * ib + 1] |= (l as u32) << 28;
        }
        for (o, q) in y[2..].chunks_exact_mut(4).zip(&q2) {
            o.copy_from_slice(&q.to_le_bytes());
        }
    }
}

pub(crate) fn quant_iq2_xs_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    const KMAXQ: i32 = 3;
    let lat = iq2xs_lattice();
    for ((xbl, qwl), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::IQ2_XS.bytes))
    {
        y.fill(0);
        let mut q2 = [0u16; 32];
        let mut scales = [0f32; 16];
        let mut max_scale = 0.0f32;
        let mut sumx2 = 0.0f32;
        for &v in xbl {
            sumx2 += v * v;
        }
        let sigma2 = sumx2 / QK_K as f32;
        for ib in 0..16 {
            let xb = &xbl[16 * ib..16 * ib + 16];
            let weight = weights::<16>(xb, &qwl[16 * ib..], sigma2);
            let waux: [f32; 16] = std::array::from_fn(|i| weight[i].sqrt());
            let mut xval = [0f32; 16];
            let mut signs = even_signs(xb, &weight, &mut xval);
            let mut max = xval[0];
            for &v in &xval[1..] {
                max = fmax_c(max, v);
            }
            if max < 1e-15 {
                continue;
            }
            let search = GridSearch {
                kmaxq: KMAXQ,
                step: 0.1,
                range: 9,
                start_on_grid: true,
                refine_on_grid: false,
            };
            let (l, mut scale) = search.run(lat, &weight, &waux, &xval, max);
            if scale < 0.0 {
                scale = -scale;
                for s in &mut signs {
                    *s = !*s & 127;
                }
            }
            for k in 0..2 {
                let gi = lat.index(lat.code(&l[8 * k..8 * k + 8])).unwrap_or(0);
                q2[2 * ib + k] = gi | (u16::from(signs[k]) << 9);
            }
            scales[ib] = scale;
            max_scale = fmax_c(max_scale, scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let d = max_scale / 31.0;
        put_f16(y, 0, d);
        let id = 1.0 / d;
        for (ib, &s) in scales.iter().enumerate() {
            let l = nearest_int(0.5 * (id * s - 1.0)).clamp(0, 15) as u8;
            y[66 + ib / 2] |= l << (4 * (ib % 2));
        }
        for (o, q) in y[2..66].chunks_exact_mut(2).zip(&q2) {
            o.copy_from_slice(&q.to_le_bytes());
        }
    }
}

const IQ1S_DELTA: f32 = 0.125;
const X_P: [f32; 3] = [-1.0 + IQ1S_DELTA, IQ1S_DELTA, 1.0 + IQ1S_DELTA];
const X_M: [f32; 3] = [-1.0 - IQ1S_DELTA, -IQ1S_DELTA, 1.0 - IQ1S_DELTA];

/// The prefix sums of one sorted 32-value iq1_s group: of `w x` (`sumx`) and of `w` (`sumw`),
/// `sumx[j]` over the `j` smallest values; zero beyond 32 so vectors of eight load whole.
pub(crate) struct Iq1sSplits {
    pub(crate) sumx: [f32; 40],
    pub(crate) sumw: [f32; 40],
}

/// iq1_s's value tables in ggml's search order: `x_p` (shift +1), then `x_m` (shift -1).
pub(crate) const IQ1S_VALUES: [[f32; 3]; 2] = [X_P, X_M];

impl Iq1sSplits {
    /// The sums of the group `xb` with weights `weight`, sorted in `order`.
    pub(super) fn new(xb: &[f32; 32], weight: &[f32; 32], order: &[u8; 32]) -> Self {
        let mut sp = Iq1sSplits {
            sumx: [0f32; 40],
            sumw: [0f32; 40],
        };
        for (j, &i) in order.iter().enumerate() {
            let i = usize::from(i) % 32;
            sp.sumx[j + 1] = sp.sumx[j] + weight[i] * xb[i];
            sp.sumw[j + 1] = sp.sumw[j] + weight[i];
        }
        sp
    }

    /// ggml's search over the splits `i1 <= i2` and the two value tables, in its order.
    pub(super) fn search(&self, pick: &mut SplitPick) {
        if !super::simd::iq1s_splits(self, pick) {
            self.search_scalar(pick);
        }
    }

    /// [`Self::search`] candidate after candidate.
    pub(crate) fn search_scalar(&self, pick: &mut SplitPick) {
        const BS: usize = 32;
        let (sumx, sumw) = (&self.sumx, &self.sumw);
        for i1 in 0..=BS {
            for i2 in i1..=BS {
                for (k, v) in IQ1S_VALUES.iter().enumerate() {
                    let sumqx = (sumx[i1] - sumx[0]) * v[0]
                        + (sumx[i2] - sumx[i1]) * v[1]
                        + (sumx[BS] - sumx[i2]) * v[2];
                    let sumq2 = (sumw[i1] - sumw[0]) * v[0] * v[0]
                        + (sumw[i2] - sumw[i1]) * v[1] * v[1]
                        + (sumw[BS] - sumw[i2]) * v[2] * v[2];
                    pick.offer(sumqx, sumq2, (i1, i2, k));
                }
            }
        }
    }
}

/// One 32-value group of iq1_s: `(scale, shift is -1, four grid indices)`, or `None` for a zero
/// group (scale 0, shift +1).
fn iq1s_group(lat: &Lattice<8>, xb: &[f32], weight: &[f32; 32]) -> Option<(f32, bool, [u16; 4])> {
    const BS: usize = 32;
    let xb: &[f32; BS] = xb.try_into().ok()?;
    let mut max = xb[0].abs();
    for &v in &xb[1..] {
        max = fmax_c(max, v.abs());
    }
    if max < 1e-12 {
        return None;
    }
    let order = sorted_order(xb);
    let mut pick = SplitPick::new(max);
    Iq1sSplits::new(xb, weight, &order).search(&mut pick);
    let mut scale = pick.scale;
    let (i1, i2, k) = pick.at?;
    let mut minus = k == 1;
    let mut l = [0u8; BS];
    for (j, &i) in order.iter().enumerate() {
        l[usize::from(i)] = if j < i1 {
            0
        } else if j < i2 {
            1
        } else {
            2
        };
    }
    if scale < 0.0 {
        for v in &mut l {
            *v = 2 - *v;
        }
        scale = -scale;
        minus = !minus;
    }
    let xx = if minus { &X_M } else { &X_P };
    let mut index = [0u16; 4];
    let mut all_on_grid = true;
    for (k, idx) in index.iter_mut().enumerate() {
        let u = lat.code(&l[8 * k..8 * k + 8]);
        *idx = match lat.index(u) {
            Some(gi) => gi,
            None => {
                all_on_grid = false;
                let g = 8 * k..8 * k + 8;
                iq1_best_neighbour(lat, u, &xb[g.clone()], &weight[g], scale, xx)
            }
        };
    }
    if !all_on_grid {
        let mut sumqx = 0.0f32;
        let mut sumq2 = 0.0f32;
        for (k, &gi) in index.iter().enumerate() {
            let g = lat.levels(gi);
            for j in 0..8 {
                let w = weight[8 * k + j];
                let q = xx[usize::from(g[j].min(2))];
                sumqx += w * q * xb[8 * k + j];
                sumq2 += w * q * q;
            }
        }
        if sumqx > 0.0 && sumq2 > 0.0 {
            scale = sumqx / sumq2;
        }
    }
    Some((scale, minus, index))
}

pub(crate) fn quant_iq1_s_w(x: &[f32], qw: &[f32], out: &mut [u8]) {
    let lat = iq1s_lattice();
    for ((xbl, qwl), y) in x
        .chunks_exact(QK_K)
        .zip(qw.chunks_exact(QK_K))
        .zip(out.chunks_exact_mut(block::IQ1_S.bytes))
    {
        y.fill(0);
        let sigma2 = block_sigma2(xbl);
        let mut scales = [0f32; 8];
        let mut minus = [false; 8];
        let mut qh = [0u16; 8];
        let mut max_scale = 0.0f32;
        for ib in 0..8 {
            let xb = &xbl[32 * ib..32 * ib + 32];
            let weight = weights::<32>(xb, &qwl[32 * ib..], sigma2);
            let Some((scale, m, index)) = iq1s_group(lat, xb, &weight) else {
                continue;
            };
            let mut h = 0u16;
            for (k, &gi) in index.iter().enumerate() {
                y[2 + 4 * ib + k] = gi as u8;
                h |= (gi >> 8) << (3 * k);
            }
            // ggml stores qh here, before it knows whether the block is all zero.
            qh[ib] = h;
            y[34 + 2 * ib..36 + 2 * ib].copy_from_slice(&h.to_le_bytes());
            scales[ib] = scale;
            minus[ib] = m;
            max_scale = fmax_c(max_scale, scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let d = max_scale / 15.0;
        put_f16(y, 0, d * 1.125);
        let id = 1.0 / d;
        for ib in 0..8 {
            let mut l = nearest_int(0.5 * (id * scales[ib] - 1.0)).clamp(0, 7);
            if minus[ib] {
                l |= 8;
            }
            qh[ib] |= (l as u16) << 12;
        }
        for (o, h) in y[34..50].chunks_exact_mut(2).zip(&qh) {
            o.copy_from_slice(&h.to_le_bytes());
        }
    }
}
