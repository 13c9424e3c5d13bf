//! iq1_m (`quantize_row_iq1_m_impl`): each 16-value group split in three by its sorted values, the
//! split and its shift searched in ggml's order (with AVX2 where `simd` serves it).
#![forbid(unsafe_code)]

use super::lattice::{iq1_best_neighbour, iq1s_lattice, Lattice};
use super::search::group_weights;
use super::splits::{sorted_order, SplitPick};
use crate::quant::layout::{block, QK_K};
use crate::quant::{fmax_c, nearest_int};

const IQ1M_DELTA: f32 = 0.125;
pub(in crate::quant) const X_P: [f32; 3] = [-1.0 + IQ1M_DELTA, IQ1M_DELTA, 1.0 + IQ1M_DELTA];
pub(in crate::quant) const X_M: [f32; 3] = [-1.0 - IQ1M_DELTA, -IQ1M_DELTA, 1.0 - IQ1M_DELTA];

/// The value table of a 8-value half of an iq1_m group for shift `k` (ggml's `xx`).
#[inline]
fn iq1m_values(shift: u8, half: usize) -> &'static [f32; 3] {
    let plus = if half == 0 { shift < 2 } else { shift % 2 == 0 };
    if plus {
        &X_P
    } else {
        &X_M
    }
}

/// `x_p[0]^2 - x_p[1]^2` and the like: iq1_m's per-half sums of squares of a split are
/// `W v2^2 + W[i1] c1 + W[i2] c2` (see [`Iq1mSplits`]).
pub(crate) const IQ1M_CP1: f32 = X_P[0] * X_P[0] - X_P[1] * X_P[1];
pub(crate) const IQ1M_CP2: f32 = X_P[1] * X_P[1] - X_P[2] * X_P[2];
pub(crate) const IQ1M_CM1: f32 = X_M[0] * X_M[0] - X_M[1] * X_M[1];
pub(crate) const IQ1M_CM2: f32 = X_M[1] * X_M[1] - X_M[2] * X_M[2];

/// The prefix sums of one sorted 16-value iq1_m group, per half: of `w x` (`px`) and of `w`
/// (`pw`), `px[h][j]` over the `j` smallest values; zero beyond 16 so vectors of eight load
/// whole.
pub(crate) struct Iq1mSplits {
    pub(crate) px: [[f32; 24]; 2],
    pub(crate) pw: [[f32; 24]; 2],
}

impl Iq1mSplits {
    /// The sums of the group `xb` with weights `weight`, sorted in `order`.
    pub(super) fn new(xb: &[f32; 16], weight: &[f32; 16], order: &[u8; 16]) -> Self {
        let mut sp = Iq1mSplits {
            px: [[0f32; 24]; 2],
            pw: [[0f32; 24]; 2],
        };
        for (j, &i) in order.iter().enumerate() {
            let i = usize::from(i) % 16;
            let h = usize::from(i >= 8);
            sp.px[h][j + 1] = sp.px[h][j] + weight[i] * xb[i];
            sp.px[1 - h][j + 1] = sp.px[1 - h][j];
            sp.pw[h][j + 1] = sp.pw[h][j] + weight[i];
            sp.pw[1 - h][j + 1] = sp.pw[1 - h][j];
        }
        sp
    }

    /// ggml's search over the splits `i1 <= i2` and the four shifts `k`, in its order, with the
    /// per-half prefix sums (the form of `quantize_row_iq1_m_impl` in the sdist's llama.cpp): since
    /// the three values of `x_p` and `x_m` are one apart, the weighted sums of a split `(i1, i2)`
    /// are `T * v2 - P[i1] - P[i2]` and `W * v2^2 + W[i1] c1 + W[i2] c2`. These round
    /// differently from summing every element, and on inputs with exact ties (f16-rounded
    /// values) the two forms pick different splits, so the same form is kept here.
    pub(super) fn search(&self, pick: &mut SplitPick) {
        if !crate::quant::simd::iq1m_splits(self, pick) {
            self.search_scalar(pick);
        }
    }

    /// [`Self::search`] candidate after candidate.
    pub(crate) fn search_scalar(&self, pick: &mut SplitPick) {
        const BS: usize = 16;
        let (px, pw) = (&self.px, &self.pw);
        let txs = [px[0][BS], px[1][BS]];
        let tws = [pw[0][BS], pw[1][BS]];
        let (p2, m2) = (X_P[2], X_M[2]);
        for i1 in 0..=BS {
            for i2 in i1..=BS {
                let mut qx_p = [0f32; 2];
                let mut qx_m = [0f32; 2];
                let mut q2_p = [0f32; 2];
                let mut q2_m = [0f32; 2];
                for h in 0..2 {
                    let sx = px[h][i1] + px[h][i2];
                    qx_p[h] = txs[h] * p2 - sx;
                    qx_m[h] = txs[h] * m2 - sx;
                    q2_p[h] = tws[h] * p2 * p2 + pw[h][i1] * IQ1M_CP1 + pw[h][i2] * IQ1M_CP2;
                    q2_m[h] = tws[h] * m2 * m2 + pw[h][i1] * IQ1M_CM1 + pw[h][i2] * IQ1M_CM2;
                }
                // Shift k: the first half uses x_p for k < 2, the second half for even k.
                let sumqx = [
                    qx_p[0] + qx_p[1],
                    qx_p[0] + qx_m[1],
                    qx_m[0] + qx_p[1],
                    qx_m[0] + qx_m[1],
                ];
                let sumq2 = [
                    q2_p[0] + q2_p[1],
                    q2_p[0] + q2_m[1],
                    q2_m[0] + q2_p[1],
                    q2_m[0] + q2_m[1],
                ];
                for k in 0..4 {
                    pick.offer(sumqx[k], sumq2[k], (i1, i2, k));
                }
            }
        }
    }
}

