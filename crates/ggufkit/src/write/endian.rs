//! Byte-order conversion: metadata pairs re-encoded field by field, tensor data swapped per type.
//!
//! # Which convention a big-endian file follows
//! The byte order of a GGUF file applies to every multi-byte field in it: header fields, metadata
//! values, and tensor data, *including the multi-byte fields inside quantized blocks* (the f16
//! scales of q8_0, the u16/u32 words of k-quants, ...). gguf-py's `GGUFWriter` leaves quantized
//! blocks raw in big-endian files while its `gguf_convert_endian` swaps them (for four types); we
//! follow the converter, because only that reading gives every field of the file one byte order, so
//! a big-endian reader decodes a block with the same native loads it uses for everything else, and
//! little → big → little is the identity for every type. The per-type layouts come from the one
//! definition of each block in [`crate::quant`] ([`crate::quant::byteswap_blocks`]).
#![forbid(unsafe_code)]

use crate::endian::Endian;
use crate::error::{Result, WriteError};
use crate::types::GgmlType;
use crate::value::ValueType;
use crate::wire::{Cut, Piece, ValueWalk};

/// Swaps the byte order of one encoded key-value pair (key length, key, type, value) in place.
/// `from` is the order the bytes are in now. The value is walked by the wire format's one
/// definition ([`ValueWalk`]), nested arrays without recursion.
pub fn swap_pair_in_place(buf: &mut [u8], from: Endian) -> Result<()> {
    let cut = |inside: &str, offset: usize| WriteError::PairTruncated {
        inside: inside.into(),
        offset,
    };
    let key_len = field(buf, 0, 8).ok_or_else(|| cut("the key length", 0))?;
    let key_len = from.u64(key_len.try_into().unwrap_or([0xff; 8]));
    let type_at = usize::try_from(key_len)
        .ok()
        .and_then(|n| n.checked_add(8))
        .filter(|&end| end <= buf.len())
        .ok_or_else(|| cut("the key", 8))?;
    let raw_type = field(buf, type_at, 4).ok_or_else(|| cut("the value type", type_at))?;
    let id = from.u32(raw_type.try_into().unwrap_or([0xff; 4]));
    let vt = ValueType::from_id(id).ok_or(WriteError::PairValueType {
        id,
        offset: type_at,
    })?;
    let mut walk = ValueWalk::value(vt, type_at + 4, from);
    while let Some(piece) = walk.next(buf).map_err(|c| match c {
        Cut::Short { at, field } => cut(&field.to_string(), at),
        Cut::BadType { at, id } => WriteError::PairValueType { id, offset: at },
    })? {
        // each piece was read in `from` order before its bytes are swapped
        match piece {
            Piece::Scalars { ty, at, count } => {
                let size = ty.fixed_size().unwrap_or(1);
                let end = at + size * count as usize;
                if size > 1 {
                    for c in buf[at..end].chunks_exact_mut(size) {
                        c.reverse();
                    }
                }
            }
            Piece::String { at, .. } => buf[at..at + 8].reverse(),
            Piece::ArrayHead { at, .. } => {
                buf[at..at + 4].reverse();
                buf[at + 4..at + 12].reverse();
            }
        }
    }
    let end = walk.position();
    if end != buf.len() {
        return Err(WriteError::PairTrailingBytes {
            count: buf.len() - end,
        }
        .into());
    }
    // the pair's own fields last: the walk needed none of them
    buf[0..8].reverse();
    buf[type_at..type_at + 4].reverse();
    Ok(())
}

/// The `n` bytes at `at`, when `buf` holds them.
fn field(buf: &[u8], at: usize, n: usize) -> Option<&[u8]> {
    buf.get(at..at.checked_add(n)?)
}

/// The pair `raw` (in `from` order) encoded in `to` order.
pub fn reencode_pair(raw: &[u8], from: Endian, to: Endian) -> Result<Vec<u8>> {
    let mut v = raw.to_vec();
    if from != to {
        swap_pair_in_place(&mut v, from)?;
    }
    Ok(v)
}

/// Swaps the byte order of a tensor's data in place: every element of the float and integer
/// types, every multi-byte field of every block of the quantized ones, from the one definition of
/// each block layout in [`crate::quant`].
///
/// `data` must hold whole elements (whole blocks for quantized types).
pub fn swap_tensor_data(ty: GgmlType, data: &mut [u8]) -> Result<()> {
    crate::quant::byteswap_blocks(ty, data)
}

/// True when [`swap_tensor_data`] can convert tensors of this type (every type but the removed).
pub fn can_swap(ty: GgmlType) -> bool {
    crate::quant::layout(ty).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::value::{OwnedArray, OwnedValue};

    #[test]
    fn pairs_swap_and_swap_back() {
        let v = OwnedValue::Array(
            OwnedArray::new(
                ValueType::Array,
                vec![
                    OwnedValue::from(vec![1u32, 2]),
                    OwnedValue::from(vec!["a", "bc"]),
                ],
            )
            .unwrap(),
        );
        for from in [Endian::Little, Endian::Big] {
            let to = if from == Endian::Little {
                Endian::Big
            } else {
                Endian::Little
            };
            let enc = |e: Endian| {
                let mut out = Vec::new();
                crate::write::value::put_str(&mut out, b"k.ey", e);
                out.extend(e.u32_bytes(ValueType::Array.id()));
                v.encode(e, &mut out);
                out
            };
            let a = enc(from);
            let b = reencode_pair(&a, from, to).unwrap();
            assert_eq!(b, enc(to));
            assert_eq!(reencode_pair(&b, to, from).unwrap(), a);
        }
    }

    #[test]
    fn cut_pairs_are_errors() {
        let mut out = Vec::new();
        crate::write::value::put_str(&mut out, b"key", Endian::Little);
        out.extend(8u32.to_le_bytes());
        out.extend(100u64.to_le_bytes());
        out.extend(b"short");
        assert!(swap_pair_in_place(&mut out, Endian::Little).is_err());
    }

    #[test]
    fn float_data_swaps() {
        let mut d = 1.5f32.to_le_bytes().to_vec();
        swap_tensor_data(GgmlType::F32, &mut d).unwrap();
        assert_eq!(d, 1.5f32.to_be_bytes());
        assert!(swap_tensor_data(GgmlType::F32, &mut [0u8; 3]).is_err());
    }
}
