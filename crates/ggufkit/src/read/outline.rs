//! How far the parser got through a file that may not parse ([`Outline`]), for tools that map a
//! broken file's structure up to the field where it breaks.
#![forbid(unsafe_code)]

use std::fs::File;
use std::path::Path;

use super::index::{Header, KvList};
use super::parser::{self, Findings, Mode, Paths, Stop};
use super::source::SliceSource;
use super::views::{make_kv, make_tensor_info, Kv, TensorInfo};
use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::map;
use crate::read::data::check_data;
use crate::read::value_index::ValueIndex;
use crate::rules::Report;

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
    /// The bytes parsed.
    bytes: &'a [u8],
    /// Where each key-value pair read completely starts and ends ([`Outline::kvs`]).
    kv_list: KvList,
    /// Where the nested arrays of those pairs end, so that walking them stays linear.
    value_index: ValueIndex,
}

impl<'a> Outline<'a> {
    /// Every key-value pair read completely, in file order. The views borrow the outline, which
    /// keeps the parser's record of where nested arrays end: walking them is linear in the
    /// bytes, however deep a hostile file nests them.
    pub fn kvs(&self) -> impl ExactSizeIterator<Item = Kv<'_>> + '_ {
        let index = Some(&self.value_index);
        self.kv_list
            .iter()
            .map(move |e| make_kv(self.bytes, self.endian, e, index))
    }

    /// The `i`th key-value pair read completely, in file order.
    pub fn kv(&self, i: usize) -> Option<Kv<'_>> {
        let e = self.kv_list.get(i)?;
        Some(make_kv(self.bytes, self.endian, e, Some(&self.value_index)))
    }

    /// The pairs as views of the bytes alone, for callers that read their fields and top-level
    /// values but never walk a nested array's elements (which would be quadratic in its depth).
    pub(crate) fn kvs_of_bytes(&self) -> impl ExactSizeIterator<Item = Kv<'a>> + '_ {
        let (bytes, endian) = (self.bytes, self.endian);
        self.kv_list
            .iter()
            .map(move |e| make_kv(bytes, endian, e, None))
    }
}

/// Parses `bytes` as far as they go: see [`Outline`]. Never fails.
pub fn outline(bytes: &[u8]) -> Outline<'_> {
    let (r, found, reached) =
        parser::parse_reaching(&mut SliceSource(bytes), Mode::Permissive, Paths::Fast);
    outline_of(bytes, bytes.len() as u64, r, found, reached)
}

/// [`outline`] of a file `total` bytes long, from `bytes`, the prefix a remote reader (or
/// [`HeaderRounds`](crate::open::HeaderRounds)) fetched of it (exactly what the parser reads of it).
pub fn outline_sized(bytes: &[u8], total: u64) -> Outline<'_> {
    let mut src = super::source::PrefixSource { bytes, total };
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
            let mut report = found.into_report(None);
            check_data(&h, bytes, total, &mut report);
            Outline {
                endian: h.endian,
                tensors: h
                    .tensors
                    .iter()
                    .map(|t| {
                        make_tensor_info(
                            bytes,
                            h.endian,
                            (&h.tensors, t),
                            h.data_offset,
                            true,
                            None,
                        )
                    })
                    .collect(),
                data_offset: Some(h.data_offset),
                alignment: Some(h.alignment),
                expected_len: Some(h.file_size),
                report,
                stopped: false,
                bytes,
                kv_list: h.kvs,
                value_index: h.value_index,
            }
        }
        Err(stop) => {
            let report = match stop {
                Stop::Rule(d) => found.into_report(Some(d)),
                Stop::Io(e) => found.into_incomplete(e),
            };
            let e = reached.endian;
            Outline {
                endian: e,
                tensors: reached
                    .tensors
                    .iter()
                    .map(|t| make_tensor_info(bytes, e, (&reached.tensors, t), 0, false, None))
                    .collect(),
                data_offset: None,
                alignment: None,
                expected_len: None,
                report,
                stopped: true,
                bytes,
                kv_list: reached.kvs,
                value_index: reached.value_index,
            }
        }
    }
}
