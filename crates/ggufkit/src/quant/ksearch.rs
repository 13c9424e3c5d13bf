//! The scale-and-min search of ggml's `make_qkx2_quants` and `make_qkx3_quants`, its candidates
//! evaluated side by side.
//!
//! ggml tries one candidate inverse scale after the other, and a candidate that wins moves the
//! group's min, which the later candidates then start from. Here the remaining candidates are
//! evaluated together (eight per SIMD vector when the CPU has AVX2) from the current min, then
//! compared in ggml's order; when a winner moves the min, the candidates after it are evaluated
//! from the new one. Winners are frequent, so a pass takes eight candidates, no more. Every lane
//! does the scalar code's operations in its order, so the result is ggml's to the bit.

#![forbid(unsafe_code)]

use super::nearest_int;

/// Most candidates one search evaluates: the first guess and up to 39 steps.
const MAX_CANDIDATES: usize = 40;

/// Candidates evaluated together before they are compared: one AVX2 vector.
pub(crate) const LANES_PER_PASS: usize = 8;

/// One group of an asymmetric search: the values (at most 32), their weights, the largest
/// level, `Σw` and `Σw·x` in element order, and whether errors are absolute (else squared).
pub(crate) struct QkxGroup<'a> {
    pub(crate) x: &'a [f32],
    pub(crate) w: &'a [f32],
    pub(crate) nmax: i32,
    pub(crate) sum_w: f32,
    pub(crate) sum_x: f32,
    pub(crate) mad: bool,
}

/// One pass of candidates evaluated side by side: lane `k` (of `len`, at most
/// [`LANES_PER_PASS`]) takes `iscale = num[k] / (max - min)` and gets its determinant `d`, its
/// least-squares `scale` and `min` (the min capped at zero, the scale then refitted, as ggml
/// does) and the weighted error `err` of its levels under them. With `initial`, lane 0 is ggml's
/// first guess instead: scale `1 / iscale`, min `min`.
pub(crate) struct QkxLanes {
    pub(crate) num: [f32; LANES_PER_PASS],
    pub(crate) len: usize,
    pub(crate) initial: bool,
    pub(crate) d: [f32; LANES_PER_PASS],
    pub(crate) scale: [f32; LANES_PER_PASS],
    pub(crate) min: [f32; LANES_PER_PASS],
    pub(crate) err: [f32; LANES_PER_PASS],
}

impl QkxLanes {
    pub(crate) fn new() -> Self {
        QkxLanes {
            num: [0.0; LANES_PER_PASS],
            len: 0,
            initial: false,
            d: [0.0; LANES_PER_PASS],
            scale: [0.0; LANES_PER_PASS],
            min: [0.0; LANES_PER_PASS],
            err: [0.0; LANES_PER_PASS],
        }
    }
}

/// What both searches compute first, in ggml's order: the smallest value (capped at zero), the
/// largest, `Σw` and `Σw·x`. Returns `(min, max, sum_w, sum_x)`.
#[inline(always)]
pub(crate) fn group_range(x: &[f32], w: &[f32]) -> (f32, f32, f32, f32) {
    let (mut min, mut max) = (x[0], x[0]);
    let mut sum_w = w[0];
    let mut sum_x = sum_w * x[0];
    for (&xi, &wi) in x.iter().zip(w).skip(1) {
        if xi < min {
            min = xi;
        }
        if xi > max {
            max = xi;
        }
        sum_w += wi;
        sum_x += wi * xi;
    }
    if min > 0.0 {
        min = 0.0;
    }
    (min, max, sum_w, sum_x)
}

/// The level of `iscale · (x - min)` (`xm`): ggml's `nearest_int`, clamped to `0..=nmax`.
#[inline(always)]
fn level(iscale: f32, xm: f32, nmax: i32) -> f32 {
    nearest_int(iscale * xm).clamp(0, nmax) as f32
}

