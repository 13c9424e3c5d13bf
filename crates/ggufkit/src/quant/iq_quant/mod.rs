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
//!
//! The code, one idea a file: `lattice.rs` (the codebooks as lattices and their neighbour
//! searches), `search.rs` (the scale search the lattice quantizers share), `iq3.rs` (iq3_xxs,
//! iq3_s), `iq2_s.rs`, `iq1_m.rs`, and `splits.rs` (what iq1_m's and iq1_s's split searches
//! share: the sort and the running pick).
#![forbid(unsafe_code)]

mod iq1_m;
mod iq2_s;
mod iq3;
mod lattice;
mod search;
mod splits;
#[cfg(test)]
mod tests;

pub(super) use iq1_m::{quant_iq1_m, quant_iq1_m_w, Iq1mSplits};
// the AVX2 search's constants (and the tests'): unused where there is no such kernel
#[cfg(any(target_arch = "x86_64", test))]
pub(super) use iq1_m::{IQ1M_CM1, IQ1M_CM2, IQ1M_CP1, IQ1M_CP2, X_M, X_P};
pub(super) use iq2_s::{quant_iq2_s, quant_iq2_s_w};
pub(super) use iq3::{quant_iq3_s, quant_iq3_s_w, quant_iq3_xxs, quant_iq3_xxs_w};
pub(super) use lattice::{
    best_neighbour, iq1_best_neighbour, iq1s_lattice, iq2xs_lattice, iq2xxs_lattice, Lattice,
    LevelTable, Neighbours,
};
pub(super) use search::{block_sigma2, sums_odd, GridSearch};
pub(super) use splits::{sorted_order, SplitPick};
