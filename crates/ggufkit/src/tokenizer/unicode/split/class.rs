//! Sets of code units (bytes of the collapsed text, or codepoints) as sorted disjoint ranges,
//! with a bitmap for the first 256 units, which is where nearly every lookup lands.
#![forbid(unsafe_code)]

/// A set of units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Class {
    /// Sorted, disjoint, non-adjacent inclusive ranges.
    ranges: Vec<(u32, u32)>,
    /// Membership of units 0..256.
    low: [u64; 4],
}

impl Class {
    /// The set of the given inclusive ranges (in any order, overlapping or not).
    pub(super) fn from_ranges(mut ranges: Vec<(u32, u32)>) -> Class {
        ranges.retain(|&(a, b)| a <= b);
        ranges.sort_unstable();
        let mut merged: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let mut low = [0u64; 4];
        for &(a, b) in &merged {
            for u in a..=b.min(255) {
                low[u as usize / 64] |= 1 << (u % 64);
            }
        }
        Class {
            ranges: merged,
            low,
        }
    }

    /// Every unit not in `self`.
    pub(super) fn negate(&self) -> Class {
        let mut out = Vec::with_capacity(self.ranges.len() + 1);
        let mut next = 0u32;
        let mut open = true;
        for &(a, b) in &self.ranges {
            if a > next {
                out.push((next, a - 1));
            }
            match b.checked_add(1) {
                Some(n) => next = n,
                None => {
                    open = false;
                    break;
                }
            }
        }
        if open {
            out.push((next, u32::MAX));
        }
        Class::from_ranges(out)
    }

    /// The units in both.
    pub(super) fn intersect(&self, other: &Class) -> Class {
        let mut out = Vec::new();
        let (mut i, mut j) = (0, 0);
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a1, b1) = self.ranges[i];
            let (a2, b2) = other.ranges[j];
            let (a, b) = (a1.max(a2), b1.min(b2));
            if a <= b {
                out.push((a, b));
            }
            if b1 < b2 {
                i += 1;
            } else {
                j += 1;
            }
        }
        Class::from_ranges(out)
    }

    /// The units in either.
    pub(super) fn union(&self, other: &Class) -> Class {
        let mut r = self.ranges.clone();
        r.extend_from_slice(&other.ranges);
        Class::from_ranges(r)
    }

    /// Whether `u` is in the set.
    #[inline]
    pub(super) fn contains(&self, u: u32) -> bool {
        if u < 256 {
            return self.low[u as usize / 64] >> (u % 64) & 1 != 0;
        }
        let i = self.ranges.partition_point(|&(a, _)| a <= u);
        i > 0 && u <= self.ranges[i - 1].1
    }
}
