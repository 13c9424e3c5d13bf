//! Importance matrices (llama-imatrix's GGUF and legacy `.dat` files) that cannot be read.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::types::GgmlType;

/// Why an importance-matrix file was refused ([`Error::Imatrix`](super::Error::Imatrix)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ImatrixError {
    /// A legacy `.dat` file that ends before what it declares, or declares something invalid.
    #[error("{}: at byte {offset}: {problem}", path.display())]
    Legacy {
        /// The file.
        path: PathBuf,
        /// Where the bad field starts.
        offset: u64,
        /// What is wrong, as a phrase.
        problem: String,
    },
    /// A file with no entries.
    #[error("{}: no importance data in the file", path.display())]
    NoEntries {
        /// The file.
        path: PathBuf,
    },
    /// A GGUF imatrix without `imatrix.datasets`, `imatrix.chunk_count` and `imatrix.chunk_size`
    /// (llama-quantize refuses it as "missing imatrix metadata").
    #[error("{}: missing imatrix metadata (imatrix.datasets, imatrix.chunk_count, imatrix.chunk_size)", path.display())]
    MissingMetadata {
        /// The file.
        path: PathBuf,
    },
    /// A `NAME.in_sum2` without its `NAME.counts`, or the other way round.
    #[error("{}: mismatched sums and counts for '{name}' (no {missing})", path.display())]
    Unpaired {
        /// The file.
        path: PathBuf,
        /// The weight's name.
        name: String,
        /// The tensor absent: `in_sum2` or `counts`.
        missing: &'static str,
    },
    /// An `in_sum2` or `counts` tensor that is not f32.
    #[error("{}: tensor '{tensor}' is {ty}, not f32", path.display())]
    EntryType {
        /// The file.
        path: PathBuf,
        /// The tensor's name.
        tensor: String,
        /// Its type.
        ty: GgmlType,
    },
    /// A `counts` tensor with no element.
    #[error("{}: tensor '{tensor}' has no element", path.display())]
    EmptyCounts {
        /// The file.
        path: PathBuf,
        /// The tensor's name.
        tensor: String,
    },
}
