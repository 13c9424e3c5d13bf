//! Tensor data a codec cannot decode or encode as asked.
#![forbid(unsafe_code)]

use crate::types::GgmlType;

/// Why a codec call was refused ([`Error::Quant`](super::Error::Quant)).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuantError {
    /// The type is one of the ids ggml removed.
    #[error("tensor type {ty} was removed from ggml and has no block layout")]
    RemovedType {
        /// The type.
        ty: GgmlType,
    },
    /// The type has no float form (no dequantizer).
    #[error("no float form for tensor type {ty}")]
    NoDequantizer {
        /// The type.
        ty: GgmlType,
    },
    /// There is no quantizer for the type.
    #[error("no quantizer for tensor type {ty}")]
    NoQuantizer {
        /// The type.
        ty: GgmlType,
    },
    /// Encoded data that is not a whole number of blocks.
    #[error("{ty} data of {bytes} bytes is not a whole number of {}-byte blocks", ty.type_size())]
    PartialBlock {
        /// The type.
        ty: GgmlType,
        /// The length of the data.
        bytes: usize,
    },
    /// Encoded data and a float buffer of different element counts.
    #[error("{ty} data of {bytes} bytes holds {holds} elements, not {expected}")]
    ElementCount {
        /// The type.
        ty: GgmlType,
        /// The length of the data.
        bytes: usize,
        /// The elements the data holds.
        holds: usize,
        /// The elements the float buffer has room for (or holds).
        expected: usize,
    },
    /// Floats to quantize that are not a whole number of blocks.
    #[error("{elements} elements are not a whole number of {}-element {ty} blocks", ty.block_size())]
    PartialBlockElements {
        /// The type.
        ty: GgmlType,
        /// The number of floats given.
        elements: usize,
    },
    /// A type that ggml cannot make without an importance matrix (iq2_xxs, iq2_xs, iq1_s),
    /// asked for without one.
    #[error("tensor type {ty} cannot be quantized without an importance matrix")]
    ImportanceRequired {
        /// The type.
        ty: GgmlType,
    },
    /// Importance weights whose length is not the row length.
    #[error("the importance matrix has {found} values, but {ty} rows have {expected} columns")]
    ImportanceLength {
        /// The type.
        ty: GgmlType,
        /// The row length (`n_per_row`).
        expected: usize,
        /// The number of importance values given.
        found: usize,
    },
    /// A row length that is 0 or not a whole number of the type's blocks.
    #[error("rows of {n_per_row} elements are not a whole number of {}-element {ty} blocks", ty.block_size())]
    RowLength {
        /// The type.
        ty: GgmlType,
        /// The row length given.
        n_per_row: usize,
    },
    /// Floats to quantize that are not a whole number of rows.
    #[error("{elements} elements are not a whole number of {n_per_row}-element rows")]
    PartialRow {
        /// The type.
        ty: GgmlType,
        /// The number of floats given.
        elements: usize,
        /// The row length.
        n_per_row: usize,
    },
}
