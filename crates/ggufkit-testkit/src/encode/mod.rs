//! A byte-level GGUF encoder for tests, written from the spec (`shared/spec/gguf.ksy.txt`) and
//! deliberately independent of the library's writer: tests must be able to write what no valid
//! writer would.
//!
//! Two levels over one field writer:
//! - [`Encoder`] writes one field at a time in either byte order (magic, counts, strings, values,
//!   tensor infos, padding, data) whatever the values: wrong magic or version, lying counts and
//!   lengths, bad type ids, bad bools and UTF-8, files cut anywhere.
//! - [`Model`] describes a whole file ([`V`] values, [`T`] tensors, alignment, byte order) and
//!   lays it out as the spec says, recording in a [`Layout`] where every field went, so tests can
//!   break one field and check a diagnostic's offset. Duplicate keys and names, bad alignments,
//!   wrong offsets and nested arrays are described; anything else is patched into its bytes.
#![forbid(unsafe_code)]

mod fields;
mod model;
mod value;

pub use fields::Encoder;
pub use model::{Layout, Model, T};
pub use value::V;

/// `n` bytes of a simple pattern: the data of crafted tensors.
pub fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + 3) as u8).collect()
}
