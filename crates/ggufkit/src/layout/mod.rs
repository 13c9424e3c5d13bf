//! The byte layout of a file as the spec structures it: every field with its offset, length,
//! structure path and value, like a hex editor's structure view. A broken file is mapped up to
//! the field where it breaks, and every finding is attached to the field it points into.
//!
//! [`ByteLayout::of`] returns the model; how the fields are derived from what the parser read is
//! private to [`derive`] (the one place that knows it).
#![forbid(unsafe_code)]

mod attach;
mod derive;
mod path;

pub use path::{FieldPath, KvPart, TensorInfoPart};

use crate::{Diagnostic, Outline, TensorType, Value, ValueType};

/// The fields of a file in byte order, with what the parser found.
#[derive(Debug)]
pub struct ByteLayout<'a> {
    /// Every field in byte order; a file that stops early ends with the structure being read,
    /// to the end of the bytes.
    pub fields: Vec<Field<'a>>,
    /// What the parser read, with its findings (`outline.report`).
    pub outline: Outline<'a>,
}

/// One field of the map.
#[derive(Clone, Debug, PartialEq)]
pub struct Field<'a> {
    /// Where the field sits in the spec's structure (`kv_pairs[3].value.len_value`).
    pub path: FieldPath,
    /// Absolute offset of its first byte.
    pub offset: u64,
    /// Bytes it occupies (cut at the end of the file when the file is short).
    pub length: u64,
    /// What it holds.
    pub value: FieldValue<'a>,
    /// The findings whose offset lies in the field, errors before warnings.
    pub findings: Vec<Finding>,
}

/// What a field holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FieldValue<'a> {
    /// Padding, trailing bytes, or a field cut short.
    None,
    /// A count, a length, a dimension, an offset, the version.
    Int(u64),
    /// Bytes that should be text: the magic, a key, a string, a tensor name (a tensor's data
    /// field holds the tensor's name).
    Text(&'a [u8]),
    /// The type of a key-value pair or of an array's elements.
    ValueType(ValueType),
    /// The type of a tensor (an id this build cannot size included).
    TensorType(TensorType),
    /// A scalar metadata value.
    Value(Value<'a>),
    /// The number of elements of an array's `elems` field (the values are the metadata's).
    Elements(u64),
}

/// A finding attached to a field, with whether the report counts it as an error or a warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub severity: Severity,
    pub diagnostic: Diagnostic,
}

/// Whether a finding breaks the spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

impl<'a> ByteLayout<'a> {
    /// The layout of a GGUF in memory (a whole file, or a GGUF at the start of a slice). Never
    /// fails: a broken file is mapped as far as it can be read.
    pub fn of(bytes: &'a [u8]) -> ByteLayout<'a> {
        let outline = crate::outline(bytes);
        ByteLayout {
            fields: derive::fields(bytes, bytes.len() as u64, &outline),
            outline,
        }
    }

    /// The layout of a file `total` bytes long from `bytes`, the prefix a remote reader (or
    /// [`HeaderRounds`](crate::open::HeaderRounds)) fetched (the header): the tensor data fields
    /// come from the header's offsets and the object's length.
    pub fn of_prefix(bytes: &'a [u8], total: u64) -> ByteLayout<'a> {
        let outline = crate::outline_sized(bytes, total);
        ByteLayout {
            fields: derive::fields(bytes, total, &outline),
            outline,
        }
    }

    /// Where the fixed part (magic, version, counts) ends, as far as the file has it.
    pub fn fixed_end(&self) -> u64 {
        self.end_of_last(FieldPath::is_fixed).unwrap_or(0)
    }

    /// Where the key-value pairs end: the end of the last one's last field, or
    /// [`ByteLayout::fixed_end`] when there are none.
    pub fn metadata_end(&self) -> u64 {
        self.end_of_last(|p| matches!(p, FieldPath::Kv { .. }))
            .unwrap_or_else(|| self.fixed_end())
    }

    /// Where the tensor infos end: the end of the last one's last field, or
    /// [`ByteLayout::metadata_end`] when there are none.
    pub fn tensor_infos_end(&self) -> u64 {
        self.end_of_last(|p| matches!(p, FieldPath::TensorInfo { .. }))
            .unwrap_or_else(|| self.metadata_end())
    }

    fn end_of_last(&self, which: impl Fn(&FieldPath) -> bool) -> Option<u64> {
        self.fields
            .iter()
            .rev()
            .find(|f| which(&f.path))
            .map(|f| f.offset.saturating_add(f.length))
    }
}
