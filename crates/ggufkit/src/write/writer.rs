//! The writer: a [`GgufBuilder`] collects metadata and tensor infos, computes the layout from the
//! shapes and types alone, writes the header, and hands back a [`TensorDataWriter`] that takes each
//! tensor's bytes in order (from a slice or streamed from any `Read`), padding as it goes. Nothing
//! but the header is ever held in memory, so a 40 GB model streams through in constant space.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};

use crate::endian::Endian;
use crate::error::{Error, Missing, Result, WriteError};
use crate::read::{Gguf, Kv, DEFAULT_ALIGNMENT};
use crate::types::GgmlType;
use crate::value::ValueType;
use crate::write::endian::reencode_pair;
use crate::write::value::{put_str, OwnedValue};

/// The version written unless another is asked for.
pub const DEFAULT_VERSION: u32 = 3;
use crate::wire::{align_up, padding};
pub use crate::wire::{ALIGNMENT_KEY, MAX_TENSOR_NAME};

/// A key-value pair held by the builder: a value to encode, or a pair copied as it was read.
#[derive(Clone, Debug)]
enum Body<'a> {
    Value(OwnedValue),
    /// The whole encoded pair (key length, key, type, value), in `endian` order.
    Raw {
        bytes: Cow<'a, [u8]>,
        endian: Endian,
    },
}

#[derive(Clone, Debug)]
struct Entry<'a> {
    key: Cow<'a, [u8]>,
    body: Body<'a>,
}

impl Entry<'_> {
    fn value_type(&self) -> Option<ValueType> {
        match &self.body {
            Body::Value(v) => Some(v.value_type()),
            Body::Raw { bytes, endian } => {
                let p = 8 + self.key.len();
                let b: [u8; 4] = bytes.get(p..p + 4)?.try_into().ok()?;
                ValueType::from_id(endian.u32(b))
            }
        }
    }

    /// The value of a uint32 pair.
    fn as_u32(&self) -> Option<u32> {
        match &self.body {
            Body::Value(OwnedValue::U32(v)) => Some(*v),
            Body::Value(_) => None,
            Body::Raw { bytes, endian } => {
                if self.value_type()? != ValueType::U32 {
                    return None;
                }
                let p = 8 + self.key.len() + 4;
                Some(endian.u32(bytes.get(p..p + 4)?.try_into().ok()?))
            }
        }
    }
}

impl Entry<'_> {
    /// The value of a `general.alignment` pair, checked as [`GgufBuilder::set`] checks it.
    fn alignment(&self) -> Result<u32> {
        let (bytes, endian) = match &self.body {
            Body::Value(v) => return check_alignment_value(v),
            Body::Raw { bytes, endian } => (bytes, *endian),
        };
        let at = 8 + self.key.len();
        let ends_inside = |what: &str, offset: usize| WriteError::PairTruncated {
            inside: what.into(),
            offset,
        };
        let id = bytes
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(|b| endian.u32(b))
            .ok_or_else(|| ends_inside("the value type", at))?;
        match ValueType::from_id(id) {
            None => Err(WriteError::PairValueType { id, offset: at }.into()),
            Some(ValueType::U32) => {
                let a = self
                    .as_u32()
                    .ok_or_else(|| ends_inside("the value", at + 4))?;
                check_alignment_value(&OwnedValue::U32(a))
            }
            Some(found) => Err(WriteError::AlignmentType { found }.into()),
        }
    }
}

/// A tensor to be written: name, type, shape as stored (ne0 first), and optionally its bytes.
#[derive(Clone, Debug)]
pub struct TensorSpec<'a> {
    name: Cow<'a, [u8]>,
    ty: GgmlType,
    shape: Vec<u64>,
    size: u64,
    data: Option<&'a [u8]>,
}

