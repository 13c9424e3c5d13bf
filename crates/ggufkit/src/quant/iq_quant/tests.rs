//! The lattice quantizers' tests: the lattices against ggml's construction, the SIMD searches
//! against the scalar ones, the sort against glibc's, and hostile input.
#![forbid(unsafe_code)]

use super::iq1_m::*;
use super::iq2_s::*;
use super::iq3::*;
use super::lattice::*;
use super::splits::*;

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
    a.at == b.at && a.score.to_bits() == b.score.to_bits() && a.scale.to_bits() == b.scale.to_bits()
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
