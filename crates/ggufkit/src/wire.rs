//! The fixed pieces of the wire format, declared once: the magic, the sizes of the smallest
//! structures (what declared counts are checked against), and the byte-order readers the
//! parser's hot loops use.
#![forbid(unsafe_code)]

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
