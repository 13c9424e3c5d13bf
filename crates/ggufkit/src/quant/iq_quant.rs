//! Reference quantizers (no importance matrix) of the lattice i-quants iq3_xxs, iq3_s, iq2_s and
//! iq1_m, bit-identical to ggml's `quantize_iq3_xxs`, `quantize_iq3_s`, `quantize_iq2_s` and
//! `quantize_iq1_m` called with `imatrix = NULL` (their `quantize_row_*_ref` entry points give the
//! same bytes).
//!
//! Each format picks, for every group of 4 or 8 values, a point of a fixed codebook ("grid").
//! ggml derives from the codebook a map from every point of the surrounding integer lattice to its
//! grid index and, for lattice points that are not on the grid, the list of grid points at the
//! `nwant` smallest distances, ordered by (distance, index). [`Lattice`] is that structure: the
//! grid levels come from the value tables of `iq_grids`, the map is built once, and each
//! neighbour list is computed the first time it is needed (the lists only depend on the point, so
//! computing them on demand gives the same lists ggml builds up front).
//!
//! Floating point follows ggml's operation order exactly (products left to right, no fused
//! multiply-add, sums in index order); ggml's `qsort` in iq1_m is glibc 2.36's stable merge sort,
//! whose order is computed by ranks (and by the merge sort itself when NaN makes the comparator
//! inconsistent). Where ggml would abort (a `GGML_ASSERT` on non-finite input), these
//! functions fall back to a valid grid point instead and never panic.

#![forbid(unsafe_code)]

use std::sync::OnceLock;

use super::float::put_f16;
use super::iq_grids::{IQ1S_GRID, IQ2S_GRID, IQ2XS_GRID, IQ2XXS_GRID, IQ3S_GRID, IQ3XXS_GRID};
use super::layout::{block, QK_K};
use super::{fmax_c, nearest_int};

/// A codebook of `N`-dimensional points with levels `0..2^bits`, as ggml's `iq2xs_init_impl` /
/// `iq3xs_init_impl` see it: level `l` stands for the value `2l + 1`.
pub(crate) struct Lattice<const N: usize> {
    /// Levels of each grid point, by grid index.
    grid: Vec<[u8; N]>,
    bits: u32,
    /// How many distinct smallest distances the neighbour lists cover.
    nwant: usize,
    /// Grid index of each lattice code, or -1 when the code is not on the grid.
    map: Vec<i32>,
    /// Neighbour lists of the off-grid codes, filled on first use.
    near: Vec<OnceLock<Neighbours>>,
}

/// The neighbour list of one off-grid code: grid indices in ggml's order, and their levels
/// transposed in runs of eight neighbours (`runs[8 * (N * r + i) + lane]` is level `i` of
/// neighbour `8 r + lane`; the last run is padded with the last neighbour; none for points of
/// other than eight levels), so that [`super::simd::nearest_neighbour`] computes eight distances
/// side by side.
pub(crate) struct Neighbours {
    pub(crate) index: Vec<u16>,
    pub(crate) runs: Vec<u8>,
}

/// Values of the levels of a lattice for the distance searches: `table[l]` for level `l`
/// (`2l + 1` for iq2/iq3, iq1's `xx[min(l, 2)]`), eight entries so any level of 3 bits has one.
pub(crate) type LevelTable = [f32; 8];

/// The levels `2l + 1` of iq2/iq3 as floats.
const ODD_LEVELS: LevelTable = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0];

impl<const N: usize> Lattice<N> {
    fn new(grid: Vec<[u8; N]>, bits: u32, nwant: usize) -> Self {
        let size = 1usize << (bits as usize * N);
        let mut map = vec![-1i32; size];
        for (i, g) in grid.iter().enumerate() {
            let u = Self::code_of(bits, g);
            map[u] = i as i32;
        }
        let near = (0..size).map(|_| OnceLock::new()).collect();
        Lattice {
            grid,
            bits,
            nwant,
            map,
            near,
        }
    }

    fn code_of(bits: u32, levels: &[u8; N]) -> usize {
        levels.iter().enumerate().fold(0usize, |u, (i, &l)| {
            u | (usize::from(l) << (bits as usize * i))
        })
    }

    /// The lattice code of `levels` (each below `2^bits`).
    #[inline]
    pub(super) fn code(&self, levels: &[u8]) -> usize {
        let mask = (1u8 << self.bits) - 1;
        levels
            .iter()
            .take(N)
            .enumerate()
            .fold(0usize, |u, (i, &l)| {
                u | (usize::from(l & mask) << (self.bits as usize * i))
            })
    }