impl<'a> TensorSpec<'a> {
    /// The name (lossy if it is not UTF-8).
    pub fn name(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.name)
    }

    /// The name's bytes.
    pub fn name_bytes(&self) -> &[u8] {
        &self.name
    }

    /// The type.
    pub fn ggml_type(&self) -> GgmlType {
        self.ty
    }

    /// The shape as stored (ne0 first).
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }

    /// Bytes of data, without padding.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The bytes attached with [`GgufBuilder::add_tensor_with_data`], if any.
    pub fn data(&self) -> Option<&'a [u8]> {
        self.data
    }
}

/// Where everything goes in the file the builder describes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Alignment of tensor data.
    pub alignment: u32,
    /// Bytes from the magic through the last tensor info.
    pub header_len: u64,
    /// Start of tensor data: `header_len` rounded up to the alignment when there are tensors,
    /// `header_len` itself when there are none (the spec's `if: num_tensor_infos != 0`).
    pub data_offset: u64,
    /// Each tensor's offset relative to `data_offset`.
    pub offsets: Vec<u64>,
    /// Each tensor's size in bytes, without padding.
    pub sizes: Vec<u64>,
    /// Length of the whole file, padding after the last tensor included.
    pub total_len: u64,
}

/// Builds a GGUF file: metadata of every type, tensor infos, then the data.
///
/// ```
/// use ggufkit::write::GgufBuilder;
/// use ggufkit::{GgmlType, Gguf};
///
/// let weights: Vec<u8> = (0..16u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
/// let mut b = GgufBuilder::new();
/// b.set("general.architecture", "llama")?;
/// b.set("llama.context_length", 4096u32)?;
/// b.set("tokenizer.ggml.tokens", vec!["<s>", "</s>"])?;
/// b.add_tensor_with_data("w", GgmlType::F32, &[4, 4], &weights)?;
/// let bytes = b.to_vec()?;
///
/// let g = Gguf::from_bytes(&bytes)?;
/// assert_eq!(g.get_u64("llama.context_length"), Some(4096));
/// assert_eq!(g.tensor("w").unwrap().data(), Some(&weights[..]));
/// # Ok::<(), ggufkit::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct GgufBuilder<'a> {
    endian: Endian,
    version: u32,
    entries: Vec<Entry<'a>>,
    /// Where each key first appears in `entries`: setting n keys takes n lookups, not a scan of
    /// every key before each one.
    key_positions: HashMap<Vec<u8>, usize>,
    tensors: Vec<TensorSpec<'a>>,
    /// The names in `tensors`, for the duplicate check.
    tensor_names: HashSet<Vec<u8>>,
    tensorless_padding: bool,
}

