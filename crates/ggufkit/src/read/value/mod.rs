//! Metadata values: borrowed values and zero-copy array views.
//!
//! Values borrow the header bytes; nothing is decoded until asked for. A 262k-token string array is
//! a [`ArrayView`] over its bytes whose [`ArrayView::strings`] iterator yields borrowed strings, and a
//! numeric array can be viewed as a `&[T]` when the file's byte order and the alignment allow.
//! The views live with the reader because they lean on what its parser checked and recorded
//! (the strings it checked, `read/text.rs`; what it recorded about arrays, `read/value_index.rs`);
//! the value types are the wire format's ([`ValueType`]).
#![forbid(unsafe_code)]

mod array;
mod decode;
mod str;
mod typed;

pub use crate::wire::ValueType;
pub use array::{ArrayIter, ArrayView, StrIter};
pub(crate) use decode::decode_exact;
pub use str::Str;
pub use typed::{Scalar, TypedArray};

/// One metadata value, borrowed from the header bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    /// The raw byte is kept: valid files hold 0 or 1, ggml reads anything else as true.
    Bool(u8),
    String(Str<'a>),
    Array(ArrayView<'a>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl<'a> Value<'a> {
    /// The value's type.
    #[inline]
    pub fn value_type(&self) -> ValueType {
        match self {
            Value::U8(_) => ValueType::U8,
            Value::I8(_) => ValueType::I8,
            Value::U16(_) => ValueType::U16,
            Value::I16(_) => ValueType::I16,
            Value::U32(_) => ValueType::U32,
            Value::I32(_) => ValueType::I32,
            Value::F32(_) => ValueType::F32,
            Value::Bool(_) => ValueType::Bool,
            Value::String(_) => ValueType::String,
            Value::Array(_) => ValueType::Array,
            Value::U64(_) => ValueType::U64,
            Value::I64(_) => ValueType::I64,
            Value::F64(_) => ValueType::F64,
        }
    }

    /// The string, when this is a UTF-8 string.
    pub fn as_str(&self) -> Option<&'a str> {
        match self {
            Value::String(s) => s.as_str(),
            _ => None,
        }
    }

    /// The array view, when this is an array.
    #[inline]
    pub fn as_array(&self) -> Option<ArrayView<'a>> {
        match self {
            Value::Array(a) => Some(*a),
            _ => None,
        }
    }

    /// The bool, when this is a bool (any non-zero byte is true, as in ggml).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b != 0),
            _ => None,
        }
    }

    /// Any integer type, as `u64`, when the value is a non-negative integer.
    #[inline]
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => Some(v),
            Value::I8(v) => u64::try_from(v).ok(),
            Value::I16(v) => u64::try_from(v).ok(),
            Value::I32(v) => u64::try_from(v).ok(),
            Value::I64(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// Any integer type, as `i64`, when it fits.
    #[inline]
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::U8(v) => Some(v.into()),
            Value::U16(v) => Some(v.into()),
            Value::U32(v) => Some(v.into()),
            Value::U64(v) => i64::try_from(v).ok(),
            Value::I8(v) => Some(v.into()),
            Value::I16(v) => Some(v.into()),
            Value::I32(v) => Some(v.into()),
            Value::I64(v) => Some(v),
            _ => None,
        }
    }

    /// Any numeric type as `f64` (integers above 2^53 lose precision).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Value::F32(v) => Some(v.into()),
            Value::F64(v) => Some(v),
            _ => self
                .as_i64()
                .map(|v| v as f64)
                .or_else(|| self.as_u64().map(|v| v as f64)),
        }
    }
}
