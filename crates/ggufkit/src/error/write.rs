//! Building, writing, editing and converting a file: what the writer refuses, and why.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use super::Error;
use crate::types::GgmlType;
use crate::wire::ValueType;
use crate::wire::{ALIGNMENT_KEY, MAX_TENSOR_NAME};

/// Why a write was refused or stopped ([`Error::Write`](super::Error::Write)).
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    // ---- metadata ---------------------------------------------------------------------------
    /// A version other than 2 or 3.
    #[error("version {version} cannot be written, expected 2 or 3")]
    Version {
        /// The version asked for.
        version: u32,
    },
    /// A metadata key of length 0.
    #[error("a metadata key cannot be empty (the spec requires at least one byte)")]
    EmptyKey,
    /// A key that appears twice.
    #[error("key '{key}' appears twice, expected unique keys")]
    DuplicateKey {
        /// The key (lossy if it is not UTF-8).
        key: String,
    },
    /// `general.alignment` of another type than uint32.
    #[error("{ALIGNMENT_KEY} has type {found}, expected uint32")]
    AlignmentType {
        /// The type given.
        found: ValueType,
    },
    /// `general.alignment` that is 0 or not a power of two.
    #[error("{ALIGNMENT_KEY} is {value}, expected a non-zero power of two")]
    AlignmentValue {
        /// The value given.
        value: u32,
    },

    // ---- values -----------------------------------------------------------------------------
    /// An array element of another type than the array's.
    #[error(
        "array element {index} is a {found}, expected {expected} like the array's element type"
    )]
    ArrayElementType {
        /// The element's position.
        index: usize,
        /// Its type.
        found: ValueType,
        /// The array's element type.
        expected: ValueType,
    },
    /// A string read permissively that is not UTF-8, which an owned value cannot hold.
    #[error("a string value is not valid UTF-8")]
    StringNotUtf8,
    /// Arrays nested deeper than an owned value holds.
    #[error("arrays nested more than {limit} levels deep cannot be decoded")]
    NestingTooDeep {
        /// The deepest nesting held.
        limit: usize,
    },
    /// An array whose elements end before its declared length.
    #[error("an array declares {declared} elements but holds {found}")]
    ArrayLength {
        /// The length declared.
        declared: u64,
        /// The elements read.
        found: usize,
    },
    /// An encoded pair with bytes after its value.
    #[error("a key-value pair has {count} bytes after its value")]
    PairTrailingBytes {
        /// How many.
        count: usize,
    },
    /// An encoded pair that ends inside a field.
    #[error("a key-value pair ends inside {inside} at byte {offset}")]
    PairTruncated {
        /// The field (`the key`, `a uint32 array`, ...).
        inside: String,
        /// Where that field starts in the pair.
        offset: usize,
    },
    /// An encoded pair with a value type outside 0..=12.
    #[error("value type {id} at byte {offset} is not 0..12")]
    PairValueType {
        /// The type id found.
        id: u32,
        /// Where it is in the pair.
        offset: usize,
    },

    // ---- tensor infos -----------------------------------------------------------------------
    /// A tensor name longer than the spec allows.
    #[error("tensor name '{name}' has {len} bytes, expected at most {MAX_TENSOR_NAME}")]
    TensorNameTooLong {
        /// The name (lossy if it is not UTF-8).
        name: String,
        /// Its length in bytes.
        len: usize,
    },
    /// A tensor name added twice.
    #[error("tensor '{name}' was already added, expected unique tensor names")]
    DuplicateTensor {
        /// The name.
        name: String,
    },
    /// More than 4 dimensions.
    #[error("tensor '{name}' has {dims} dimensions, expected at most 4")]
    TooManyDims {
        /// The tensor.
        name: String,
        /// Its number of dimensions.
        dims: usize,
    },
    /// A type ggml removed.
    #[error("tensor '{name}' has type {ty}, which was {}", ty.removal_note().unwrap_or("removed"))]
    RemovedType {
        /// The tensor.
        name: String,
        /// Its type.
        ty: GgmlType,
    },
    /// A dimension beyond `i64`.
    #[error("tensor '{name}' has dimension {dim}, which does not fit in a signed 64-bit integer")]
    DimTooLarge {
        /// The tensor.
        name: String,
        /// The dimension.
        dim: u64,
    },
    /// A first dimension that is not a whole number of the type's blocks.
    #[error(
        "tensor '{name}' of type {ty} has {ne0} elements in its first dimension, expected a multiple of the block size {}",
        ty.block_size()
    )]
    PartialBlock {
        /// The tensor.
        name: String,
        /// Its type.
        ty: GgmlType,
        /// Its first dimension.
        ne0: u64,
    },
    /// A size beyond `i64`.
    #[error(
        "tensor '{name}' of shape {shape:?} has a size that does not fit in a signed 64-bit integer"
    )]
    SizeOverflow {
        /// The tensor.
        name: String,
        /// Its shape (ne0 first).
        shape: Vec<u64>,
    },
    /// Bytes attached to a tensor that are not its size.
    #[error(
        "tensor '{name}' of type {ty} and shape {shape:?} takes {expected} bytes, but {given} were given"
    )]
    AttachedDataSize {
        /// The tensor.
        name: String,
        /// Its type.
        ty: GgmlType,
        /// Its shape (ne0 first).
        shape: Vec<u64>,
        /// Its size in bytes.
        expected: u64,
        /// The bytes given.
        given: u64,
    },
    /// A tensor without attached bytes, written by a call that needs them.
    #[error("tensor '{name}' has no data attached; stream it through write_header instead")]
    NoDataAttached {
        /// The tensor.
        name: String,
    },

    // ---- layout -----------------------------------------------------------------------------
    /// Tensor data beyond what a `u64` counts.
    #[error("the tensor data exceeds 2^64 bytes")]
    DataTooLarge,
    /// A file beyond what a `u64` counts.
    #[error("the file would exceed 2^64 bytes")]
    FileTooLarge,
    /// A header beyond what this machine can address.
    #[error("the header does not fit in memory")]
    HeaderTooLarge,

    // ---- tensor data ------------------------------------------------------------------------
    /// Data given after the last tensor's.
    #[error("all tensors were written already; no more data is expected")]
    NoMoreTensors,
    /// More (or, in one piece, other) bytes than the current tensor takes.
    #[error("tensor '{name}' takes {expected} bytes, but {given} were given")]
    TensorDataSize {
        /// The tensor.
        name: String,
        /// Its size in bytes.
        expected: u64,
        /// The bytes given.
        given: u64,
    },
    /// A source of a tensor's bytes that ended early.
    #[error("the data of tensor '{name}' ended after {got} of its {expected} bytes")]
    TensorDataEnded {
        /// The tensor.
        name: String,
        /// The bytes read.
        got: u64,
        /// Its size in bytes.
        expected: u64,
    },
    /// Finishing before every tensor's data was written.
    #[error(
        "the file is incomplete: tensor '{name}' still needs {missing} bytes ({tensors_left} tensors left)"
    )]
    Incomplete {
        /// The first tensor not written completely.
        name: String,
        /// The bytes it still needs.
        missing: u64,
        /// Tensors not written completely.
        tensors_left: usize,
    },
    /// Copying with another number of sources than tensors.
    #[error("{tensors} tensors but {sources} data sources")]
    SourceCount {
        /// Tensors in the builder.
        tensors: usize,
        /// Sources given.
        sources: usize,
    },
    /// The data of a tensor that the opened file does not hold (cut short, or a header only).
    #[error("the data of tensor '{name}' is not in the file")]
    TensorDataMissing {
        /// The tensor.
        name: String,
    },

    // ---- files ------------------------------------------------------------------------------
    /// An input that was not opened from a local file, which edits, conversions and splits copy
    /// tensor data from.
    #[error(
        "the input was not opened from a local file (it came from memory, a stream or a remote location); edits, conversions and splits copy tensor data from the file"
    )]
    NotFromFile,
    /// An output that exists, written without permission to replace it.
    #[error("{} already exists (use --force to overwrite it)", path.display())]
    OutputExists {
        /// The output.
        path: PathBuf,
    },
    /// An output that is one of the command's own inputs, which it would destroy.
    #[error(
        "{} is the input file; write the output to another file (meta set/rm edit a file with --in-place)",
        path.display()
    )]
    OutputIsInput {
        /// The output.
        path: PathBuf,
        /// The input it is (the same file, perhaps by another name).
        input: PathBuf,
    },
    /// An output in a folder that does not exist.
    #[error("cannot write {}: the folder {} does not exist", path.display(), dir.display())]
    NoOutputFolder {
        /// The output.
        path: PathBuf,
        /// Its folder.
        dir: PathBuf,
    },
    /// A file that changed while it was copied.
    #[error("{} changed while it was carved: {copied} of {expected} bytes copied", path.display())]
    SourceChanged {
        /// The file.
        path: PathBuf,
        /// The bytes copied.
        copied: u64,
        /// The bytes expected.
        expected: u64,
    },

    // ---- conversion -------------------------------------------------------------------------
    /// Re-quantizing to a type whose quantizer needs an importance matrix.
    #[error(
        "cannot quantize to {ty}: ggml has no reference quantizer for it (it needs an importance matrix)"
    )]
    NoReferenceQuantizer {
        /// The type asked for.
        ty: GgmlType,
    },
    /// A tensor too large to convert a run of rows at a time.
    #[error("tensor '{name}' is too large")]
    TensorTooLarge {
        /// The tensor.
        name: String,
    },
    /// Swapping the byte order of a tensor's data failed.
    #[error("converting tensor '{name}': {source}")]
    Convert {
        /// The tensor.
        name: String,
        /// Why.
        source: Box<Error>,
    },
    /// Re-quantizing a tensor failed.
    #[error("re-quantizing tensor '{name}': {source}")]
    Requantize {
        /// The tensor.
        name: String,
        /// Why.
        source: Box<Error>,
    },
}