impl Default for GgufBuilder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> GgufBuilder<'a> {
    /// An empty little-endian version 3 file.
    pub fn new() -> Self {
        GgufBuilder {
            endian: Endian::Little,
            version: DEFAULT_VERSION,
            entries: Vec::new(),
            key_positions: HashMap::new(),
            tensors: Vec::new(),
            tensor_names: HashSet::new(),
            tensorless_padding: false,
        }
    }

    /// Everything in `g`: version, byte order, every pair copied bit for bit, every tensor info
    /// and (when `g` holds data) each tensor's bytes borrowed. Writing it back reproduces a file
    /// laid out as the spec lays it out byte for byte, including the zero padding some writers add
    /// after the header of a file without tensors. A tensor of a type this build cannot size (a
    /// permissive reading lets one through) is refused: [`Error::UnsupportedTensorType`].
    pub fn from_gguf(g: &'a Gguf<'_>) -> Result<Self> {
        let mut b = GgufBuilder::new();
        b.endian = g.endian();
        b.version = g.version();
        b.entries = g
            .metadata()
            .map(|kv| Entry {
                key: Cow::Borrowed(kv.key.as_bytes()),
                body: Body::Raw {
                    bytes: Cow::Borrowed(kv.raw),
                    endian: g.endian(),
                },
            })
            .collect();
        b.tensors = g
            .tensors()
            .map(|t| {
                Ok(TensorSpec {
                    name: Cow::Borrowed(t.name_bytes()),
                    ty: t.ggml_type()?,
                    shape: t.shape().to_vec(),
                    size: t.size(),
                    data: t.data(),
                })
            })
            .collect::<Result<_>>()?;
        b.index_keys();
        b.tensor_names = b.tensors.iter().map(|t| t.name.to_vec()).collect();
        b.tensorless_padding = has_tensorless_padding(g);
        Ok(b)
    }

    /// Sets the byte order of everything written (header, metadata). Tensor bytes are written as
    /// given: converting them is [`crate::write::convert`]'s job.
    pub fn endian(&mut self, e: Endian) -> &mut Self {
        self.endian = e;
        self
    }

    /// The byte order written.
    pub fn get_endian(&self) -> Endian {
        self.endian
    }

    /// Sets the version: 3 (the default) or 2 (same layout, older number).
    pub fn version(&mut self, v: u32) -> Result<&mut Self> {
        if !(2..=3).contains(&v) {
            return Err(WriteError::Version { version: v }.into());
        }
        self.version = v;
        Ok(self)
    }

    /// Whether a file without tensors gets zero padding up to the alignment after its header, as
    /// ggml's and gguf-py's writers add. Off by default: the spec ends such a file right after the
    /// header. Ignored when there are tensors.
    pub fn tensorless_padding(&mut self, on: bool) -> &mut Self {
        self.tensorless_padding = on;
        self
    }

    // ---- metadata ----------------------------------------------------------------------------

    fn position(&self, key: &[u8]) -> Option<usize> {
        self.key_positions.get(key).copied()
    }

    /// Rebuilds `key_positions` after entries moved.
    fn index_keys(&mut self) {
        self.key_positions.clear();
        for (i, e) in self.entries.iter().enumerate() {
            self.key_positions.entry(e.key.to_vec()).or_insert(i);
        }
    }

    /// Appends an entry whose key is not present.
    fn push_entry(&mut self, entry: Entry<'a>) {
        self.key_positions
            .insert(entry.key.to_vec(), self.entries.len());
        self.entries.push(entry);
    }

    /// Sets `key` to `value`: a key already present keeps its place, a new key goes last.
    ///
    /// (ggml's `gguf_set_*` moves a key it sets to the end; keeping the place makes an edit touch
    /// the fewest bytes, which is what lets most edits happen in place.)
    pub fn set(&mut self, key: &str, value: impl Into<OwnedValue>) -> Result<()> {
        if key.is_empty() {
            return Err(WriteError::EmptyKey.into());
        }
        let value = value.into();
        if key == ALIGNMENT_KEY {
            check_alignment_value(&value)?;
        }
        let body = Body::Value(value);
        match self.position(key.as_bytes()) {
            Some(i) => self.entries[i].body = body,
            None => self.push_entry(Entry {
                key: Cow::Owned(key.as_bytes().to_vec()),
                body,
            }),
        }
        Ok(())
    }

    /// Removes `key`; false when it was not there.
    pub fn remove(&mut self, key: &str) -> bool {
        match self.position(key.as_bytes()) {
            Some(i) => {
                self.entries.remove(i);
                self.index_keys();
                true
            }
            None => false,
        }
    }

    /// True when `key` is set.
    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key.as_bytes()).is_some()
    }

    /// The type of `key`'s value.
    pub fn value_type(&self, key: &str) -> Option<ValueType> {
        self.position(key.as_bytes())
            .and_then(|i| self.entries[i].value_type())
    }

    /// Copies a pair read from a file bit for bit (re-encoded only if `endian` differs from the
    /// order written). A key already present is replaced in its place.
    pub fn copy_kv(&mut self, kv: &Kv<'a>, endian: Endian) -> Result<()> {
        let key = kv.key.as_bytes();
        if key.is_empty() {
            return Err(WriteError::EmptyKey.into());
        }
        let entry = Entry {
            key: Cow::Borrowed(key),
            body: Body::Raw {
                bytes: Cow::Borrowed(kv.raw),
                endian,
            },
        };
        if key == ALIGNMENT_KEY.as_bytes() {
            entry.alignment()?;
        }
        match self.position(key) {
            Some(i) => self.entries[i] = entry,
            None => self.push_entry(entry),
        }
        Ok(())
    }

    /// Keys in order (lossy for keys that are not UTF-8).
    pub fn keys(&self) -> impl Iterator<Item = Cow<'_, str>> {
        self.entries.iter().map(|e| String::from_utf8_lossy(&e.key))
    }

    /// Number of key-value pairs.
    pub fn kv_count(&self) -> usize {
        self.entries.len()
    }

    /// Keeps only the pairs whose key satisfies `keep`.
    pub fn retain_keys(&mut self, mut keep: impl FnMut(&[u8]) -> bool) {
        self.entries.retain(|e| keep(&e.key));
        self.index_keys();
    }

    /// The alignment the file will have: `general.alignment` when set, else 32.
    pub fn alignment(&self) -> Result<u32> {
        match self.position(ALIGNMENT_KEY.as_bytes()) {
            None => Ok(DEFAULT_ALIGNMENT),
            Some(i) => self.entries[i].alignment(),
        }
    }

    // ---- tensors -----------------------------------------------------------------------------

    /// Adds a tensor whose bytes will be given to the [`TensorDataWriter`] later.
    pub fn add_tensor(&mut self, name: &str, ty: GgmlType, shape: &[u64]) -> Result<()> {
        self.add_tensor_bytes_name(Cow::Owned(name.as_bytes().to_vec()), ty, shape, None)
    }

    /// Adds a tensor with its bytes, borrowed until the file is written.
    pub fn add_tensor_with_data(
        &mut self,
        name: &str,
        ty: GgmlType,
        shape: &[u64],
        data: &'a [u8],
    ) -> Result<()> {
        self.add_tensor_bytes_name(Cow::Owned(name.as_bytes().to_vec()), ty, shape, Some(data))
    }

    /// Adds a tensor with a name given as bytes (names copied from a file).
    pub fn add_tensor_raw_name(
        &mut self,
        name: &'a [u8],
        ty: GgmlType,
        shape: &[u64],
        data: Option<&'a [u8]>,
    ) -> Result<()> {
        self.add_tensor_bytes_name(Cow::Borrowed(name), ty, shape, data)
    }

    fn add_tensor_bytes_name(
        &mut self,
        name: Cow<'a, [u8]>,
        ty: GgmlType,
        shape: &[u64],
        data: Option<&'a [u8]>,
    ) -> Result<()> {
        let shown = String::from_utf8_lossy(&name).into_owned();
        if name.len() > MAX_TENSOR_NAME {
            return Err(WriteError::TensorNameTooLong {
                name: shown,
                len: name.len(),
            }
            .into());
        }
        let size = tensor_size(&shown, ty, shape)?;
        if let Some(d) = data {
            if d.len() as u64 != size {
                return Err(WriteError::AttachedDataSize {
                    name: shown,
                    ty,
                    shape: shape.to_vec(),
                    expected: size,
                    given: d.len() as u64,
                }
                .into());
            }
        }
        if !self.tensor_names.insert(name.to_vec()) {
            return Err(WriteError::DuplicateTensor { name: shown }.into());
        }
        self.tensors.push(TensorSpec {
            name,
            ty,
            shape: shape.to_vec(),
            size,
            data,
        });
        Ok(())
    }

    /// The tensors, in the order they will be written.
    pub fn tensors(&self) -> &[TensorSpec<'a>] {
        &self.tensors
    }

    /// Removes every tensor.
    pub fn clear_tensors(&mut self) {
        self.tensors.clear();
        self.tensor_names.clear();
    }

    /// Replaces the type of tensor `i` (its bytes must then be given to the data writer).
    pub fn retype_tensor(&mut self, i: usize, ty: GgmlType) -> Result<()> {
        let t = self
            .tensors
            .get_mut(i)
            .ok_or(Missing::TensorIndex { index: i })?;
        let shown = String::from_utf8_lossy(&t.name).into_owned();
        t.size = tensor_size(&shown, ty, &t.shape)?;
        t.ty = ty;
        t.data = None;
        Ok(())
    }

    // ---- layout and output -------------------------------------------------------------------

    /// Computes where everything goes, from the shapes and types alone.
    pub fn layout(&self) -> Result<Layout> {
        let alignment = self.alignment()?;
        let align = u64::from(alignment);
        let mut header_len: u64 = 4 + 4 + 8 + 8;
        for e in &self.entries {
            header_len += self.entry_len(e)?;
        }
        let mut offsets = Vec::with_capacity(self.tensors.len());
        let mut sizes = Vec::with_capacity(self.tensors.len());
        let mut next: u64 = 0;
        for t in &self.tensors {
            header_len += 8 + t.name.len() as u64 + 4 + 8 * t.shape.len() as u64 + 4 + 8;
            offsets.push(next);
            sizes.push(t.size);
            next = align_up(t.size, align)
                .and_then(|s| next.checked_add(s))
                .ok_or(WriteError::DataTooLarge)?;
        }
        let data_offset = if self.tensors.is_empty() {
            header_len
        } else {
            align_up(header_len, align).ok_or(WriteError::FileTooLarge)?
        };
        let mut total_len = data_offset
            .checked_add(next)
            .ok_or(WriteError::FileTooLarge)?;
        if self.tensors.is_empty() && self.tensorless_padding {
            total_len = align_up(header_len, align).ok_or(WriteError::FileTooLarge)?;
        }
        Ok(Layout {
            alignment,
            header_len,
            data_offset,
            offsets,
            sizes,
            total_len,
        })
    }

    fn entry_len(&self, e: &Entry<'_>) -> Result<u64> {
        Ok(match &e.body {
            Body::Value(v) => 8 + e.key.len() as u64 + 4 + v.encoded_len() as u64,
            Body::Raw { bytes, .. } => bytes.len() as u64,
        })
    }

    /// The header (magic through the padding before the tensor data) and the layout.
    pub fn header(&self) -> Result<(Vec<u8>, Layout)> {
        let layout = self.layout()?;
        let e = self.endian;
        let cap = usize::try_from(layout.data_offset).map_err(|_| WriteError::HeaderTooLarge)?;
        let mut h = Vec::with_capacity(cap);
        h.extend_from_slice(b"GGUF");
        h.extend(e.u32_bytes(self.version));
        h.extend(e.u64_bytes(self.tensors.len() as u64));
        h.extend(e.u64_bytes(self.entries.len() as u64));
        let mut seen: HashSet<&[u8]> = HashSet::with_capacity(self.entries.len());
        for entry in &self.entries {
            if !seen.insert(&entry.key) {
                return Err(WriteError::DuplicateKey {
                    key: String::from_utf8_lossy(&entry.key).into_owned(),
                }
                .into());
            }
            match &entry.body {
                Body::Value(v) => {
                    put_str(&mut h, &entry.key, e);
                    h.extend(e.u32_bytes(v.value_type().id()));
                    v.encode(e, &mut h);
                }
                Body::Raw { bytes, endian } if *endian == e => h.extend_from_slice(bytes),
                Body::Raw { bytes, endian } => h.extend(reencode_pair(bytes, *endian, e)?),
            }
        }
        for (t, off) in self.tensors.iter().zip(&layout.offsets) {
            put_str(&mut h, &t.name, e);
            h.extend(e.u32_bytes(t.shape.len() as u32));
            for d in &t.shape {
                h.extend(e.u64_bytes(*d));
            }
            h.extend(e.u32_bytes(t.ty.id()));
            h.extend(e.u64_bytes(*off));
        }
        debug_assert_eq!(h.len() as u64, layout.header_len);
        h.resize(cap, 0);
        Ok((h, layout))
    }

    /// Writes the header to `w` and returns the writer for the tensor data, which takes each
    /// tensor's bytes in order.
    pub fn write_header<W: Write>(&self, mut w: W) -> Result<TensorDataWriter<'a, W>> {
        let (h, layout) = self.header()?;
        w.write_all(&h)
            .map_err(|e| Error::io("writing the header", e))?;
        let trailing = layout.total_len - layout.data_offset;
        Ok(TensorDataWriter {
            w,
            names: self.tensors.iter().map(|t| t.name.clone()).collect(),
            sizes: layout.sizes,
            align: u64::from(layout.alignment),
            next: 0,
            written_in_tensor: 0,
            tensorless_trailing: if self.tensors.is_empty() { trailing } else { 0 },
            progress: None,
        })
    }

    /// Writes the whole file to `w`; every tensor must have its bytes attached.
    pub fn write_to<W: Write>(&self, w: W) -> Result<W> {
        let data: Vec<&[u8]> = self
            .tensors
            .iter()
            .map(|t| {
                t.data.ok_or_else(|| {
                    WriteError::NoDataAttached {
                        name: t.name().into_owned(),
                    }
                    .into()
                })
            })
            .collect::<Result<_>>()?;
        let mut dw = self.write_header(w)?;
        for d in data {
            dw.write_tensor(d)?;
        }
        dw.finish()
    }

    /// The whole file in memory.
    pub fn to_vec(&self) -> Result<Vec<u8>> {
        self.write_to(Vec::new())
    }
}

