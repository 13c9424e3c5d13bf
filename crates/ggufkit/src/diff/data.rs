//! Which pairs of tensor data differ, compared chunk by chunk across rayon's pool.
#![forbid(unsafe_code)]

use rayon::prelude::*;

use crate::progress::Progress;

/// Bytes compared per job: small enough to spread one large tensor over every core.
pub(super) const COMPARE_CHUNK: usize = 8 << 20;

/// For each pair of byte slices, whether they differ (a pair of different lengths differs),
/// telling `progress` the bytes compared.
pub(super) fn differing_pairs(pairs: &[(&[u8], &[u8])], progress: &dyn Progress) -> Vec<bool> {
    let mut jobs: Vec<(usize, usize)> = Vec::new();
    for (i, (x, _)) in pairs.iter().enumerate() {
        let mut at = 0;
        loop {
            jobs.push((i, at));
            at += COMPARE_CHUNK;
            if at >= x.len() {
                break;
            }
        }
    }
    let diffs: Vec<usize> = jobs
        .par_iter()
        .filter_map(|&(i, at)| {
            let (x, y) = pairs[i];
            if x.len() != y.len() {
                return Some(i);
            }
            let end = (at + COMPARE_CHUNK).min(x.len());
            let same = x[at..end] == y[at..end];
            progress.advance(2 * (end - at) as u64);
            (!same).then_some(i)
        })
        .collect();
    let mut out = vec![false; pairs.len()];
    for i in diffs {
        out[i] = true;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;

    #[test]
    fn a_difference_in_any_chunk_is_found() {
        let a = vec![7u8; COMPARE_CHUNK * 2 + 3];
        let mut b = a.clone();
        let mut c = a.clone();
        *b.last_mut().unwrap() = 8;
        c[COMPARE_CHUNK] = 0;
        let short = vec![7u8; 5];
        let pairs: Vec<(&[u8], &[u8])> =
            vec![(&a, &a), (&a, &b), (&a, &c), (&[], &[]), (&short, &a[..4])];
        assert_eq!(
            differing_pairs(&pairs, &NoProgress),
            vec![false, true, true, false, true]
        );
    }
}
