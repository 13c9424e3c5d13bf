//! Reading GGUF: one parser over three sources (a memory map, a borrowed slice, a stream), and
//! zero-copy views of what it found.
//!
//! No `unsafe` here (`deny`, not `forbid`, only so that the `text` submodule can hold the one
//! block that turns strings the parser checked into `&str`).
#![deny(unsafe_code)]

pub(crate) mod index;
mod name_table;
pub(crate) mod parser;
pub(crate) mod source;
pub(crate) mod text;

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::map;
use crate::types::GgmlType;
use crate::validate::{data::check_data, incomplete, Report};
use crate::value::{decode_exact, ArrayView, IndexRef, Str, Value, ValueIndex, ValueType};
pub use crate::wire::DEFAULT_ALIGNMENT;
use index::{Header, KvEntry};
use parser::{Findings, Mode, Paths, Stop};
use source::{SliceSource, StreamSource};
use text::CheckedText;

/// How strictly a file is judged when it is opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Open files that break rules which leave them readable (bool bytes other than 0/1, strings
    /// that are not UTF-8, empty or repeated keys, where the last occurrence wins, repeated or
    /// over-long tensor names, tensor data cut short). What was wrong is in [`Gguf::report`].
    /// The default (`false`) opens only files that are valid per the spec.
    pub permissive: bool,
}

impl ReadOptions {
    /// Options that open what ggml would load, and more, reporting what is wrong.
    pub fn permissive() -> Self {
        ReadOptions { permissive: true }
    }

    fn mode(&self) -> Mode {
        if self.permissive {
            Mode::Permissive
        } else {
            Mode::Strict
        }
    }
}

/// Where the bytes of a [`Gguf`] live.
enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Mapped(map::Map),
    /// A header read from a stream: tensor data is not present.
    Owned(Vec<u8>),
}

impl Bytes<'_> {
    #[inline]
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Mapped(m) => m.as_slice(),
            Bytes::Owned(v) => v,
        }
    }
}

/// A parsed GGUF file: header index plus the bytes it borrows from.
///
/// Opening reads and checks the header only; tensor data stays in the map (or the caller's slice)
/// until a [`TensorInfo::data`] call borrows it.
pub struct Gguf<'a> {
    bytes: Bytes<'a>,
    header: Header,
    report: Report,
    /// Whether the tensor data section is present in `bytes` (not for stream headers).
    has_data: bool,
    /// The real length of a remote object whose header alone is held.
    remote_len: Option<u64>,
    /// The file it was opened from (not for slices, streams and remote headers).
    path: Option<PathBuf>,
}

impl std::fmt::Debug for Gguf<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gguf")
            .field("version", &self.header.version)
            .field("endian", &self.header.endian)
            .field("kv_count", &self.header.kvs.len())
            .field("tensor_count", &self.header.tensors.len())
            .field("alignment", &self.header.alignment)
            .field("data_offset", &self.header.data_offset)
            .finish()
    }
}

impl Gguf<'static> {
    /// Memory-maps and parses a file. Only the header pages are touched.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, &ReadOptions::default())
    }

    /// [`Gguf::open`] with options.
    pub fn open_with(path: impl AsRef<Path>, options: &ReadOptions) -> Result<Self> {
        let path = path.as_ref();
        let file = File::open(path)
            .map_err(|e| Error::io_at(format!("opening {}", path.display()), path, e))?;
        let map = map::Map::new(&file)
            .map_err(|e| Error::io_at(format!("mapping {}", path.display()), path, e))?;
        let bytes = Bytes::Mapped(map);
        let mut g = Self::from_storage(bytes, options.mode())?;
        g.path = Some(path.to_path_buf());
        Ok(g)
    }

    /// Reads exactly the header (through the padding before the tensor data) from a stream and
    /// returns it owned. The reader is left at the first byte of tensor data.
    ///
    /// The stream's length is unknown, so tensor data is neither read nor checked, and a declared
    /// count is checked against the bytes that actually arrive (memory follows them, never the count).
    pub fn read_header<R: Read>(reader: R) -> Result<Self> {
        Self::read_header_with(reader, &ReadOptions::default()).map(|(g, _)| g)
    }

    /// [`Gguf::read_header`] with options; also gives the reader back.
    pub fn read_header_with<R: Read>(reader: R, options: &ReadOptions) -> Result<(Self, R)> {
        let mut src = StreamSource::new(reader);
        let (r, found) = parser::parse(&mut src, options.mode());
        let header = r?;
        let (mut buf, reader) = src.into_parts();
        buf.truncate(header.data_offset as usize);
        buf.shrink_to_fit();
        let report = Report::from_findings(found, None);
        Ok((
            Gguf {
                bytes: Bytes::Owned(buf),
                header,
                report,
                has_data: false,
                remote_len: None,
                path: None,
            },
            reader,
        ))
    }
}

