//! The index a parse leaves behind: where each key-value pair and tensor info starts, the key and
//! name indexes, and what was learnt about arrays: positions into the checked bytes, not copies.
//! The views read everything else back from those bytes ([`info_fields`], [`key_bytes`],
//! [`tensor_name`]).
#![forbid(unsafe_code)]

use hashbrown::HashTable;

use super::name_table::NameTable;
use crate::endian::Endian;
use crate::read::value_index::ValueIndex;
use crate::rules::{element_count, MAX_DIMS};
use crate::tensor_type::TensorType;
use crate::wire::{rd32, rd64, INFO_TAIL};

/// One key-value pair: where it starts and ends in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KvEntry {
    pub start: u64,
    pub end: u64,
}

/// Positions in the header, 4 bytes each while they fit (every header below 4 GiB), 8 after: the
/// index of a header of minimal key-value pairs stays well under the header's own size.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Positions {
    low: Vec<u32>,
    high: Vec<u64>,
}

impl Positions {
    fn reserve(&mut self, n: usize) {
        self.low.reserve(n);
    }

    #[inline(always)]
    fn push(&mut self, p: u64) {
        match u32::try_from(p) {
            Ok(v) if self.high.is_empty() => self.low.push(v),
            _ => self.high.push(p),
        }
    }

    /// Appends positions in increasing order (a batch of tensor infos).
    #[inline]
    fn extend(&mut self, ps: &[u64]) {
        match ps.last() {
            Some(&last) if last <= u64::from(u32::MAX) && self.high.is_empty() => {
                self.low.extend(ps.iter().map(|&p| p as u32));
            }
            _ => ps.iter().for_each(|&p| self.push(p)),
        }
    }

    fn len(&self) -> usize {
        self.low.len() + self.high.len()
    }

    fn truncate(&mut self, n: usize) {
        let low = self.low.len();
        if n <= low {
            self.low.truncate(n);
            self.high.clear();
        } else {
            self.high.truncate(n - low);
        }
    }

    #[inline]
    fn get(&self, i: usize) -> Option<u64> {
        match self.low.get(i) {
            Some(&v) => Some(u64::from(v)),
            None => self.high.get(i - self.low.len()).copied(),
        }
    }
}

/// The key-value pairs in file order: where each starts. A pair ends where the next one starts,
/// the last one at `end`, so a pair costs one position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct KvList {
    starts: Positions,
    end: u64,
}

impl KvList {
    pub(crate) fn reserve(&mut self, n: usize) {
        self.starts.reserve(n);
    }

    pub(crate) fn push(&mut self, e: KvEntry) {
        self.starts.push(e.start);
        self.end = e.end;
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    #[inline]
    pub fn get(&self, i: usize) -> Option<KvEntry> {
        let start = self.starts.get(i)?;
        let end = match self.starts.get(i + 1) {
            Some(next) => next,
            None => self.end,
        };
        Some(KvEntry { start, end })
    }

    /// The entry of a pair known to exist (an index from the key table).
    #[inline]
    pub(crate) fn at(&self, i: u32) -> KvEntry {
        self.get(i as usize).unwrap_or(KvEntry { start: 0, end: 0 })
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = KvEntry> + '_ {
        (0..self.len()).map(move |i| self.at(i as u32))
    }
}

/// The tensor infos in file order: where each starts. Everything else (name, shape, type, offset,
/// size) is read back from the checked bytes when asked: a tensor costs one position, 4 bytes
/// in a header below 4 GiB, so opening a model writes little besides the name index.
///
/// A tensor whose type this build cannot size (a permissive reading lets it through) also has
/// its extent here: the bytes up to the next tensor's data, or to the end of the file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TensorList {
    starts: Positions,
    /// `(info start, extent)` of the tensors of unsized types, in file order.
    unsized_extents: Vec<(u64, u64)>,
}

impl TensorList {
    pub(crate) fn reserve(&mut self, n: usize) {
        self.starts.reserve(n);
    }

    #[inline]
    pub(crate) fn push(&mut self, start: u64) {
        self.starts.push(start);
    }

