//! What the split searches of iq1_m and iq1_s share: the order of a group's values as glibc's
//! `qsort` gives it, and the running pick of the best split in ggml's order.
#![forbid(unsafe_code)]

/// ggml's running choice of the best split in its search order: a candidate with sums
/// `(sumqx, sumq2)` wins when `sumq2 > 0 && sumqx^2 > score * sumq2`; the winner's scale, score
/// and position `(i1, i2, k)`.
pub(crate) struct SplitPick {
    pub(crate) score: f32,
    pub(crate) scale: f32,
    pub(crate) at: Option<(usize, usize, usize)>,
}

impl SplitPick {
    pub(in crate::quant) fn new(scale: f32) -> Self {
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
#[inline]
pub(in crate::quant) fn sorted_order<const N: usize>(x: &[f32; N]) -> [u8; N] {
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

/// glibc 2.36 `qsort` on small arrays: top-down merge sort (`msort_with_tmp`), taking the left
/// element while `cmp(left, right) <= 0`, with ggml's `iq1_sort_helper` comparator
/// (`l < r ? -1 : l > r ? 1 : 0`). Stable, and identical to glibc even with NaN keys.
pub(in crate::quant) fn glibc_msort(v: &mut [(f32, u8)], tmp: &mut Vec<(f32, u8)>) {
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