fn check_alignment_value(v: &OwnedValue) -> Result<u32> {
    match v {
        OwnedValue::U32(a) if *a != 0 && a.is_power_of_two() => Ok(*a),
        OwnedValue::U32(a) => Err(WriteError::AlignmentValue { value: *a }.into()),
        other => Err(WriteError::AlignmentType {
            found: other.value_type(),
        }
        .into()),
    }
}

/// Bytes of a tensor of this type and shape, checked as the spec checks them.
pub fn tensor_size(name: &str, ty: GgmlType, shape: &[u64]) -> Result<u64> {
    if shape.len() > 4 {
        return Err(WriteError::TooManyDims {
            name: name.into(),
            dims: shape.len(),
        }
        .into());
    }
    if ty.is_removed() {
        return Err(WriteError::RemovedType {
            name: name.into(),
            ty,
        }
        .into());
    }
    if let Some(d) = shape.iter().find(|&&d| d > i64::MAX as u64) {
        return Err(WriteError::DimTooLarge {
            name: name.into(),
            dim: *d,
        }
        .into());
    }
    let ne0 = shape.first().copied().unwrap_or(1);
    if ne0 % ty.block_size() != 0 {
        return Err(WriteError::PartialBlock {
            name: name.into(),
            ty,
            ne0,
        }
        .into());
    }
    let n = if shape.contains(&0) {
        Some(0)
    } else {
        shape
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d))
            .filter(|&n| n <= i64::MAX as u64)
    };
    n.and_then(|n| ty.bytes_for(n))
        .filter(|&s| s <= i64::MAX as u64)
        .ok_or_else(|| {
            WriteError::SizeOverflow {
                name: name.into(),
                shape: shape.to_vec(),
            }
            .into()
        })
}

