//! Owned metadata values: what a writer or an editor holds, of every one of the 13 types,
//! arrays of arrays included, and their encoding in either byte order.
#![forbid(unsafe_code)]

use std::fmt;

use crate::endian::Endian;
use crate::error::{Result, WriteError};
use crate::value::{ArrayView, Value, ValueType};

/// Deepest array nesting accepted when a borrowed value is turned into an owned one. The format
/// has no limit, but the owned form is a tree: a hostile file nesting arrays a million levels deep
/// must be refused, not overflow the stack. Files that nest deeper can still be copied bit for bit
/// (raw pairs are never decoded by the writer).
pub const MAX_NESTING: usize = 64;

/// One metadata value, owned.
///
/// Equality compares floats by their bits, so a NaN equals the same NaN and `-0.0` differs from
/// `0.0`: two values are equal exactly when they encode to the same bytes.
#[derive(Clone, Debug)]
pub enum OwnedValue {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    Bool(bool),
    String(String),
    Array(OwnedArray),
    U64(u64),
    I64(i64),
    F64(f64),
}

/// An array value: an element type and elements that all have it (arrays of arrays may mix the
/// element types of their inner arrays, as the spec allows).
#[derive(Clone, Debug, PartialEq)]
pub struct OwnedArray {
    elem: ValueType,
    items: Vec<OwnedValue>,
}

impl OwnedArray {
    /// An array of `items`, each of which must have type `elem`.
    pub fn new(elem: ValueType, items: Vec<OwnedValue>) -> Result<Self> {
        if let Some((i, bad)) = items
            .iter()
            .enumerate()
            .find(|(_, v)| v.value_type() != elem)
        {
            return Err(WriteError::ArrayElementType {
                index: i,
                found: bad.value_type(),
                expected: elem,
            }
            .into());
        }
        Ok(OwnedArray { elem, items })
    }

    /// An array of strings (the element type is right by construction).
    pub fn of_strings(items: impl IntoIterator<Item = String>) -> Self {
        OwnedArray {
            elem: ValueType::String,
            items: items.into_iter().map(OwnedValue::String).collect(),
        }
    }

    /// An array of int32s.
    pub fn of_i32(items: impl IntoIterator<Item = i32>) -> Self {
        OwnedArray {
            elem: ValueType::I32,
            items: items.into_iter().map(OwnedValue::I32).collect(),
        }
    }

    /// An array of float32s.
    pub fn of_f32(items: impl IntoIterator<Item = f32>) -> Self {
        OwnedArray {
            elem: ValueType::F32,
            items: items.into_iter().map(OwnedValue::F32).collect(),
        }
    }

    /// An array with no elements.
    pub fn empty(elem: ValueType) -> Self {
        OwnedArray {
            elem,
            items: Vec::new(),
        }
    }

    /// The element type.
    pub fn element_type(&self) -> ValueType {
        self.elem
    }

