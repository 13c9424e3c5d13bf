//! The tensor-name index: which tensor has a given name, for O(1) lookup and for the rule that
//! names are unique (checked as the names are read: one probe per name, not a comparison of every
//! pair as in ggml).
//!
//! A hashbrown table of 8-byte entries: the tensor's index beside the high half of its name's
//! hash, so that a probe compares names in the header only when those 32 bits agree (at 100,000
//! names a false match would otherwise cost a random read of the header each).
#![forbid(unsafe_code)]

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

/// Tensor indices by name hash (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct NameTable {
    table: HashTable<(u32, u32)>,
}

impl NameTable {
    /// A table for `n` names. The caller has checked `n` against the bytes that hold the names
    /// (every tensor info takes 24 bytes at least), so the table stays proportional to the input.
    pub fn with_capacity(n: usize) -> NameTable {
        NameTable {
            table: HashTable::with_capacity(n),
        }
    }

    /// Enters tensor `index` under `hash`, or returns the index of an earlier tensor whose name is
    /// equal (`same(j)` compares the name of tensor `j` with the new one). `rehash(j)` is the hash
    /// of tensor `j`'s name, for a table that grows (one made with room for every name does not).
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
}
