//! Carving: finding a GGUF inside a larger file (a disk image, a container, a download with a
//! prefix) and cutting out exactly the bytes its header implies (the spec's `len_file`).
#![forbid(unsafe_code)]

use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

use crate::endian::Endian;
use crate::error::{Error, Missing, Result, WriteError};
use crate::map::Map;
use crate::progress::{NoProgress, Progress};
use crate::read::Gguf;
use crate::write::atomic::write_atomically_from;
use crate::write::open_file;

/// Where a GGUF was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// Offset of its magic in the larger file.
    pub offset: u64,
    /// Its length: the header's `len_file` (data start plus the last tensor's padded end).
    pub len: u64,
    /// Its version.
    pub version: u32,
    /// Its byte order.
    pub endian: Endian,
    /// Its tensor count.
    pub tensors: usize,
}

/// True when the 4 bytes after a magic are version 2 or 3 in either byte order.
fn plausible_version(b: &[u8]) -> bool {
    let Some(v) = b.get(..4) else { return false };
    let v: [u8; 4] = [v[0], v[1], v[2], v[3]];
    matches!(u32::from_le_bytes(v), 2 | 3) || matches!(u32::from_be_bytes(v), 2 | 3)
}

/// Candidates parsed before giving up. Each parse is bounded by the bytes after its magic, so a
/// hostile blob packed with fake headers could otherwise take time quadratic in its size.
pub const MAX_CANDIDATES: u64 = 1024;

/// Finds the first complete, valid GGUF in `bytes`: each `GGUF` magic followed by a plausible
/// version is parsed with the spec's rules from there, tensor data included; the first that passes
/// wins (at most [`MAX_CANDIDATES`] are tried). The error names the first candidate's problem when
/// none passes.
pub fn find_gguf(bytes: &[u8]) -> Result<Found> {
    let mut first_err: Option<(u64, Error)> = None;
    let mut candidates = 0u64;
    for at in memchr::memmem::find_iter(bytes, b"GGUF") {
        if !plausible_version(&bytes[at + 4..]) {
            continue;
        }
        if candidates == MAX_CANDIDATES {
            break;
        }
        candidates += 1;
        match Gguf::from_bytes(&bytes[at..]) {
            Ok(g) => {
                return Ok(Found {
                    offset: at as u64,
                    len: g.expected_len(),
                    version: g.version(),
                    endian: g.endian(),
                    tensors: g.tensor_count(),
                })
            }
            Err(e) => {
                if first_err.is_none() {
                    first_err = Some((at as u64, e));
                }
            }
        }
    }
    Err(match first_err {
        Some((first_offset, e)) => Missing::ValidGguf {
            candidates,
            first_offset,
            first_error: Box::new(e),
        },
        None => Missing::Gguf,
    }
    .into())
}

/// Finds the first valid GGUF inside `src` and writes exactly its bytes to `out` (atomically,
/// copied file to file).
pub fn carve_file(src: &Path, out: &Path, overwrite: bool) -> Result<Found> {
    carve_file_with(src, out, overwrite, &NoProgress)
}

/// [`carve_file`], telling `progress` the bytes copied (the total once the GGUF is found).
pub fn carve_file_with(
    src: &Path,
    out: &Path,
    overwrite: bool,
    progress: &dyn Progress,
) -> Result<Found> {
    let file = open_file(src)?;
    let map =
        Map::new(&file).map_err(|e| Error::io_at(format!("mapping {}", src.display()), src, e))?;
    let found = find_gguf(map.as_slice())?;
    drop(map);
    progress.total(found.len);
    write_atomically_from(out, overwrite, &[src], |w| {
        let mut f = &file;
        f.seek(SeekFrom::Start(found.offset))
            .map_err(|e| Error::io_at(format!("seeking in {}", src.display()), src, e))?;
        let mut counted = Counted {
            inner: f.take(found.len),
            progress,
        };
        let n = io::copy(&mut counted, w)
            .map_err(|e| Error::io_at(format!("copying from {}", src.display()), src, e))?;
        if n != found.len {
            return Err(WriteError::SourceChanged {
                path: src.to_path_buf(),
                copied: n,
                expected: found.len,
            }
            .into());
        }
        Ok(())
    })?;
    Ok(found)
}

/// A reader that tells `progress` the bytes it hands out.
struct Counted<'p, R> {
    inner: R,
    progress: &'p dyn Progress,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.advance(n as u64);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::GgufBuilder;
    use crate::GgmlType;

    #[test]
    fn finds_a_gguf_after_decoys() {
        let data = [1u8; 8];
        let mut b = GgufBuilder::new();
        b.set("general.name", "GGUF inside").unwrap();
        b.add_tensor_with_data("t", GgmlType::I8, &[8], &data)
            .unwrap();
        let model = b.to_vec().unwrap();
        // a decoy magic with a plausible version, a decoy without, then the model, then junk
        let mut blob = b"junkGGUF\x03\x00\x00\x00\xff\xffGGUFxxxx".to_vec();
        let at = blob.len();
        blob.extend(&model);
        blob.extend(b"GGUF trailing junk");
        let found = find_gguf(&blob).unwrap();
        assert_eq!(found.offset, at as u64);
        assert_eq!(found.len, model.len() as u64);
        assert_eq!(found.tensors, 1);
        assert!(find_gguf(b"nothing here").is_err());
        let e = find_gguf(&blob[..at + 40]).unwrap_err();
        assert!(e.to_string().contains("the first, at byte 4"), "{e}");
    }

    #[test]
    fn carving_reports_the_bytes_it_copies() {
        use std::sync::atomic::{AtomicU64, Ordering};
        struct Seen(AtomicU64, AtomicU64);
        impl Progress for Seen {
            fn total(&self, bytes: u64) {
                self.0.store(bytes, Ordering::Relaxed);
            }
            fn advance(&self, bytes: u64) {
                self.1.fetch_add(bytes, Ordering::Relaxed);
            }
        }
        let mut b = GgufBuilder::new();
        b.add_tensor_with_data("t", GgmlType::I8, &[64], &[3u8; 64])
            .unwrap();
        let model = b.to_vec().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (src, out) = (dir.path().join("blob"), dir.path().join("out.gguf"));
        let mut blob = b"prefix".to_vec();
        blob.extend(&model);
        std::fs::write(&src, &blob).unwrap();
        let seen = Seen(AtomicU64::new(0), AtomicU64::new(0));
        let found = carve_file_with(&src, &out, false, &seen).unwrap();
        assert_eq!(found.len, model.len() as u64);
        assert_eq!(seen.0.load(Ordering::Relaxed), found.len);
        assert_eq!(seen.1.load(Ordering::Relaxed), found.len);
        assert_eq!(std::fs::read(&out).unwrap(), model);
    }

    #[test]
    fn a_blob_of_fake_headers_is_given_up_on_in_bounded_work() {
        // each fake declares a huge tensor count: it fails at once, and only MAX_CANDIDATES are tried
        let fake = b"GGUF\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f";
        let blob: Vec<u8> = fake
            .iter()
            .copied()
            .cycle()
            .take(fake.len() * 5000)
            .collect();
        let e = find_gguf(&blob).unwrap_err().to_string();
        assert!(
            e.contains(&format!("among {MAX_CANDIDATES} candidates")),
            "{e}"
        );
    }
}
