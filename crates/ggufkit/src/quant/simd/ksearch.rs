//! The K-quants' quantizer searches: `make_qx_quants`' candidate sums, the `make_qkx2_quants` and
//! `make_qkx3_quants` candidates, `make_q3_quants` on sixteen groups at once, and the
//! requantization of q3_k and q6_k.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

use super::lanes::{load8, store8};

/// ggml's `nearest_int` on eight lanes: `v + 1.5·2^23`, its low 23 bits minus `2^22`.
#[inline]
#[target_feature(enable = "avx2")]
fn nearest_int8(v: __m256) -> __m256i {
    let t = _mm256_castps_si256(_mm256_add_ps(v, _mm256_set1_ps(12_582_912.0)));
    _mm256_sub_epi32(
        _mm256_and_si256(t, _mm256_set1_epi32(0x007f_ffff)),
        _mm256_set1_epi32(0x0040_0000),
    )
}

/// `v` clamped to `lo..=hi`, lane by lane.
#[inline]
#[target_feature(enable = "avx2")]
fn clamp8(lo: __m256i, hi: __m256i, v: __m256i) -> __m256i {
    _mm256_min_epi32(_mm256_max_epi32(v, lo), hi)
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn qx_sums(
    nmax: i32,
    x: &[f32],
    w: &[f32],
    num: &[f32; 24],
    max: f32,
    sumlx: &mut [f32; 24],
    suml2: &mut [f32; 24],
) {
    let n = x.len().min(w.len());
    let (x, w) = (&x[..n], &w[..n]);
    let (lo, hi) = (_mm256_set1_epi32(-nmax), _mm256_set1_epi32(nmax - 1));
    let vmax = _mm256_set1_ps(max);
    for v in 0..3 {
        let iscale = _mm256_div_ps(load8(&num[8 * v..]), vmax);
        let (mut slx, mut sl2) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        for (&xi, &wi) in x.iter().zip(w) {
            let (xv, wv) = (_mm256_set1_ps(xi), _mm256_set1_ps(wi));
            let l = nearest_int8(_mm256_mul_ps(iscale, xv));
            let l = _mm256_cvtepi32_ps(_mm256_min_epi32(_mm256_max_epi32(l, lo), hi));
            slx = _mm256_add_ps(slx, _mm256_mul_ps(_mm256_mul_ps(wv, xv), l));
            sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(wv, l), l));
        }
        store8(&mut sumlx[8 * v..], slx);
        store8(&mut suml2[8 * v..], sl2);
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn qkx_lanes(
    g: &crate::quant::ksearch::QkxGroup,
    min: f32,
    max: f32,
    c: &mut crate::quant::ksearch::QkxLanes,
) {
    match (g.x.len().min(g.w.len()), g.mad) {
        (16, true) => qkx_pass::<16, true>(g, min, max, c),
        (16, false) => qkx_pass::<16, false>(g, min, max, c),
        (32, true) => qkx_pass::<32, true>(g, min, max, c),
        (32, false) => qkx_pass::<32, false>(g, min, max, c),
        _ => crate::quant::ksearch::qkx_lanes_scalar(g, min, max, c),
    }
}

/// One pass of eight candidates over a group of `N` (so its loops unroll), absolute errors
/// when `MAD`, else squared.
#[inline]
#[target_feature(enable = "avx2")]
fn qkx_pass<const N: usize, const MAD: bool>(
    g: &crate::quant::ksearch::QkxGroup,
    min: f32,
    max: f32,
    c: &mut crate::quant::ksearch::QkxLanes,
) {
    let (x, w) = (&g.x[..N], &g.w[..N]);
    let vmin = _mm256_set1_ps(min);
    let (zero, nmax) = (_mm256_setzero_si256(), _mm256_set1_epi32(g.nmax));
    let (sw, sx) = (_mm256_set1_ps(g.sum_w), _mm256_set1_ps(g.sum_x));
    let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
    let iscale = _mm256_div_ps(load8(&c.num), _mm256_set1_ps(max - min));
    let mut lv = [_mm256_setzero_ps(); N];
    let (mut sl, mut sl2, mut sxl) = (
        _mm256_setzero_ps(),
        _mm256_setzero_ps(),
        _mm256_setzero_ps(),
    );
    for i in 0..N {
        let xv = _mm256_set1_ps(x[i]);
        let l = nearest_int8(_mm256_mul_ps(iscale, _mm256_sub_ps(xv, vmin)));
        let l = _mm256_cvtepi32_ps(_mm256_min_epi32(_mm256_max_epi32(l, zero), nmax));
        lv[i] = l;
        let wl = _mm256_mul_ps(_mm256_set1_ps(w[i]), l);
        sl = _mm256_add_ps(sl, wl);
        sl2 = _mm256_add_ps(sl2, _mm256_mul_ps(wl, l));
        sxl = _mm256_add_ps(sxl, _mm256_mul_ps(wl, xv));
    }
    let d = _mm256_sub_ps(_mm256_mul_ps(sw, sl2), _mm256_mul_ps(sl, sl));
    let scale = _mm256_div_ps(
        _mm256_sub_ps(_mm256_mul_ps(sw, sxl), _mm256_mul_ps(sx, sl)),
        d,
    );
    let this_min = _mm256_div_ps(
        _mm256_sub_ps(_mm256_mul_ps(sl2, sx), _mm256_mul_ps(sl, sxl)),
        d,
    );
    let pos = _mm256_cmp_ps::<_CMP_GT_OQ>(this_min, _mm256_setzero_ps());
    let mut this_min = _mm256_blendv_ps(this_min, _mm256_setzero_ps(), pos);
    let mut scale = _mm256_blendv_ps(scale, _mm256_div_ps(sxl, sl2), pos);
    if c.initial {
        scale = _mm256_blend_ps::<1>(scale, _mm256_div_ps(_mm256_set1_ps(1.0), iscale));
        this_min = _mm256_blend_ps::<1>(this_min, vmin);
    }
    let mut err = _mm256_setzero_ps();
    for i in 0..N {
        let diff = _mm256_add_ps(_mm256_mul_ps(scale, lv[i]), this_min);
        let diff = _mm256_sub_ps(diff, _mm256_set1_ps(x[i]));
        let e = if MAD {
            _mm256_and_ps(diff, abs_mask)
        } else {
            _mm256_mul_ps(diff, diff)
        };
        err = _mm256_add_ps(err, _mm256_mul_ps(_mm256_set1_ps(w[i]), e));
    }
    store8(&mut c.d, d);
    store8(&mut c.scale, scale);
    store8(&mut c.min, this_min);
    store8(&mut c.err, err);
}

/// Element `i` of eight consecutive 16-element groups of `x`, one group per lane.
#[inline]
#[target_feature(enable = "avx2")]
fn group_lanes(x: &[f32], i: usize) -> __m256 {
    let x = &x[..128];
    assert!(i < 16);
    let idx = _mm256_setr_epi32(0, 16, 32, 48, 64, 80, 96, 112);
    // SAFETY: the lanes read x[i + 16 k] for k < 8, all below 128 (`x` is 128 floats).
    unsafe { _mm256_i32gather_ps::<4>(x[i..].as_ptr(), idx) }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn q3_groups(nmax: i32, x: &[f32], l: &mut [i8], scales: &mut [f32; 16]) {
    let (x, l) = (&x[..256], &mut l[..256]);
    let (lo, hi) = (_mm256_set1_epi32(-nmax), _mm256_set1_epi32(nmax - 1));
    let zero = _mm256_setzero_ps();
    let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fff_ffff));
    for half in 0..2 {
        let xs = &x[128 * half..128 * half + 128];
        let mut xv = [zero; 16];
        for (i, o) in xv.iter_mut().enumerate() {
            *o = group_lanes(xs, i);
        }
        let (mut max, mut amax) = (zero, zero);
        for &v in &xv {
            let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_and_ps(v, abs_mask), amax);
            amax = _mm256_blendv_ps(amax, _mm256_and_ps(v, abs_mask), gt);
            max = _mm256_blendv_ps(max, v, gt);
        }
        // the groups with a level search (the others are all zero)
        let live = _mm256_cmp_ps::<_CMP_GE_OQ>(amax, _mm256_set1_ps(1e-15));
        let iscale = _mm256_div_ps(_mm256_set1_ps(-(nmax as f32)), max);
        let mut lv = [_mm256_setzero_si256(); 16];
        let (mut sumlx, mut suml2) = (zero, zero);
        for i in 0..16 {
            let li = clamp8(lo, hi, nearest_int8(_mm256_mul_ps(iscale, xv[i])));
            lv[i] = li;
            let (w, lf) = (_mm256_mul_ps(xv[i], xv[i]), _mm256_cvtepi32_ps(li));
            sumlx = _mm256_add_ps(sumlx, _mm256_mul_ps(_mm256_mul_ps(w, xv[i]), lf));
            suml2 = _mm256_add_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, lf), lf));
        }
        let mut active = live;
        for _ in 0..5 {
            let mut changed = zero;
            for i in 0..16 {
                let w = _mm256_mul_ps(xv[i], xv[i]);
                let wx = _mm256_mul_ps(w, xv[i]);
                let li = _mm256_cvtepi32_ps(lv[i]);
                let slx = _mm256_sub_ps(sumlx, _mm256_mul_ps(wx, li));
                let sl2 = _mm256_sub_ps(suml2, _mm256_mul_ps(_mm256_mul_ps(w, li), li));
                let q = _mm256_div_ps(_mm256_mul_ps(xv[i], sl2), slx);
                let new_l = clamp8(lo, hi, nearest_int8(q));
                let nf = _mm256_cvtepi32_ps(new_l);
                let slx2 = _mm256_add_ps(slx, _mm256_mul_ps(wx, nf));
                let sl22 = _mm256_add_ps(sl2, _mm256_mul_ps(_mm256_mul_ps(w, nf), nf));
                let better = _mm256_cmp_ps::<_CMP_GT_OQ>(
                    _mm256_mul_ps(_mm256_mul_ps(slx2, slx2), suml2),
                    _mm256_mul_ps(_mm256_mul_ps(sumlx, sumlx), sl22),
                );
                let same = _mm256_castsi256_ps(_mm256_cmpeq_epi32(new_l, lv[i]));
                let upd = _mm256_and_ps(
                    _mm256_and_ps(active, _mm256_cmp_ps::<_CMP_GT_OQ>(slx, zero)),
                    _mm256_andnot_ps(
                        same,
                        _mm256_and_ps(_mm256_cmp_ps::<_CMP_GT_OQ>(sl22, zero), better),
                    ),
                );
                lv[i] = _mm256_blendv_epi8(lv[i], new_l, _mm256_castps_si256(upd));
                sumlx = _mm256_blendv_ps(sumlx, slx2, upd);
                suml2 = _mm256_blendv_ps(suml2, sl22, upd);
                changed = _mm256_or_ps(changed, upd);
            }
            active = _mm256_and_ps(active, changed);
            if _mm256_movemask_ps(active) == 0 {
                break;
            }
        }
        let pos = _mm256_cmp_ps::<_CMP_GT_OQ>(suml2, zero);
        let scale = _mm256_and_ps(_mm256_and_ps(_mm256_div_ps(sumlx, suml2), pos), live);
        store8(&mut scales[8 * half..], scale);
        let off = _mm256_and_si256(_mm256_set1_epi32(nmax), _mm256_castps_si256(live));
        let mut lt = [[0i32; 8]; 16];
        for (o, &v) in lt.iter_mut().zip(&lv) {
            let v = _mm256_and_si256(_mm256_add_epi32(v, off), _mm256_castps_si256(live));
            // SAFETY: `o` is 8 i32s; unaligned store.
            unsafe { _mm256_storeu_si256(o.as_mut_ptr().cast(), v) };
        }
        for g in 0..8 {
            for i in 0..16 {
                l[128 * half + 16 * g + i] = lt[i][g] as i8;
            }
        }
    }
}

