//! Choosing tensors: the ones whose names match a wildcard pattern, in the order asked for
//! (`gguf tensors --filter GLOB --sort KEY`, and a program filtering a model's tensors the same
//! way).
#![forbid(unsafe_code)]

mod glob;

pub use glob::matches_glob;

use crate::read::{Gguf, TensorInfo};

/// An order of tensors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TensorOrder {
    /// File order (by offset), as stored.
    #[default]
    Offset,
    /// Ascending name bytes.
    Name,
    /// Largest data first; file order among equal sizes.
    Size,
    /// By type name; file order within a type.
    Type,
}

/// The tensors of `g` whose names match `pattern` (all when `None`), in `order`.
pub fn select_tensors<'g>(
    g: &'g Gguf<'_>,
    pattern: Option<&str>,
    order: TensorOrder,
) -> Vec<TensorInfo<'g>> {
    let mut rows: Vec<TensorInfo<'g>> = g
        .tensors()
        .filter(|t| pattern.is_none_or(|p| matches_glob(p, &t.name())))
        .collect();
    match order {
        TensorOrder::Offset => {}
        TensorOrder::Name => rows.sort_by(|a, b| a.name_bytes().cmp(b.name_bytes())),
        TensorOrder::Size => rows.sort_by_key(|t| std::cmp::Reverse(t.size())),
        TensorOrder::Type => rows.sort_by_key(|t| t.tensor_type().name()),
    }
    rows
}
