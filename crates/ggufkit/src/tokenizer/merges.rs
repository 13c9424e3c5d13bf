//! BPE merge ranks (`tokenizer.ggml.merges`): each merge `"left right"` (split at the first
//! space after the first byte, as llama.cpp splits it) ranks by its position; a pair listed
//! twice keeps its first rank. The table holds where each pair lies in the array's bytes (its
//! index there is its rank), in a few tables built in parallel; the strings stay in the file
//! (and the table owes it no lifetime, so the tokenizer stays covariant in the file's).
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::HashTable;

use crate::value::ArrayView;

/// Where a merge's parts lie in the array's bytes (its index in [`Merges::pairs`] is its
/// rank).
#[derive(Clone, Copy)]
struct Pair {
    start: usize,
    /// The left part's length ([`NO_SPLIT`]: the merge has no space to split at).
    left: u32,
    right: u32,
}

/// [`Pair::left`] of a merge without a space: llama.cpp ranks the empty pair, which no lookup
/// asks for.
const NO_SPLIT: u32 = u32::MAX;

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

/// The hash tables' number: a table per part of the hash space, built in parallel.
const SHARDS: usize = 4;

/// The table of the pair of hash `h`.
#[inline]
fn shard(h: u64) -> usize {
    (h >> 62) as usize
}

/// The merge ranks of a BPE vocabulary.
pub(crate) struct Merges {
    /// Every merge, in order (a pair listed twice too).
    pairs: Vec<Pair>,
    /// Indexes into `pairs` (the first of equal pairs), found by the hash of their pair; one
    /// table per [`shard`] of the hash.
    tables: Vec<HashTable<u32>>,
    hasher: hashbrown::DefaultHashBuilder,
    /// The last characters of the left parts of the merges that join a character other than
    /// `▁` to a right part starting with `▁` (`None`: more than [`MAX_JOINERS`]).
    joiners: Option<Vec<Box<[u8]>>>,
}

/// The most distinct [`Merges::joiners`] kept.
const MAX_JOINERS: usize = 16;

/// `▁`, the escaped space.
const SPACE: &[u8] = "\u{2581}".as_bytes();

/// The last UTF-8 character of `t` (its last bytes from the last one that is not a
/// continuation byte, at most four).
#[inline]
pub(crate) fn last_char(t: &[u8]) -> &[u8] {
    let n = t.len();
    let from = (n.saturating_sub(4)..n)
        .rev()
        .find(|&i| t[i] & 0xc0 != 0x80)
        .unwrap_or(n.saturating_sub(1));
    &t[from..]
}

impl Merges {
    /// The ranks of `merges` (absent: none, as for kimi-k2). The array is walked once; the
    /// pairs are hashed, and the tables filled, on rayon's pool.
    pub fn new(merges: Option<ArrayView<'_>>) -> Self {
        use rayon::prelude::*;
        let mut m = Merges {
            pairs: Vec::new(),
            tables: (0..SHARDS).map(|_| HashTable::new()).collect(),
            hasher: hashbrown::DefaultHashBuilder::default(),
            joiners: Some(Vec::new()),
        };
        let Some((raw, strings)) = merges.and_then(|a| Some((a.raw_bytes(), a.strings()?))) else {
            return m;
        };
        // at most one entry per string of the array: bounded by its bytes
        m.pairs
            .reserve(strings.size_hint().1.unwrap_or(0).min(1 << 24));
        let base = raw.as_ptr() as usize;
        for s in strings {
            let word = s.as_bytes();
            let start = word.as_ptr() as usize - base;
            let pair = match word.get(1..).and_then(|w| memchr::memchr(b' ', w)) {
                Some(i) => {
                    let (left, right) = (&word[..i + 1], &word[i + 2..]);
                    if right.starts_with(SPACE) && !left.ends_with(SPACE) {
                        m.note_joiner(last_char(left));
                    }
                    Pair {
                        start,
                        left: (i + 1) as u32,
                        right: (word.len() - i - 2) as u32,
                    }
                }
                None => Pair {
                    start,
                    left: NO_SPLIT,
                    right: 0,
                },
            };
            m.pairs.push(pair);
        }
        let hasher = &m.hasher;
        let pairs = &m.pairs;
        let hashes: Vec<u64> = pairs
            .par_iter()
            .with_min_len(1 << 14)
            .map(|p| {
                if p.left == NO_SPLIT {
                    0
                } else {
                    hasher.hash_one(p.of(raw))
                }
            })
            .collect();
        m.tables = (0..SHARDS)
            .into_par_iter()
            .map(|part| {
                let count = hashes.iter().filter(|&&h| shard(h) == part).count();
                let mut table = HashTable::with_capacity(count);
                for (index, &h) in hashes.iter().enumerate() {
                    if shard(h) != part || pairs[index].left == NO_SPLIT {
                        continue;
                    }
                    let key = pairs[index].of(raw);
                    // a pair listed again keeps its first rank
                    if table
                        .find(h, |&r: &u32| pairs[r as usize].of(raw) == key)
                        .is_none()
                    {
                        table.insert_unique(h, index as u32, |&r| hashes[r as usize]);
                    }
                }
                table
            })
            .collect();
        m
    }

    /// Remembers that a merge joins `c` to a following `▁`.
    fn note_joiner(&mut self, c: &[u8]) {
        if let Some(j) = &mut self.joiners {
            if !j.iter().any(|x| **x == *c) {
                if j.len() == MAX_JOINERS {
                    self.joiners = None;
                } else {
                    j.push(c.into());
                }
            }
        }
    }

    /// The characters after which a `▁` may be merged to them (`None`: too many to say): at a
    /// `▁` after any other character, no merge ever joins the text before it to the text
    /// from it, so the two sides merge apart exactly as they merge together.
    pub fn joiners(&self) -> Option<&[Box<[u8]>]> {
        self.joiners.as_deref()
    }

    /// The rank of merging `left` and `right`; `raw` is the merges array's bytes.
    #[inline]
    pub fn rank(&self, raw: &[u8], left: &[u8], right: &[u8]) -> Option<u32> {
        let h = self.hasher.hash_one((left, right));
        self.tables[shard(h)]
            .find(h, |&r| self.pairs[r as usize].of(raw) == (left, right))
            .copied()
    }
}
