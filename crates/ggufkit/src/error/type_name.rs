//! Why a text names no ggml type a tensor can have ([`GgmlType::parse`]).
#![forbid(unsafe_code)]

use crate::types::GgmlType;

/// Why [`GgmlType::parse`] refused a name: no type has it, or it names an id ggml removed (with
/// the reason the type table gives).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TypeNameError {
    /// No ggml type has this name.
    #[error("'{name}' is not a ggml tensor type (q4_0, q8_0, q4_k, f16, ...)")]
    Unknown {
        /// The text given.
        name: String,
    },
    /// The name of an id ggml removed, which no tensor may have.
    #[error("'{name}' is ggml type {} ({}), which tensors can no longer have: {note}", ty.id(), ty.name())]
    Removed {
        /// The text given.
        name: String,
        /// The removed type.
        ty: GgmlType,
        /// Why it is gone ([`GgmlType::removal_note`]).
        note: &'static str,
    },
}