/// True when `g` has no tensors and is followed by exactly the zero padding up to the alignment
/// that ggml's and gguf-py's writers add to such files.
pub(crate) fn has_tensorless_padding(g: &Gguf<'_>) -> bool {
    if g.tensor_count() != 0 {
        return false;
    }
    let Some(actual) = g.actual_len() else {
        return false;
    };
    let end = g.expected_len();
    let align = u64::from(g.alignment());
    let Some(padded) = align_up(end, align) else {
        return false;
    };
    padded != end
        && actual == padded
        // a header read without its file (remote, in rounds) holds the padding it was judged by;
        // one that does not hold it cannot say
        && g.as_bytes()
            .get(end as usize..padded as usize)
            .is_some_and(|pad| pad.iter().all(|&b| b == 0))
}

/// A callback told how many bytes of tensor data were just written.
pub type ProgressFn = Box<dyn FnMut(u64)>;

/// Takes the tensor data, tensor by tensor in the builder's order, writing padding after each.
pub struct TensorDataWriter<'a, W> {
    w: W,
    names: Vec<Cow<'a, [u8]>>,
    sizes: Vec<u64>,
    align: u64,
    next: usize,
    written_in_tensor: u64,
    tensorless_trailing: u64,
    progress: Option<ProgressFn>,
}

