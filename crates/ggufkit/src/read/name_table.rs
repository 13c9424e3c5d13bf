//! The tensor-name index: which tensor has a given name, for O(1) lookup and for the rule that
//! names are unique (checked as the names are read: one probe per name, not a comparison of every
//! pair as in ggml).
//!
//! Two parts, both shaped by the parser's hot loop over tensor infos:
//! - [`NameSeed::scan`] hashes a name and tells whether it is plain ASCII without NUL in the same
//!   pass over its 8-byte words, so the parser loads a name's bytes once for both.
//! - [`NameTable`] is an open-addressing table of 8-byte slots (the tensor's index beside 31 bits of
//!   its name's hash, so that a probe reads a name from the header only when those bits agree),
//!   sized once from the tensor count: entering a name is a load, a compare and a store.
//!
//! The hash is seeded per table from the process's random hasher state, so a hostile file cannot
//! choose names that all land in one slot; whether it could only changes speed, since the table
//! compares whole names before it calls two equal.
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

/// Bytes with the high bit set in each byte position.
const HIGH: u64 = 0x8080_8080_8080_8080;
/// One in each byte position.
const ONES: u64 = 0x0101_0101_0101_0101;

/// The 128-bit product of `a` and `b`, folded to 64 bits: the mixing step of the hash.
#[inline(always)]
fn fold_mul(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

/// A word read little-endian from exactly 8 bytes.
#[inline(always)]
fn word(b: &[u8]) -> u64 {
    u64::from_le_bytes(b.try_into().unwrap_or([0; 8]))
}

/// A high bit in each byte that is zero or not ASCII (the borrow of the subtraction can mark a
/// byte above a zero byte too, which only matters when there is a zero byte anyway).
#[inline(always)]
fn not_plain(w: u64) -> u64 {
    (w | (w.wrapping_sub(ONES) & !w)) & HIGH
}

/// The secret keys of a table's hash.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NameSeed {
    keys: [u64; 3],
}

impl NameSeed {
    /// Keys drawn from a randomly seeded hasher (hashbrown's default: seeded per process).
    pub fn random() -> NameSeed {
        let state = hashbrown::DefaultHashBuilder::default();
        // odd keys: a multiplication by them loses no bits
        NameSeed {
            keys: [1u64, 2, 3].map(|i| state.hash_one(i) | 1),
        }
    }

    /// The hash of `name`, and whether every byte of it is ASCII and none is NUL.
    ///
    /// The name is read as 8-byte words (the last one overlapping the one before when the length
    /// is not a multiple of 8, a short name zero-extended), taken in pairs: one multiplication a
    /// pair, one more to finish.
    #[inline(always)]
    pub fn scan(&self, name: &[u8]) -> (u64, bool) {
        let [k0, k1, k2] = self.keys;
        let len = name.len();
        let mut acc = k0 ^ (len as u64);
        let mut bad = 0u64;
        if len >= 8 {
            let mut pairs = name.chunks_exact(16);
            for pair in &mut pairs {
                let (x, y) = (word(&pair[..8]), word(&pair[8..]));
                bad |= not_plain(x) | not_plain(y);
                acc = fold_mul(acc ^ x, y ^ k1);
            }
            let rest = pairs.remainder().len();
            if rest > 0 {
                let last = word(&name[len - 8..]);
                bad |= not_plain(last);
                let (x, y) = if rest > 8 {
                    let x = word(&name[len - rest..len - rest + 8]);
                    bad |= not_plain(x);
                    (x, last)
                } else {
                    (last, 0)
                };
                acc = fold_mul(acc ^ x, y ^ k1);
            }
        } else {
            let w = short_word(name);
            // only the name's own bytes are judged, not the zeros above them
            let mask = if len == 0 {
                0
            } else {
                u64::MAX >> (64 - 8 * len)
            };
            bad = not_plain(w) & mask;
            acc = fold_mul(acc ^ w, k1);
        }
        (fold_mul(acc, k2), bad == 0)
    }

    /// The hash of `name` (as [`NameSeed::scan`] computes it).
    #[inline]
    pub fn hash(&self, name: &[u8]) -> u64 {
        self.scan(name).0
    }
}

/// A name of fewer than 8 bytes as a little-endian word, zero-extended.
#[inline(always)]
fn short_word(b: &[u8]) -> u64 {
    let len = b.len();
    if len >= 4 {
        // two overlapping 4-byte reads: the overlap holds the same bytes in both
        let lo = u32::from_le_bytes(b[..4].try_into().unwrap_or([0; 4]));
        let hi = u32::from_le_bytes(b[len - 4..].try_into().unwrap_or([0; 4]));
        u64::from(lo) | (u64::from(hi) << (8 * (len - 4)))
    } else {
        b.iter()
            .enumerate()
            .fold(0, |w, (i, &c)| w | (u64::from(c) << (8 * i)))
    }
}

