//! Sparse files, for headers that declare more than any test can hold.
#![forbid(unsafe_code)]

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use crate::skip::{skip, Need};

/// Writes `bytes` to `path` and extends the file to `len` bytes without writing them (a sparse
/// file). False, after a [`skip`] for [`Need::Platform`] saying why, where the file system would store the zeros (a
/// probe of 64 MiB is checked first).
pub fn sparse_file(path: &Path, bytes: &[u8], len: u64) -> bool {
    let probe = path.with_extension("probe");
    let sparse = std::fs::File::create(&probe)
        .and_then(|f| f.set_len(64 << 20).and_then(|_| f.metadata()))
        .map(|m| m.blocks() * 512 < 1 << 20);
    let _ = std::fs::remove_file(&probe);
    if !matches!(sparse, Ok(true)) {
        skip(
            Need::Platform,
            format!("{} does not hold sparse files", path.display()),
        );
        return false;
    }
    let made = std::fs::write(path, bytes)
        .and_then(|_| std::fs::OpenOptions::new().write(true).open(path))
        .and_then(|f| f.set_len(len));
    if let Err(e) = made {
        skip(
            Need::Platform,
            format!("no sparse file of {len} bytes at {}: {e}", path.display()),
        );
        return false;
    }
    true
}