/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn requant_groups16(x: &[f32], d: &[f32; 16], lo: i32, hi: i32, l: &mut [i8]) {
    let (x, l) = (&x[..256], &mut l[..256]);
    let (vlo, vhi) = (_mm256_set1_epi32(lo), _mm256_set1_epi32(hi));
    for (j, &dj) in d.iter().enumerate() {
        if dj == 0.0 {
            continue;
        }
        let dv = _mm256_set1_ps(dj);
        // both halves written out: a closure here was compiled out of line, without AVX2
        let v0 = _mm256_div_ps(load8(&x[16 * j..]), dv);
        let q0 = _mm256_sub_epi32(clamp8(vlo, vhi, nearest_int8(v0)), vlo);
        let v1 = _mm256_div_ps(load8(&x[16 * j + 8..]), dv);
        let q1 = _mm256_sub_epi32(clamp8(vlo, vhi, nearest_int8(v1)), vlo);
        // eight i32 lanes twice → sixteen bytes in element order (every level fits)
        let p = _mm256_packs_epi32(q0, q1);
        let p = _mm256_permute4x64_epi64::<0b11_01_10_00>(p);
        let b = _mm_packs_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256::<1>(p));
        let out = &mut l[16 * j..16 * j + 16];
        // SAFETY: `out` is 16 bytes; unaligned store.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), b) };
    }
}