    /// Grid index of a code, if the code is a grid point.
    #[inline]
    pub(super) fn index(&self, code: usize) -> Option<u16> {
        match self.map.get(code) {
            Some(&i) if i >= 0 => Some(i as u16),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn levels(&self, index: u16) -> [u8; N] {
        self.grid.get(usize::from(index)).copied().unwrap_or([0; N])
    }

    /// The grid points nearest to the lattice point `code`: every point whose squared distance is
    /// one of the `nwant` smallest distances, in increasing (distance, index) order, which is the
    /// order of ggml's qsort with `iq2_compare_func` / `iq3_compare_func`.
    fn neighbours(&self, code: usize) -> &Neighbours {
        static EMPTY: Neighbours = Neighbours {
            index: Vec::new(),
            runs: Vec::new(),
        };
        let Some(slot) = self.near.get(code) else {
            return &EMPTY;
        };
        slot.get_or_init(|| {
            let mask = (1usize << self.bits) - 1;
            let p: [i32; N] =
                std::array::from_fn(|k| ((code >> (self.bits as usize * k)) & mask) as i32);
            let d2: Vec<i32> = self
                .grid
                .iter()
                .map(|g| {
                    g.iter()
                        .zip(&p)
                        .map(|(&a, &b)| {
                            let d = 2 * (i32::from(a) - b);
                            d * d
                        })
                        .sum()
                })
                .collect();
            // The nwant smallest distinct distances.
            let mut smallest: Vec<i32> = Vec::with_capacity(self.nwant + 1);
            for &d in &d2 {
                if smallest.contains(&d) {
                    continue;
                }
                if smallest.len() < self.nwant || smallest.last().is_some_and(|&m| d < m) {
                    let at = smallest.partition_point(|&m| m < d);
                    smallest.insert(at, d);
                    smallest.truncate(self.nwant);
                }
            }
            let limit = smallest.last().copied().unwrap_or(i32::MAX);
            let mut list: Vec<u16> = (0..d2.len())
                .filter(|&j| d2[j] <= limit)
                .map(|j| j as u16)
                .collect();
            list.sort_by_key(|&j| (d2[usize::from(j)], j));
            // the transposed runs serve the AVX2 search, which takes eight-level points only
            let nruns = if N == 8 { list.len().div_ceil(8) } else { 0 };
            let mut runs = vec![0u8; 8 * N * nruns];
            for r in 0..nruns {
                for lane in 0..8 {
                    let j = list[(8 * r + lane).min(list.len() - 1)];
                    let g = self.levels(j);
                    for i in 0..N {
                        runs[8 * (N * r + i) + lane] = g[i];
                    }
                }
            }
            Neighbours { index: list, runs }
        })
    }

    /// Position in `code`'s neighbour list of the one minimising
    /// `sum w * (scale * table[l] - x)^2` (summed in element order; the first on ties, never a
    /// NaN distance nor one of `f32::MAX` or more), with AVX2 where
    /// [`super::simd::nearest_neighbour`] serves these points.
    fn nearest(
        &self,
        nb: &Neighbours,
        table: &LevelTable,
        x: &[f32],
        w: &[f32],
        scale: f32,
    ) -> Option<usize> {
        let mut best = None;
        if super::simd::nearest_neighbour::<N>(nb, table, x, w, scale, &mut best) {
            return best;
        }
        self.nearest_scalar(nb, table, x, w, scale)
    }

    /// [`Self::nearest`] in scalar code, neighbour after neighbour, as ggml scans them.
    fn nearest_scalar(
        &self,
        nb: &Neighbours,
        table: &LevelTable,
        x: &[f32],
        w: &[f32],
        scale: f32,
    ) -> Option<usize> {
        let (x, w) = (&x[..N], &w[..N]);
        let mut best_d2 = f32::MAX;
        let mut best = None;
        for (at, &j) in nb.index.iter().enumerate() {
            let g = self.levels(j);
            let mut d2 = 0.0f32;
            for i in 0..N {
                let diff = scale * table[usize::from(g[i] & 7)] - x[i];
                d2 += w[i] * diff * diff;
            }
            if d2 < best_d2 {
                best_d2 = d2;
                best = Some(at);
            }
        }
        best
    }
}

/// Levels of a grid point stored as bytes, found by looking each byte up in `values`.
fn grid_levels<const N: usize>(entry: u64, values: &[u8]) -> [u8; N] {
    std::array::from_fn(|i| {
        let b = (entry >> (8 * i)) as u8;
        values.iter().position(|&v| v == b).unwrap_or(0) as u8
    })
}

fn iq3xxs_lattice() -> &'static Lattice<4> {
    static L: OnceLock<Lattice<4>> = OnceLock::new();
    L.get_or_init(|| {
        let values = [4u8, 12, 20, 28, 36, 44, 52, 62];
        let grid = IQ3XXS_GRID
            .iter()
            .map(|&e| grid_levels(u64::from(e), &values))
            .collect();
        Lattice::new(grid, 3, 2)
    })
}

fn iq3s_lattice() -> &'static Lattice<4> {
    static L: OnceLock<Lattice<4>> = OnceLock::new();
    L.get_or_init(|| {
        let values = [1u8, 3, 5, 7, 9, 11, 13, 15];
        let grid = IQ3S_GRID
            .iter()
            .map(|&e| grid_levels(u64::from(e), &values))
            .collect();
        Lattice::new(grid, 3, 3)
    })
}

