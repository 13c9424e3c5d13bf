//! A parsed GGUF ([`Gguf`]): where its bytes live (a map, a borrowed slice, a stream's header),
//! how it is opened from each source, and what a program asks of it (metadata by key, tensors by
//! name, the format facts).
#![forbid(unsafe_code)]

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::index::{Header, KvEntry};
use super::parser::{self, Mode};
use super::source::{SliceSource, StreamSource};
use super::stream_buffer::StreamBuffer;
use super::views::{make_kv, make_tensor_info, Kv, TensorInfo};
use super::ReadOptions;
use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::map;
use crate::read::data::check_data;
use crate::read::value::{ArrayView, Value};
use crate::rules::Report;

/// Where the bytes of a [`Gguf`] live.
enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Mapped(map::Map),
    /// A whole file handed over as a buffer.
    Owned(Vec<u8>),
    /// A stream's header (tensor data not present).
    Streamed(StreamBuffer),
}

impl Bytes<'_> {
    #[inline]
    fn get(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Mapped(m) => m.as_slice(),
            Bytes::Owned(v) => v,
            Bytes::Streamed(b) => b.filled(),
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

    /// Reads the header (through the padding before the tensor data) from any stream, a pipe,
    /// a socket or an unbuffered `File`, in chunks, and returns it owned. The reader may be
    /// read past the header; [`Gguf::read_header_with`] leaves it exactly at the data.
    ///
    /// The stream's length is unknown, so tensor data is neither read nor checked, and a declared
    /// count is checked against the bytes that actually arrive (memory follows them, never the count).
    pub fn read_header<R: Read>(reader: R) -> Result<Self> {
        Self::parse_stream(StreamSource::chunked(reader), ReadOptions::default().mode())
            .map(|(g, _)| g)
    }

    /// Reads exactly the header from a stream, with options, and gives the reader back at the
    /// first byte of tensor data. It reads as the parser asks, a read call per field, so an
    /// unbuffered `File` is slow here; [`Gguf::read_header`] reads in chunks.
    pub fn read_header_with<R: Read>(reader: R, options: &ReadOptions) -> Result<(Self, R)> {
        Self::parse_stream(StreamSource::exact(reader), options.mode())
    }

    fn parse_stream<R: Read>(mut src: StreamSource<R>, mode: Mode) -> Result<(Self, R)> {
        let (r, found) = parser::parse(&mut src, mode);
        let header = r?;
        let (mut buf, reader) = src.into_parts();
        buf.truncate(header.data_offset as usize);
        let report = found.into_report(None);
        Ok((
            Gguf {
                bytes: Bytes::Streamed(buf),
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
    /// Parses a GGUF held in a buffer it takes ownership of (bytes a program received rather
    /// than mapped): the same checks as [`Gguf::from_bytes`], without a lifetime to carry.
    pub fn from_vec(bytes: Vec<u8>) -> Result<Self> {
        Self::from_vec_with(bytes, &ReadOptions::default())
    }

    /// [`Gguf::from_vec`] with options.
    pub fn from_vec_with(bytes: Vec<u8>, options: &ReadOptions) -> Result<Self> {
        Self::from_storage(Bytes::Owned(bytes), options.mode())
    }
}

impl Gguf<'static> {
    /// A header parsed by the remote reader (same parser, a source that knows the object's length):
    /// `bytes` are the object's first bytes (through the data offset, and for a file without
    /// tensors through its padding), `total_len` the object's real length. The verdicts are those
    /// of a local file of that length; tensor data is not held.
    pub(crate) fn from_remote_parts(
        mut bytes: Vec<u8>,
        total_len: u64,
        header: Header,
        found: parser::Findings,
        mode: Mode,
    ) -> Result<Self> {
        let mut report = found.into_report(None);
        check_data(&header, &bytes, total_len, &mut report);
        if mode == Mode::Strict {
            if let Some(e) = report.errors.first() {
                return Err(Error::Format(e.clone()));
            }
        }
        // through the data offset, and a tensor-less file's padding (what an edit copies)
        let keep = crate::read::data::verdict_bytes_end(&header, total_len)
            .unwrap_or(0)
            .max(header.data_offset);
        bytes.truncate(keep as usize);
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
        let mut report = found.into_report(None);
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

    /// The trailing data by the contract's one definition, the one `validate`'s `trailing_data`
    /// warning applies: bytes after the length the header implies, except the zeros that pad a
    /// file without tensors to the alignment (ggml's writer adds them). Where they start and how
    /// many there are; `None` when there are none (or the length is unknown).
    pub fn trailing_data(&self) -> Option<(u64, u64)> {
        let actual = self.actual_len()?;
        self.report
            .warnings
            .iter()
            .find(|d| d.rule == crate::error::Rule::TrailingData)
            .map(|d| (d.offset, actual.saturating_sub(d.offset)))
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
        self.tensor_at(self.tensor_index(name)?)
    }

    /// The file-order index of the tensor with this name, in O(1) (the first one, when a name
    /// repeats): what [`Gguf::tensor_at`] takes.
    pub fn tensor_index(&self, name: &str) -> Option<usize> {
        let j = self
            .header
            .tensor_position(self.bytes.get(), name.as_bytes())?;
        Some(j as usize)
    }

    /// Total bytes of tensor data (without padding).
    pub fn tensor_data_size(&self) -> u64 {
        self.tensors().map(|t| t.size()).sum()
    }

    /// Total number of elements (parameters) over all tensors.
    pub fn parameter_count(&self) -> u64 {
        self.tensors().map(|t| t.n_elements()).sum()
    }

    #[inline]
    fn tensor_info(&self, t: u64) -> TensorInfo<'_> {
        let data_offset = self.header.data_offset;
        make_tensor_info(
            self.bytes.get(),
            self.header.endian,
            (&self.header.tensors, t),
            data_offset,
            self.has_data,
            self.header.value_index.text,
        )
    }
}
