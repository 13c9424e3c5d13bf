//! BPE merge ranks (`tokenizer.ggml.merges`): each merge `"left right"` (split at the first
//! space after the first byte, as llama.cpp splits it) ranks by its position; a pair listed
//! twice keeps its first rank. The table holds merge numbers and where each pair lies in the
//! array's bytes; the strings stay in the file (and the table owes it no lifetime, so the
//! tokenizer stays covariant in the file's).
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::value::ArrayView;

/// Where a merge's parts lie in the array's bytes.
#[derive(Clone, Copy)]
struct Pair {
    start: usize,
    left: u32,
    right: u32,
    /// The merge's position in the array.
    rank: u32,
}

impl Pair {
    #[inline]
    fn of<'a>(&self, raw: &'a [u8]) -> (&'a [u8], &'a [u8]) {
        let l = self.start + self.left as usize;
        (
            &raw[self.start..l],
            &raw[l + 1..l + 1 + self.right as usize],
        )
    }
}

/// The merge ranks of a BPE vocabulary.
pub(crate) struct Merges {
    /// The merges that have a space to split at, in order.
    pairs: Vec<Pair>,
    /// Indexes into `pairs`, found by the hash of their pair.
    table: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl Merges {
    /// The ranks of `merges` (absent: none, as for kimi-k2).
    pub fn new(merges: Option<ArrayView<'_>>) -> Self {
        let mut m = Merges {
            pairs: Vec::new(),
            table: HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        };
        let Some((raw, strings)) = merges.and_then(|a| Some((a.raw_bytes(), a.strings()?))) else {
            return m;
        };
        // at most one entry per string of the array: bounded by its bytes
        m.pairs
            .reserve(strings.size_hint().1.unwrap_or(0).min(1 << 24));
        m.table.reserve(m.pairs.capacity(), |_| 0);
        let base = raw.as_ptr() as usize;
        for (rank, s) in strings.enumerate() {
            let word = s.as_bytes();
            let rank = rank as u32;
            let start = word.as_ptr() as usize - base;
            let pair = match word.get(1..).and_then(|w| memchr::memchr(b' ', w)) {
                Some(i) => Pair {
                    start,
                    left: (i + 1) as u32,
                    right: (word.len() - i - 2) as u32,
                    rank,
                },
                // no space: llama.cpp ranks the empty pair, which no lookup asks for
                None => continue,
            };
            let key = pair.of(raw);
            let h = m.hasher.hash_one(key);
            if m.table
                .find(h, |&r| m.pairs[r as usize].of(raw) == key)
                .is_none()
            {
                let index = m.pairs.len() as u32;
                m.pairs.push(pair);
                let (pairs, hasher) = (&m.pairs, &m.hasher);
                m.table
                    .insert_unique(h, index, |&r| hasher.hash_one(pairs[r as usize].of(raw)));
            }
        }
        m
    }

    /// The rank of merging `left` and `right`; `raw` is the merges array's bytes.
    #[inline]
    pub fn rank(&self, raw: &[u8], left: &[u8], right: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one((left, right));
        self.table
            .find(h, |&r| self.pairs[r as usize].of(raw) == (left, right))
            .map(|&r| self.pairs[r as usize].rank)
    }
}