fn iq2s_lattice() -> &'static Lattice<8> {
    static L: OnceLock<Lattice<8>> = OnceLock::new();
    L.get_or_init(|| {
        let grid = IQ2S_GRID
            .iter()
            .map(|&e| grid_levels(e, &[0x08, 0x19, 0x2b]))
            .collect();
        Lattice::new(grid, 2, 1)
    })
}

/// iq2_xxs's 256-point and iq2_xs's 512-point grids (levels 0..3 as bytes 0x08, 0x19, 0x2b),
/// with ggml's `nwant = 2`.
pub(super) fn iq2xxs_lattice() -> &'static Lattice<8> {
    static L: OnceLock<Lattice<8>> = OnceLock::new();
    L.get_or_init(|| {
        let grid = IQ2XXS_GRID
            .iter()
            .map(|&e| grid_levels(e, &[0x08, 0x19, 0x2b]))
            .collect();
        Lattice::new(grid, 2, 2)
    })
}

/// See [`iq2xxs_lattice`].
pub(super) fn iq2xs_lattice() -> &'static Lattice<8> {
    static L: OnceLock<Lattice<8>> = OnceLock::new();
    L.get_or_init(|| {
        let grid = IQ2XS_GRID
            .iter()
            .map(|&e| grid_levels(e, &[0x08, 0x19, 0x2b]))
            .collect();
        Lattice::new(grid, 2, 2)
    })
}

pub(super) fn iq1s_lattice() -> &'static Lattice<8> {
    static L: OnceLock<Lattice<8>> = OnceLock::new();
    L.get_or_init(|| {
        // Grid bytes are the signed values -1, 0, +1.
        let grid = IQ1S_GRID
            .iter()
            .map(|&e| grid_levels(e, &[0xff, 0x00, 0x01]))
            .collect();
        Lattice::new(grid, 2, 3)
    })
}

/// ggml's `iq2_find_best_neighbour` / `iq3_find_best_neighbour`: the neighbour minimising
/// `sum w * (scale * (2l + 1) - x)^2` (first one on ties); its levels go to `l_out`.
pub(super) fn best_neighbour<const N: usize>(
    lat: &Lattice<N>,
    code: usize,
    xval: &[f32],
    waux: &[f32],
    scale: f32,
    l_out: &mut [u8],
) -> u16 {
    let nb = lat.neighbours(code);
    let best = lat.nearest(nb, &ODD_LEVELS, xval, waux, scale);
    // ggml asserts here (only reachable with non-finite input): take the nearest point instead.
    let gi = nb.index.get(best.unwrap_or(0)).copied().unwrap_or(0);
    let g = lat.levels(gi);
    l_out[..N].copy_from_slice(&g);
    gi
}

// ---------------------------------------------------------------------------------------------
// iq3_xxs and iq3_s (`quantize_row_iq3_xxs_impl`, `quantize_row_iq3_s_impl`)

/// Result of the scale search of one 32-value group of iq3.
struct Iq3Group {
    scale: f32,
    indices: [u16; 8],
    signs: [u8; 4],
}