    /// The elements.
    pub fn items(&self) -> &[OwnedValue] {
        &self.items
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

impl PartialEq for OwnedValue {
    fn eq(&self, other: &Self) -> bool {
        use OwnedValue::*;
        match (self, other) {
            (U8(a), U8(b)) => a == b,
            (I8(a), I8(b)) => a == b,
            (U16(a), U16(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (U32(a), U32(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (Bool(a), Bool(b)) => a == b,
            (String(a), String(b)) => a == b,
            (Array(a), Array(b)) => a == b,
            (U64(a), U64(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            _ => false,
        }
    }
}

impl OwnedValue {
    /// The value's type.
    pub fn value_type(&self) -> ValueType {
        match self {
            OwnedValue::U8(_) => ValueType::U8,
            OwnedValue::I8(_) => ValueType::I8,
            OwnedValue::U16(_) => ValueType::U16,
            OwnedValue::I16(_) => ValueType::I16,
            OwnedValue::U32(_) => ValueType::U32,
            OwnedValue::I32(_) => ValueType::I32,
            OwnedValue::F32(_) => ValueType::F32,
            OwnedValue::Bool(_) => ValueType::Bool,
            OwnedValue::String(_) => ValueType::String,
            OwnedValue::Array(_) => ValueType::Array,
            OwnedValue::U64(_) => ValueType::U64,
            OwnedValue::I64(_) => ValueType::I64,
            OwnedValue::F64(_) => ValueType::F64,
        }
    }

    /// An owned copy of a borrowed value.
    ///
    /// Fails for strings that are not UTF-8 and arrays nested deeper than [`MAX_NESTING`]; a bool
    /// byte other than 0/1 becomes `true`, as ggml reads it.
    pub fn from_value(v: &Value<'_>) -> Result<Self> {
        Self::from_value_at(v, 0)
    }

    fn from_value_at(v: &Value<'_>, depth: usize) -> Result<Self> {
        Ok(match *v {
            Value::U8(x) => OwnedValue::U8(x),
            Value::I8(x) => OwnedValue::I8(x),
            Value::U16(x) => OwnedValue::U16(x),
            Value::I16(x) => OwnedValue::I16(x),
            Value::U32(x) => OwnedValue::U32(x),
            Value::I32(x) => OwnedValue::I32(x),
            Value::F32(x) => OwnedValue::F32(x),
            Value::Bool(b) => OwnedValue::Bool(b != 0),
            Value::U64(x) => OwnedValue::U64(x),
            Value::I64(x) => OwnedValue::I64(x),
            Value::F64(x) => OwnedValue::F64(x),
            Value::String(s) => {
                OwnedValue::String(s.as_str().ok_or(WriteError::StringNotUtf8)?.to_owned())
            }
            Value::Array(a) => OwnedValue::Array(OwnedArray::from_view(&a, depth)?),
        })
    }

    /// Appends the value's encoding (without its type id) in `endian` order.
    pub fn encode(&self, endian: Endian, out: &mut Vec<u8>) {
        match self {
            OwnedValue::U8(v) => out.push(*v),
            OwnedValue::I8(v) => out.push(*v as u8),
            OwnedValue::Bool(v) => out.push(u8::from(*v)),
            OwnedValue::U16(v) => out.extend(endian.u16_bytes(*v)),
            OwnedValue::I16(v) => out.extend(endian.u16_bytes(*v as u16)),
            OwnedValue::U32(v) => out.extend(endian.u32_bytes(*v)),
            OwnedValue::I32(v) => out.extend(endian.u32_bytes(*v as u32)),
            OwnedValue::F32(v) => out.extend(endian.u32_bytes(v.to_bits())),
            OwnedValue::U64(v) => out.extend(endian.u64_bytes(*v)),
            OwnedValue::I64(v) => out.extend(endian.u64_bytes(*v as u64)),
            OwnedValue::F64(v) => out.extend(endian.u64_bytes(v.to_bits())),
            OwnedValue::String(s) => put_str(out, s.as_bytes(), endian),
            OwnedValue::Array(a) => {
                out.extend(endian.u32_bytes(a.elem.id()));
                out.extend(endian.u64_bytes(a.items.len() as u64));
                for item in &a.items {
                    item.encode(endian, out);
                }
            }
        }
    }

    /// Bytes of the encoding (without the type id).
    pub fn encoded_len(&self) -> usize {
        match self {
            OwnedValue::String(s) => 8 + s.len(),
            OwnedValue::Array(a) => 12 + a.items.iter().map(|v| v.encoded_len()).sum::<usize>(),
            v => v.value_type().fixed_size().unwrap_or(0),
        }
    }

    /// The string, when this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            OwnedValue::String(s) => Some(s),
            _ => None,
        }
    }
}

impl OwnedArray {
    fn from_view(a: &ArrayView<'_>, depth: usize) -> Result<Self> {
        if depth >= MAX_NESTING {
            return Err(WriteError::NestingTooDeep { limit: MAX_NESTING }.into());
        }
        let mut items = Vec::with_capacity(usize::try_from(a.len()).unwrap_or(0).min(1 << 20));
        for v in a.iter() {
            items.push(OwnedValue::from_value_at(&v, depth + 1)?);
        }
        if items.len() as u64 != a.len() {
            return Err(WriteError::ArrayLength {
                declared: a.len(),
                found: items.len(),
            }
            .into());
        }
        Ok(OwnedArray {
            elem: a.element_type(),
            items,
        })
    }
}

/// Appends a GGUF string: 64-bit length, then the bytes.
pub(crate) fn put_str(out: &mut Vec<u8>, s: &[u8], endian: Endian) {
    out.extend(endian.u64_bytes(s.len() as u64));
    out.extend_from_slice(s);
}

impl fmt::Display for OwnedValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OwnedValue::U8(v) => write!(f, "{v}"),
            OwnedValue::I8(v) => write!(f, "{v}"),
            OwnedValue::U16(v) => write!(f, "{v}"),
            OwnedValue::I16(v) => write!(f, "{v}"),
            OwnedValue::U32(v) => write!(f, "{v}"),
            OwnedValue::I32(v) => write!(f, "{v}"),
            OwnedValue::F32(v) => write!(f, "{v}"),
            OwnedValue::Bool(v) => write!(f, "{v}"),
            OwnedValue::String(v) => write!(f, "{v:?}"),
            OwnedValue::U64(v) => write!(f, "{v}"),
            OwnedValue::I64(v) => write!(f, "{v}"),
            OwnedValue::F64(v) => write!(f, "{v}"),
            OwnedValue::Array(a) => {
                write!(f, "[{}; ", a.elem)?;
                for (i, v) in a.items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
        }
    }
}

macro_rules! from_scalar {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for OwnedValue {
            fn from(x: $t) -> Self {
                OwnedValue::$v(x)
            }
        }
    )*};
}
from_scalar!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32,
             bool => Bool, u64 => U64, i64 => I64, f64 => F64, String => String, OwnedArray => Array);

impl From<&str> for OwnedValue {
    fn from(s: &str) -> Self {
        OwnedValue::String(s.to_owned())
    }
}

/// Rust types whose values make arrays: `OwnedValue::from(vec![1u32, 2, 3])`.
pub trait ArrayElement: Into<OwnedValue> {
    /// The element type of an array of them.
    const TYPE: ValueType;
}

macro_rules! element {
    ($($t:ty => $v:ident),*) => {$(
        impl ArrayElement for $t {
            const TYPE: ValueType = ValueType::$v;
        }
    )*};
}
element!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32,
         bool => Bool, u64 => U64, i64 => I64, f64 => F64, String => String);

