//! Codepoint classification, case and normalization exactly as llama.cpp's `unicode.cpp` and
//! `unicode-data.cpp` do them (their Unicode version and their rules, quirks included), the
//! byte-to-character map of byte-level BPE, and llama.cpp's lenient UTF-8 decoding.
//!
//! The tables in `tables.rs` are generated from llama.cpp's `unicode-data.cpp` by
//! `scripts/gen_unicode_tables.py`; a test sweeps every codepoint against that source when it
//! is present.
#![forbid(unsafe_code)]

mod bytes;
mod flags;
mod mapping;
pub mod split;
mod tables;
mod utf8;

pub use bytes::{byte_to_char, char_to_byte};
pub(crate) use flags::flags_of_all;
pub use flags::{flags, CodepointFlags};
pub use mapping::{is_han, nfd, to_lower};
pub use utf8::{cpts_from_utf8, decode_lenient, REPLACEMENT};

/// One past the last codepoint (`0x110000`): llama.cpp's `MAX_CODEPOINTS`.
pub const MAX_CODEPOINTS: u32 = 0x11_0000;

#[cfg(test)]
mod tests;