impl Gguf<'static> {
    /// A header parsed by the remote reader (same parser, a source that knows the object's length):
    /// `bytes` are the object's first bytes (through the data offset, and for a file without
    /// tensors through its padding), `total_len` the object's real length. The verdicts are those
    /// of a local file of that length; tensor data is not held.
    #[cfg(feature = "remote")]
    pub(crate) fn from_remote_parts(
        mut bytes: Vec<u8>,
        total_len: u64,
        header: Header,
        found: Findings,
        mode: Mode,
    ) -> Result<Self> {
        let mut report = Report::from_findings(found, None);
        check_data(&header, &bytes, total_len, &mut report);
        if mode == Mode::Strict {
            if let Some(e) = report.errors.first() {
                return Err(Error::Format(e.clone()));
            }
        }
        bytes.truncate(header.data_offset as usize);
        bytes.shrink_to_fit();
        Ok(Gguf {
            bytes: Bytes::Owned(bytes),
            header,
            report,
            has_data: false,
            remote_len: Some(total_len),
            path: None,
        })
    }
}

impl<'a> Gguf<'a> {
    /// Parses a GGUF held in memory. The slice starts at the GGUF's first byte; bytes after the
    /// length the header implies are allowed (and reported as trailing data).
    pub fn from_bytes(bytes: &'a [u8]) -> Result<Self> {
        Self::from_bytes_with(bytes, &ReadOptions::default())
    }

    /// [`Gguf::from_bytes`] with options.
    pub fn from_bytes_with(bytes: &'a [u8], options: &ReadOptions) -> Result<Self> {
        Self::from_storage(Bytes::Borrowed(bytes), options.mode())
    }

    fn from_storage(bytes: Bytes<'a>, mode: Mode) -> Result<Self> {
        let (r, found) = parser::parse(&mut SliceSource(bytes.get()), mode);
        let header = r?;
        let mut report = Report::from_findings(found, None);
        check_data(&header, bytes.get(), bytes.get().len() as u64, &mut report);
        if mode == Mode::Strict {
            if let Some(e) = report.errors.first() {
                return Err(Error::Format(e.clone()));
            }
        }
        Ok(Gguf {
            bytes,
            header,
            report,
            has_data: true,
            remote_len: None,
            path: None,
        })
    }

    /// Hints that all the tensor data is about to be read front to back (hashing, diffing,
    /// copying, dequantizing a whole model), so the kernel reads ahead. No effect on slices and
    /// stream headers.
    pub fn advise_sequential(&self) {
        if let Bytes::Mapped(m) = &self.bytes {
            m.advise_sequential();
        }
    }

    /// The format version (2 or 3).
    pub fn version(&self) -> u32 {
        self.header.version
    }

    /// The byte order of the file.
    pub fn endian(&self) -> Endian {
        self.header.endian
    }

    /// The alignment of tensor data: `general.alignment`, or 32.
    pub fn alignment(&self) -> u32 {
        self.header.alignment
    }

    /// Offset of the tensor data section from the start of the GGUF.
    pub fn data_offset(&self) -> u64 {
        self.header.data_offset
    }

    /// The length the header implies (the spec's `len_file`): data start plus the last tensor's
    /// padded end.
    pub fn expected_len(&self) -> u64 {
        self.header.file_size
    }

    /// Bytes actually present (the file, slice or remote object length); `None` for a header
    /// read from a stream.
    pub fn actual_len(&self) -> Option<u64> {
        if self.has_data {
            Some(self.bytes.get().len() as u64)
        } else {
            self.remote_len
        }
    }

    /// The file this was opened from by [`Gguf::open`] or [`Gguf::open_with`], as given; `None`
    /// for a slice, a stream or a remote header. The writers that copy tensor data file to file
    /// (edits, conversions, splits) read it from this path.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What was found wrong or worth a warning while opening (errors only in permissive mode).
    pub fn report(&self) -> &Report {
        &self.report
    }

