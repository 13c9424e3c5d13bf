//! [`TypedArray`]: a numeric or bool array seen as Rust numbers, a borrowed slice when the byte
//! order and alignment allow.
#![forbid(unsafe_code)]

use std::fmt;
use std::marker::PhantomData;

use crate::endian::Endian;
use crate::wire::ValueType;

/// A Rust type that a fixed-size metadata value decodes to.
pub trait Scalar: Copy + bytemuck::Pod + fmt::Debug {
    /// The value type whose elements decode to `Self`.
    const TYPE: ValueType;
    /// Decodes one element from exactly `size_of::<Self>()` bytes.
    fn decode(bytes: &[u8], endian: Endian) -> Self;
}

macro_rules! scalar {
    ($($t:ty => $vt:ident),*) => {$(
        impl Scalar for $t {
            const TYPE: ValueType = ValueType::$vt;
            #[inline]
            fn decode(bytes: &[u8], endian: Endian) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(&bytes[..std::mem::size_of::<$t>()]);
                match endian {
                    Endian::Little => <$t>::from_le_bytes(a),
                    Endian::Big => <$t>::from_be_bytes(a),
                }
            }
        }
    )*};
}
scalar!(u8 => U8, i8 => I8, u16 => U16, i16 => I16, u32 => U32, i32 => I32, f32 => F32,
        u64 => U64, i64 => I64, f64 => F64);

/// A typed view of a numeric array: random access, iteration, and a borrowed slice when possible.
#[derive(Clone, Copy, Debug)]
pub struct TypedArray<'a, T> {
    bytes: &'a [u8],
    endian: Endian,
    _t: PhantomData<T>,
}

impl<'a, T: Scalar> TypedArray<'a, T> {
    /// The view of `bytes`, elements of `T` in the byte order `endian`.
    pub(super) fn new(bytes: &'a [u8], endian: Endian) -> Self {
        TypedArray {
            bytes,
            endian,
            _t: PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.bytes.len() / std::mem::size_of::<T>()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<T> {
        let size = std::mem::size_of::<T>();
        let start = i.checked_mul(size)?;
        let b = self.bytes.get(start..start.checked_add(size)?)?;
        Some(T::decode(b, self.endian))
    }

    /// The elements as a borrowed slice, when the file's byte order is this machine's and the
    /// bytes are aligned for `T` (always the case for one-byte types).
    #[inline]
    pub fn as_slice(&self) -> Option<&'a [T]> {
        if std::mem::size_of::<T>() > 1 && !self.endian.is_native() {
            return None;
        }
        bytemuck::try_cast_slice(self.bytes).ok()
    }

    /// Every element, decoded.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = T> + 'a {
        let endian = self.endian;
        self.bytes
            .chunks_exact(std::mem::size_of::<T>())
            .map(move |c| T::decode(c, endian))
    }

    /// The elements, copied into a vector (borrowing when possible would be [`Self::as_slice`]).
    pub fn to_vec(&self) -> Vec<T> {
        match self.as_slice() {
            Some(s) => s.to_vec(),
            None => self.iter().collect(),
        }
    }
}
