//! BPE merge ranks (`tokenizer.ggml.merges`): each merge `"left right"` (split at the first
//! space after the first byte, as llama.cpp splits it) ranks by its position; a pair listed
//! twice keeps its first rank. The table holds merge numbers; the strings stay in the file.
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::value::ArrayView;

/// The merge ranks of a BPE vocabulary.
pub(crate) struct Merges<'g> {
    /// Each merge's left and right parts, by rank.
    pairs: Vec<(&'g [u8], &'g [u8])>,
    /// Ranks, found by the hash of their pair.
    table: HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
}

impl<'g> Merges<'g> {
    /// The ranks of `merges` (absent: none, as for kimi-k2).
    pub fn new(merges: Option<ArrayView<'g>>) -> Self {
        let mut m = Merges {
            pairs: Vec::new(),
            table: HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        };
        let Some(strings) = merges.and_then(|a| a.strings()) else {
            return m;
        };
        // at most one entry per string of the array: bounded by its bytes
        m.pairs
            .reserve(strings.size_hint().1.unwrap_or(0).min(1 << 24));
        m.table.reserve(m.pairs.capacity(), |_| 0);
        for s in strings {
            let word = s.as_bytes();
            let rank = m.pairs.len() as u32;
            let pair = match word.get(1..).and_then(|w| memchr::memchr(b' ', w)) {
                Some(i) => (&word[..i + 1], &word[i + 2..]),
                // no space: llama.cpp ranks the empty pair, which no lookup asks for
                None => (&word[..0], &word[..0]),
            };
            m.pairs.push(pair);
            let h = m.hasher.hash_one(pair);
            if m.table.find(h, |&r| m.pairs[r as usize] == pair).is_none() {
                let (pairs, hasher) = (&m.pairs, &m.hasher);
                m.table
                    .insert_unique(h, rank, |&r| hasher.hash_one(pairs[r as usize]));
            }
        }
        m
    }

    /// The rank of merging `left` and `right`.
    #[inline]
    pub fn rank(&self, left: &[u8], right: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one((left, right));
        self.table
            .find(h, |&r| self.pairs[r as usize] == (left, right))
            .copied()
    }
}