    /// The header bytes, from the magic to the start of the tensor data.
    pub fn header_bytes(&self) -> &[u8] {
        &self.bytes.get()[..self.header.data_offset as usize]
    }

    /// All bytes: the whole file or slice (for a stream, the header only).
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.get()
    }

    // ---- metadata -------------------------------------------------------------------------

    /// Number of key-value pairs.
    pub fn kv_count(&self) -> usize {
        self.header.kvs.len()
    }

    /// The key-value pairs in file order.
    #[inline]
    pub fn metadata(&self) -> impl ExactSizeIterator<Item = Kv<'_>> + '_ {
        self.header.kvs.iter().map(move |e| self.kv(e))
    }

    /// Key-value pair `i` in file order.
    pub fn kv_at(&self, i: usize) -> Option<Kv<'_>> {
        self.header.kvs.get(i).map(|e| self.kv(e))
    }

    #[inline]
    fn kv(&self, e: KvEntry) -> Kv<'_> {
        make_kv(
            self.bytes.get(),
            self.header.endian,
            e,
            Some(&self.header.value_index),
        )
    }

    /// Position of `key` among the key-value pairs (the last occurrence, when permissive reading
    /// let a repeated key through).
    pub fn kv_index(&self, key: &str) -> Option<usize> {
        self.header.key_position(self.bytes.get(), key.as_bytes())
    }

    /// The key-value pair with this key, in O(1).
    pub fn get_kv(&self, key: &str) -> Option<Kv<'_>> {
        self.kv_index(key).and_then(|i| self.kv_at(i))
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<Value<'_>> {
        self.get_kv(key).map(|kv| kv.value)
    }

    /// A string value; `None` when absent, not a string, or not UTF-8.
    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(|v| v.as_str())
    }

    /// An integer value of any integer type that fits in `u32`.
    pub fn get_u32(&self, key: &str) -> Option<u32> {
        self.get_u64(key).and_then(|v| u32::try_from(v).ok())
    }

    /// An integer value of any integer type that fits in `u64`.
    pub fn get_u64(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(|v| v.as_u64())
    }

    /// An integer value of any integer type that fits in `i64`.
    pub fn get_i64(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(|v| v.as_i64())
    }

    /// A float32 value.
    pub fn get_f32(&self, key: &str) -> Option<f32> {
        match self.get(key)? {
            Value::F32(v) => Some(v),
            _ => None,
        }
    }

    /// Any numeric value as `f64`.
    pub fn get_f64(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(|v| v.as_f64())
    }

    /// A bool value.
    pub fn get_bool(&self, key: &str) -> Option<bool> {
        self.get(key).and_then(|v| v.as_bool())
    }

    /// An array value.
    pub fn get_array(&self, key: &str) -> Option<ArrayView<'_>> {
        self.get(key).and_then(|v| v.as_array())
    }

    /// `general.architecture` (`llama`, `gemma3`, ...).
    pub fn architecture(&self) -> Option<&str> {
        self.get_str("general.architecture")
    }

    /// `general.name`.
    pub fn model_name(&self) -> Option<&str> {
        self.get_str("general.name")
    }

    /// An architecture-scoped integer hyperparameter: `{arch}.{suffix}` (e.g. `context_length`).
    pub fn arch_u64(&self, suffix: &str) -> Option<u64> {
        let arch = self.architecture()?;
        self.get_u64(&format!("{arch}.{suffix}"))
    }

    /// `{arch}.context_length`.
    pub fn context_length(&self) -> Option<u64> {
        self.arch_u64("context_length")
    }

    /// `{arch}.embedding_length`.
    pub fn embedding_length(&self) -> Option<u64> {
        self.arch_u64("embedding_length")
    }

    /// `{arch}.block_count`.
    pub fn block_count(&self) -> Option<u64> {
        self.arch_u64("block_count")
    }

    /// `{arch}.attention.head_count` (the first entry when it is a per-layer array).
    pub fn head_count(&self) -> Option<u64> {
        self.arch_scalar_or_first("attention.head_count")
    }

    /// `{arch}.attention.head_count_kv` (the first entry when it is a per-layer array).
    pub fn head_count_kv(&self) -> Option<u64> {
        self.arch_scalar_or_first("attention.head_count_kv")
    }

    fn arch_scalar_or_first(&self, suffix: &str) -> Option<u64> {
        let arch = self.architecture()?;
        match self.get(&format!("{arch}.{suffix}"))? {
            Value::Array(a) => a.get(0).and_then(|v| v.as_u64()),
            v => v.as_u64(),
        }
    }

    // ---- tensors --------------------------------------------------------------------------

    /// Number of tensors.
    pub fn tensor_count(&self) -> usize {
        self.header.tensors.len()
    }

    /// The tensor infos in file order.
    #[inline]
    pub fn tensors(&self) -> impl ExactSizeIterator<Item = TensorInfo<'_>> + '_ {
        self.header.tensors.iter().map(move |t| self.tensor_info(t))
    }

    /// Tensor `i` in file order.
    #[inline]
    pub fn tensor_at(&self, i: usize) -> Option<TensorInfo<'_>> {
        self.header.tensors.get(i).map(|t| self.tensor_info(t))
    }

    /// The tensor with this name, in O(1) (the first one, when permissive reading let a repeated
    /// name through).
    pub fn tensor(&self, name: &str) -> Option<TensorInfo<'_>> {
        let j = self
            .header
            .tensor_position(self.bytes.get(), name.as_bytes())?;
        Some(self.tensor_info(self.header.tensors.at(j)))
    }

    /// Total bytes of tensor data (without padding).
    pub fn tensor_data_size(&self) -> u64 {
        self.tensors().map(|t| t.size()).sum()
    }

    /// Total number of elements (parameters) over all tensors.
    pub fn parameter_count(&self) -> u64 {
        self.tensors().map(|t| t.n_elements).sum()
    }

    #[inline]
    fn tensor_info(&self, t: u64) -> TensorInfo<'_> {
        let data_offset = self.header.data_offset;
        make_tensor_info(
            self.bytes.get(),
            self.header.endian,
            t,
            data_offset,
            self.has_data,
            self.header.value_index.text,
        )
    }
}

