//! One value decoded from bytes the parser already checked, nested arrays measured by the wire
//! format's walk without recursion.
#![forbid(unsafe_code)]

use super::array::ArrayView;
use super::str::Str;
use super::typed::Scalar;
use super::Value;
use crate::endian::Endian;
use crate::read::text::CheckedText;
use crate::read::value_index::IndexRef;
use crate::wire::ValueType;

/// Decodes a fixed-size value from exactly its bytes.
pub(super) fn decode_fixed<'a>(t: ValueType, b: &[u8], e: Endian) -> Option<Value<'a>> {
    Some(match t {
        ValueType::U8 => Value::U8(b[0]),
        ValueType::I8 => Value::I8(b[0] as i8),
        ValueType::Bool => Value::Bool(b[0]),
        ValueType::U16 => Value::U16(u16::decode(b, e)),
        ValueType::I16 => Value::I16(i16::decode(b, e)),
        ValueType::U32 => Value::U32(u32::decode(b, e)),
        ValueType::I32 => Value::I32(i32::decode(b, e)),
        ValueType::F32 => Value::F32(f32::decode(b, e)),
        ValueType::U64 => Value::U64(u64::decode(b, e)),
        ValueType::I64 => Value::I64(i64::decode(b, e)),
        ValueType::F64 => Value::F64(f64::decode(b, e)),
        ValueType::String | ValueType::Array => return None,
    })
}

/// Decodes one value of type `t` at the start of `b`, returning it and the bytes it used.
///
/// Only called on bytes the parser has already checked, but still bounds-checked: a `None` here
/// ends an iteration early instead of panicking. Nested arrays are measured without recursion.
pub(crate) fn decode_value<'a>(
    t: ValueType,
    b: &'a [u8],
    e: Endian,
    checked: Option<CheckedText>,
) -> Option<(Value<'a>, usize)> {
    if let Some(size) = t.fixed_size() {
        return Some((decode_fixed(t, b.get(..size)?, e)?, size));
    }
    match t {
        ValueType::String => {
            let (len, rest) = b.split_first_chunk::<8>()?;
            let len = usize::try_from(e.u64(*len)).ok()?;
            Some((
                Value::String(Str::of_header(rest.get(..len)?, checked)),
                8 + len,
            ))
        }
        _ => {
            let elem = ValueType::from_id(e.u32(*b.first_chunk::<4>()?))?;
            let len = e.u64(*b.get(4..12)?.first_chunk::<8>()?);
            let body = &b[12..];
            let used = measure_elements(elem, len, body, e)?;
            let view = ArrayView {
                elem,
                len,
                bytes: &body[..used],
                endian: e,
                index: None,
            };
            Some((Value::Array(view), 12 + used))
        }
    }
}

/// Decodes the value of a key-value pair whose encoded bytes are exactly `b` (the parser knows
/// where each pair ends), so a top-level array is not walked to find its length. `index` is what
/// the parser recorded about arrays, when the bytes are a parsed header's.
pub(crate) fn decode_exact<'a>(
    t: ValueType,
    b: &'a [u8],
    e: Endian,
    index: Option<IndexRef<'a>>,
) -> Option<Value<'a>> {
    if t != ValueType::Array {
        let checked = index.and_then(|i| i.index.text);
        return decode_value(t, b, e, checked).map(|(v, _)| v);
    }
    let elem = ValueType::from_id(e.u32(*b.first_chunk::<4>()?))?;
    let len = e.u64(*b.get(4..12)?.first_chunk::<8>()?);
    Some(Value::Array(ArrayView {
        elem,
        len,
        bytes: &b[12..],
        endian: e,
        index,
    }))
}

/// Byte length of `count` encoded elements of type `elem` at the start of `b` (the wire
/// format's walk, without recursion).
pub(crate) fn measure_elements(elem: ValueType, count: u64, b: &[u8], e: Endian) -> Option<usize> {
    crate::wire::ValueWalk::elements(elem, count, 0, e)
        .end(b)
        .ok()
}
