//! The structural diff of two GGUF files: header fields, metadata added, removed and changed
//! (arrays element by element, with the first differing index), tensors added, removed and
//! changed in type, shape or data. Data is compared byte for byte in parallel, and the pairs that
//! differ are hashed (XXH64) to show their digests. The order of keys and tensors is not compared.
#![forbid(unsafe_code)]

mod data;
mod values;

use std::collections::HashSet;

use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::hash::{digest_many, Digest, HashAlgo};
use crate::progress::Progress;
use crate::read::{Gguf, Kv, TensorInfo};
use crate::value::Value;

pub use crate::error::Side;

/// A header field that differs, with A's and B's values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderChange {
    /// The format version.
    Version(u32, u32),
    /// The byte order.
    Endian(Endian, Endian),
    /// The alignment of tensor data.
    Alignment(u32, u32),
}

impl HeaderChange {
    /// The field's name: `version`, `endian`, `alignment`.
    pub fn field(&self) -> &'static str {
        match self {
            HeaderChange::Version(..) => "version",
            HeaderChange::Endian(..) => "endian",
            HeaderChange::Alignment(..) => "alignment",
        }
    }
}

/// A key in both files whose values differ.
#[derive(Clone, Debug)]
pub struct ValueChange<'a, 'b> {
    /// The key.
    pub key: String,
    /// A's value.
    pub a: Value<'a>,
    /// B's value.
    pub b: Value<'b>,
    /// For two arrays of one element type: the first index where they differ (the shorter length
    /// when one is a prefix of the other).
    pub first_difference: Option<u64>,
}

/// A tensor in both files that differs in type, shape or data.
#[derive(Clone, Debug)]
pub struct TensorChange<'a, 'b> {
    /// A's tensor.
    pub a: TensorInfo<'a>,
    /// B's tensor of the same name.
    pub b: TensorInfo<'b>,
    /// The types differ.
    pub type_changed: bool,
    /// The shapes differ.
    pub shape_changed: bool,
    /// XXH64 of A's and B's data when type and shape agree and the data differs.
    pub data: Option<(Digest, Digest)>,
}

impl TensorChange<'_, '_> {
    /// The data was compared and differs.
    pub fn data_changed(&self) -> bool {
        self.data.is_some_and(|(x, y)| x != y)
    }

    fn changed(&self) -> bool {
        self.type_changed || self.shape_changed || self.data_changed()
    }
}

/// The metadata differences, each list in its file's order.
#[derive(Clone, Debug, Default)]
pub struct MetadataDiff<'a, 'b> {
    /// Keys only in B.
    pub added: Vec<Kv<'b>>,
    /// Keys only in A.
    pub removed: Vec<Kv<'a>>,
    /// Keys in both, with different values (in A's order).
    pub changed: Vec<ValueChange<'a, 'b>>,
}

/// The tensor differences, each list in its file's order.
#[derive(Clone, Debug, Default)]
pub struct TensorsDiff<'a, 'b> {
    /// Tensors only in B.
    pub added: Vec<TensorInfo<'b>>,
    /// Tensors only in A.
    pub removed: Vec<TensorInfo<'a>>,
    /// Tensors in both that differ (in A's order).
    pub changed: Vec<TensorChange<'a, 'b>>,
}

/// Everything that differs between file A and file B.
#[derive(Clone, Debug, Default)]
pub struct Diff<'a, 'b> {
    /// Header fields, in the order version, endian, alignment.
    pub header: Vec<HeaderChange>,
    /// Metadata.
    pub metadata: MetadataDiff<'a, 'b>,
    /// Tensors.
    pub tensors: TensorsDiff<'a, 'b>,
}

impl Diff<'_, '_> {
    /// The number of differences: header fields, keys and tensors.
    pub fn count(&self) -> usize {
        self.header.len()
            + self.metadata.added.len()
            + self.metadata.removed.len()
            + self.metadata.changed.len()
            + self.tensors.added.len()
            + self.tensors.removed.len()
            + self.tensors.changed.len()
    }

    /// True when nothing differs.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }
}