/// A key-value pair from its parsed position (the parser checked every byte of it).
///
/// `nested` is the parser's record of where nested arrays end (absent for a header whose parse
/// stopped: its arrays are then measured as they are walked).
#[inline]
fn make_kv<'a>(
    src: &'a [u8],
    endian: Endian,
    e: KvEntry,
    nested: Option<&'a ValueIndex>,
) -> Kv<'a> {
    let key = index::key_bytes(src, e, endian);
    let type_pos = e.start as usize + 8 + key.len();
    let vt = endian.u32(src[type_pos..type_pos + 4].try_into().expect("4 bytes"));
    let vt = ValueType::from_id(vt).expect("checked by the parser");
    let raw = &src[e.start as usize..e.end as usize];
    let value_bytes = &src[type_pos + 4..e.end as usize];
    let nested = nested.map(|index| IndexRef {
        index,
        origin: src.as_ptr() as usize,
    });
    let value = decode_exact(vt, value_bytes, endian, nested).expect("checked by the parser");
    Kv {
        key: Str::of_header(key, nested.and_then(|n| n.index.text)),
        value,
        offset: e.start,
        raw,
    }
}

/// A tensor info from its parsed position `start`; `data_offset` is where the data section starts.
#[inline]
fn make_tensor_info(
    src: &[u8],
    e: Endian,
    start: u64,
    data_offset: u64,
    has_data: bool,
    checked: Option<CheckedText>,
) -> TensorInfo<'_> {
    let f = index::info_fields(src, e, start);
    let ty = GgmlType::from_id(f.type_id).expect("checked by the parser");
    let dims = f.dims;
    // the parser checked the exact product (0 when a dimension is 0, else at most i64::MAX), so
    // a plain product is it
    // (a tree of products: two multiplications deep, not four)
    let n_elements = (dims[0].wrapping_mul(dims[1])).wrapping_mul(dims[2].wrapping_mul(dims[3]));
    let (name, n_dims, offset) = (f.name, f.n_dims, f.offset);
    TensorInfo {
        name: Str::of_header(name, checked),
        n_dims,
        dims,
        ty,
        offset,
        n_elements,
        info_offset: start,
        data_offset: data_offset + offset,
        file: has_data.then_some(src),
        endian: e,
    }
}

