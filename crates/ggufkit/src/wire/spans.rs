//! Where each field of a key-value pair and of a tensor info lies, from where the parser found
//! it and its few lengths: the byte map that `gguf layout` shows, without reading the bytes again.
#![forbid(unsafe_code)]

use super::{Span, ValueType, ARRAY_HEAD, STRING_LEN};

/// The fields of a key-value pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KvSpans {
    /// The key's length field (a `u64`).
    pub key_len: Span,
    /// The key's bytes.
    pub key: Span,
    /// The value type (a `u32`).
    pub value_type: Span,
    /// The value.
    pub value: ValueSpans,
}

/// The fields of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueSpans {
    /// A number or bool: its bytes.
    Scalar(Span),
    /// A string: its length field and its bytes.
    String { len: Span, bytes: Span },
    /// An array: its element type, its element count and all its elements.
    Array {
        elem_type: Span,
        count: Span,
        elems: Span,
    },
}

impl ValueSpans {
    /// The whole value.
    pub fn whole(&self) -> Span {
        match *self {
            ValueSpans::Scalar(s) => s,
            ValueSpans::String { len, bytes } => Span::new(len.offset, len.len + bytes.len),
            ValueSpans::Array {
                elem_type, elems, ..
            } => Span::new(elem_type.offset, elems.end() - elem_type.offset),
        }
    }
}

impl ValueSpans {
    /// The fields of a string whose length field is at `at` and which is `len` bytes long.
    pub const fn string_at(at: u64, len: u64) -> ValueSpans {
        ValueSpans::String {
            len: Span::new(at, STRING_LEN),
            bytes: Span::new(at + STRING_LEN, len),
        }
    }

    /// The fields of an array whose header is at `at` and whose elements take `elems_len` bytes.
    pub const fn array_at(at: u64, elems_len: u64) -> ValueSpans {
        ValueSpans::Array {
            elem_type: Span::new(at, 4),
            count: Span::new(at + 4, 8),
            elems: Span::new(at + ARRAY_HEAD, elems_len),
        }
    }
}

impl KvSpans {
    /// The fields of the pair that starts at `offset` and ends before `end`, whose key is
    /// `key_len` bytes long and whose value is of type `ty` (a string's bytes and an array's
    /// elements run to the end of the pair).
    pub fn new(offset: u64, key_len: u64, ty: ValueType, end: u64) -> KvSpans {
        let key_len_field = Span::new(offset, STRING_LEN);
        let key = Span::new(key_len_field.end(), key_len);
        let value_type = Span::new(key.end(), 4);
        let at = value_type.end();
        let value = match ty {
            ValueType::String => ValueSpans::string_at(at, end.saturating_sub(at + STRING_LEN)),
            ValueType::Array => ValueSpans::array_at(at, end.saturating_sub(at + ARRAY_HEAD)),
            _ => ValueSpans::Scalar(Span::new(at, end.saturating_sub(at))),
        };
        KvSpans {
            key_len: key_len_field,
            key,
            value_type,
            value,
        }
    }
}

/// The fields of a tensor info.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InfoSpans {
    /// The name's length field (a `u64`).
    pub name_len: Span,
    /// The name's bytes.
    pub name: Span,
    /// The dimension count (a `u32`).
    pub n_dims: Span,
    /// The dimensions (a `u64` each): the first `n_dims` entries.
    dims: [Span; 4],
    n: usize,
    /// The ggml type (a `u32`).
    pub ggml_type: Span,
    /// The data offset (a `u64`).
    pub offset: Span,
}

impl InfoSpans {
    /// The fields of the tensor info that starts at `offset`, whose name is `name_len` bytes
    /// long and which has `n_dims` dimensions (at most 4).
    pub fn new(offset: u64, name_len: u64, n_dims: usize) -> InfoSpans {
        let name_len_field = Span::new(offset, STRING_LEN);
        let name = Span::new(name_len_field.end(), name_len);
        let n_dims_field = Span::new(name.end(), 4);
        let n = n_dims.min(4);
        let mut dims = [Span::default(); 4];
        for (d, s) in dims.iter_mut().enumerate().take(n) {
            *s = Span::new(n_dims_field.end() + 8 * d as u64, 8);
        }
        let ggml_type = Span::new(n_dims_field.end() + 8 * n as u64, 4);
        InfoSpans {
            name_len: name_len_field,
            name,
            n_dims: n_dims_field,
            dims,
            n,
            ggml_type,
            offset: Span::new(ggml_type.end(), 8),
        }
    }

    /// The dimensions' fields, `n_dims` of them.
    pub fn dims(&self) -> &[Span] {
        &self.dims[..self.n]
    }

    /// The whole info.
    pub fn whole(&self) -> Span {
        Span::new(
            self.name_len.offset,
            self.offset.end() - self.name_len.offset,
        )
    }
}
