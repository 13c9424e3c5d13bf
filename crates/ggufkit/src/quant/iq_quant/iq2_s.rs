//! iq2_s (`quantize_row_iq2_s_impl`).
#![forbid(unsafe_code)]

use super::lattice::iq2s_lattice;
use super::search::GridSearch;
use crate::quant::float::put_f16;
use crate::quant::layout::{block, QK_K};
use crate::quant::{fmax_c, nearest_int};

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