/// One key-value pair, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct Kv<'a> {
    /// The key (UTF-8 in valid files).
    pub key: Str<'a>,
    /// The value.
    pub value: Value<'a>,
    /// Byte offset of the pair (its key length field) from the start of the GGUF.
    pub offset: u64,
    /// The whole encoded pair, as in the file: what a writer copies to keep it bit for bit.
    pub raw: &'a [u8],
}

impl<'a> Kv<'a> {
    /// The key as text (lossy for the rare invalid key let through by permissive reading).
    pub fn key(&self) -> std::borrow::Cow<'a, str> {
        self.key.to_string_lossy()
    }

    /// The value's type.
    pub fn value_type(&self) -> ValueType {
        self.value.value_type()
    }

    /// Where each field of the pair lies in the file.
    pub fn spans(&self) -> crate::wire::KvSpans {
        crate::wire::KvSpans::of(self)
    }
}

/// One tensor info with its data, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct TensorInfo<'a> {
    name: Str<'a>,
    n_dims: u32,
    dims: [u64; 4],
    ty: GgmlType,
    offset: u64,
    n_elements: u64,
    info_offset: u64,
    data_offset: u64,
    /// The whole file, when its data is there (not for a header read from a stream): the size
    /// and the data are worked out when asked, so that walking the infos does not pay for them.
    file: Option<&'a [u8]>,
    endian: Endian,
}

impl<'a> TensorInfo<'a> {
    /// The name (lossy for names that are not UTF-8, which only permissive reading lets through).
    #[inline]
    pub fn name(&self) -> std::borrow::Cow<'a, str> {
        self.name.to_string_lossy()
    }

    /// The name's raw bytes.
    #[inline]
    pub fn name_bytes(&self) -> &'a [u8] {
        self.name.as_bytes()
    }

    /// The ggml type.
    #[inline]
    pub fn ggml_type(&self) -> GgmlType {
        self.ty
    }

    /// The dimensions as stored, ne0 (the contiguous one) first; `n_dims` entries.
    #[inline]
    pub fn shape(&self) -> &[u64] {
        &self.dims[..self.n_dims as usize]
    }

    /// Number of dimensions (0 to 4).
    #[inline]
    pub fn n_dims(&self) -> u32 {
        self.n_dims
    }

    /// The four ggml dimensions, missing ones as 1.
    #[inline]
    pub fn ne(&self) -> [u64; 4] {
        self.dims
    }

    /// Number of elements.
    #[inline]
    pub fn n_elements(&self) -> u64 {
        self.n_elements
    }

    /// Bytes of data, without padding.
    #[inline]
    pub fn size(&self) -> u64 {
        // the parser checked the byte size of every tensor it read
        self.ty.bytes_for(self.n_elements).unwrap_or(0)
    }

    /// Offset of the data relative to the tensor data section (as stored).
    #[inline]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Offset of the data from the start of the GGUF.
    #[inline]
    pub fn absolute_offset(&self) -> u64 {
        self.data_offset
    }

    /// Offset of this tensor info in the header.
    pub fn info_offset(&self) -> u64 {
        self.info_offset
    }

    /// Byte order of the data.
    pub fn endian(&self) -> Endian {
        self.endian
    }

    /// The tensor's bytes, borrowed from the map or slice with no copy. `None` for a header read
    /// from a stream, or data cut short in a file opened permissively.
    #[inline]
    pub fn data(&self) -> Option<&'a [u8]> {
        let start = usize::try_from(self.data_offset).ok()?;
        let end = start.checked_add(usize::try_from(self.size()).ok()?)?;
        self.file?.get(start..end)
    }

    /// Where each field of the info lies in the file.
    pub fn spans(&self) -> crate::wire::InfoSpans {
        crate::wire::InfoSpans::of(self)
    }

    /// Where the data lies in the file (without its padding).
    pub fn data_span(&self) -> crate::wire::Span {
        crate::wire::Span::new(self.data_offset, self.size())
    }

    /// Bytes in one row (ne0 elements).
    pub fn row_size(&self) -> u64 {
        self.ty.bytes_for(self.dims[0]).unwrap_or(0)
    }
}

/// A whole file, memory-mapped read-only: for callers that need the bytes themselves, such as
/// [`outline`] of a file that may not parse.
pub struct MappedFile(map::Map);

