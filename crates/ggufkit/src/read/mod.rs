//! Reading GGUF: one parser over three sources (a memory map, a borrowed slice, a stream), and
//! zero-copy views of what it found.
//!
//! No `unsafe` here (`deny`, not `forbid`, only so that the `text` submodule can hold the one
//! block that turns strings the parser checked into `&str`).
#![deny(unsafe_code)]

pub(crate) mod data;
mod gguf;
pub(crate) mod index;
mod line_endings;
mod name_table;
mod outline;
pub(crate) mod parser;
pub(crate) mod source;
mod stream_buffer;
pub(crate) mod text;
pub mod value;
pub(crate) mod value_index;
mod views;

pub use crate::wire::DEFAULT_ALIGNMENT;
pub use gguf::Gguf;
pub use outline::outline_sized;
pub use outline::{outline, MappedFile, Outline};
pub use views::{Kv, TensorInfo};

use parser::Mode;

/// How strictly a file is judged when it is opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// Open files that break rules which leave them readable (bool bytes other than 0/1, strings
    /// that are not UTF-8, empty or repeated keys, where the last occurrence wins, repeated or
    /// over-long tensor names, tensor data cut short). What was wrong is in [`Gguf::report`].
    /// The default (`false`) opens only files that are valid per the spec.
    pub permissive: bool,
}

impl ReadOptions {
    /// Options that open what ggml would load, and more, reporting what is wrong.
    pub fn permissive() -> Self {
        ReadOptions { permissive: true }
    }

    fn mode(&self) -> Mode {
        if self.permissive {
            Mode::Permissive
        } else {
            Mode::Strict
        }
    }
}