    /// Keeps the first `n` infos.
    pub(crate) fn truncate(&mut self, n: usize) {
        if let Some(end) = self.starts.get(n) {
            self.unsized_extents.retain(|&(s, _)| s < end);
        }
        self.starts.truncate(n);
    }

    /// Records the extent of the tensor of an unsized type whose info starts at `start` (infos
    /// are recorded in file order; recording the last one again updates it). A tensor of a type
    /// ggml sizes that has an extent here is a fork's type under a reused id.
    pub(crate) fn set_extent(&mut self, start: u64, extent: u64) {
        match self.unsized_extents.last_mut() {
            Some(last) if last.0 == start => last.1 = extent,
            _ => self.unsized_extents.push((start, extent)),
        }
    }

    /// Where the last info starts.
    pub(crate) fn last_start(&self) -> Option<u64> {
        self.starts
            .len()
            .checked_sub(1)
            .and_then(|i| self.starts.get(i))
    }

    /// The extent of the tensor of an unsized type whose info starts at `start`; `None` when it
    /// was not found (a parse that stopped before the next tensor's offset).
    pub(crate) fn extent(&self, start: u64) -> Option<u64> {
        let i = self
            .unsized_extents
            .binary_search_by_key(&start, |&(s, _)| s)
            .ok()?;
        Some(self.unsized_extents[i].1)
    }

    /// Appends the starts of a run of infos, in file order.
    #[inline]
    pub(crate) fn extend(&mut self, starts: &[u64]) {
        self.starts.extend(starts);
    }

    pub fn len(&self) -> usize {
        self.starts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.starts.len() == 0
    }

    /// Where tensor info `i` starts.
    #[inline]
    pub fn get(&self, i: usize) -> Option<u64> {
        self.starts.get(i)
    }

    /// The start of a tensor info known to exist (an index from the name table).
    #[inline]
    pub fn at(&self, i: u32) -> u64 {
        self.get(i as usize).unwrap_or(0)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = u64> + '_ {
        (0..self.len()).map(move |i| self.at(i as u32))
    }
}

/// The fields of a tensor info the parser checked, read back from the header.
pub(crate) struct InfoFields<'a> {
    pub name: &'a [u8],
    pub n_dims: u32,
    /// Missing dimensions are 1.
    pub dims: [u64; 4],
    pub type_id: u32,
    pub offset: u64,
}

/// The fields of the tensor info at `start`, which the parser checked: the info is wholly in
/// `src` and its fields are in range (anything read from elsewhere comes back as zeros, not as
/// a panic).
#[inline]
pub(crate) fn info_fields(src: &[u8], e: Endian, start: u64) -> InfoFields<'_> {
    match e {
        Endian::Little => info_fields_in::<false>(src, start),
        Endian::Big => info_fields_in::<true>(src, start),
    }
}

#[inline(always)]
fn info_fields_in<const BIG: bool>(src: &[u8], start: u64) -> InfoFields<'_> {
    let at = |p: usize| src.get(p..).unwrap_or(&[]);
    let s = start as usize;
    let name_len = rd64::<BIG>(at(s)) as usize;
    let name_end = s.saturating_add(8).saturating_add(name_len);
    let name = src.get(s.saturating_add(8)..name_end).unwrap_or(&[]);
    // the fixed fields as one array when the header goes on that far (all infos but the last of
    // a file that ends with them), else read one by one
    let (n_dims, dims, rest) = match at(name_end).first_chunk::<INFO_TAIL>() {
        Some(tail) => {
            let n_dims = (rd32::<BIG>(tail) as usize).min(MAX_DIMS as usize);
            let mut dims = [1u64; 4];
            for (d, dim) in dims.iter_mut().enumerate() {
                if d < n_dims {
                    *dim = rd64::<BIG>(&tail[4 + 8 * d..]);
                }
            }
            (n_dims, dims, &tail[4 + 8 * n_dims..])
        }
        None => {
            let fields = at(name_end);
            let n_dims = (rd32::<BIG>(fields) as usize).min(MAX_DIMS as usize);
            let field = |p: usize| fields.get(p..).unwrap_or(&[]);
            let mut dims = [1u64; 4];
            for (d, dim) in dims.iter_mut().enumerate().take(n_dims) {
                *dim = rd64::<BIG>(field(4 + 8 * d));
            }
            (n_dims, dims, field(4 + 8 * n_dims))
        }
    };
    InfoFields {
        name,
        n_dims: n_dims as u32,
        dims,
        type_id: rd32::<BIG>(rest),
        offset: rest.get(4..).map_or(0, rd64::<BIG>),
    }
}

