//! The i-quants' quantizer searches: a lattice point's nearest neighbours, and iq1_m's and iq1_s's
//! split searches.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{load8, store8};

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn nearest_neighbour<const N: usize>(
    nb: &crate::quant::iq_quant::Neighbours,
    table: &crate::quant::iq_quant::LevelTable,
    x: &[f32],
    w: &[f32],
    scale: f32,
) -> Option<usize> {
    let (x, w) = (&x[..N], &w[..N]);
    let tab = load8(table);
    let vs = _mm256_set1_ps(scale);
    let xv: [__m256; N] = std::array::from_fn(|i| _mm256_set1_ps(x[i]));
    let wv: [__m256; N] = std::array::from_fn(|i| _mm256_set1_ps(w[i]));
    // per lane: the smallest distance so far (strictly smaller replaces) and its run
    let mut best_d2 = _mm256_set1_ps(f32::MAX);
    let mut best_run = _mm256_setzero_si256();
    for (r, run) in nb.runs.chunks_exact(8 * N).enumerate() {
        let mut d2 = _mm256_setzero_ps();
        for i in 0..N {
            let mut b = [0u8; 8];
            b.copy_from_slice(&run[8 * i..8 * i + 8]);
            let l = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(i64::from_le_bytes(b)));
            let q = _mm256_permutevar8x32_ps(tab, l);
            let diff = _mm256_sub_ps(_mm256_mul_ps(vs, q), xv[i]);
            d2 = _mm256_add_ps(d2, _mm256_mul_ps(_mm256_mul_ps(wv[i], diff), diff));
        }
        let lt = _mm256_cmp_ps::<_CMP_LT_OQ>(d2, best_d2);
        best_d2 = _mm256_blendv_ps(best_d2, d2, lt);
        best_run = _mm256_blendv_epi8(
            best_run,
            _mm256_set1_epi32(r as i32),
            _mm256_castps_si256(lt),
        );
    }
    let mut d2 = [0f32; 8];
    let mut run = [0i32; 8];
    store8(&mut d2, best_d2);
    // SAFETY: `run` is 8 i32 (32 bytes); unaligned store.
    unsafe { _mm256_storeu_si256(run.as_mut_ptr().cast(), best_run) };
    // the lanes' first minima; across lanes, the smallest distance, then the first position
    let mut best: Option<(f32, usize)> = None;
    for lane in 0..8 {
        // a lane still at f32::MAX never took a distance (those taken are below it, not NaN)
        if d2[lane] == f32::MAX {
            continue;
        }
        let at = 8 * run[lane] as usize + lane;
        let better = match best {
            None => true,
            Some((bd, bat)) => d2[lane] < bd || (d2[lane] == bd && at < bat),
        };
        if better {
            best = Some((d2[lane], at));
        }
    }
    // a padding lane repeats the last neighbour, which comes first on the tie
    best.map(|(_, at)| at.min(nb.index.len().saturating_sub(1)))
}

