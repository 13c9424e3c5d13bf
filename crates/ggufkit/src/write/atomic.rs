//! Writing a file so that the target is never seen half-written: everything goes to a temporary
//! file in the target's directory, which is renamed over the target once complete. A failed or
//! interrupted write (an error, a full disk, `SIGKILL`) leaves the target exactly as it was; at
//! worst a `.NAME.*.tmp` file is left behind by a killed process.
//!
//! When the rename replaces an existing file, the new data and then the directory are synced
//! around the rename, so even a power cut leaves either the old file or the whole new one. A new
//! file (nothing replaced) is not synced, like `cp`: a power cut can lose it, but never anything
//! that existed before, and copies run at the speed of the page cache.
#![forbid(unsafe_code)]

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result, WriteError};

/// Buffer in front of the temporary file: large writes go through without copying, and
/// `std::io::copy` from a file into it flushes it and then uses `copy_file_range`.
const BUFFER: usize = 1 << 20;

/// A file being written next to its target, renamed over it by [`AtomicFile::commit`]. Dropped
/// without a commit, the temporary file is removed and the target is untouched.
pub struct AtomicFile {
    tmp: tempfile::NamedTempFile,
    target: PathBuf,
    overwrite: bool,
    /// The target existed when writing started: sync before and after the rename.
    replacing: bool,
}

impl AtomicFile {
    /// Starts writing `target`. Without `overwrite`, an existing target is refused now (and again
    /// at the rename, which never replaces a file that appeared meanwhile).
    pub fn create(target: impl AsRef<Path>, overwrite: bool) -> Result<Self> {
        let target = target.as_ref().to_path_buf();
        if !overwrite && fs::symlink_metadata(&target).is_ok() {
            return Err(WriteError::OutputExists { path: target }.into());
        }
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "gguf".into());
        let tmp = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(|e| {
                Error::io_at(
                    format!("creating a temporary file in {}", dir.display()),
                    &dir,
                    e,
                )
            })?;
        // keep the permissions of a file being replaced
        let existing = fs::metadata(&target).ok();
        if let Some(meta) = &existing {
            let _ = tmp.as_file().set_permissions(meta.permissions());
        }
        Ok(AtomicFile {
            tmp,
            target,
            overwrite,
            replacing: existing.is_some(),
        })
    }

    /// The temporary file.
    pub fn file(&self) -> &File {
        self.tmp.as_file()
    }

    /// The temporary file, mutably.
    pub fn file_mut(&mut self) -> &mut File {
        self.tmp.as_file_mut()
    }

    /// The temporary file behind a large buffer, for streaming a file into it.
    pub fn writer(&mut self) -> BufWriter<&mut File> {
        BufWriter::with_capacity(BUFFER, self.tmp.as_file_mut())
    }

    /// The path being written.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the temporary file over the target (syncing around the rename when it replaces a
    /// file that existed).
    pub fn commit(self) -> Result<()> {
        let AtomicFile {
            tmp,
            target,
            overwrite,
            replacing,
        } = self;
        if replacing {
            tmp.as_file().sync_all().map_err(|e| {
                Error::io_at(format!("syncing {}", tmp.path().display()), tmp.path(), e)
            })?;
        }
        let persisted = if overwrite {
            tmp.persist(&target)
        } else {
            tmp.persist_noclobber(&target)
        };
        persisted.map_err(|e| {
            if e.error.kind() == io::ErrorKind::AlreadyExists {
                WriteError::OutputExists {
                    path: target.clone(),
                }
                .into()
            } else {
                Error::io_at(
                    format!("renaming the new file to {}", target.display()),
                    &target,
                    e.error,
                )
            }
        })?;
        // make the rename itself durable
        if let (true, Some(dir)) = (replacing, target.parent()) {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

/// Writes `target` atomically with `write`, which gets a buffered writer over the temporary file.
/// When `write` fails, nothing is renamed and the target stays as it was.
pub fn write_atomically<F>(target: impl AsRef<Path>, overwrite: bool, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<&mut File>) -> Result<()>,
{
    let mut af = AtomicFile::create(target, overwrite)?;
    let tmp = af.tmp.path().to_path_buf();
    {
        let mut w = af.writer();
        write(&mut w)?;
        w.flush()
            .map_err(|e| Error::io_at("writing the temporary file", &tmp, e))?;
    }
    af.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_target_alone() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("model.gguf");
        fs::write(&target, b"original bytes").unwrap();
        let r = write_atomically(&target, true, |w| {
            w.write_all(b"half of the new")
                .map_err(|e| Error::io("test", e))?;
            Err(Error::io("test", io::Error::other("injected failure")))
        });
        assert!(r.is_err());
        assert_eq!(fs::read(&target).unwrap(), b"original bytes");
        let left: Vec<_> = fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "the temporary file was removed");
    }

    #[test]
    fn existing_targets_need_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.gguf");
        fs::write(&target, b"x").unwrap();
        let e = write_atomically(&target, false, |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("already exists"), "{e}");
        write_atomically(&target, true, |w| {
            w.write_all(b"new").map_err(|e| Error::io("test", e))
        })
        .unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"new");
    }
}
