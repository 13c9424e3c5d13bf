//! A tensor's type as its info stores it: a type of the spec that ggml reads, or an id this build
//! cannot size (removed from ggml, a fork's type, or unknown), which a permissive reading keeps.
#![forbid(unsafe_code)]

use std::fmt;

use crate::forks::ForkType;
use crate::types::GgmlType;

/// The type of a tensor, from the id in its info.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TensorType {
    /// A type ggml reads: sized by the type table, decoded by [`crate::quant`].
    Ggml(GgmlType),
    /// Any other id (a `tensor.type` error): only a permissive reading lets it through, its size
    /// taken from where the next tensor's data starts.
    Other(u32),
}

/// What is known of an id a tensor may not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherType {
    /// One of the ids ggml removed (4, 5, 31-33, 36-38).
    Removed(GgmlType),
    /// A fork's type, by the table of [`crate::forks`].
    Fork(&'static ForkType),
    /// No table here knows it.
    Unknown,
}

impl TensorType {
    /// The type with this id: [`TensorType::Ggml`] for the ids ggml still reads.
    #[inline]
    pub fn from_id(id: u32) -> TensorType {
        match GgmlType::from_id(id) {
            Some(t) if !t.is_removed() => TensorType::Ggml(t),
            _ => TensorType::Other(id),
        }
    }

    /// The id stored in the file.
    #[inline]
    pub fn id(self) -> u32 {
        match self {
            TensorType::Ggml(t) => t.id(),
            TensorType::Other(id) => id,
        }
    }

    /// The ggml type, when ggml reads it.
    #[inline]
    pub fn ggml(self) -> Option<GgmlType> {
        match self {
            TensorType::Ggml(t) => Some(t),
            TensorType::Other(_) => None,
        }
    }

    /// What the tables know of an id ggml does not read; `None` for a ggml type.
    pub fn other(self) -> Option<OtherType> {
        let TensorType::Other(id) = self else {
            return None;
        };
        Some(match (GgmlType::from_id(id), ForkType::from_id(id)) {
            (Some(t), _) => OtherType::Removed(t),
            (None, Some(f)) => OtherType::Fork(f),
            (None, None) => OtherType::Unknown,
        })
    }

    /// The type's name: ggml's (`q4_k`), a removed type's (`q4_2`) or a fork's (`iq2_kt`);
    /// `unknown` for an id no table knows (the [`fmt::Display`] form adds the id).
    pub fn name(self) -> &'static str {
        match (self, self.other()) {
            (TensorType::Ggml(t), _) => t.name(),
            (_, Some(OtherType::Removed(t))) => t.name(),
            (_, Some(OtherType::Fork(f))) => f.name,
            _ => "unknown",
        }
    }

    /// Where an id ggml does not read comes from (`ik_llama.cpp`, `removed from ggml`); `None`
    /// for a ggml type and an unknown id.
    pub fn origin(self) -> Option<&'static str> {
        match self.other()? {
            OtherType::Removed(_) => Some("removed from ggml"),
            OtherType::Fork(f) => Some(f.origin),
            OtherType::Unknown => None,
        }
    }
}

/// A ggml type by its name (`q4_k`); any other as its name and origin with its id
/// (`iq2_kt (ik_llama.cpp, id 153)`), or `unknown (id 1000)`.
impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (*self, self.origin()) {
            (TensorType::Ggml(t), _) => f.write_str(t.name()),
            (_, Some(origin)) => write!(f, "{} ({origin}, id {})", self.name(), self.id()),
            _ => write!(f, "unknown (id {})", self.id()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_named_by_the_tables() {
        assert_eq!(TensorType::from_id(12), TensorType::Ggml(GgmlType::Q4_K));
        assert_eq!(TensorType::from_id(12).to_string(), "q4_k");
        assert_eq!(
            TensorType::from_id(153).to_string(),
            "iq2_kt (ik_llama.cpp, id 153)"
        );
        assert_eq!(
            TensorType::from_id(4).to_string(),
            "q4_2 (removed from ggml, id 4)"
        );
        assert_eq!(TensorType::from_id(66).to_string(), "unknown (id 66)");
        assert_eq!(TensorType::from_id(66).name(), "unknown");
        assert_eq!(TensorType::from_id(139).id(), 139);
        assert_eq!(TensorType::from_id(139).ggml(), None);
    }
}
