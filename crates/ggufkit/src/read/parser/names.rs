//! Keys and tensor names: checked as text, entered in the key index and the name index as they
//! are read, and reported when they repeat one read before (`key.duplicate`, `tensor.duplicate`).
#![forbid(unsafe_code)]

use super::fast_infos::NameBatch;
use super::values::Keys;
use super::{PResult, Parser};
use crate::read::index::{hash_bytes, key_bytes, tensor_name, KvList, TensorList};
use crate::read::name_table::{not_plain, NameTable};
use crate::read::source::Source;
use crate::rules;

impl<S: Source> Parser<'_, S> {
    /// Checks a key or tensor name: UTF-8, and whether it holds a NUL byte (ggml compares names
    /// only up to one). Names are short and nearly always plain ASCII, checked a word at a time.
    #[inline(always)]
    pub(super) fn check_name(
        &mut self,
        start: u64,
        len: u64,
        what: &dyn Fn(&[u8]) -> String,
    ) -> PResult<()> {
        if plain_ascii(self.cur.slice(start, len)) {
            return Ok(());
        }
        self.check_name_slowly(start, len, what)
    }

    #[cold]
    fn check_name_slowly(
        &mut self,
        start: u64,
        len: u64,
        what: &dyn Fn(&[u8]) -> String,
    ) -> PResult<()> {
        if self.cur.slice(start, len).contains(&0) {
            self.saw_nul = true;
        }
        self.check_utf8(start, len, what)
    }

    /// Enters the key of pair `i` (the pair starts at `start`, its key bytes at `key_pos`) in the
    /// key index, or reports it as a repeat; a permissive parse lets the last occurrence win, as
    /// the spec says for the alignment.
    pub(super) fn enter_key(
        &mut self,
        keys: &mut Keys,
        kvs: &KvList,
        i: u64,
        start: u64,
        key_pos: u64,
        len: u64,
    ) -> PResult<()> {
        let endian = self.cur.endian;
        let src = self.cur.bytes();
        let key = self.cur.slice(key_pos, len);
        let hash = hash_bytes(&keys.hasher, key);
        let dup = keys
            .index
            .find(hash, |&j: &u32| key_bytes(src, kvs.at(j), endian) == key)
            .copied();
        let Some(j) = dup else {
            let hasher = &keys.hasher;
            keys.index.insert_unique(hash, kvs.len() as u32, |&j| {
                hash_bytes(hasher, key_bytes(src, kvs.at(j), endian))
            });
            return Ok(());
        };
        self.soft(rules::key_duplicate_violation(start, key, i, j))?;
        if let Some(slot) = keys.index.find_mut(hash, |&j2| j2 == j) {
            *slot = kvs.len() as u32;
        }
        Ok(())
    }

    /// Enters the names of a batch of fast-path infos in the index, in order, and reports each
    /// repeat. A batch at a time: each entry loads a random slot of the table, and a tight loop
    /// over many lets the processor wait for those loads together instead of one after the other
    /// (the table of 100,000 names is larger than the L2 cache).
    pub(super) fn enter_names(
        &mut self,
        name_index: &mut NameTable,
        batch: &NameBatch,
        tensors: &mut TensorList,
    ) -> PResult<()> {
        let src = self.cur.bytes();
        let e = self.cur.endian;
        let seed = *name_index.seed();
        let mut repeats = Vec::new();
        let name = |k: u32| tensor_name(src, tensors.at(k), e);
        name_index.insert_run(
            &batch.hashes[..batch.len],
            batch.first,
            |i, j| name(j) == name(i),
            |j| seed.hash(name(j)),
            |i, j| repeats.push((i, j)),
        );
        for (i, j) in repeats {
            let start = tensors.at(i);
            let d = rules::tensor_duplicate_violation(
                start,
                tensor_name(self.cur.bytes(), start, e),
                u64::from(i),
                j,
            );
            if let Err(stop) = self.soft(d) {
                // the infos from the repeat on were not read, as far as a stop goes
                tensors.truncate(i as usize);
                return Err(stop);
            }
        }
        Ok(())
    }

    /// Enters the name of tensor `i` (whose info starts at `start`) in the index, or reports it
    /// as a duplicate: one probe finds an equal name or claims the slot (the table was sized
    /// from the count).
    pub(super) fn enter_tensor_name(
        &mut self,
        name_index: &mut NameTable,
        tensors: &TensorList,
        i: u64,
        start: u64,
        name_len: u64,
    ) -> PResult<()> {
        let src = self.cur.bytes();
        let endian = self.cur.endian;
        let name = self.cur.slice(start + 8, name_len);
        let seed = *name_index.seed();
        let hash = seed.hash(name);
        let name_of = |j: u32| tensor_name(src, tensors.at(j), endian);
        let rehash = |j: u32| seed.hash(name_of(j));
        let dup = name_index.insert(hash, tensors.len() as u32, |j| name_of(j) == name, rehash);
        if let Some(j) = dup {
            self.soft(rules::tensor_duplicate_violation(start, name, i, j))?;
        }
        Ok(())
    }
}

/// True when every byte is ASCII and none is NUL: eight bytes at a time, for short names.
#[inline(always)]
pub(super) fn plain_ascii(b: &[u8]) -> bool {
    let mut bad = 0u64;
    let words = b.chunks_exact(8);
    let tail = words.remainder();
    for w in words {
        bad |= not_plain(u64::from_le_bytes(w.try_into().unwrap_or([0; 8])));
    }
    if !tail.is_empty() {
        if let Some(last) = b.last_chunk::<8>() {
            // the last eight bytes, overlapping the words already seen
            bad |= not_plain(u64::from_le_bytes(*last));
        } else {
            for &c in tail {
                bad |= u64::from(c >= 0x80 || c == 0);
            }
        }
    }
    bad == 0
}

#[cfg(test)]
mod tests {
    use super::plain_ascii;

    #[test]
    fn plain_ascii_is_ascii_without_nul() {
        let naive = |b: &[u8]| b.iter().all(|&c| c != 0 && c < 0x80);
        let mut seed = 1u64;
        for len in 0..40usize {
            for _ in 0..200 {
                let mut b: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                        b'a' + ((seed >> 40) % 26) as u8
                    })
                    .collect();
                if len > 0 {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                    let at = (seed >> 33) as usize % len;
                    b[at] = [0u8, 0x7f, 0x80, 0xff, 0x01, b'z'][(seed >> 20) as usize % 6];
                }
                assert_eq!(plain_ascii(&b), naive(&b), "{b:?}");
            }
        }
    }
}