impl MappedFile {
    /// Maps the file (an empty file gives an empty slice).
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let file = File::open(path)
            .map_err(|e| Error::io_at(format!("opening {}", path.display()), path, e))?;
        let map = map::Map::new(&file)
            .map_err(|e| Error::io_at(format!("mapping {}", path.display()), path, e))?;
        Ok(MappedFile(map))
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        self.0.as_slice()
    }
}

/// How far the parser got through a GGUF in memory, whether or not the file is valid: for tools
/// that map a file's structure (a byte layout, a hex editor's structure view) and must show a
/// broken file up to the field where it breaks.
///
/// Parsing is permissive, so rules that leave the structure readable (bool bytes, UTF-8, repeated
/// keys or names) do not stop it; they are in `report` with the rest.
#[derive(Debug)]
pub struct Outline<'a> {
    /// The byte order, as detected from the version field (little-endian when the file stops
    /// before it).
    pub endian: Endian,
    /// Every key-value pair read completely, in file order.
    pub kvs: Vec<Kv<'a>>,
    /// Every tensor info read completely, in file order. Their data is borrowed only when the whole
    /// header was read (`data_offset` is `Some`); otherwise [`TensorInfo::data`] is `None` and
    /// [`TensorInfo::absolute_offset`] equals [`TensorInfo::offset`].
    pub tensors: Vec<TensorInfo<'a>>,
    /// Where the tensor data starts, when the header was read to its end.
    pub data_offset: Option<u64>,
    /// The alignment of tensor data, when the header was read to its end.
    pub alignment: Option<u32>,
    /// The length the header implies (`file_size`), when the header was read to its end.
    pub expected_len: Option<u64>,
    /// Every finding, as [`validate_bytes`](crate::validate_bytes) reports them; when parsing stopped, the stop is the last error.
    pub report: Report,
    /// True when parsing stopped before the end of the header.
    pub stopped: bool,
}

/// Parses `bytes` as far as they go: see [`Outline`]. Never fails.
pub fn outline(bytes: &[u8]) -> Outline<'_> {
    let (r, found, reached) =
        parser::parse_reaching(&mut SliceSource(bytes), Mode::Permissive, Paths::Fast);
    outline_of(bytes, bytes.len() as u64, r, found, reached)
}

/// [`outline`] of a remote file `total` bytes long, from `bytes`, the prefix that
/// [`crate::remote::header_prefix`] fetched for it (exactly what the parser reads of it).
#[cfg(feature = "remote")]
pub fn outline_sized(bytes: &[u8], total: u64) -> Outline<'_> {
    let mut src = source::PrefixSource { bytes, total };
    let (r, found, reached) = parser::parse_reaching(&mut src, Mode::Permissive, Paths::Fast);
    outline_of(bytes, total, r, found, reached)
}

fn outline_of<'a>(
    bytes: &'a [u8],
    total: u64,
    r: std::result::Result<Header, Stop>,
    found: Findings,
    reached: parser::Reached,
) -> Outline<'a> {
    match r {
        Ok(h) => {
            let mut report = Report::from_findings(found, None);
            check_data(&h, bytes, total, &mut report);
            Outline {
                endian: h.endian,
                kvs: h
                    .kvs
                    .iter()
                    .map(|e| make_kv(bytes, h.endian, e, None))
                    .collect(),
                tensors: h
                    .tensors
                    .iter()
                    .map(|t| make_tensor_info(bytes, h.endian, t, h.data_offset, true, None))
                    .collect(),
                data_offset: Some(h.data_offset),
                alignment: Some(h.alignment),
                expected_len: Some(h.file_size),
                report,
                stopped: false,
            }
        }
        Err(stop) => {
            let report = match stop {
                Stop::Rule(d) => Report::from_findings(found, Some(d)),
                Stop::Io(e) => incomplete(found, e),
            };
            let e = reached.endian;
            Outline {
                endian: e,
                kvs: reached
                    .kvs
                    .iter()
                    .map(|k| make_kv(bytes, e, k, None))
                    .collect(),
                tensors: reached
                    .tensors
                    .iter()
                    .map(|t| make_tensor_info(bytes, e, t, 0, false, None))
                    .collect(),
                data_offset: None,
                alignment: None,
                expected_len: None,
                report,
                stopped: true,
            }
        }
    }
}
