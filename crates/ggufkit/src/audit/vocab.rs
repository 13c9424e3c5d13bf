//! The token strings as a set, for the tokenizer's duplicates and for merges naming tokens that
//! do not exist. One slot of 8 bytes per token, in a table no larger than its load needs: a
//! fingerprint of the token's hash and the offset of the token inside the array's own bytes, so
//! that a lookup reads the slot, then the token's bytes once to confirm (exact), and nothing
//! between (a table of indices reads an index, a string pointer, then the bytes). Half a million
//! merges of a 262k vocabulary touch 2.6 MiB of table instead of 10.
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

use crate::endian::Endian;

/// A slot: 0 when empty, else the fingerprint in the high 24 bits and 1 + the token's offset in
/// the low 40 (arrays of up to a TiB).
const OFFSET_BITS: u32 = 40;
const OFFSET_MASK: u64 = (1 << OFFSET_BITS) - 1;

pub(super) struct Vocab<'a> {
    /// The tokens array's encoded elements: a length, then that many bytes, each.
    raw: &'a [u8],
    endian: Endian,
    slots: Vec<u64>,
    /// Keyed with a per-process random seed: a file cannot be crafted to collide.
    hasher: hashbrown::DefaultHashBuilder,
    dups: u64,
    /// The index of the first token that repeats an earlier one.
    first_dup: Option<usize>,
}

impl<'a> Vocab<'a> {
    /// The set of the `n` strings encoded in `raw` (an array of strings the parser checked);
    /// `None` when the array is too large for the table's offsets.
    pub(super) fn new(n: u64, raw: &'a [u8], endian: Endian) -> Option<Vocab<'a>> {
        if raw.len() as u64 >= OFFSET_MASK {
            return None;
        }
        // at most one token per 8 bytes of `raw` (each has a length), so this does not
        // overflow; the load factor stays under 0.8
        let n = usize::try_from(n).ok()?.min(raw.len() / 8);
        let mut v = Vocab {
            raw,
            endian,
            slots: vec![0; n + n / 4 + 1],
            hasher: hashbrown::DefaultHashBuilder::default(),
            dups: 0,
            first_dup: None,
        };
        let mut at = 0;
        for i in 0..n {
            let Some((s, next)) = v.token_at(at) else {
                break;
            };
            if !v.insert(s, at) {
                v.dups += 1;
                v.first_dup.get_or_insert(i);
            }
            at = next;
        }
        Some(v)
    }

    /// The token whose length is at `at` in `raw`, and the offset after it.
    fn token_at(&self, at: usize) -> Option<(&'a [u8], usize)> {
        let len: [u8; 8] = self.raw.get(at..at.checked_add(8)?)?.try_into().ok()?;
        let start = at + 8;
        let end = start.checked_add(usize::try_from(self.endian.u64(len)).ok()?)?;
        Some((self.raw.get(start..end)?, end))
    }

    /// The first slot to probe for `s`, and its fingerprint.
    fn place(&self, s: &[u8]) -> (usize, u64) {
        let h = self.hasher.hash_one(s);
        // the hash scaled to the table's size uses its high bits; the fingerprint its low ones
        let slot = ((u128::from(h) * self.slots.len() as u128) >> 64) as usize;
        (slot, (h & 0xFF_FFFF) << OFFSET_BITS)
    }

    fn next(&self, p: usize) -> usize {
        if p + 1 == self.slots.len() {
            0
        } else {
            p + 1
        }
    }

    /// The slot holding `s`, or the empty slot where it would go (and `s`'s fingerprint).
    fn find(&self, s: &[u8]) -> (usize, bool, u64) {
        let (mut p, fp) = self.place(s);
        // A slot stays free: the table has more slots than tokens.
        loop {
            let x = self.slots[p];
            if x == 0 {
                return (p, false, fp);
            }
            if x & !OFFSET_MASK == fp {
                let at = ((x & OFFSET_MASK) - 1) as usize;
                if self.token_at(at).is_some_and(|(t, _)| t == s) {
                    return (p, true, fp);
                }
            }
            p = self.next(p);
        }
    }

    /// Adds `s` (its length at `at`); `false` when it was there already.
    fn insert(&mut self, s: &[u8], at: usize) -> bool {
        let (p, found, fp) = self.find(s);
        if !found {
            self.slots[p] = fp | (at as u64 + 1);
        }
        !found
    }

    /// How many tokens repeat an earlier one, and the index of the first that does.
    pub(super) fn duplicates(&self) -> (u64, Option<usize>) {
        (self.dups, self.first_dup)
    }

    pub(super) fn contains(&self, s: &[u8]) -> bool {
        self.find(s).1
    }
}
