//! The memory map: the one place the reader needs `unsafe`.
#![allow(unsafe_code)]

use std::fs::File;
use std::io;

/// A read-only map of a whole file (or an empty buffer for an empty file, which cannot be mapped).
pub(crate) struct Map(Option<memmap2::Mmap>);

impl Map {
    pub fn new(file: &File) -> io::Result<Map> {
        if file.metadata()?.len() == 0 {
            return Ok(Map(None));
        }
        // SAFETY: the map is read-only and private to this process. Like every memory-mapped
        // reader (ggml included), we rely on the file not being truncated or rewritten by another
        // process while it is mapped (the views handed out, `&[u8]` and the `&str` of strings the
        // parser checked, see `read/text.rs`, are sound only under that contract); writers in
        // this crate never modify a file in place that could be mapped without going through a
        // new file and a rename, except the documented in-place header edit, which consumes the
        // `Gguf` that mapped it.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Map(Some(map)))
    }

    /// Tells the kernel the whole map is about to be read front to back (hashing, diffing,
    /// copying): read-ahead starts now and pages arrive in bulk instead of fault by fault. Only
    /// a hint: failure changes nothing.
    pub fn advise_sequential(&self) {
        if let Some(m) = &self.0 {
            let _ = m.advise(memmap2::Advice::Sequential);
            let _ = m.advise(memmap2::Advice::WillNeed);
        }
    }

    pub fn as_slice(&self) -> &[u8] {
        self.0.as_deref().unwrap_or(&[])
    }
}
