//! One metadata value as the test encoder writes it: any type id, any bool byte, any string
//! bytes, arrays whose declared element type need not match their elements.
#![forbid(unsafe_code)]

/// One metadata value.
#[derive(Clone, Debug)]
pub enum V {
    U8(u8),
    I8(i8),
    U16(u16),
    I16(i16),
    U32(u32),
    I32(i32),
    F32(f32),
    /// The raw byte (0/1 in valid files).
    Bool(u8),
    Str(Vec<u8>),
    /// Element type id and elements (all of that type; nested arrays are `Arr` elements).
    Arr(u32, Vec<V>),
    U64(u64),
    I64(i64),
    F64(f64),
}

impl V {
    /// The type id written before the value.
    pub fn type_id(&self) -> u32 {
        match self {
            V::U8(_) => 0,
            V::I8(_) => 1,
            V::U16(_) => 2,
            V::I16(_) => 3,
            V::U32(_) => 4,
            V::I32(_) => 5,
            V::F32(_) => 6,
            V::Bool(_) => 7,
            V::Str(_) => 8,
            V::Arr(..) => 9,
            V::U64(_) => 10,
            V::I64(_) => 11,
            V::F64(_) => 12,
        }
    }

    /// A string value.
    pub fn str(s: &str) -> V {
        V::Str(s.as_bytes().to_vec())
    }

    /// A valid bool.
    pub fn bool(b: bool) -> V {
        V::Bool(u8::from(b))
    }

    /// An array of strings.
    pub fn strs(items: &[&str]) -> V {
        V::Arr(8, items.iter().map(|s| V::str(s)).collect())
    }

    /// An array of i32.
    pub fn i32s(items: &[i32]) -> V {
        V::Arr(5, items.iter().map(|&x| V::I32(x)).collect())
    }

    /// An array of f32.
    pub fn f32s(items: &[f32]) -> V {
        V::Arr(6, items.iter().map(|&x| V::F32(x)).collect())
    }
}