/// Tensor indices by name hash (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct NameTable {
    /// The index of each tensor beside the high half of its name's hash.
    table: HashTable<(u32, u32)>,
    seed: NameSeed,
}

impl Default for NameTable {
    fn default() -> NameTable {
        NameTable::with_capacity(0)
    }
}

impl NameTable {
    /// A table for `n` names. The caller has checked `n` against the bytes that hold the names
    /// (every tensor info takes 24 bytes at least), so the table stays proportional to the input.
    pub fn with_capacity(n: usize) -> NameTable {
        NameTable {
            table: HashTable::with_capacity(n),
            seed: NameSeed::random(),
        }
    }

    /// The seed names are hashed with for this table.
    #[inline]
    pub fn seed(&self) -> &NameSeed {
        &self.seed
    }

    /// Enters tensor `index` under `hash` (from [`NameTable::seed`]), or returns the index of an
    /// earlier tensor whose name is equal (`same(j)` compares the name of tensor `j` with the new
    /// one). `rehash(j)` is the hash of tensor `j`'s name, for a table that must grow (one made
    /// with room for every name never does).
    #[inline]
    pub fn insert(
        &mut self,
        hash: u64,
        index: u32,
        same: impl Fn(u32) -> bool,
        rehash: impl Fn(u32) -> u64,
    ) -> Option<u32> {
        let high = (hash >> 32) as u32;
        match self
            .table
            .entry(hash, |&(j, h)| h == high && same(j), |&(j, _)| rehash(j))
        {
            Entry::Occupied(e) => Some(e.get().0),
            Entry::Vacant(v) => {
                v.insert((index, high));
                None
            }
        }
    }

    /// The first tensor entered under `hash` whose name `same` accepts.
    #[inline]
    pub fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        let high = (hash >> 32) as u32;
        self.table
            .find(hash, |&(j, h)| h == high && same(j))
            .map(|&(j, _)| j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_it_holds_and_reports_repeats() {
        // names are numbers; hashes deliberately collide (same high half) in groups, and the
        // table starts too small, so it grows and rehashes
        let names: Vec<u32> = (0..1000).collect();
        let hash = |name: u32| -> u64 { (u64::from(name % 7) << 32) | u64::from(name) };
        let rehash = |j: u32| hash(names[j as usize]);
        let mut t = NameTable::with_capacity(10);
        for (i, &n) in names.iter().enumerate() {
            let same = |j: u32| names[j as usize] == n;
            assert_eq!(t.insert(hash(n), i as u32, same, rehash), None);
        }
        for (i, &n) in names.iter().enumerate() {
            let same = |j: u32| names[j as usize] == n;
            assert_eq!(t.find(hash(n), same), Some(i as u32));
            // a repeat finds the first, and is not entered
            assert_eq!(t.insert(hash(n), 5000, same, rehash), Some(i as u32));
        }
        assert_eq!(t.find(hash(4000), |j| names[j as usize] == 4000), None);
        assert_eq!(NameTable::default().find(1, |_| true), None);
    }

    #[test]
    fn tables_hash_with_their_own_seed() {
        let (a, b) = (NameTable::default(), NameTable::default());
        let name = b"blk.0.attn_q.weight";
        assert_eq!(a.seed().hash(name), a.seed().hash(name));
        assert_ne!(a.seed().hash(name), b.seed().hash(name));
    }

    /// The plainness verdict is exactly "ASCII without NUL", at every length and position, and
    /// the hash depends on every byte and on the length.
    #[test]
    fn scan_judges_every_byte_and_hashes_all_of_them() {
        let seed = NameSeed::random();
        for len in 0..=40usize {
            let name: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
            let (h, plain) = seed.scan(&name);
            assert!(plain, "len {len}");
            for at in 0..len {
                for bad in [0u8, 0x80, 0xff] {
                    let mut b = name.clone();
                    b[at] = bad;
                    assert!(!seed.scan(&b).1, "len {len}, byte {bad:#x} at {at}");
                }
                let mut b = name.clone();
                b[at] = b'Z';
                assert_ne!(seed.scan(&b).0, h, "len {len}, changed byte {at}");
            }
            let mut longer = name.clone();
            longer.push(0);
            assert_ne!(
                NameSeed::scan(&seed, &longer[..len]).0,
                seed.scan(&longer).0
            );
        }
    }

    #[test]
    fn short_words_are_the_bytes_zero_extended() {
        for len in 0..8usize {
            let b: Vec<u8> = (1..=len as u8).collect();
            let mut padded = [0u8; 8];
            padded[..len].copy_from_slice(&b);
            assert_eq!(short_word(&b), u64::from_le_bytes(padded), "len {len}");
        }
    }
}
