//! The crate's one error type, the families of failures it groups (one file each in `error/`),
//! and the rule ids of the CLI contract.
#![forbid(unsafe_code)]

mod chat;
#[cfg(feature = "convert")]
mod checkpoint;
#[cfg(feature = "convert")]
mod convert;
mod imatrix;
mod missing;
mod quant;
mod quantize;
mod remote;
mod shard;
mod tokenizer;
mod value_text;
mod write;

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::types::TypeNameError;
pub use chat::{ChatError, RenderFailure};
#[cfg(feature = "convert")]
pub use checkpoint::CheckpointError;
#[cfg(feature = "convert")]
pub use convert::ConvertError;
pub use imatrix::ImatrixError;
pub use missing::Missing;
pub use quant::QuantError;
pub use quantize::QuantizeError;
pub use remote::{LocationProblem, RemoteError};
pub use shard::ShardError;
pub use tokenizer::TokenizerError;
pub use value_text::ValueTextError;
pub use write::WriteError;

pub use crate::location::Location;

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

/// The one line a diagnostic reads as everywhere (the CLI's errors and reports, Python's
/// exceptions): `at byte N: what was found, what was expected [rule]`, which callers prefix with
/// the file.
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
///
/// Every variant carries what a program needs to act on it (the path, the key or tensor, the
/// ggml type, what was expected and what was found) and displays the one-line message the CLI
/// prints. Failures of one part of the crate are grouped in that part's enum
/// ([`WriteError`], [`ShardError`], [`QuantError`], [`RemoteError`]); anything asked for that
/// does not exist is [`Error::NotFound`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The bytes break a rule of the format.
    #[error("{0}")]
    Format(Diagnostic),
    /// Reading or writing failed.
    #[error("{context}: {source}")]
    Io {
        /// What was being done, as a phrase that names the file when there is one.
        context: String,
        /// The file or remote object, when the failure concerns one.
        location: Option<Location>,
        #[source]
        source: io::Error,
    },
    /// A key, tensor, shard or embedded GGUF asked for does not exist.
    #[error(transparent)]
    NotFound(#[from] Missing),
    /// Building, writing, editing or converting a file failed.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Splitting a file, or opening the shards of a split model, failed.
    #[error(transparent)]
    Shard(#[from] ShardError),
    /// Tensor data that a codec cannot decode or encode as asked.
    #[error(transparent)]
    Quant(#[from] QuantError),
    /// A quantization plan that cannot be made or carried out.
    #[error(transparent)]
    Quantize(#[from] QuantizeError),
    /// A remote location that cannot be read as asked.
    #[error(transparent)]
    Remote(#[from] RemoteError),
    /// An importance-matrix file that cannot be read.
    #[error(transparent)]
    Imatrix(#[from] ImatrixError),
    /// A vocabulary that cannot be tokenized with, or a tokenizer call that failed.
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// A chat template that cannot be found, parsed or rendered.
    #[error(transparent)]
    Chat(#[from] ChatError),
    /// A Hugging Face folder that cannot be converted.
    #[cfg(feature = "convert")]
    #[error(transparent)]
    Convert(#[from] ConvertError),
    /// A Hugging Face checkpoint whose folder, weights or config cannot be converted.
    #[cfg(feature = "convert")]
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// A tensor's data is not in the file (the file is cut short, or only its header was read).
    #[error("at byte {offset}: tensor '{tensor}' has no data in the file")]
    TensorDataMissing {
        /// The tensor's name.
        tensor: String,
        /// Where its data would start, from the start of the GGUF.
        offset: u64,
    },
    /// The file is shorter than the length its header implies, so its tensor data section is not
    /// all there.
    #[error("at byte {actual}: the file is {actual} bytes long, but its tensor data needs {needed} bytes")]
    DataCutShort {
        /// Bytes present.
        actual: u64,
        /// Bytes the header implies (the spec's `len_file`).
        needed: u64,
    },
    /// A tensor whose type has no float form (the removed ggml types), asked for as floats.
    #[error("tensor '{tensor}' has type {ty}, which has no float form")]
    TensorNotDequantizable {
        /// The tensor's name.
        tensor: String,
        /// Its type.
        ty: crate::GgmlType,
    },
    /// A tensor whose type this build cannot decode, size by type or write (a removed ggml type,
    /// a fork's type, or an unknown id, which only a permissive reading lets through).
    #[error("tensor '{tensor}' has type {ty}, which this build cannot decode or write")]
    UnsupportedTensorType {
        /// The tensor's name.
        tensor: String,
        /// Its type as stored (its id: [`crate::TensorType::id`]).
        ty: crate::TensorType,
    },
    /// A tensor too large for the export format: its bytes would end beyond `u64`.
    #[error("tensor '{tensor}' is too large to export: its data would end beyond 2^64 bytes")]
    ExportTooLarge {
        /// The tensor's name.
        tensor: String,
    },
    /// Tensor data that overlap, where the data must be read once in file order.
    #[error("at byte {offset}: the data of tensor '{tensor}' starts inside the data before it")]
    OverlappingTensors {
        /// The tensor whose data starts inside the previous tensor's.
        tensor: String,
        /// Where its data starts, from the start of the GGUF.
        offset: u64,
    },
    /// A line of a hash manifest that is not in its format.
    #[error("at byte {offset}: line {line}: {problem}")]
    ManifestLine {
        /// The line number, from 1.
        line: usize,
        /// Byte offset of the line in the manifest.
        offset: u64,
        /// What is wrong with it (boxed: it is rare, and keeps `Error` small).
        problem: Box<ManifestProblem>,
    },
    /// Bytes given as a tensor's data whose length is not the tensor's size.
    #[error("tensor '{tensor}' has {expected} bytes of data, not {found}")]
    TensorDataLength {
        /// The tensor's name.
        tensor: String,
        /// Its size in bytes, as its type and shape make it.
        expected: u64,
        /// The length of the bytes given.
        found: u64,
    },
    /// An error about one of the two files being compared.
    #[error("file {side}: {source}")]
    InComparison {
        /// Which of the two.
        side: Side,
        /// What went wrong with it.
        #[source]
        source: Box<Error>,
    },
    /// The header declares more than this reader indexes, so no verdict could be reached.
    #[error("cannot be validated: {reason}")]
    NotValidated {
        /// The file.
        path: PathBuf,
        /// What stopped the check.
        reason: String,
    },
    /// Text or a JSON-shaped value that is not a metadata value of the type asked for (see
    /// [`crate::write::value_text`]).
    #[error(transparent)]
    ValueText(#[from] ValueTextError),
}

/// What is wrong with a line of a hash manifest.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ManifestProblem {
    /// Not `ALGO  HEX  tensor  NAME` or `ALGO  HEX  data`.
    #[error("expected `ALGO  HEX  tensor  NAME` or `ALGO  HEX  data`")]
    Syntax,
    /// An algorithm name the manifest format does not know.
    #[error("unknown algorithm '{0}'")]
    UnknownAlgorithm(String),
    /// A digest of the wrong length, or not hexadecimal.
    #[error("'{found}' is not a {algo} digest ({digits} hex digits)")]
    BadDigest {
        /// The algorithm's name.
        algo: &'static str,
        /// The hex digits its digests have.
        digits: usize,
        /// The text found.
        found: String,
    },
    /// A line whose algorithm differs from the earlier lines of its section.
    #[error("a section mixes algorithms")]
    MixedAlgorithms {
        /// The algorithm of the section's earlier lines.
        section: &'static str,
        /// The algorithm of this line.
        found: &'static str,
    },
}

/// One of the two files of a comparison: `A` (the first) or `B`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The first file.
    A,
    /// The second file.
    B,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::A => "A",
            Side::B => "B",
        })
    }
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

    /// An I/O error that concerns no particular file (a stream, a buffer).
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            context: context.into(),
            location: None,
            source,
        }
    }

    /// An I/O error on the file at `path`.
    pub(crate) fn io_at(context: impl Into<String>, path: &Path, source: io::Error) -> Error {
        Error::Io {
            context: context.into(),
            location: Some(Location::Path(path.to_path_buf())),
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
