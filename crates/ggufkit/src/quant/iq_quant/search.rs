//! What the lattice quantizers share: the scale search over candidate scales (`GridSearch`), its
//! weighted sums, a super-block's sigma2 and the groups' weights.
#![forbid(unsafe_code)]

use super::lattice::{best_neighbour, Lattice};
use crate::quant::layout::QK_K;
use crate::quant::nearest_int;

/// The scale search of iq3_xxs, iq3_s and iq2_s (ggml's loop over `is` and the refinement after
/// it): candidate scales around `max / (2 kmaxq - 1)`, each group of `N` levels rounded and moved
/// to the nearest grid point, the best weighted fit kept; then, when some group of the best fit
/// was off the grid, the groups are placed again with the final scale and the scale refitted.
pub(in crate::quant) struct GridSearch {
    pub(in crate::quant) kmaxq: i32,
    /// Distance between candidate scales, in units of `1 / max`.
    pub(in crate::quant) step: f32,
    /// Candidates from `-range` to `range` steps.
    pub(in crate::quant) range: i32,
    /// Whether the groups count as on the grid when no candidate fits (iq3_s: not).
    pub(in crate::quant) start_on_grid: bool,
    /// Whether the refinement places again the groups that were on the grid (iq3_s: all).
    pub(in crate::quant) refine_on_grid: bool,
}

impl GridSearch {
    /// The levels (`V` values, groups of `N`, at most 8 groups) and the scale.
    pub(in crate::quant) fn run<const N: usize, const V: usize>(
        &self,
        lat: &Lattice<N>,
        weight: &[f32; V],
        waux: &[f32; V],
        xval: &[f32; V],
        max: f32,
    ) -> ([u8; V], f32) {
        let groups = V / N;
        let kmaxq = self.kmaxq;
        let mut l = [0u8; V];
        let mut laux = [0u8; V];
        let mut best = 0.0f32;
        let mut scale = max / (2 * kmaxq - 1) as f32;
        let mut on_grid = [self.start_on_grid; 8];
        let mut on_grid_aux = [false; 8];
        for is in -self.range..=self.range {
            let id = ((2 * kmaxq - 1) as f32 + is as f32 * self.step) / max;
            let this_scale = 1.0 / id;
            for k in 0..groups {
                let group = N * k..N * k + N;
                for i in group.clone() {
                    let q = nearest_int(0.5 * (id * xval[i] - 1.0));
                    laux[i] = q.clamp(0, kmaxq - 1) as u8;
                }
                let u = lat.code(&laux[group.clone()]);
                on_grid_aux[k] = lat.index(u).is_some();
                if !on_grid_aux[k] {
                    let (x, w) = (&xval[N * k..], &waux[N * k..]);
                    best_neighbour(lat, u, x, w, this_scale, &mut laux[group]);
                }
            }
            let (sumqx, sumq2) = sums_odd(weight, xval, &laux);
            if sumq2 > 0.0 && sumqx * sumqx > best * sumq2 {
                scale = sumqx / sumq2;
                best = scale * sumqx;
                l = laux;
                on_grid = on_grid_aux;
            }
        }
        if on_grid[..groups].iter().any(|&g| !g) && scale > 0.0 {
            let id = 1.0 / scale;
            for k in 0..groups {
                if on_grid[k] && !self.refine_on_grid {
                    continue;
                }
                let group = N * k..N * k + N;
                let mut lv = [0u8; N];
                for (v, &x) in lv.iter_mut().zip(&xval[group.clone()]) {
                    *v = nearest_int(0.5 * (id * x - 1.0)).clamp(0, kmaxq - 1) as u8;
                }
                let u = lat.code(&lv);
                let gi = match lat.index(u) {
                    Some(gi) => gi,
                    None => {
                        let (x, w) = (&xval[N * k..], &waux[N * k..]);
                        best_neighbour(lat, u, x, w, scale, &mut l[group.clone()])
                    }
                };
                l[group].copy_from_slice(&lat.levels(gi));
            }
            let (sumqx, sumq2) = sums_odd(weight, xval, &l);
            if sumq2 > 0.0 {
                scale = sumqx / sumq2;
            }
        }
        (l, scale)
    }
}

/// `sum w*x*q` and `sum w*q*q` with `q = 2l + 1`, in ggml's order.
#[inline]
pub(in crate::quant) fn sums_odd(weight: &[f32], xval: &[f32], l: &[u8]) -> (f32, f32) {
    let mut sumqx = 0.0f32;
    let mut sumq2 = 0.0f32;
    for ((&w, &x), &li) in weight.iter().zip(xval).zip(l) {
        let q = f32::from(2 * li + 1);
        sumqx += w * x * q;
        sumq2 += w * q * q;
    }
    (sumqx, sumq2)
}

/// The sigma2 of a 256-element super-block of the lattice i-quants: `2 * sum(x^2) / 256`.
pub(in crate::quant) fn block_sigma2(xbl: &[f32]) -> f32 {
    let mut sumx2 = 0.0f32;
    for &v in xbl {
        sumx2 += v * v;
    }
    2.0 * sumx2 / QK_K as f32
}

/// The group weights of iq1_m (and iq1_s, iq2_s, iq3_*): `x^2` without importance, else
/// `qw * sqrt(sigma2 + x^2)`.
#[inline]
pub(in crate::quant) fn group_weights<const B: usize>(
    xb: &[f32],
    qw: Option<&[f32]>,
    sigma2: f32,
) -> [f32; B] {
    match qw {
        Some(qw) => std::array::from_fn(|i| qw[i] * (sigma2 + xb[i] * xb[i]).sqrt()),
        None => std::array::from_fn(|i| xb[i] * xb[i]),
    }
}
