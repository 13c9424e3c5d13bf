//! How a long computation over tensor data (hashing, comparing, statistics, export) reports how
//! far it has got, so a caller can show a progress bar without the library knowing about terminals.
#![forbid(unsafe_code)]

/// Told how many bytes have been processed, from any thread of rayon's pool.
pub trait Progress: Sync {
    /// The bytes the whole computation will report: called before the first [`advance`], and
    /// again with a larger total when the work grows.
    ///
    /// [`advance`]: Progress::advance
    fn total(&self, bytes: u64) {
        let _ = bytes;
    }

    /// `bytes` more were processed.
    fn advance(&self, bytes: u64);
}

/// Progress that nobody watches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn advance(&self, _bytes: u64) {}
}

/// A closure told each advance.
impl<F: Fn(u64) + Sync> Progress for F {
    fn advance(&self, bytes: u64) {
        self(bytes)
    }
}