const ZEROS: [u8; 4096] = [0; 4096];
/// Bytes per step when copying from a file, so progress moves on huge tensors.
const COPY_STEP: u64 = 64 << 20;

impl<'a, W: Write> TensorDataWriter<'a, W> {
    /// Reports every chunk written to `f`.
    pub fn on_progress(&mut self, f: ProgressFn) {
        self.progress = Some(f);
    }

    /// The name and size of the tensor whose bytes come next; `None` when all were written.
    pub fn next_tensor(&self) -> Option<(Cow<'_, str>, u64)> {
        let i = self.next;
        Some((
            String::from_utf8_lossy(self.names.get(i)?),
            self.sizes[i] - self.written_in_tensor,
        ))
    }

    /// Tensors still to be written (the current one included when partly written).
    pub fn remaining(&self) -> usize {
        self.names.len() - self.next
    }

    fn current(&self) -> Result<(usize, u64)> {
        match self.sizes.get(self.next) {
            Some(&s) => Ok((self.next, s)),
            None => Err(WriteError::NoMoreTensors.into()),
        }
    }

    fn name(&self, i: usize) -> String {
        String::from_utf8_lossy(&self.names[i]).into_owned()
    }

    fn report(&mut self, n: u64) {
        if let Some(p) = self.progress.as_mut() {
            p(n);
        }
    }