/// [`QkxLanes`] lane by lane in scalar code: what [`super::simd::qkx_lanes`] does.
pub(crate) fn qkx_lanes_scalar(g: &QkxGroup, min: f32, max: f32, c: &mut QkxLanes) {
    let n = g.x.len().min(g.w.len()).min(32);
    let (x, w) = (&g.x[..n], &g.w[..n]);
    let mut l = [0f32; 32];
    for k in 0..c.len {
        let iscale = c.num[k] / (max - min);
        let (mut sl, mut sl2, mut sxl) = (0.0f32, 0.0f32, 0.0f32);
        for i in 0..n {
            let lv = level(iscale, x[i] - min, g.nmax);
            l[i] = lv;
            let wl = w[i] * lv;
            sl += wl;
            sl2 += wl * lv;
            sxl += wl * x[i];
        }
        let d = g.sum_w * sl2 - sl * sl;
        let mut scale = (g.sum_w * sxl - g.sum_x * sl) / d;
        let mut this_min = (sl2 * g.sum_x - sl * sxl) / d;
        if this_min > 0.0 {
            this_min = 0.0;
            scale = sxl / sl2;
        }
        if k == 0 && c.initial {
            scale = 1.0 / iscale;
            this_min = min;
        }
        let mut err = 0.0f32;
        for i in 0..n {
            let diff = scale * l[i] + this_min - x[i];
            let e = if g.mad { diff.abs() } else { diff * diff };
            err += w[i] * e;
        }
        c.d[k] = d;
        c.scale[k] = scale;
        c.min[k] = this_min;
        c.err[k] = err;
    }
}

/// The search of `make_qkx2_quants`/`make_qkx3_quants` after their first scan: the group's
/// `min` (already capped at zero) and `max` (`max > min`), candidates `rmin + rdelta·is + nmax`
/// for `is` in `0..=nstep` (`nstep` 0..=38). Writes the winner's levels to `l_out` and returns
/// `(scale, -min)`.
pub(crate) fn qkx_search(
    g: &QkxGroup,
    min: f32,
    max: f32,
    (rmin, rdelta, nstep): (f32, f32, i32),
    l_out: &mut [u8],
) -> (f32, f32) {
    let steps = usize::try_from(nstep + 1).unwrap_or(0);
    assert!(steps < MAX_CANDIDATES);
    let total = 1 + steps;
    let mut all = [0f32; MAX_CANDIDATES];
    all[0] = g.nmax as f32;
    for (is, o) in all[1..total].iter_mut().enumerate() {
        *o = rmin + rdelta * is as f32 + g.nmax as f32;
    }
    let mut c = QkxLanes::new();
    let mut min = min;
    let (mut best_error, mut scale) = (0.0f32, 0.0f32);
    // the winner: its numerator's index and the min its levels were found from
    let mut win = (0usize, min);
    let mut start = 0;
    while start < total {
        // one vector's worth at a time: a winner that moves the min makes the rest stale
        let len = (total - start).min(LANES_PER_PASS);
        c.num[..len].copy_from_slice(&all[start..start + len]);
        c.num[len..].fill(all[start + len - 1]);
        c.len = len;
        c.initial = start == 0;
        if !super::simd::qkx_lanes(g, min, max, &mut c) {
            qkx_lanes_scalar(g, min, max, &mut c);
        }
        let mut next = start + len;
        for k in 0..len {
            if start + k == 0 {
                best_error = c.err[0];
                scale = c.scale[0];
                continue;
            }
            if c.d[k] > 0.0 && c.err[k] < best_error {
                best_error = c.err[k];
                scale = c.scale[k];
                win = (start + k, min);
                if c.min[k].to_bits() != min.to_bits() {
                    min = c.min[k];
                    next = start + k + 1;
                    break;
                }
            }
        }
        start = next;
    }
    let (k, wmin) = win;
    let iscale = all[k] / (max - wmin);
    for (o, &xi) in l_out.iter_mut().zip(g.x) {
        *o = level(iscale, xi - wmin, g.nmax) as u8;
    }
    (scale, -min)
}
