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

/// Swaps the byte order of one encoded key-value pair (key length, key, type, value) in place.
/// `from` is the order the bytes are in now. Nested arrays are walked without recursion.
pub fn swap_pair_in_place(buf: &mut [u8], from: Endian) -> Result<()> {
    let mut w = Walker { buf, pos: 0, from };
    let key_len = w.u64("the key length")?;
    w.skip(key_len, "the key")?;
    let vt = w.value_type("the value type")?;
    w.value(vt)?;
    if w.pos != w.buf.len() {
        return Err(WriteError::PairTrailingBytes {
            count: w.buf.len() - w.pos,
        }
        .into());
    }
    Ok(())
}

/// The pair `raw` (in `from` order) encoded in `to` order.
pub fn reencode_pair(raw: &[u8], from: Endian, to: Endian) -> Result<Vec<u8>> {
    let mut v = raw.to_vec();
    if from != to {
        swap_pair_in_place(&mut v, from)?;
    }
    Ok(v)
}

struct Walker<'b> {
    buf: &'b mut [u8],
    pos: usize,
    from: Endian,
}

impl Walker<'_> {
    fn field(&mut self, n: usize, what: &str) -> Result<usize> {
        let at = self.pos;
        match at.checked_add(n) {
            Some(end) if end <= self.buf.len() => {
                self.buf[at..end].reverse();
                self.pos = end;
                Ok(at)
            }
            _ => Err(WriteError::PairTruncated {
                inside: what.into(),
                offset: at,
            }
            .into()),
        }
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        let at = self.field(8, what)?;
        let b: [u8; 8] = self.buf[at..at + 8].try_into().unwrap_or([0xff; 8]);
        // swapped already: read in the other order
        Ok(match self.from {
            Endian::Little => u64::from_be_bytes(b),
            Endian::Big => u64::from_le_bytes(b),
        })
    }

    fn value_type(&mut self, what: &str) -> Result<ValueType> {
        let at = self.field(4, what)?;
        let b: [u8; 4] = self.buf[at..at + 4].try_into().unwrap_or([0xff; 4]);
        let id = match self.from {
            Endian::Little => u32::from_be_bytes(b),
            Endian::Big => u32::from_le_bytes(b),
        };
        ValueType::from_id(id).ok_or_else(|| WriteError::PairValueType { id, offset: at }.into())
    }

    fn skip(&mut self, n: u64, what: &str) -> Result<()> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n))
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| WriteError::PairTruncated {
                inside: what.into(),
                offset: self.pos,
            })?;
        self.pos = end;
        Ok(())
    }

    fn value(&mut self, vt: ValueType) -> Result<()> {
        let mut stack: Vec<(ValueType, u64)> = vec![(vt, 1)];
        while let Some(top) = stack.last_mut() {
            if top.1 == 0 {
                stack.pop();
                continue;
            }
            let t = top.0;
            match t {
                ValueType::String => {
                    top.1 -= 1;
                    let len = self.u64("a string length")?;
                    self.skip(len, "a string")?;
                }
                ValueType::Array => {
                    top.1 -= 1;
                    let elem = self.value_type("an array element type")?;
                    let n = self.u64("an array length")?;
                    stack.push((elem, n));
                }
                t => {
                    let size = t.fixed_size().unwrap_or(1);
                    let n = top.1;
                    top.1 = 0;
                    let total = usize::try_from(n)
                        .ok()
                        .and_then(|n| n.checked_mul(size))
                        .filter(|&b| self.pos.saturating_add(b) <= self.buf.len())
                        .ok_or_else(|| WriteError::PairTruncated {
                            inside: format!("a {t} array"),
                            offset: self.pos,
                        })?;
                    if size > 1 {
                        for c in self.buf[self.pos..self.pos + total].chunks_exact_mut(size) {
                            c.reverse();
                        }
                    }
                    self.pos += total;
                }
            }
        }
        Ok(())
    }
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