impl ArrayElement for &str {
    const TYPE: ValueType = ValueType::String;
}

impl<T: ArrayElement> From<Vec<T>> for OwnedValue {
    fn from(v: Vec<T>) -> Self {
        OwnedValue::Array(OwnedArray {
            elem: T::TYPE,
            items: v.into_iter().map(Into::into).collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_check_their_elements() {
        assert!(OwnedArray::new(ValueType::U8, vec![OwnedValue::U8(1)]).is_ok());
        let e = OwnedArray::new(ValueType::U8, vec![OwnedValue::I8(1)]).unwrap_err();
        assert!(e.to_string().contains("element 0 is a int8"), "{e}");
    }

    #[test]
    fn encoding_in_both_orders() {
        let v = OwnedValue::from(vec![1u16, 2]);
        let mut le = Vec::new();
        v.encode(Endian::Little, &mut le);
        assert_eq!(le, [2, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0]);
        let mut be = Vec::new();
        v.encode(Endian::Big, &mut be);
        assert_eq!(be, [0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1, 0, 2]);
        assert_eq!(v.encoded_len(), le.len());
    }

    #[test]
    fn float_equality_is_by_bits() {
        assert_eq!(OwnedValue::F32(f32::NAN), OwnedValue::F32(f32::NAN));
        assert_ne!(OwnedValue::F64(0.0), OwnedValue::F64(-0.0));
    }
}