    /// Writes the whole of the next tensor's bytes (exactly its size).
    pub fn write_tensor(&mut self, data: &[u8]) -> Result<()> {
        let (i, size) = self.current()?;
        if self.written_in_tensor != 0 || data.len() as u64 != size {
            return Err(WriteError::TensorDataSize {
                name: self.name(i),
                expected: size,
                given: data.len() as u64 + self.written_in_tensor,
            }
            .into());
        }
        self.write_part(data)
    }

    /// Writes the next part of the current tensor; after its last byte the padding follows and
    /// the next tensor becomes current. Lets a caller transform data chunk by chunk.
    pub fn write_part(&mut self, data: &[u8]) -> Result<()> {
        let (i, size) = self.current()?;
        let left = size - self.written_in_tensor;
        if data.len() as u64 > left {
            return Err(WriteError::TensorDataSize {
                name: self.name(i),
                expected: size,
                given: self.written_in_tensor + data.len() as u64,
            }
            .into());
        }
        let r = self.w.write_all(data);
        r.map_err(|e| Error::io(format!("writing the data of tensor '{}'", self.name(i)), e))?;
        self.written_in_tensor += data.len() as u64;
        self.report(data.len() as u64);
        self.end_if_complete()
    }

    fn end_if_complete(&mut self) -> Result<()> {
        let (i, size) = self.current()?;
        if self.written_in_tensor == size {
            let pad = padding(size, self.align);
            self.zeros(pad).map_err(|e| {
                Error::io(
                    format!("writing the padding after tensor '{}'", self.name(i)),
                    e,
                )
            })?;
            self.next += 1;
            self.written_in_tensor = 0;
        }
        Ok(())
    }

    fn zeros(&mut self, mut n: u64) -> io::Result<()> {
        while n > 0 {
            let k = n.min(ZEROS.len() as u64) as usize;
            self.w.write_all(&ZEROS[..k])?;
            n -= k as u64;
        }
        Ok(())
    }

