//! The codebooks as lattices: each grid point's levels, the map from every point of the lattice
//! around the grid to its grid index, and the neighbour lists of the points off the grid, computed
//! on first use; the nearest-neighbour searches of ggml's `iq2_find_best_neighbour`,
//! `iq3_find_best_neighbour` and `iq1_find_best_neighbour2` over them.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use crate::quant::iq_grids::{
    IQ1S_GRID, IQ2S_GRID, IQ2XS_GRID, IQ2XXS_GRID, IQ3S_GRID, IQ3XXS_GRID,
};

/// A codebook of `N`-dimensional points with levels `0..2^bits`, as ggml's `iq2xs_init_impl` /
/// `iq3xs_init_impl` see it: level `l` stands for the value `2l + 1`.
pub(crate) struct Lattice<const N: usize> {
    /// Levels of each grid point, by grid index.
    pub(super) grid: Vec<[u8; N]>,
    pub(super) bits: u32,
    /// How many distinct smallest distances the neighbour lists cover.
    pub(super) nwant: usize,
    /// Grid index of each lattice code, or -1 when the code is not on the grid.
    pub(super) map: Vec<i32>,
    /// Neighbour lists of the off-grid codes, filled on first use.
    near: Vec<OnceLock<Neighbours>>,
}

/// The neighbour list of one off-grid code: grid indices in ggml's order, and their levels
/// transposed in runs of eight neighbours (`runs[8 * (N * r + i) + lane]` is level `i` of
/// neighbour `8 r + lane`; the last run is padded with the last neighbour; none for points of
/// other than eight levels), so that [`crate::quant::simd::nearest_neighbour`] computes eight distances
/// side by side.
pub(crate) struct Neighbours {
    pub(crate) index: Vec<u16>,
    // read by the AVX2 search only
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) runs: Vec<u8>,
}

/// Values of the levels of a lattice for the distance searches: `table[l]` for level `l`
/// (`2l + 1` for iq2/iq3, iq1's `xx[min(l, 2)]`), eight entries so any level of 3 bits has one.
pub(crate) type LevelTable = [f32; 8];

/// The levels `2l + 1` of iq2/iq3 as floats.
pub(super) const ODD_LEVELS: LevelTable = [1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0];

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

    pub(super) fn code_of(bits: u32, levels: &[u8; N]) -> usize {
        levels.iter().enumerate().fold(0usize, |u, (i, &l)| {
            u | (usize::from(l) << (bits as usize * i))
        })
    }

    /// The lattice code of `levels` (each below `2^bits`).
    #[inline]
    pub(in crate::quant) fn code(&self, levels: &[u8]) -> usize {
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
    pub(in crate::quant) fn index(&self, code: usize) -> Option<u16> {
        match self.map.get(code) {
            Some(&i) if i >= 0 => Some(i as u16),
            _ => None,
        }
    }

    #[inline]
    pub(in crate::quant) fn levels(&self, index: u16) -> [u8; N] {
        self.grid.get(usize::from(index)).copied().unwrap_or([0; N])
    }

    /// The grid points nearest to the lattice point `code`: every point whose squared distance is
    /// one of the `nwant` smallest distances, in increasing (distance, index) order, which is the
    /// order of ggml's qsort with `iq2_compare_func` / `iq3_compare_func`.
    #[inline]
    pub(super) fn neighbours(&self, code: usize) -> &Neighbours {
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
    /// [`crate::quant::simd::nearest_neighbour`] serves these points.
    #[inline]
    pub(super) fn nearest(
        &self,
        nb: &Neighbours,
        table: &LevelTable,
        x: &[f32],
        w: &[f32],
        scale: f32,
    ) -> Option<usize> {
        let mut best = None;
        if crate::quant::simd::nearest_neighbour::<N>(nb, table, x, w, scale, &mut best) {
            return best;
        }
        self.nearest_scalar(nb, table, x, w, scale)
    }

    /// [`Self::nearest`] in scalar code, neighbour after neighbour, as ggml scans them.
    #[inline]
    pub(super) fn nearest_scalar(
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

pub(super) fn iq3xxs_lattice() -> &'static Lattice<4> {
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

pub(super) fn iq3s_lattice() -> &'static Lattice<4> {
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

pub(super) fn iq2s_lattice() -> &'static Lattice<8> {
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
pub(in crate::quant) fn iq2xxs_lattice() -> &'static Lattice<8> {
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
pub(in crate::quant) fn iq2xs_lattice() -> &'static Lattice<8> {
    static L: OnceLock<Lattice<8>> = OnceLock::new();
    L.get_or_init(|| {
        let grid = IQ2XS_GRID
            .iter()
            .map(|&e| grid_levels(e, &[0x08, 0x19, 0x2b]))
            .collect();
        Lattice::new(grid, 2, 2)
    })
}

pub(in crate::quant) fn iq1s_lattice() -> &'static Lattice<8> {
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
#[inline]
pub(in crate::quant) fn best_neighbour<const N: usize>(
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

/// ggml's `iq1_find_best_neighbour2`: the neighbour minimising `sum w * (scale * xx[l] - x)^2`.
#[inline]
pub(in crate::quant) fn iq1_best_neighbour(
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