/// Offers the candidates of one vector of splits `(i1, base + lane, k)` to `pick` when some
/// valid lane (`lane < valid`) beats its current best: lane after lane, `k` after `k`.
#[inline]
#[target_feature(enable = "avx2")]
fn offer_lanes<const K: usize>(
    qx: &[__m256; K],
    q2: &[__m256; K],
    valid: usize,
    (i1, base): (usize, usize),
    pick: &mut crate::quant::iq_quant::SplitPick,
) {
    let best = _mm256_set1_ps(pick.score);
    let zero = _mm256_setzero_ps();
    let mut any = _mm256_setzero_ps();
    for k in 0..K {
        let pos = _mm256_cmp_ps::<_CMP_GT_OQ>(q2[k], zero);
        let gt =
            _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_mul_ps(qx[k], qx[k]), _mm256_mul_ps(best, q2[k]));
        any = _mm256_or_ps(any, _mm256_and_ps(pos, gt));
    }
    let mask = _mm256_movemask_ps(any) as u32 & ((1u32 << valid) - 1);
    if mask == 0 {
        return;
    }
    let mut x = [[0f32; 8]; K];
    let mut y = [[0f32; 8]; K];
    for k in 0..K {
        store8(&mut x[k], qx[k]);
        store8(&mut y[k], q2[k]);
    }
    for lane in mask.trailing_zeros() as usize..valid {
        for k in 0..K {
            pick.offer(x[k][lane], y[k][lane], (i1, base + lane, k));
        }
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn iq1m_splits(
    sp: &crate::quant::iq_quant::Iq1mSplits,
    pick: &mut crate::quant::iq_quant::SplitPick,
) {
    use crate::quant::iq_quant::{IQ1M_CM1, IQ1M_CM2, IQ1M_CP1, IQ1M_CP2, X_M, X_P};
    const BS: usize = 16;
    let (px, pw) = (&sp.px, &sp.pw);
    let txs = [px[0][BS], px[1][BS]];
    let tws = [pw[0][BS], pw[1][BS]];
    let (p2, m2) = (X_P[2], X_M[2]);
    let (cp2, cm2) = (_mm256_set1_ps(IQ1M_CP2), _mm256_set1_ps(IQ1M_CM2));
    for i1 in 0..=BS {
        // the scalar search's terms that do not depend on i2, rounded as it rounds them
        let a: [__m256; 2] = std::array::from_fn(|h| _mm256_set1_ps(px[h][i1]));
        let tp: [__m256; 2] = std::array::from_fn(|h| _mm256_set1_ps(txs[h] * p2));
        let tm: [__m256; 2] = std::array::from_fn(|h| _mm256_set1_ps(txs[h] * m2));
        let cp: [__m256; 2] =
            std::array::from_fn(|h| _mm256_set1_ps(tws[h] * p2 * p2 + pw[h][i1] * IQ1M_CP1));
        let cm: [__m256; 2] =
            std::array::from_fn(|h| _mm256_set1_ps(tws[h] * m2 * m2 + pw[h][i1] * IQ1M_CM1));
        for base in (i1..=BS).step_by(8) {
            let mut qx_p = [_mm256_setzero_ps(); 2];
            let mut qx_m = [_mm256_setzero_ps(); 2];
            let mut q2_p = [_mm256_setzero_ps(); 2];
            let mut q2_m = [_mm256_setzero_ps(); 2];
            for h in 0..2 {
                let sx = _mm256_add_ps(a[h], load8(&px[h][base..]));
                qx_p[h] = _mm256_sub_ps(tp[h], sx);
                qx_m[h] = _mm256_sub_ps(tm[h], sx);
                let w2 = load8(&pw[h][base..]);
                q2_p[h] = _mm256_add_ps(cp[h], _mm256_mul_ps(w2, cp2));
                q2_m[h] = _mm256_add_ps(cm[h], _mm256_mul_ps(w2, cm2));
            }
            let qx = [
                _mm256_add_ps(qx_p[0], qx_p[1]),
                _mm256_add_ps(qx_p[0], qx_m[1]),
                _mm256_add_ps(qx_m[0], qx_p[1]),
                _mm256_add_ps(qx_m[0], qx_m[1]),
            ];
            let q2 = [
                _mm256_add_ps(q2_p[0], q2_p[1]),
                _mm256_add_ps(q2_p[0], q2_m[1]),
                _mm256_add_ps(q2_m[0], q2_p[1]),
                _mm256_add_ps(q2_m[0], q2_m[1]),
            ];
            offer_lanes(&qx, &q2, (BS + 1 - base).min(8), (i1, base), pick);
        }
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn iq1s_splits(
    sp: &crate::quant::iq2_quant::Iq1sSplits,
    pick: &mut crate::quant::iq_quant::SplitPick,
) {
    use crate::quant::iq2_quant::IQ1S_VALUES;
    const BS: usize = 32;
    let (sumx, sumw) = (&sp.sumx, &sp.sumw);
    let v1: [__m256; 2] = std::array::from_fn(|k| _mm256_set1_ps(IQ1S_VALUES[k][1]));
    let v2: [__m256; 2] = std::array::from_fn(|k| _mm256_set1_ps(IQ1S_VALUES[k][2]));
    let (tx, tw) = (_mm256_set1_ps(sumx[BS]), _mm256_set1_ps(sumw[BS]));
    for i1 in 0..=BS {
        let (x1, w1) = (_mm256_set1_ps(sumx[i1]), _mm256_set1_ps(sumw[i1]));
        // the terms of i1 alone, rounded as the scalar search rounds them
        let ax: [__m256; 2] =
            std::array::from_fn(|k| _mm256_set1_ps((sumx[i1] - sumx[0]) * IQ1S_VALUES[k][0]));
        let aw: [__m256; 2] = std::array::from_fn(|k| {
            let v0 = IQ1S_VALUES[k][0];
            _mm256_set1_ps((sumw[i1] - sumw[0]) * v0 * v0)
        });
        for base in (i1..=BS).step_by(8) {
            let (x2, w2) = (load8(&sumx[base..]), load8(&sumw[base..]));
            let (dx1, dx2) = (_mm256_sub_ps(x2, x1), _mm256_sub_ps(tx, x2));
            let (dw1, dw2) = (_mm256_sub_ps(w2, w1), _mm256_sub_ps(tw, w2));
            let qx: [__m256; 2] = std::array::from_fn(|k| {
                let t = _mm256_add_ps(ax[k], _mm256_mul_ps(dx1, v1[k]));
                _mm256_add_ps(t, _mm256_mul_ps(dx2, v2[k]))
            });
            let q2: [__m256; 2] = std::array::from_fn(|k| {
                let t1 = _mm256_mul_ps(_mm256_mul_ps(dw1, v1[k]), v1[k]);
                let t2 = _mm256_mul_ps(_mm256_mul_ps(dw2, v2[k]), v2[k]);
                _mm256_add_ps(_mm256_add_ps(aw[k], t1), t2)
            });
            offer_lanes(&qx, &q2, (BS + 1 - base).min(8), (i1, base), pick);
        }
    }
}
