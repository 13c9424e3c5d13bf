//! The borrowed views of a parsed header: a key-value pair ([`Kv`]) and a tensor info with its
//! data ([`TensorInfo`]), read back from the checked bytes when asked.
#![forbid(unsafe_code)]

use super::index::{self, KvEntry, TensorList};
use super::text::CheckedText;
use crate::endian::Endian;
use crate::error::Error;
use crate::read::value::{decode_exact, Str, Value, ValueType};
use crate::read::value_index::{IndexRef, ValueIndex};
use crate::tensor_type::TensorType;
use crate::types::GgmlType;

/// A key-value pair from its parsed position (the parser checked every byte of it).
///
/// `nested` is the parser's record of where nested arrays end (absent for a header whose parse
/// stopped: its arrays are then measured as they are walked).
#[inline]
pub(crate) fn make_kv<'a>(
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

/// A tensor info from its parsed position `start`; `data_offset` is where the data section starts,
/// `tensors` the list it is in (which holds the extents of tensors of unsized types).
#[inline]
pub(crate) fn make_tensor_info<'a>(
    src: &'a [u8],
    e: Endian,
    (tensors, start): (&TensorList, u64),
    data_offset: u64,
    has_data: bool,
    checked: Option<CheckedText>,
) -> TensorInfo<'a> {
    let f = index::info_fields(src, e, start);
    let recorded = tensors.extent(start);
    let ty = TensorType::stored(f.type_id, recorded.is_some());
    let extent = recorded.unwrap_or(0);
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
        extent,
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
        crate::wire::KvSpans::new(
            self.offset,
            self.key.len() as u64,
            self.value.value_type(),
            self.offset + self.raw.len() as u64,
        )
    }
}

/// One tensor info with its data, borrowed.
#[derive(Clone, Copy, Debug)]
pub struct TensorInfo<'a> {
    name: Str<'a>,
    n_dims: u32,
    dims: [u64; 4],
    ty: TensorType,
    /// The size of a tensor of a type this build cannot size (0 for ggml types, sized by type).
    extent: u64,
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

    /// The ggml type, for everything that decodes, sizes by type or writes the tensor; a
    /// tensor of any other id (a permissive reading lets one through) is refused with
    /// [`Error::UnsupportedTensorType`], naming it and its id.
    #[inline]
    pub fn ggml_type(&self) -> Result<GgmlType, Error> {
        match self.ty {
            TensorType::Ggml(t) => Ok(t),
            TensorType::Other(_) => Err(Error::UnsupportedTensorType {
                tensor: self.name().into_owned(),
                ty: self.ty,
            }),
        }
    }

    /// The type as stored: a ggml type, or an id this build cannot size (a removed type, a
    /// fork's, or unknown), which only a permissive reading lets through.
    #[inline]
    pub fn tensor_type(&self) -> TensorType {
        self.ty
    }

    /// The type id as stored in the file.
    #[inline]
    pub fn type_id(&self) -> u32 {
        self.ty.id()
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

    /// Bytes of data, without padding. A tensor of a type this build cannot size has the bytes
    /// up to the next tensor's data (its padding included), or to the end of the file for the
    /// last one (0 in a header read from a stream, whose length is unknown).
    #[inline]
    pub fn size(&self) -> u64 {
        match self.ty {
            // the parser checked the byte size of every tensor it read
            TensorType::Ggml(t) => t.bytes_for(self.n_elements).unwrap_or(0),
            TensorType::Other(_) => self.extent,
        }
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
        crate::wire::InfoSpans::new(
            self.info_offset(),
            self.name_bytes().len() as u64,
            self.shape().len(),
        )
    }

    /// Where the data lies in the file (without its padding).
    pub fn data_span(&self) -> crate::wire::Span {
        crate::wire::Span::new(self.data_offset, self.size())
    }

    /// Bytes in one row (ne0 elements); 0 for a type this build cannot size.
    pub fn row_size(&self) -> u64 {
        self.ty
            .ggml()
            .and_then(|t| t.bytes_for(self.dims[0]))
            .unwrap_or(0)
    }
}
