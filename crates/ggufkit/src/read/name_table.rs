//! The tensor-name index: which tensor has a given name, for O(1) lookup and for the rule that
//! names are unique (checked as the names are read: one probe per name, not a comparison of every
//! pair as in ggml).
//!
//! Two parts, both shaped by the parser's hot loop over tensor infos:
//! - [`NameSeed::scan`] hashes a name and tells whether it is plain ASCII without NUL in the same
//!   pass over its 8-byte words, so the parser loads a name's bytes once for both.
//! - [`NameTable`] is an open-addressing table in groups of eight slots (the tensor's index beside
//!   the high half of its name's hash, so that a probe reads a name from the header only when
//!   those bits agree), sized once from the tensor count.
//!
//! The hash is seeded per table from the process's random hasher state, so a hostile file cannot
//! choose names that all land in one slot; whether it could only changes speed, since the table
//! compares whole names before it calls two equal.
#![forbid(unsafe_code)]

use std::hash::BuildHasher;

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
/// byte above a zero byte too, which only matters when there is a zero byte anyway). The one
/// word test of names and keys: [`NameSeed::scan`] and the parser's key check use it.
#[inline(always)]
pub(crate) fn not_plain(w: u64) -> u64 {
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
///
/// Open addressing over groups of eight slots, as in a SwissTable but with the group's eight
/// control bytes read as one `u64` (no SIMD, no `unsafe`): a control byte is 0 for an empty slot,
/// or 0x80 with 7 bits of the hash for a full one. A probe reads one control word, compares all
/// eight tags at once, and in a table at most 7/8 full nearly always finds a free slot in that
/// same group, so the branches of an insert are predictable (a table probing slot by slot
/// mispredicts on every collision). Entries are never removed, so a group with a free slot ends
/// every probe.
#[derive(Clone, Debug)]
pub(crate) struct NameTable {
    /// One word of eight control bytes per group.
    ctrl: Vec<u64>,
    /// Per slot: the tensor's index and the high half of its name's hash, which a probe compares
    /// before it reads a name from the header (7 bits of tag alone would send one insert in
    /// thirty to a random read of the header).
    slots: Vec<(u32, u32)>,
    items: usize,
    seed: NameSeed,
}

/// One in each byte of a word.
const LSB: u64 = 0x0101_0101_0101_0101;

impl Default for NameTable {
    fn default() -> NameTable {
        NameTable::with_capacity(0)
    }
}

impl NameTable {
    /// A table for `n` names. The caller has checked `n` against the bytes that hold the names
    /// (every tensor info takes 24 bytes at least), so the table, 9 to 18 bytes a name, stays
    /// proportional to the input.
    pub fn with_capacity(n: usize) -> NameTable {
        let slots = Self::slots_for(n);
        NameTable {
            ctrl: vec![0; slots / 8],
            slots: vec![(0, 0); slots],
            items: 0,
            seed: NameSeed::random(),
        }
    }

    /// Slots for `n` names: a power of two (8 at least) of which `n` fill at most 7/8; none for
    /// no names (a header without tensors allocates no table).
    fn slots_for(n: usize) -> usize {
        if n == 0 {
            return 0;
        }
        n.saturating_add(n / 7)
            .saturating_add(1)
            .max(8)
            .next_power_of_two()
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
        let mut repeat = None;
        self.insert_run(
            &[hash],
            index,
            |_, j| same(j),
            rehash,
            |_, j| repeat = Some(j),
        );
        repeat
    }

    /// Enters tensors `first`, `first + 1`, ... under `hashes`, in order, and for each whose name
    /// equals an earlier one's calls `repeat(i, j)` (tensor `i` is named like tensor `j`).
    /// `same(i, j)` compares the names of tensors `i` and `j`.
    ///
    /// Two passes over each 64 names, so that the hot one is a tight loop that reads no name:
    /// the first enters every hash unless an entry already has its tag and high half (then the
    /// tensor is noted as a bit of a word), the second looks the noted ones up by name: a repeat
    /// is reported and never entered (so a name repeated 100,000 times still costs one probe a
    /// time, and a lookup finds the first), a different name with the same bits is entered.
    #[inline]
    pub fn insert_run(
        &mut self,
        hashes: &[u64],
        first: u32,
        same: impl Fn(u32, u32) -> bool,
        rehash: impl Fn(u32) -> u64,
        mut repeat: impl FnMut(u32, u32),
    ) {
        if (self.items + hashes.len()) * 8 > self.slots.len() * 7 {
            self.grow(self.items + hashes.len(), rehash);
        }
        // 64 at a time: the suspects of each stretch are bits of a word, not a list
        for (k, chunk) in hashes.chunks(64).enumerate() {
            let first = first + 64 * k as u32;
            let mut suspects = 0u64;
            let mut entered = 0;
            let ctrl = &mut self.ctrl[..];
            let slots = &mut self.slots[..];
            let mask = ctrl.len() - 1;
            for (b, (i, &hash)) in (first..).zip(chunk).enumerate() {
                let (tag, high) = (tag(hash), (hash >> 32) as u32);
                let mut g = hash as usize & mask;
                loop {
                    let c = ctrl[g];
                    // an entry with the same tag and high half is almost surely the same name:
                    // this one waits for the second pass, not entered
                    let mut m = tag_matches(c, tag);
                    while m != 0 && slots[8 * g + m.trailing_zeros() as usize / 8].1 != high {
                        m &= m - 1;
                    }
                    if m != 0 {
                        suspects |= 1 << b;
                        break;
                    }
                    let free = !c & (LSB << 7);
                    if free != 0 {
                        let b = free.trailing_zeros() as usize / 8;
                        ctrl[g] = c | (u64::from(tag) << (8 * b));
                        slots[8 * g + b] = (i, high);
                        entered += 1;
                        break;
                    }
                    g = (g + 1) & mask;
                }
            }
            self.items += entered;
            while suspects != 0 {
                let b = suspects.trailing_zeros();
                suspects &= suspects - 1;
                let (i, hash) = (first + b, chunk[b as usize]);
                // only earlier tensors can be its first (a later one of the run may be in the
                // table already, and the caller may not have recorded where i is yet)
                match self.find(hash, |j| j < i && same(i, j)) {
                    Some(j) => repeat(i, j),
                    // a different name with the same 39 bits of hash: entered after all
                    None => self.enter_new(hash, i),
                }
            }
        }
    }

    /// Enters tensor `i`, whose name is in no slot yet, at the first free slot of its probe.
    fn enter_new(&mut self, hash: u64, i: u32) {
        let mask = self.ctrl.len() - 1;
        let mut g = hash as usize & mask;
        loop {
            let c = self.ctrl[g];
            let free = !c & (LSB << 7);
            if free != 0 {
                let b = free.trailing_zeros() as usize / 8;
                self.ctrl[g] = c | (u64::from(tag(hash)) << (8 * b));
                self.slots[8 * g + b] = (i, (hash >> 32) as u32);
                self.items += 1;
                return;
            }
            g = (g + 1) & mask;
        }
    }

    /// The first tensor entered under `hash` whose name `same` accepts.
    #[inline]
    pub fn find(&self, hash: u64, same: impl Fn(u32) -> bool) -> Option<u32> {
        let (tag, high) = (tag(hash), (hash >> 32) as u32);
        let mask = self.ctrl.len().checked_sub(1)?;
        let mut g = hash as usize & mask;
        loop {
            let c = self.ctrl[g];
            if let Some(j) = matching(&self.slots, g, c, tag, high, &same) {
                return Some(j);
            }
            if !c & (LSB << 7) != 0 {
                return None;
            }
            g = (g + 1) & mask;
        }
    }

    /// Makes room for `n` names (twice as many at least) and enters every index again.
    #[cold]
    fn grow(&mut self, n: usize, rehash: impl Fn(u32) -> u64) {
        debug_assert!(n > 0);
        let entries: Vec<u32> = self
            .ctrl
            .iter()
            .enumerate()
            .flat_map(|(g, &c)| {
                (0..8)
                    .filter(move |b| c >> (8 * b + 7) & 1 == 1)
                    .map(move |b| 8 * g + b)
            })
            .map(|slot| self.slots[slot].0)
            .collect();
        let seed = self.seed;
        *self = NameTable::with_capacity(n.max(self.items * 2));
        self.seed = seed;
        for j in entries {
            self.enter_new(rehash(j), j);
        }
    }
}

/// The entry of group `g` (control word `c`) with this tag and high half whose name `same`
/// accepts.
#[inline(always)]
fn matching(
    slots: &[(u32, u32)],
    g: usize,
    c: u64,
    tag: u8,
    high: u32,
    same: impl Fn(u32) -> bool,
) -> Option<u32> {
    let mut m = tag_matches(c, tag);
    while m != 0 {
        let (j, h) = slots[8 * g + m.trailing_zeros() as usize / 8];
        if h == high && same(j) {
            return Some(j);
        }
        m &= m - 1;
    }
    None
}

/// The high bit of each byte of control word `c` that holds `tag` (and perhaps of the byte
/// above such a byte: the borrow of the subtraction can mark it, which the comparison of the
/// high half then turns down).
#[inline(always)]
fn tag_matches(c: u64, tag: u8) -> u64 {
    let x = c ^ (LSB * u64::from(tag));
    x.wrapping_sub(LSB) & !x & c & (LSB << 7)
}

/// The control byte of a full slot: the high bit, and the hash's top 7 bits (the group comes
/// from its low bits).
#[inline(always)]
fn tag(hash: u64) -> u8 {
    0x80 | (hash >> 57) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Enters `names` (tensor i is named `names[i]`) in batches of `batch`, one at a time when
    /// `batch` is 1, and returns the repeats reported.
    fn enter(
        t: &mut NameTable,
        names: &[u32],
        hash: &dyn Fn(u32) -> u64,
        batch: usize,
    ) -> Vec<(u32, u32)> {
        let rehash = |j: u32| hash(names[j as usize]);
        let same = |i: u32, j: u32| names[i as usize] == names[j as usize];
        let mut repeats = Vec::new();
        for (k, chunk) in names.chunks(batch).enumerate() {
            let first = (k * batch) as u32;
            if batch == 1 {
                let n = chunk[0];
                if let Some(j) = t.insert(hash(n), first, |j| names[j as usize] == n, rehash) {
                    repeats.push((first, j));
                }
            } else {
                let hashes: Vec<u64> = chunk.iter().map(|&n| hash(n)).collect();
                t.insert_run(&hashes, first, same, rehash, |i, j| repeats.push((i, j)));
            }
        }
        repeats
    }

    /// Every name is found as its first tensor and every repeat is reported against it, in
    /// order, one at a time or in batches, when hashes share their high half in groups, when
    /// they share a group, when they are all equal, and when the table starts too small and
    /// grows (entering the repeats again after their firsts).
    #[test]
    fn finds_firsts_and_reports_repeats_in_order() {
        // tensors 0..600 are named 0..600; tensors 600..900 repeat names 100..400, and tensor
        // 900 repeats 899's name within the same batch (with hashes that all collide, 899 is a
        // suspect too, and must not be reported as a repeat of 900)
        let names: Vec<u32> = (0..600).chain(100..400).chain([399]).collect();
        let expected: Vec<(u32, u32)> = (600..900)
            .map(|i| (i, i - 500))
            .chain([(900, 399)])
            .collect();
        let high_groups = |n: u32| (u64::from(n % 7) << 32) | u64::from(n);
        let shared_group = |n: u32| (u64::from(n) << 40) | 5;
        let all_equal = |_: u32| 0xdead_beef_u64;
        let hashes: [&dyn Fn(u32) -> u64; 3] = [&high_groups, &shared_group, &all_equal];
        for hash in hashes {
            for (capacity, batch) in [(names.len(), 64), (10, 64), (names.len(), 1), (10, 1)] {
                let mut t = NameTable::with_capacity(capacity);
                assert_eq!(enter(&mut t, &names, hash, batch), expected);
                for n in 0..600u32 {
                    let found = t.find(hash(n), |j| names[j as usize] == n);
                    assert_eq!(
                        found,
                        Some(n),
                        "name {n}, capacity {capacity}, batch {batch}"
                    );
                }
                assert_eq!(t.find(hash(4000), |j| names[j as usize] == 4000), None);
            }
        }
        assert_eq!(NameTable::default().find(1, |_| true), None);
    }

    /// A name repeated 100,000 times is entered once: every repeat costs one probe of the same
    /// group (a table that entered repeats would make each one probe past all the others).
    #[test]
    fn repeats_are_never_entered() {
        let n = 100_000u32;
        let hash = |_: u32| 0x1234_5678_9abc_def0_u64;
        let mut t = NameTable::with_capacity(n as usize);
        let mut repeats = 0;
        for first in (0..n).step_by(64) {
            let hashes = vec![hash(0); 64.min(n - first) as usize];
            t.insert_run(
                &hashes,
                first,
                |_, _| true,
                hash,
                |i, j| {
                    assert_eq!((j, i > 0), (0, true));
                    repeats += 1;
                },
            );
        }
        assert_eq!((t.items, repeats), (1, n - 1));
        assert_eq!(t.find(hash(0), |_| true), Some(0));
    }

    #[test]
    fn a_table_sized_for_its_names_never_grows() {
        // no names, no table; one name into it makes one
        let mut empty = NameTable::default();
        assert!(empty.slots.is_empty() && empty.ctrl.is_empty());
        assert_eq!(empty.find(7, |_| true), None);
        assert_eq!(empty.insert(7, 0, |_| false, |_| 7), None);
        assert_eq!(empty.find(7, |j| j == 0), Some(0));
        for n in [1usize, 6, 7, 8, 100, 7167, 7168, 5000] {
            let slots = NameTable::slots_for(n);
            assert!(
                slots.is_power_of_two() && slots * 7 >= n * 8,
                "{n} names, {slots} slots"
            );
            let mut t = NameTable::with_capacity(n);
            for i in 0..n as u32 {
                let h = t.seed().hash(&i.to_le_bytes());
                assert_eq!(
                    t.insert(h, i, |_| false, |_| unreachable!("no growth")),
                    None
                );
            }
            assert_eq!(t.slots.len(), slots);
        }
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