/// Searches the scale and grid points of one 32-value group. `xxs` selects iq3_xxs's variant
/// (even sign parity, 31 candidate scales, ...); `None` when the group is (nearly) zero.
fn iq3_group(lat: &Lattice<4>, xb: &[f32], xxs: bool, weight: &[f32; 32]) -> Option<Iq3Group> {
    const KMAXQ: i32 = 8;
    let mut waux = [0f32; 32];
    let mut xval = [0f32; 32];
    for i in 0..32 {
        waux[i] = weight[i].sqrt();
    }
    let mut signs = [0u8; 4];
    for k in 0..4 {
        let mut nflip = 0;
        let mut s = 0u8;
        for i in 0..8 {
            let x = xb[8 * k + i];
            if x >= 0.0 {
                xval[8 * k + i] = x;
            } else {
                xval[8 * k + i] = -x;
                nflip += 1;
                s |= 1 << i;
            }
        }
        if xxs && nflip % 2 == 1 {
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
        signs[k] = if xxs { s & 127 } else { s };
    }
    let mut max = xval[0];
    for &v in &xval[1..] {
        max = fmax_c(max, v);
    }
    let zero = if xxs { max < 1e-8 } else { max == 0.0 };
    if zero {
        return None;
    }
    let search = GridSearch {
        kmaxq: KMAXQ,
        step: 0.2,
        range: if xxs { 15 } else { 9 },
        start_on_grid: xxs,
        refine_on_grid: !xxs,
    };
    let (l, mut scale) = search.run(lat, weight, &waux, &xval, max);
    if scale < 0.0 {
        // ggml: "should never happen"; flip the scale and the signs.
        scale = -scale;
        for s in &mut signs {
            *s = if xxs { !*s & 127 } else { !*s };
        }
    }
    let mut indices = [0u16; 8];
    for (k, idx) in indices.iter_mut().enumerate() {
        // Always on the grid (ggml aborts otherwise).
        *idx = lat.index(lat.code(&l[4 * k..4 * k + 4])).unwrap_or(0);
    }
    Some(Iq3Group {
        scale,
        indices,
        signs,
    })
}

/// The scale search of iq3_xxs, iq3_s and iq2_s (ggml's loop over `is` and the refinement after
/// it): candidate scales around `max / (2 kmaxq - 1)`, each group of `N` levels rounded and moved
/// to the nearest grid point, the best weighted fit kept; then, when some group of the best fit
/// was off the grid, the groups are placed again with the final scale and the scale refitted.
pub(super) struct GridSearch {
    pub(super) kmaxq: i32,
    /// Distance between candidate scales, in units of `1 / max`.
    pub(super) step: f32,
    /// Candidates from `-range` to `range` steps.
    pub(super) range: i32,
    /// Whether the groups count as on the grid when no candidate fits (iq3_s: not).
    pub(super) start_on_grid: bool,
    /// Whether the refinement places again the groups that were on the grid (iq3_s: all).
    pub(super) refine_on_grid: bool,
}

impl GridSearch {
    /// The levels (`V` values, groups of `N`, at most 8 groups) and the scale.
    pub(super) fn run<const N: usize, const V: usize>(
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
pub(super) fn sums_odd(weight: &[f32], xval: &[f32], l: &[u8]) -> (f32, f32) {
    let mut sumqx = 0.0f32;
    let mut sumq2 = 0.0f32;
    for ((&w, &x), &li) in weight.iter().zip(xval).zip(l) {
        let q = f32::from(2 * li + 1);
        sumqx += w * x * q;
        sumq2 += w * q * q;
    }
    (sumqx, sumq2)
}

pub(crate) fn quant_iq3_xxs(src: &[f32], out: &mut [u8]) {
    quant_iq3_xxs_w(src, None, out);
}

/// The sigma2 of a 256-element super-block of the lattice i-quants: `2 * sum(x^2) / 256`.
pub(super) fn block_sigma2(xbl: &[f32]) -> f32 {
    let mut sumx2 = 0.0f32;
    for &v in xbl {
        sumx2 += v * v;
    }
    2.0 * sumx2 / QK_K as f32
}

/// iq3_xxs with optional importance `qw` aligned with `src`.
pub(crate) fn quant_iq3_xxs_w(src: &[f32], qw: Option<&[f32]>, out: &mut [u8]) {
    let lat = iq3xxs_lattice();
    for (ibl, (x, y)) in src
        .chunks_exact(block::IQ3_XXS.elems)
        .zip(out.chunks_exact_mut(block::IQ3_XXS.bytes))
        .enumerate()
    {
        y.fill(0);
        let qwl = qw.map(|q| &q[QK_K * ibl..QK_K * ibl + QK_K]);
        let sigma2 = block_sigma2(x);
        let mut scales = [0f32; 8];
        let mut max_scale = 0.0f32;
        let mut q3 = [0u8; 96];
        for ib in 0..8 {
            let xb = &x[32 * ib..32 * ib + 32];
            let weight = group_weights::<32>(xb, qwl.map(|q| &q[32 * ib..]), sigma2);
            let Some(g) = iq3_group(lat, xb, true, &weight) else {
                continue;
            };
            for (k, &gi) in g.indices.iter().enumerate() {
                q3[8 * ib + k] = gi as u8;
            }
            let ss = u32::from(g.signs[0])
                | (u32::from(g.signs[1]) << 7)
                | (u32::from(g.signs[2]) << 14)
                | (u32::from(g.signs[3]) << 21);
            q3[64 + 4 * ib..68 + 4 * ib].copy_from_slice(&ss.to_le_bytes());
            scales[ib] = g.scale;
            max_scale = fmax_c(max_scale, g.scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let d = max_scale / 31.0;
        put_f16(y, 0, d * 1.0125);
        let id = 1.0 / d;
        for (ib, &s) in scales.iter().enumerate() {
            let l = nearest_int(0.5 * (id * s - 1.0)).clamp(0, 15) as u8;
            q3[64 + 4 * ib + 3] |= l << 4;
        }
        y[2..block::IQ3_XXS.bytes].copy_from_slice(&q3);
    }
}

pub(crate) fn quant_iq3_s(src: &[f32], out: &mut [u8]) {
    quant_iq3_s_w(src, None, out);
}

/// iq3_s with optional importance `qw` aligned with `src`.
pub(crate) fn quant_iq3_s_w(src: &[f32], qw: Option<&[f32]>, out: &mut [u8]) {
    let lat = iq3s_lattice();
    for (ibl, (x, y)) in src
        .chunks_exact(block::IQ3_S.elems)
        .zip(out.chunks_exact_mut(block::IQ3_S.bytes))
        .enumerate()
    {
        y.fill(0);
        let qwl = qw.map(|q| &q[QK_K * ibl..QK_K * ibl + QK_K]);
        let sigma2 = block_sigma2(x);
        let mut scales = [0f32; 8];
        let mut max_scale = 0.0f32;
        for ib in 0..8 {
            let xb = &x[32 * ib..32 * ib + 32];
            let weight = group_weights::<32>(xb, qwl.map(|q| &q[32 * ib..]), sigma2);
            let Some(g) = iq3_group(lat, xb, false, &weight) else {
                continue;
            };
            for (k, &gi) in g.indices.iter().enumerate() {
                y[2 + 8 * ib + k] = gi as u8;
                y[66 + ib] |= ((gi >> 8) as u8 & 1) << k;
            }
            y[74 + 4 * ib..78 + 4 * ib].copy_from_slice(&g.signs);
            scales[ib] = g.scale;
            max_scale = fmax_c(max_scale, g.scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let d = max_scale / 31.0;
        put_f16(y, 0, d * 1.033);
        let id = 1.0 / d;
        for ib in (0..8).step_by(2) {
            let l1 = nearest_int(0.5 * (id * scales[ib] - 1.0)).clamp(0, 15) as u8;
            let l2 = nearest_int(0.5 * (id * scales[ib + 1] - 1.0)).clamp(0, 15) as u8;
            y[106 + ib / 2] = l1 | (l2 << 4);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// iq2_s (`quantize_row_iq2_s_impl`)

pub(crate) fn quant_iq2_s(src: &[f32], out: &mut [u8]) {
    quant_iq2_s_w(src, None, out);
}

/// iq2_s with optional importance `qw` aligned with `src`.
pub(crate) fn quant_iq2_s_w(src: &[f32], qw: Option<&[f32]>, out: &mut [u8]) {
    const KMAXQ: i32 = 3;
    let lat = iq2s_lattice();
    for (ibl, (xbl, y)) in src
        .chunks_exact(block::IQ2_S.elems)
        .zip(out.chunks_exact_mut(block::IQ2_S.bytes))
        .enumerate()
    {
        let qwl = qw.map(|q| &q[QK_K * ibl..QK_K * ibl + QK_K]);
        y.fill(0);
        let mut scales = [0f32; 16];
        let mut max_scale = 0.0f32;
        let mut sumx2 = 0.0f32;
        for &v in xbl {
            sumx2 += v * v;
        }
        let sigma2 = 2.0 * sumx2 / QK_K as f32;
        for ib in 0..16 {
            let xb = &xbl[16 * ib..16 * ib + 16];
            let mut weight = [0f32; 16];
            let mut waux = [0f32; 16];
            let mut xval = [0f32; 16];
            for i in 0..16 {
                weight[i] = match qwl {
                    Some(q) => q[16 * ib + i] * (sigma2 + xb[i] * xb[i]).sqrt(),
                    None => 0.25 * sigma2 + xb[i] * xb[i],
                };
                waux[i] = weight[i].sqrt();
            }
            let mut signs = [0u8; 2];
            for k in 0..2 {
                for i in 0..8 {
                    let v = xb[8 * k + i];
                    if v >= 0.0 {
                        xval[8 * k + i] = v;
                    } else {
                        xval[8 * k + i] = -v;
                        signs[k] |= 1 << i;
                    }
                }
            }
            let mut max = xval[0];
            for &v in &xval[1..] {
                max = fmax_c(max, v);
            }
            if max < 1e-8 {
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
                    *s = !*s;
                }
            }
            for k in 0..2 {
                let gi = lat.index(lat.code(&l[8 * k..8 * k + 8])).unwrap_or(0);
                let i8 = 2 * ib + k;
                y[2 + i8] = gi as u8;
                y[66 + i8 / 4] |= ((gi >> 8) as u8 & 3) << (2 * (i8 % 4));
                y[2 + 32 + i8] = signs[k];
            }
            scales[ib] = scale;
            max_scale = fmax_c(max_scale, scale);
        }
        if max_scale == 0.0 {
            continue;
        }
        let d = max_scale / 31.0;
        put_f16(y, 0, d * 0.9875);
        let id = 1.0 / d;
        for (ib, &s) in scales.iter().enumerate() {
            let l = nearest_int(0.5 * (id * s - 1.0)).clamp(0, 15) as u8;
            y[74 + ib / 2] |= l << (4 * (ib % 2));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// iq1_m (`quantize_row_iq1_m_impl`)

const IQ1M_DELTA: f32 = 0.125;
pub(super) const X_P: [f32; 3] = [-1.0 + IQ1M_DELTA, IQ1M_DELTA, 1.0 + IQ1M_DELTA];
pub(super) const X_M: [f32; 3] = [-1.0 - IQ1M_DELTA, -IQ1M_DELTA, 1.0 - IQ1M_DELTA];

/// glibc 2.36 `qsort` on small arrays: top-down merge sort (`msort_with_tmp`), taking the left
/// element while `cmp(left, right) <= 0`, with ggml's `iq1_sort_helper` comparator
/// (`l < r ? -1 : l > r ? 1 : 0`). Stable, and identical to glibc even with NaN keys.
pub(super) fn glibc_msort(v: &mut [(f32, u8)], tmp: &mut Vec<(f32, u8)>) {
    let n = v.len();
    if n <= 1 {
        return;
    }
    let n1 = n / 2;
    let (a, b) = v.split_at_mut(n1);
    glibc_msort(a, tmp);
    glibc_msort(b, tmp);
    tmp.clear();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        // cmp(a, b) <= 0 exactly when !(a > b).
        if a[i].0 > b[j].0 {
            tmp.push(b[j]);
            j += 1;
        } else {
            tmp.push(a[i]);
            i += 1;
        }
    }
    tmp.extend_from_slice(&a[i..]);
    // The rest of `b` is already in place.
    let done = tmp.len();
    v[..done].copy_from_slice(tmp);
}

/// ggml's `iq1_find_best_neighbour2`: the neighbour minimising `sum w * (scale * xx[l] - x)^2`.
pub(super) fn iq1_best_neighbour(
    lat: &Lattice<8>,
    code: usize,
    xb: &[f32],
    weight: &[f32],
    scale: f32,
    xx: &[f32; 3],
) -> u16 {
    let table: LevelTable = std::array::from_fn(|l| xx[l.min(2)]);
    let nb = lat.neighbours(code);
    if let Some(at) = lat.nearest(nb, &table, xb, weight, scale) {
        return nb.index.get(at).copied().unwrap_or(0);
    }
    // Only reached when every distance overflows (ggml then scans the whole grid, reading past
    // its input, and aborts in practice): scan the whole grid with the intended values.
    let mut best_score = f32::MAX;
    let mut best = None;
    for (i, g) in lat.grid.iter().enumerate() {
        let mut d2 = 0.0f32;
        for j in 0..8 {
            let diff = scale * table[usize::from(g[j] & 7)] - xb[j];
            d2 += weight[j] * diff * diff;
        }
        if d2 < best_score {
            best_score = d2;
            best = Some(i as u16);
        }
    }
    best.or_else(|| nb.index.first().copied()).unwrap_or(0)
}

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

/// ggml's running choice of the best split in its search order: a candidate with sums
/// `(sumqx, sumq2)` wins when `sumq2 > 0 && sumqx^2 > score * sumq2`; the winner's scale, score
/// and position `(i1, i2, k)`.
pub(crate) struct SplitPick {
    pub(crate) score: f32,
    pub(crate) scale: f32,
    pub(crate) at: Option<(usize, usize, usize)>,
}

impl SplitPick {
    pub(super) fn new(scale: f32) -> Self {
        SplitPick {
            score: -f32::MAX,
            scale,
            at: None,
        }
    }

    /// Offers the next candidate in ggml's order.
    #[inline(always)]
    pub(crate) fn offer(&mut self, sumqx: f32, sumq2: f32, at: (usize, usize, usize)) {
        if sumq2 > 0.0 && sumqx * sumqx > self.score * sumq2 {
            self.scale = sumqx / sumq2;
            self.score = self.scale * sumqx;
            self.at = Some(at);
        }
    }
}

/// The stable ascending order of `x` (indices), as glibc's merge sort with ggml's comparator
/// gives it: without NaN, each element's place is the number of smaller elements plus the equal
/// ones before it (any stable sort agrees there); with NaN, the merge sort itself.
pub(super) fn sorted_order<const N: usize>(x: &[f32; N]) -> [u8; N] {
    let mut order = [0u8; N];
    if x.iter().any(|v| v.is_nan()) {
        let mut pairs: [(f32, u8); N] = std::array::from_fn(|j| (x[j], j as u8));
        glibc_msort(&mut pairs, &mut Vec::with_capacity(N));
        for (o, p) in order.iter_mut().zip(&pairs) {
            *o = p.1;
        }
        return order;
    }
    for (i, &xi) in x.iter().enumerate() {
        let mut rank = 0usize;
        for (j, &xj) in x.iter().enumerate() {
            rank += usize::from(xj < xi) + usize::from(xj == xi && j < i);
        }
        order[rank % N] = i as u8;
    }
    order
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
    fn new(xb: &[f32; 16], weight: &[f32; 16], order: &[u8; 16]) -> Self {
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
    fn search(&self, pick: &mut SplitPick) {
        if !super::simd::iq1m_splits(self, pick) {
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

/// The group weights of iq1_m (and iq1_s, iq2_s, iq3_*): `x^2` without importance, else
/// `qw * sqrt(sigma2 + x^2)`.
#[inline]
pub(super) fn group_weights<const B: usize>(
    xb: &[f32],
    qw: Option<&[f32]>,
    sigma2: f32,
) -> [f32; B] {
    match qw {
        Some(qw) => std::array::from_fn(|i| qw[i] * (sigma2 + xb[i] * xb[i]).sqrt()),
        None => std::array::from_fn(|i| xb[i] * xb[i]),
    }
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
        let h = super::float::f32_to_f16(d * 1.1125);
        sc[0] |= (h & 0x000f) << 12;
        sc[1] |= (h & 0x00f0) << 8;
        sc[2] |= (h & 0x0f00) << 4;
        sc[3] |= h & 0xf000;
        for (k, &s) in sc.iter().enumerate() {
            scb[2 * k..2 * k + 2].copy_from_slice(&s.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ggml's way: every grid point's distance, sorted by (distance, index) with a full sort, cut
    /// after the `nwant`-th distinct distance.
    fn brute_neighbours<const N: usize>(lat: &Lattice<N>, code: usize) -> Vec<u16> {
        let mask = (1usize << lat.bits) - 1;
        let mut d: Vec<(i32, usize)> = lat
            .grid
            .iter()
            .enumerate()
            .map(|(j, g)| {
                let s = (0..N)
                    .map(|k| {
                        let pos = 2 * ((code >> (lat.bits as usize * k)) & mask) as i32 + 1;
                        let dd = 2 * i32::from(g[k]) + 1 - pos;
                        dd * dd
                    })
                    .sum();
                (s, j)
            })
            .collect();
        d.sort();
        let mut out = Vec::new();
        let mut cur = d[0].0;
        let mut nhave = 1;
        for &(dist, j) in &d {
            if dist > cur {
                if nhave == lat.nwant {
                    break;
                }
                cur = dist;
                nhave += 1;
            }
            out.push(j as u16);
        }
        out
    }

    fn check_lattice<const N: usize>(lat: &Lattice<N>, size: usize, stride: usize) {
        assert_eq!(lat.map.iter().filter(|&&i| i >= 0).count(), size);
        for (i, g) in lat.grid.iter().enumerate() {
            assert_eq!(lat.index(lat.code(g)), Some(i as u16));
        }
        let mut checked = 0;
        for code in (0..lat.map.len()).step_by(stride) {
            if lat.index(code).is_some() {
                continue;
            }
            assert_eq!(
                &lat.neighbours(code).index[..],
                &brute_neighbours(lat, code)[..]
            );
            checked += 1;
        }
        assert!(checked > 10);
    }

    #[test]
    fn lattices_match_ggml_construction() {
        check_lattice(iq3xxs_lattice(), 256, 7);
        check_lattice(iq3s_lattice(), 512, 7);
        check_lattice(iq2s_lattice(), 1024, 331);
        check_lattice(iq1s_lattice(), 2048, 677);
        check_lattice(iq2xxs_lattice(), 256, 331);
        check_lattice(iq2xs_lattice(), 512, 331);
        // ggml's kgrid tables start 0, 2, 4, 9 (iq3_xxs) and 0, 1, 2, 5 (iq3_s).
        let l = iq3xxs_lattice();
        let codes: Vec<usize> = (0..4)
            .map(|i| Lattice::<4>::code_of(3, &l.grid[i]))
            .collect();
        assert_eq!(codes, [0, 2, 4, 9]);
        let l = iq3s_lattice();
        let codes: Vec<usize> = (0..4)
            .map(|i| Lattice::<4>::code_of(3, &l.grid[i]))
            .collect();
        assert_eq!(codes, [0, 1, 2, 5]);
    }

    /// Groups of `N` values of one kind each (smooth, exact ties and both zeros, all zero, tiny,
    /// huge, mixed magnitudes), no NaN, and weights of one kind (varied, with zeros, all zero,
    /// tiny, huge).
    fn groups<const N: usize>(seed: u64, count: usize) -> Vec<([f32; N], [f32; N])> {
        let mut rng = crate::quant::tests::Rng::new(seed);
        let mut unit = move || (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        (0..count)
            .map(|g| {
                let kind = g % 7;
                let x: [f32; N] = std::array::from_fn(|i| {
                    let u = unit() - 0.5;
                    match kind {
                        0 => ((g * N + i) as f32 * 0.37).sin() + 0.3 * u,
                        1 => [0.0, -0.0, 0.5, -0.5, 1.0][(u * 10.0).abs() as usize % 5],
                        2 => 0.0,
                        3 => u * 1e-30,
                        4 => u * 3e18,
                        5 => u * 10f32.powi((i % 9) as i32 * 4 - 16),
                        _ => u,
                    }
                });
                let w: [f32; N] = std::array::from_fn(|i| {
                    let u = unit();
                    match g % 5 {
                        0 => u,
                        1 => {
                            if i % 3 == 0 {
                                0.0
                            } else {
                                u
                            }
                        }
                        2 => 0.0,
                        3 => u * 1e-35,
                        _ => u * 1e30,
                    }
                });
                (x, w)
            })
            .collect()
    }

    fn same_pick(a: &SplitPick, b: &SplitPick) -> bool {
        a.at == b.at
            && a.score.to_bits() == b.score.to_bits()
            && a.scale.to_bits() == b.scale.to_bits()
    }

    #[test]
    fn split_searches_simd_match_scalar() {
        use crate::quant::iq2_quant::Iq1sSplits;
        for (x, w) in groups::<16>(3, 700) {
            let sp = Iq1mSplits::new(&x, &w, &sorted_order(&x));
            let (mut a, mut b) = (SplitPick::new(1.0), SplitPick::new(1.0));
            sp.search(&mut a);
            sp.search_scalar(&mut b);
            assert!(same_pick(&a, &b), "iq1_m {x:?} {w:?}");
        }
        for (x, w) in groups::<32>(4, 700) {
            let sp = Iq1sSplits::new(&x, &w, &sorted_order(&x));
            let (mut a, mut b) = (SplitPick::new(1.0), SplitPick::new(1.0));
            sp.search(&mut a);
            sp.search_scalar(&mut b);
            assert!(same_pick(&a, &b), "iq1_s {x:?} {w:?}");
        }
    }

    /// The neighbour search (AVX2 when the CPU has it) against the scalar scan, on off-grid codes
    /// of every lattice shape, with iq2/iq3's odd levels and iq1's value tables.
    fn check_nearest<const N: usize>(lat: &Lattice<N>, seed: u64) {
        let mut rng = crate::quant::tests::Rng::new(seed);
        let iq1: LevelTable = std::array::from_fn(|l| X_M[l.min(2)]);
        for (g, (x, w)) in groups::<N>(seed, 600).into_iter().enumerate() {
            let code = loop {
                let c = (rng.next_u64() % lat.map.len() as u64) as usize;
                if lat.index(c).is_none() {
                    break c;
                }
            };
            let nb = lat.neighbours(code);
            let scale = [0.0, 1e-3, 0.37, 2.5, 1e20][g % 5];
            for table in [&ODD_LEVELS, &iq1] {
                assert_eq!(
                    lat.nearest(nb, table, &x, &w, scale),
                    lat.nearest_scalar(nb, table, &x, &w, scale),
                    "code {code} {x:?} {w:?} {scale}"
                );
            }
        }
    }

    #[test]
    fn nearest_neighbour_simd_matches_scalar() {
        check_nearest(iq1s_lattice(), 5);
        check_nearest(iq2xxs_lattice(), 6);
    }

    #[test]
    fn sorted_order_matches_msort() {
        for (x, _) in groups::<32>(9, 300) {
            let mut pairs: [(f32, u8); 32] = std::array::from_fn(|j| (x[j], j as u8));
            glibc_msort(&mut pairs, &mut Vec::new());
            let want: Vec<u8> = pairs.iter().map(|p| p.1).collect();
            assert_eq!(sorted_order(&x).to_vec(), want, "{x:?}");
        }
    }

    #[test]
    fn msort_is_stable_and_sorted() {
        let keys = [
            3.0, 1.0, 2.0, 1.0, 3.0, 0.0, 2.0, 1.0, -0.0, 0.0, 5.0, -2.5, 1.0,
        ];
        let mut v: Vec<(f32, u8)> = keys
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, i as u8))
            .collect();
        glibc_msort(&mut v, &mut Vec::new());
        let order: Vec<u8> = v.iter().map(|p| p.1).collect();
        // Equal keys (+0 and -0 included) keep their input order.
        assert_eq!(order, [11, 5, 8, 9, 1, 3, 7, 12, 2, 6, 0, 4, 10]);
    }

    #[test]
    fn non_finite_input_does_not_panic() {
        let mut x = vec![0.5f32; 256];
        x[3] = f32::NAN;
        x[40] = f32::INFINITY;
        x[77] = f32::NEG_INFINITY;
        x[200] = 1e38;
        x[201] = -3e-45;
        for (f, bytes) in [
            (quant_iq3_xxs as fn(&[f32], &mut [u8]), 98),
            (quant_iq3_s, 110),
            (quant_iq2_s, 82),
            (quant_iq1_m, 56),
        ] {
            let mut out = vec![0xAAu8; bytes];
            f(&x, &mut out);
            let mut zero = vec![0xAAu8; bytes];
            f(&[0.0; 256], &mut zero);
            assert!(zero.iter().all(|&b| b == 0), "zero block must be all zero");
        }
    }
}