/// Compares file `a` with file `b`. The data of tensors whose type and shape agree must be in
/// both files: when it is not, [`Error::InComparison`] says which file is cut short. `progress`
/// gets the bytes compared as its total, which grows by the bytes hashed when data differs.
pub fn diff<'a, 'b>(
    a: &'a Gguf<'_>,
    b: &'b Gguf<'_>,
    progress: &dyn Progress,
) -> Result<Diff<'a, 'b>> {
    let mut header = Vec::new();
    if a.version() != b.version() {
        header.push(HeaderChange::Version(a.version(), b.version()));
    }
    if a.endian() != b.endian() {
        header.push(HeaderChange::Endian(a.endian(), b.endian()));
    }
    if a.alignment() != b.alignment() {
        header.push(HeaderChange::Alignment(a.alignment(), b.alignment()));
    }
    let metadata = metadata(a, b);

    let mut removed = Vec::new();
    let mut pairs = Vec::new();
    for t in a.tensors() {
        match b.tensor(&t.name()) {
            None => removed.push(t),
            Some(u) => pairs.push((t, u)),
        }
    }
    let added = b
        .tensors()
        .filter(|u| a.tensor(&u.name()).is_none())
        .collect();

    // The data of tensors whose type and shape agree is compared byte for byte, in chunks spread
    // over the pool (comparing is cheaper than hashing both sides); only the pairs that differ are
    // then hashed, to show their digests.
    a.advise_sequential();
    b.advise_sequential();
    let cut = |side, g: &Gguf<'_>| Error::InComparison {
        side,
        source: Box::new(Error::DataCutShort {
            actual: g.actual_len().unwrap_or(0),
            needed: g.expected_len(),
        }),
    };
    let mut same_layout: Vec<(&[u8], &[u8])> = Vec::new();
    for (t, u) in &pairs {
        if t.tensor_type() == u.tensor_type() && t.shape() == u.shape() {
            let x = t.data().ok_or_else(|| cut(Side::A, a))?;
            let y = u.data().ok_or_else(|| cut(Side::B, b))?;
            same_layout.push((x, y));
        }
    }
    let compared: u64 = same_layout
        .iter()
        .map(|(x, y)| (x.len() + y.len()) as u64)
        .sum();
    progress.total(compared);
    let differs = data::differing_pairs(&same_layout, progress);
    let mut parts: Vec<&[u8]> = Vec::new();
    for ((x, y), d) in same_layout.iter().zip(&differs) {
        if *d {
            parts.push(x);
            parts.push(y);
        }
    }
    if !parts.is_empty() {
        progress.total(compared + parts.iter().map(|p| p.len() as u64).sum::<u64>());
    }
    let mut digests = digest_many(HashAlgo::Xxh64, &parts, progress).into_iter();
    let mut differs = differs.into_iter();
    let mut changed = Vec::new();
    for (t, u) in pairs {
        let type_changed = t.tensor_type() != u.tensor_type();
        let shape_changed = t.shape() != u.shape();
        let data = if !type_changed && !shape_changed && differs.next() == Some(true) {
            digests.next().zip(digests.next())
        } else {
            None
        };
        let c = TensorChange {
            a: t,
            b: u,
            type_changed,
            shape_changed,
            data,
        };
        if c.changed() {
            changed.push(c);
        }
    }
    Ok(Diff {
        header,
        metadata,
        tensors: TensorsDiff {
            added,
            removed,
            changed,
        },
    })
}

/// The metadata differences of `a` and `b`.
fn metadata<'a, 'b>(a: &'a Gguf<'_>, b: &'b Gguf<'_>) -> MetadataDiff<'a, 'b> {
    let mut removed = Vec::new();
    let mut changed = Vec::new();
    let mut keys_a = HashSet::new();
    for kv in a.metadata() {
        let key = kv.key();
        keys_a.insert(kv.key.as_bytes());
        match b.get_kv(&key) {
            None => removed.push(kv),
            Some(other) => {
                if let Some(first) = values::compare(&kv.value, &other.value) {
                    changed.push(ValueChange {
                        key: key.into_owned(),
                        a: kv.value,
                        b: other.value,
                        first_difference: first,
                    });
                }
            }
        }
    }
    let added = b
        .metadata()
        .filter(|kv| !keys_a.contains(kv.key.as_bytes()) && a.get_kv(&kv.key()).is_none())
        .collect();
    MetadataDiff {
        added,
        removed,
        changed,
    }
}