/// The data offset (relative to the data section) and size of the tensor whose info starts at
/// `start`, read back from bytes the parser checked; a tensor of an unsized type has the extent
/// the parser recorded in `tensors`.
pub(crate) fn tensor_extent(src: &[u8], e: Endian, tensors: &TensorList, start: u64) -> (u64, u64) {
    let f = info_fields(src, e, start);
    let extent = tensors.extent(start);
    let size = match TensorType::stored(f.type_id, extent.is_some()) {
        TensorType::Ggml(ty) => element_count(&f.dims)
            .and_then(|n| ty.bytes_for(n))
            .unwrap_or(0),
        TensorType::Other(_) => extent.unwrap_or(0),
    };
    (f.offset, size)
}

/// The parsed shape of a header: positions into the bytes plus the computed layout.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    pub endian: Endian,
    pub version: u32,
    pub kvs: KvList,
    /// Indices into `kvs` and `tensors`: 4 bytes a slot (counts beyond 2^32 are refused).
    pub key_index: HashTable<u32>,
    pub tensors: TensorList,
    /// Tensor indices, each with the high half of its name's hash: a probe compares those before
    /// reading a name from the header (a random read per false match at 100,000 names).
    pub name_index: NameTable,
    /// What the parser learnt about arrays: nested array ends, text arrays.
    pub value_index: ValueIndex,
    /// The hasher the key index was built with (seeded per instance; the name index has its own).
    pub hasher: hashbrown::DefaultHashBuilder,
    pub alignment: u32,
    /// Where the tensor data starts (after the padding that follows the tensor infos).
    pub data_offset: u64,
    /// The spec's `len_file`: data start plus the last tensor's padded end.
    pub file_size: u64,
}

impl Header {
    /// Position of `key` among the key-value pairs of the header whose bytes are `src` (the last
    /// occurrence, when permissive reading let a repeated key through).
    pub(crate) fn key_position(&self, src: &[u8], key: &[u8]) -> Option<usize> {
        let hash = hash_bytes(&self.hasher, key);
        self.key_index
            .find(hash, |&j| {
                self.kvs
                    .get(j as usize)
                    .is_some_and(|e| key_bytes(src, e, self.endian) == key)
            })
            .map(|&j| j as usize)
    }

    /// Position of the tensor named `name` (the first one, when permissive reading let a
    /// repeated name through).
    pub(crate) fn tensor_position(&self, src: &[u8], name: &[u8]) -> Option<u32> {
        let hash = self.name_index.seed().hash(name);
        self.name_index.find(hash, |j| {
            tensor_name(src, self.tensors.at(j), self.endian) == name
        })
    }
}

/// The hash of a key or name in the indexes: its bytes alone, without the length prefix of
/// `Hash for [u8]` (the tables compare whole names, so only speed depends on the hash).
#[inline]
pub(crate) fn hash_bytes(h: &hashbrown::DefaultHashBuilder, b: &[u8]) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut state = h.build_hasher();
    state.write(b);
    state.finish()
}

/// The key bytes of a parsed key-value pair.
#[inline]
pub(crate) fn key_bytes(src: &[u8], kv: KvEntry, e: Endian) -> &[u8] {
    let p = kv.start as usize;
    let len = e.u64(src[p..p + 8].try_into().expect("8 bytes")) as usize;
    &src[p + 8..p + 8 + len]
}

/// The name bytes of a parsed tensor info.
#[inline]
pub(crate) fn tensor_name(src: &[u8], start: u64, e: Endian) -> &[u8] {
    let p = start as usize;
    let len = e.u64(src[p..p + 8].try_into().expect("8 bytes")) as usize;
    &src[p + 8..p + 8 + len]
}