/// Scale search of one 16-value group with weights `weight`: `(scale, shift, [index0, index1])`,
/// or `None` for a zero group.
fn iq1m_group(lat: &Lattice<8>, xb: &[f32], weight: &[f32; 16]) -> Option<(f32, u8, [u16; 2])> {
    const BS: usize = 16;
    let xb: &[f32; BS] = xb.try_into().ok()?;
    let mut max = xb[0].abs();
    for &v in &xb[1..] {
        max = fmax_c(max, v.abs());
    }
    if max < 1e-7 {
        return None;
    }
    let order = sorted_order(xb);
    let mut pick = SplitPick::new(max);
    Iq1mSplits::new(xb, weight, &order).search(&mut pick);
    let mut scale = pick.scale;
    let (i1, i2, mut best_k) = pick.at?;
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
        best_k = 3 - best_k;
    }
    let shift = best_k as u8;
    let mut index = [0u16; 2];
    let mut all_on_grid = true;
    for (k, idx) in index.iter_mut().enumerate() {
        let u = lat.code(&l[8 * k..8 * k + 8]);
        *idx = match lat.index(u) {
            Some(gi) => gi,
            None => {
                all_on_grid = false;
                iq1_best_neighbour(
                    lat,
                    u,
                    &xb[8 * k..8 * k + 8],
                    &weight[8 * k..8 * k + 8],
                    scale,
                    iq1m_values(shift, k),
                )
            }
        };
    }
    if !all_on_grid {
        let mut sumqx = 0.0f32;
        let mut sumq2 = 0.0f32;
        for (k, &gi) in index.iter().enumerate() {
            let xx = iq1m_values(shift, k);
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
    Some((scale, shift, index))
}

pub(crate) fn quant_iq1_m(src: &[f32], out: &mut [u8]) {
    quant_iq1_m_w(src, None, out);
}

/// iq1_m with optional importance `qw` (one weight per element of `src`, so `src` is one row or
/// whole rows with `qw` repeated).
pub(crate) fn quant_iq1_m_w(src: &[f32], qw: Option<&[f32]>, out: &mut [u8]) {
    const BS: usize = 16;
    const MASKS: [u8; 4] = [0x00, 0x80, 0x08, 0x88];
    let lat = iq1s_lattice();
    for (ibl, (xbl, y)) in src
        .chunks_exact(block::IQ1_M.elems)
        .zip(out.chunks_exact_mut(block::IQ1_M.bytes))
        .enumerate()
    {
        y.fill(0);
        let qwl = qw.map(|q| &q[QK_K * ibl..QK_K * ibl + QK_K]);
        let mut sumx2 = 0.0f32;
        for &v in xbl {
            sumx2 += v * v;
        }
        let sigma2 = 2.0 * sumx2 / QK_K as f32;
        let (qs, rest) = y.split_at_mut(32);
        let (qh, scb) = rest.split_at_mut(16);
        let mut scales = [0f32; QK_K / BS];
        let mut shifts = [0u8; QK_K / BS];
        let mut max_scale = 0.0f32;
        for ib in 0..QK_K / BS {
            let xb = &xbl[BS * ib..BS * ib + BS];
            let weight = group_weights::<BS>(xb, qwl.map(|q| &q[BS * ib..]), sigma2);
            let Some((scale, shift, index)) = iq1m_group(lat, xb, &weight) else {
                continue;
            };
            qs[2 * ib] = index[0] as u8;
            qs[2 * ib + 1] = index[1] as u8;
            qh[ib] = (index[0] >> 8) as u8 | (((index[1] >> 8) as u8) << 4);
            scales[ib] = scale;
            shifts[ib] = shift;
            max_scale = fmax_c(max_scale, scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let mut sc = [0u16; 4];
        let mut d = max_scale / 15.0;
        let id = 1.0 / d;
        let mut sumqx = 0.0f32;
        let mut sumq2 = 0.0f32;
        for ib in 0..QK_K / BS {
            let l = nearest_int(0.5 * (id * scales[ib] - 1.0)).clamp(0, 7);
            sc[ib / 4] |= (l as u16) << (3 * (ib % 4));
            qh[ib] |= MASKS[usize::from(shifts[ib] & 3)];
            let xb = &xbl[BS * ib..BS * ib + BS];
            let weight = group_weights::<BS>(xb, qwl.map(|q| &q[BS * ib..]), sigma2);
            let mult = (2 * l + 1) as f32;
            for k in 0..2 {
                let xx = iq1m_values(shifts[ib], k);
                let gi =
                    usize::from(qs[2 * ib + k]) + ((usize::from(qh[ib]) << (8 - 4 * k)) & 0x700);
                let g = lat.levels(gi as u16);
                for j in 0..8 {
                    let x = xb[8 * k + j];
                    let w = weight[8 * k + j];
                    let q = xx[usize::from(g[j].min(2))] * mult;
                    sumqx += w * q * x;
                    sumq2 += w * q * q;
                }
            }
        }
        if sumq2 > 0.0 {
            d = sumqx / sumq2;
        }
        let h = crate::quant::float::f32_to_f16(d * 1.1125);
        sc[0] |= (h & 0x000f) << 12;
        sc[1] |= (h & 0x00f0) << 8;
        sc[2] |= (h & 0x0f00) << 4;
        sc[3] |= h & 0xf000;
        for (k, &s) in sc.iter().enumerate() {
            scb[2 * k..2 * k + 2].copy_from_slice(&s.to_le_bytes());
        }
    }
}
