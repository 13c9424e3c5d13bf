//! The crate's one error type, and the rule ids of the CLI contract.
#![forbid(unsafe_code)]

use std::fmt;
use std::io;

/// A rule of the format, as the CLI contract's rule table names it.
///
/// Every diagnostic the reader produces carries one, so callers (and `gguf validate --json`) can
/// match on what went wrong without parsing messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The first 4 bytes are not `GGUF`.
    Magic,
    /// The version (after byte-order detection) is not 2 or 3.
    Version,
    /// The file ends before something it declares.
    Truncated,
    /// A metadata key of length 0.
    KeyEmpty,
    /// A metadata key that appeared before.
    KeyDuplicate,
    /// A value type (or array element type) outside 0..=12.
    ValueType,
    /// A bool byte other than 0 or 1.
    ValueBool,
    /// A string (key, value or tensor name) that is not valid UTF-8.
    ValueUtf8,
    /// `general.alignment` is not a uint32, is 0, or is not a power of two.
    Alignment,
    /// A tensor name of 64 bytes or more.
    TensorName,
    /// A tensor name that appeared before.
    TensorDuplicate,
    /// More than 4 dimensions.
    TensorDims,
    /// A negative dimension.
    TensorDim,
    /// An unknown (43 or more) or removed tensor type.
    TensorType,
    /// The first dimension is not a multiple of the type's block size.
    TensorBlock,
    /// Element count or byte size beyond `i64`, or a padded end beyond `u64`.
    TensorSize,
    /// A tensor's offset is not where the previous tensor's padded data ends.
    TensorOffset,
    /// Warning: big-endian, which ggml does not read.
    GgmlEndian,
    /// Warning: an array of arrays, which ggml does not read.
    GgmlNestedArray,
    /// Warning: bytes after the length the header implies.
    TrailingData,
}

impl Rule {
    /// Every rule, errors first, then the warning rules.
    pub const ALL: [Rule; 20] = [
        Rule::Magic,
        Rule::Version,
        Rule::Truncated,
        Rule::KeyEmpty,
        Rule::KeyDuplicate,
        Rule::ValueType,
        Rule::ValueBool,
        Rule::ValueUtf8,
        Rule::Alignment,
        Rule::TensorName,
        Rule::TensorDuplicate,
        Rule::TensorDims,
        Rule::TensorDim,
        Rule::TensorType,
        Rule::TensorBlock,
        Rule::TensorSize,
        Rule::TensorOffset,
        Rule::GgmlEndian,
        Rule::GgmlNestedArray,
        Rule::TrailingData,
    ];

    /// The id used in JSON output (`tensor.offset`, `key.duplicate`, ...).
    pub fn id(self) -> &'static str {
        match self {
            Rule::Magic => "magic",
            Rule::Version => "version",
            Rule::Truncated => "truncated",
            Rule::KeyEmpty => "key.empty",
            Rule::KeyDuplicate => "key.duplicate",
            Rule::ValueType => "value.type",
            Rule::ValueBool => "value.bool",
            Rule::ValueUtf8 => "value.utf8",
            Rule::Alignment => "alignment",
            Rule::TensorName => "tensor.name",
            Rule::TensorDuplicate => "tensor.duplicate",
            Rule::TensorDims => "tensor.dims",
            Rule::TensorDim => "tensor.dim",
            Rule::TensorType => "tensor.type",
            Rule::TensorBlock => "tensor.block",
            Rule::TensorSize => "tensor.size",
            Rule::TensorOffset => "tensor.offset",
            Rule::GgmlEndian => "ggml.endian",
            Rule::GgmlNestedArray => "ggml.nested_array",
            Rule::TrailingData => "trailing_data",
        }
    }

    /// The rule with this JSON id.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One finding about a file: which rule, where, and what was found against what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule broken.
    pub rule: Rule,
    /// Byte offset of the offending field, from the start of the GGUF.
    pub offset: u64,
    /// A sentence naming the field, the value found and what was expected.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "at byte {}: {} [{}]",
            self.offset, self.message, self.rule
        )
    }
}

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes break a rule of the format.
    #[error("{0}")]
    Format(Diagnostic),
    /// Reading or writing failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: io::Error,
    },
    /// A tensor, key or value asked for does not exist or has another type.
    #[error("{0}")]
    NotFound(String),
    /// A request the data cannot satisfy (wrong value type, unsupported conversion, bad argument).
    #[error("{0}")]
    Invalid(String),
}

impl Error {
    /// The diagnostic when this is a format error.
    pub fn diagnostic(&self) -> Option<&Diagnostic> {
        match self {
            Error::Format(d) => Some(d),
            _ => None,
        }
    }

    /// The rule broken when this is a format error.
    pub fn rule(&self) -> Option<Rule> {
        self.diagnostic().map(|d| d.rule)
    }

    /// The byte offset when this is a format error.
    pub fn offset(&self) -> Option<u64> {
        self.diagnostic().map(|d| d.offset)
    }

    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

impl From<Diagnostic> for Error {
    fn from(d: Diagnostic) -> Self {
        Error::Format(d)
    }
}

/// Shorthand for results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
