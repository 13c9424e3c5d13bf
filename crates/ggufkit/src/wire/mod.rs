//! The wire format of GGUF, declared once: the fixed fields of the header and their spans, the
//! sizes of the smallest structures (what declared counts are checked against), the encoding of
//! values ([`ValueWalk`]: strings, arrays, nesting) and where each field of a key-value pair or
//! tensor info lies ([`KvSpans`], [`InfoSpans`]).
//!
//! The parser (`read/parser/`) reads this encoding with a rule check on every field; the value
//! views, byte-order conversion and the byte layout take it from here. A test walks every pair
//! of the corpus both ways and checks that they agree.
#![forbid(unsafe_code)]

mod spans;
mod value_type;
mod value_walk;

pub use spans::{InfoSpans, KvSpans, ValueSpans};
pub use value_type::ValueType;
pub use value_walk::{Cut, Field, Piece, ValueWalk};

/// Where a field lies: its first byte from the start of the GGUF, and its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The offset of the field's first byte.
    pub offset: u64,
    /// The field's length in bytes.
    pub len: u64,
}

impl Span {
    /// The span of `len` bytes from `offset`.
    pub const fn new(offset: u64, len: u64) -> Span {
        Span { offset, len }
    }

    /// The offset just past the field.
    pub const fn end(self) -> u64 {
        self.offset + self.len
    }
}

/// The magic, the first field.
pub const MAGIC_SPAN: Span = Span::new(0, 4);
/// The version (a `u32`, which gives away the byte order).
pub const VERSION_SPAN: Span = Span::new(4, 4);
/// The tensor count (a `u64`).
pub const TENSOR_COUNT_SPAN: Span = Span::new(8, 8);
/// The key-value count (a `u64`).
pub const KV_COUNT_SPAN: Span = Span::new(16, 8);
/// Bytes of the fixed fields before the first key-value pair.
pub const FIXED_HEADER_LEN: u64 = 24;

/// The first four bytes of every GGUF.
pub const MAGIC: &[u8; 4] = b"GGUF";
/// Bytes of a string's length field (a `u64`), before its bytes.
pub const STRING_LEN: u64 = 8;
/// Bytes of an array's header: the element type (`u32`) and the element count (`u64`).
pub const ARRAY_HEAD: u64 = 12;
/// Bytes of the smallest possible key-value pair: key length, empty key, type, one-byte value.
pub const MIN_KV: u64 = 13;
/// Bytes of the smallest possible tensor info: name length, empty name, dim count, type, offset.
pub const MIN_TENSOR_INFO: u64 = 24;
/// Bytes after a tensor name that hold every fixed field an info can have: the dimension count,
/// four dimensions, the type and the offset.
pub const INFO_TAIL: usize = 4 + 8 * 4 + 4 + 8;
/// Alignment of tensor data when `general.alignment` is absent.
pub const DEFAULT_ALIGNMENT: u32 = 32;
/// The key whose uint32 value sets the alignment of tensor data.
pub const ALIGNMENT_KEY: &str = "general.alignment";
/// Longest tensor name the spec allows, in bytes (ggml's `GGML_MAX_NAME` less its NUL).
pub const MAX_TENSOR_NAME: usize = 63;

/// Bytes of zero padding after `pos` up to the next multiple of `align`: what follows the header
/// and each tensor's data. The one spelling of the rule; every alignment the reader and the
/// writer use is a power of two (the `alignment` rule), which takes a mask, and any other
/// non-zero one still gets the exact answer (0 gets none).
#[inline(always)]
pub const fn padding(pos: u64, align: u64) -> u64 {
    if align.is_power_of_two() {
        pos.wrapping_neg() & (align - 1)
    } else if align == 0 {
        0
    } else {
        (align - pos % align) % align
    }
}

/// `pos` rounded up to a multiple of `align` (see [`padding`]); `None` beyond `u64::MAX`.
#[inline(always)]
pub const fn align_up(pos: u64, align: u64) -> Option<u64> {
    pos.checked_add(padding(pos, align))
}

/// A `u64` from 8 bytes in the byte order `BIG` names (fixed at compile time, so no branch).
#[inline(always)]
pub(crate) fn u64_in<const BIG: bool>(raw: [u8; 8]) -> u64 {
    if BIG {
        u64::from_be_bytes(raw)
    } else {
        u64::from_le_bytes(raw)
    }
}

/// The `u64` in the first 8 bytes of `b`, which has them (0 otherwise).
#[inline(always)]
pub(crate) fn rd64<const BIG: bool>(b: &[u8]) -> u64 {
    u64_in::<BIG>(b.first_chunk::<8>().copied().unwrap_or([0; 8]))
}

/// The `u32` in the first 4 bytes of `b`, which has them (0 otherwise).
#[inline(always)]
pub(crate) fn rd32<const BIG: bool>(b: &[u8]) -> u32 {
    let raw = b.first_chunk::<4>().copied().unwrap_or([0; 4]);
    if BIG {
        u32::from_be_bytes(raw)
    } else {
        u32::from_le_bytes(raw)
    }
}
