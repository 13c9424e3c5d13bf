//! iq3_xxs and iq3_s (`quantize_row_iq3_xxs_impl`, `quantize_row_iq3_s_impl`).
#![forbid(unsafe_code)]

use super::lattice::{iq3s_lattice, iq3xxs_lattice, Lattice};
use super::search::{block_sigma2, group_weights, GridSearch};
use crate::quant::float::put_f16;
use crate::quant::layout::{block, QK_K};
use crate::quant::{fmax_c, nearest_int};

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

pub(crate) fn quant_iq3_xxs(src: &[f32], out: &mut [u8]) {
    quant_iq3_xxs_w(src, None, out);
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
