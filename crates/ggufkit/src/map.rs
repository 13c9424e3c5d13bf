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
        // `madvise` exists on unix only; elsewhere there is nothing to advise
        #[cfg(unix)]
        if let Some(m) = &self.0 {
            let _ = m.advise(memmap2::Advice::Sequential);
            let _ = m.advise(memmap2::Advice::WillNeed);
        }
    }

    /// Gives back the pages of `range` this process has read: they leave its resident memory
    /// and are read again from the page cache or the file if touched. A conversion reading a
    /// checkpoint once calls it after each tensor, so its memory follows the tensor being
    /// converted, not the file. Only a hint: failure changes nothing.
    #[cfg_attr(not(feature = "convert"), allow(dead_code))]
    pub fn release(&self, range: std::ops::Range<usize>) {
        #[cfg(unix)]
        if let Some(m) = &self.0 {
            if range.end <= m.len() && !range.is_empty() {
                // SAFETY: the map is a read-only shared map of a file that is not modified while
                // mapped (the contract of `new`). MADV_DONTNEED on such a map only drops this
                // process's page-table entries: the next read faults in the same bytes from the
                // page cache or the file, so every `&[u8]` into the map keeps its contents.
                let _ = unsafe {
                    m.unchecked_advise_range(
                        memmap2::UncheckedAdvice::DontNeed,
                        range.start,
                        range.len(),
                    )
                };
            }
        }
        #[cfg(not(unix))]
        let _ = range;
    }

    pub fn as_slice(&self) -> &[u8] {
        self.0.as_deref().unwrap_or(&[])
    }
}