    /// Streams the next tensor's bytes from `r`: exactly its size is read (an error if `r` ends
    /// sooner). Between files on Linux, `std::io::copy` uses `copy_file_range`.
    pub fn copy_tensor<R: Read>(&mut self, r: R) -> Result<()> {
        let (i, size) = self.current()?;
        let left = size - self.written_in_tensor;
        let mut r = r.take(left);
        let n = io::copy(&mut r, &mut self.w)
            .map_err(|e| Error::io(format!("copying the data of tensor '{}'", self.name(i)), e))?;
        self.written_in_tensor += n;
        self.report(n);
        if n != left {
            return Err(WriteError::TensorDataEnded {
                name: self.name(i),
                got: self.written_in_tensor,
                expected: size,
            }
            .into());
        }
        self.end_if_complete()
    }

    /// Copies the next tensor's bytes from `file` at `offset`, in steps of 64 MiB (progress), with
    /// `copy_file_range` when the destination is a file too.
    pub fn copy_tensor_from_file(&mut self, file: &File, offset: u64) -> Result<()> {
        let (i, size) = self.current()?;
        let mut f = file;
        f.seek(SeekFrom::Start(offset)).map_err(|e| {
            Error::io(
                format!("seeking to the data of tensor '{}'", self.name(i)),
                e,
            )
        })?;
        let mut left = size - self.written_in_tensor;
        loop {
            let step = left.min(COPY_STEP);
            let n = io::copy(&mut f.take(step), &mut self.w).map_err(|e| {
                Error::io(format!("copying the data of tensor '{}'", self.name(i)), e)
            })?;
            self.written_in_tensor += n;
            left -= n;
            self.report(n);
            if n != step {
                return Err(WriteError::TensorDataEnded {
                    name: self.name(i),
                    got: self.written_in_tensor,
                    expected: size,
                }
                .into());
            }
            if left == 0 {
                break;
            }
        }
        self.end_if_complete()
    }

    /// Checks every tensor was written, writes the trailing padding of a tensor-less file when
    /// asked, flushes, and returns the writer.
    pub fn finish(mut self) -> Result<W> {
        if let Some((name, left)) = self.next_tensor() {
            return Err(WriteError::Incomplete {
                name: name.into_owned(),
                missing: left,
                tensors_left: self.remaining(),
            }
            .into());
        }
        let t = self.tensorless_trailing;
        self.zeros(t)
            .map_err(|e| Error::io("writing the padding after the header", e))?;
        self.w
            .flush()
            .map_err(|e| Error::io("flushing the output", e))?;
        Ok(self.w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `general.alignment` pair copied as read: key length, key, type id, then `value`.
    fn raw_alignment(type_id: u32, value: &[u8]) -> Entry<'static> {
        let mut bytes = (ALIGNMENT_KEY.len() as u64).to_le_bytes().to_vec();
        bytes.extend(ALIGNMENT_KEY.as_bytes());
        bytes.extend(type_id.to_le_bytes());
        bytes.extend(value);
        Entry {
            key: Cow::Borrowed(ALIGNMENT_KEY.as_bytes()),
            body: Body::Raw {
                bytes: Cow::Owned(bytes),
                endian: Endian::Little,
            },
        }
    }

    #[test]
    fn copied_alignments_are_checked_like_set_ones() {
        assert_eq!(
            raw_alignment(4, &64u32.to_le_bytes()).alignment().unwrap(),
            64
        );
        let message = |e: Entry<'_>| e.alignment().unwrap_err().to_string();
        assert_eq!(
            message(raw_alignment(4, &48u32.to_le_bytes())),
            "general.alignment is 48, expected a non-zero power of two"
        );
        assert_eq!(
            message(raw_alignment(0, &[32])),
            "general.alignment has type uint8, expected uint32"
        );
        assert_eq!(
            message(raw_alignment(13, &[])),
            "value type 13 at byte 25 is not 0..12"
        );
        assert_eq!(
            message(raw_alignment(4, &[1, 0])),
            "a key-value pair ends inside the value at byte 29"
        );
    }
}
