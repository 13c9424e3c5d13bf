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
    /// Any other id (a `tensor.type` error), or a reused id whose size contradicts the file:
    /// only a permissive reading lets it through, its size taken from where the next tensor's
    /// data starts.
    Other(u32),
}

/// What is known of an id a tensor may not have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OtherType {
    /// One of the ids ggml removed (4, 5, 31-33, 36-38).
    Removed(GgmlType),
    /// An id ggml reads (41 `q1_0`, 42 `q2_0`) whose size this tensor contradicts: a fork's type
    /// under a reused id (see [`crate::forks::REUSED_IDS`]).
    Reused(GgmlType),
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
            (Some(t), _) if t.is_removed() => OtherType::Removed(t),
            (Some(t), _) => OtherType::Reused(t),
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

    /// The type of a tensor that stores `id`, `resized` when the reader sized it from the offsets
    /// because the id's own size did not fit (a fork's type under a reused id).
    #[inline]
    pub(crate) fn stored(id: u32, resized: bool) -> TensorType {
        if resized {
            TensorType::Other(id)
        } else {
            TensorType::from_id(id)
        }
    }

    /// Where an id ggml does not read comes from (`ik_llama.cpp`, `removed from ggml`); `None`
    /// for a ggml type and an unknown id.
    pub fn origin(self) -> Option<&'static str> {
        match self.other()? {
            OtherType::Removed(_) => Some("removed from ggml"),
            OtherType::Fork(f) => Some(f.origin),
            OtherType::Reused(_) => Some("a fork's, under a reused id"),
            OtherType::Unknown => None,
        }
    }
}

/// A ggml type by its name (`q4_k`); any other as its name and origin with its id
/// (`iq2_kt (ik_llama.cpp, id 153)`), or `unknown (id 1000)`.
impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let id = self.id();
        match (*self, self.other()) {
            (TensorType::Ggml(t), _) => f.write_str(t.name()),
            (_, Some(OtherType::Reused(t))) => write!(
                f,
                "unknown (not {}, whose size does not fit: TurboQuant forks reuse ids 41-47; id {id})",
                t.name()
            ),
            (_, Some(OtherType::Unknown)) | (_, None) => write!(f, "unknown (id {id})"),
            (_, Some(_)) => {
                let origin = self.origin().unwrap_or_default();
                write!(f, "{} ({origin}, id {id})", self.name())
            }
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
        assert_eq!(
            TensorType::from_id(66).to_string(),
            "iq1_xxxs (unsloth's experiments, id 66)"
        );
        assert_eq!(TensorType::from_id(1000).to_string(), "unknown (id 1000)");
        assert_eq!(TensorType::from_id(1000).name(), "unknown");
        assert_eq!(TensorType::from_id(41), TensorType::Ggml(GgmlType::Q1_0));
        let reused = TensorType::stored(41, true);
        assert_eq!(reused.other(), Some(OtherType::Reused(GgmlType::Q1_0)));
        assert_eq!(
            reused.to_string(),
            "unknown (not q1_0, whose size does not fit: TurboQuant forks reuse ids 41-47; id 41)"
        );
        assert_eq!(TensorType::from_id(139).id(), 139);
        assert_eq!(TensorType::from_id(139).ggml(), None);
    }
}
