//! Metadata edits: in place when the new header fits, otherwise an atomic rewrite.
//!
//! # When an edit happens in place
//! The spec puts the tensor data at the end of the tensor infos rounded up to the alignment
//! (`padding: (alignment - pos % alignment) % alignment`), and each tensor's offset is relative to
//! that start. So a new header can replace the old one without moving any tensor exactly when
//! `align_up(new_header_len) == old_data_offset` and the alignment is unchanged: the header may
//! grow into the padding or shrink by less than what keeps the same rounded end, and the new,
//! shorter or longer, padding is written as zeros. A header that ends in a different alignment
//! block would need the data moved (a longer padding would break the spec's rule), so the file is
//! rewritten instead. A file without tensors has no padding; it is edited in place only when the
//! new header has exactly the old length.
//!
//! In place, only the bytes that differ are written, with one `pwrite`, then synced. If that write
//! fails the old bytes are written back. A process killed inside that one system call, or a power
//! cut before the sync, can leave the header half-written: that is the price of not copying the
//! file, and why the rewrite (temporary file, sync, rename) is used whenever the header moves.
//! Programs that have the file memory-mapped see the new header at once.
#![forbid(unsafe_code)]

use std::fs::OpenOptions;
use std::path::Path;

use crate::error::{Error, Missing, Result, WriteError};
use crate::read::Gguf;
use crate::write::atomic::write_atomically_from;
use crate::write::value::OwnedValue;
use crate::write::writer::{GgufBuilder, ProgressFn};
use crate::write::{open_file, source_path, write_copying};

/// One change to the metadata.
#[derive(Clone, Debug, PartialEq)]
pub enum MetaEdit {
    /// Set a key (a new key goes last, an existing one keeps its place).
    Set(String, OwnedValue),
    /// Remove a key (an error when it is absent).
    Remove(String),
}

/// Where an edit goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditTarget<'p> {
    /// The opened file itself: in place when the new header fits (see the module docs),
    /// otherwise through an atomic rewrite.
    InPlace,
    /// Another file, written atomically; the opened file is only read.
    Output {
        /// The file to write.
        path: &'p Path,
        /// Replace `path` when it exists.
        overwrite: bool,
    },
}

/// How an edit reached its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EditOutcome {
    /// The header was rewritten in place; tensor data did not move.
    InPlace {
        /// Bytes actually written.
        bytes_written: u64,
    },
    /// The file was rewritten through a temporary file and a rename.
    Rewritten,
    /// The edited copy was written to the [`EditTarget::Output`] file.
    Written,
}

/// Applies edits to a builder, in order.
pub fn apply(b: &mut GgufBuilder<'_>, edits: &[MetaEdit]) -> Result<()> {
    for e in edits {
        match e {
            MetaEdit::Set(k, v) => b.set(k, v.clone())?,
            MetaEdit::Remove(k) => {
                if !b.remove(k) {
                    return Err(Missing::Key { key: k.clone() }.into());
                }
            }
        }
    }
    Ok(())
}

