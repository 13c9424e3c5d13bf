//! The 13 value types of metadata, as the spec's `gguf_type` enum numbers them: ids, the names
//! of the CLI contract, and the encoded size of each.
#![forbid(unsafe_code)]

use std::fmt;

/// The type of a metadata value, as the spec's `gguf_type` enum numbers it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum ValueType {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
}

impl ValueType {
    /// All 13 types, in id order.
    pub const ALL: [ValueType; 13] = [
        ValueType::U8,
        ValueType::I8,
        ValueType::U16,
        ValueType::I16,
        ValueType::U32,
        ValueType::I32,
        ValueType::F32,
        ValueType::Bool,
        ValueType::String,
        ValueType::Array,
        ValueType::U64,
        ValueType::I64,
        ValueType::F64,
    ];

    /// The type with this id; `None` outside 0..=12.
    pub fn from_id(id: u32) -> Option<ValueType> {
        Self::ALL.get(id as usize).copied()
    }

    /// The id stored in files.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// The name the CLI contract uses (`uint8`, `float32`, `string`, `array`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ValueType::U8 => "uint8",
            ValueType::I8 => "int8",
            ValueType::U16 => "uint16",
            ValueType::I16 => "int16",
            ValueType::U32 => "uint32",
            ValueType::I32 => "int32",
            ValueType::F32 => "float32",
            ValueType::Bool => "bool",
            ValueType::String => "string",
            ValueType::Array => "array",
            ValueType::U64 => "uint64",
            ValueType::I64 => "int64",
            ValueType::F64 => "float64",
        }
    }

    /// The type with this contract name (also accepts the short forms `u8`, `i32`, `f32`, `str`).
    pub fn from_name(name: &str) -> Option<ValueType> {
        let n = name.to_ascii_lowercase();
        let alias = match n.as_str() {
            "u8" => "uint8",
            "i8" => "int8",
            "u16" => "uint16",
            "i16" => "int16",
            "u32" => "uint32",
            "i32" => "int32",
            "f32" => "float32",
            "u64" => "uint64",
            "i64" => "int64",
            "f64" => "float64",
            "str" => "string",
            other => other,
        };
        Self::ALL.into_iter().find(|t| t.name() == alias)
    }

    /// Encoded size of one value of this type, or `None` for strings and arrays.
    pub fn fixed_size(self) -> Option<usize> {
        Some(match self {
            ValueType::U8 | ValueType::I8 | ValueType::Bool => 1,
            ValueType::U16 | ValueType::I16 => 2,
            ValueType::U32 | ValueType::I32 | ValueType::F32 => 4,
            ValueType::U64 | ValueType::I64 | ValueType::F64 => 8,
            ValueType::String | ValueType::Array => return None,
        })
    }

    /// The type's array-interface code (numpy's `dtype.kind` then `dtype.itemsize`: `u1`, `i4`,
    /// `f8`, `b1` for bool), without a byte order; `None` for strings and arrays. The one map
    /// between value types and numpy's dtypes, which the Python package binds.
    pub fn dtype_code(self) -> Option<&'static str> {
        Some(match self {
            ValueType::U8 => "u1",
            ValueType::I8 => "i1",
            ValueType::U16 => "u2",
            ValueType::I16 => "i2",
            ValueType::U32 => "u4",
            ValueType::I32 => "i4",
            ValueType::F32 => "f4",
            ValueType::Bool => "b1",
            ValueType::U64 => "u8",
            ValueType::I64 => "i8",
            ValueType::F64 => "f8",
            ValueType::String | ValueType::Array => return None,
        })
    }

    /// The type whose values numpy holds with dtype `kind` and `itemsize` (see
    /// [`ValueType::dtype_code`]); `None` for kinds metadata has no type for.
    pub fn from_dtype(kind: char, itemsize: usize) -> Option<ValueType> {
        // the code's size is the type's fixed size
        Self::ALL.into_iter().find(|t| {
            t.fixed_size() == Some(itemsize) && t.dtype_code().is_some_and(|c| c.starts_with(kind))
        })
    }

    /// The fewest bytes one value of this type can take: what a declared count is checked against.
    /// Strings take at least their 8-byte length, arrays their 4-byte type and 8-byte count.
    pub fn min_size(self) -> u64 {
        match self {
            ValueType::String => 8,
            ValueType::Array => 12,
            t => t.fixed_size().unwrap_or(1) as u64,
        }
    }
}

impl fmt::Display for ValueType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtype_codes_round_trip() {
        for t in ValueType::ALL {
            match t.dtype_code() {
                Some(code) => {
                    let kind = code.chars().next().expect("a kind");
                    let size: usize = code[1..].parse().expect("a size");
                    assert_eq!(Some(size), t.fixed_size(), "{t}");
                    assert_eq!(ValueType::from_dtype(kind, size), Some(t));
                }
                None => assert!(t.fixed_size().is_none(), "{t}"),
            }
        }
        assert_eq!(ValueType::from_dtype('f', 2), None);
        assert_eq!(ValueType::from_dtype('U', 4), None);
    }

    #[test]
    fn value_type_names_round_trip() {
        for t in ValueType::ALL {
            assert_eq!(ValueType::from_id(t.id()), Some(t));
            assert_eq!(ValueType::from_name(t.name()), Some(t));
        }
        assert_eq!(ValueType::from_id(13), None);
        assert_eq!(ValueType::from_name("f32"), Some(ValueType::F32));
    }
}