/// Applies `edits` to `file`, a GGUF opened from a path ([`Gguf::open`]; its tensor data is copied
/// from that file), and writes the result to `target`.
///
/// The file is taken by value: an edit in place changes the bytes under its map, which must not
/// be read after that.
pub fn edit(
    file: Gguf<'_>,
    edits: &[MetaEdit],
    target: EditTarget<'_>,
    progress: Option<ProgressFn>,
) -> Result<EditOutcome> {
    let g = &file;
    let path = source_path(g)?;
    let mut b = GgufBuilder::from_gguf(g)?;
    apply(&mut b, edits)?;
    if let EditTarget::Output {
        path: out,
        overwrite,
    } = target
    {
        rewrite(g, &b, path, out, overwrite, &[path], progress)?;
        return Ok(EditOutcome::Written);
    }
    let (header, layout) = b.header()?;
    let actual = g.actual_len().unwrap_or(0);
    let fits = layout.alignment == g.alignment()
        && layout.data_offset == g.data_offset()
        && (g.tensor_count() > 0 || layout.total_len == actual);
    if fits {
        // for a file without tensors, the new bytes are the whole file (with any padding)
        let mut new = header;
        let len = if g.tensor_count() > 0 {
            layout.data_offset
        } else {
            layout.total_len
        };
        new.resize(
            usize::try_from(len).map_err(|_| WriteError::HeaderTooLarge)?,
            0,
        );
        let old = &g.as_bytes()[..new.len()];
        let Some((first, last)) = differing_range(old, &new) else {
            return Ok(EditOutcome::InPlace { bytes_written: 0 });
        };
        let before = old[first..=last].to_vec();
        let f = OpenOptions::new().write(true).open(path).map_err(|e| {
            Error::io_at(format!("opening {} for writing", path.display()), path, e)
        })?;
        let r = write_all_at(&f, &new[first..=last], first as u64).and_then(|_| f.sync_data());
        if let Err(e) = r {
            // put the old bytes back before reporting
            let _ = write_all_at(&f, &before, first as u64);
            let _ = f.sync_data();
            return Err(Error::io_at(
                format!("writing the new header into {}", path.display()),
                path,
                e,
            ));
        }
        return Ok(EditOutcome::InPlace {
            bytes_written: (last - first + 1) as u64,
        });
    }
    // an in-place rewrite replaces its input by design
    rewrite(g, &b, path, path, true, &[], progress)?;
    Ok(EditOutcome::Rewritten)
}

/// The first and last positions where two equally long buffers differ, compared a chunk at a
/// time (a vocabulary header is megabytes; byte-by-byte scans cost milliseconds).
fn differing_range(a: &[u8], b: &[u8]) -> Option<(usize, usize)> {
    const CHUNK: usize = 4096;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let chunk = a
        .chunks(CHUNK)
        .zip(b.chunks(CHUNK))
        .position(|(x, y)| x != y)?;
    let start = chunk * CHUNK;
    let first = start
        + a[start..]
            .iter()
            .zip(&b[start..])
            .position(|(x, y)| x != y)?;
    let tail = a
        .rchunks(CHUNK)
        .zip(b.rchunks(CHUNK))
        .position(|(x, y)| x != y)?;
    let end = n - tail * CHUNK;
    let lo = end.saturating_sub(CHUNK);
    let last = lo
        + a[lo..end]
            .iter()
            .zip(&b[lo..end])
            .rposition(|(x, y)| x != y)?;
    Some((first, last))
}

/// Writes `b` to `out` atomically, copying every tensor's data from `src` (the file `g` maps);
/// `out` may not be one of `inputs`.
fn rewrite(
    g: &Gguf<'_>,
    b: &GgufBuilder<'_>,
    src: &Path,
    out: &Path,
    overwrite: bool,
    inputs: &[&Path],
    progress: Option<ProgressFn>,
) -> Result<()> {
    let file = open_file(src)?;
    let sources: Vec<_> = g.tensors().map(|t| (&file, t.absolute_offset())).collect();
    write_atomically_from(out, overwrite, inputs, |w| {
        write_copying(b, w, &sources, progress).map(|_| ())
    })
}

/// `bytes` written at `offset` of `f`: one `pwrite` on unix; elsewhere (wasm, which has no file
/// system to speak of, and any other target) a seek then a write.
#[cfg(unix)]
fn write_all_at(f: &std::fs::File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(f, bytes, offset)
}

/// `bytes` written at `offset` of `f`: one `pwrite` on unix; elsewhere (wasm, which has no file
/// system to speak of, and any other target) a seek then a write.
#[cfg(not(unix))]
fn write_all_at(mut f: &std::fs::File, bytes: &[u8], offset: u64) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom, Write};
    f.seek(SeekFrom::Start(offset))?;
    f.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::differing_range;

    #[test]
    fn differing_ranges_at_chunk_edges() {
        let a = vec![0u8; 10_000];
        assert_eq!(differing_range(&a, &a), None);
        for (i, j) in [(0, 0), (4095, 4096), (4096, 9999), (17, 8191), (9999, 9999)] {
            let mut b = a.clone();
            b[i] = 1;
            b[j] = 1;
            assert_eq!(differing_range(&a, &b), Some((i, j)), "{i} {j}");
        }
    }
}
