//! Writing a file so that the target is never seen half-written: everything goes to a temporary
//! file in the target's directory, which is renamed over the target once complete. A failed or
//! interrupted write (an error, a full disk, `SIGKILL`) leaves the target exactly as it was; at
//! worst a `.NAME.*.tmp` file is left behind by a killed process. A program that catches signals
//! calls [`remove_unfinished`] from its handler so that an interrupt leaves nothing behind.
//!
//! A new file gets the mode the process's umask gives (0644 under umask 022), as `cp` or a shell
//! redirection would create it; a file being replaced keeps its mode. A write never replaces one
//! of its own inputs ([`AtomicFile::create_from`]).
//!
//! When the rename replaces an existing file, the new data and then the directory are synced
//! around the rename, so even a power cut leaves either the old file or the whole new one. A new
//! file (nothing replaced) is not synced, like `cp`: a power cut can lose it, but never anything
//! that existed before, and copies run at the speed of the page cache.
#![forbid(unsafe_code)]

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result, WriteError};

/// The temporary files being written now, which [`remove_unfinished`] removes.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every temporary file this process is writing and has not committed, and returns how
/// many it removed. Meant for a signal handler that then ends the process: the targets stay as
/// they were, and no hidden `.NAME.*.tmp` file is left behind.
pub fn remove_unfinished() -> usize {
    let list = match UNFINISHED.lock() {
        Ok(l) => l,
        Err(poisoned) => poisoned.into_inner(),
    };
    list.iter().filter(|p| fs::remove_file(p).is_ok()).count()
}

/// A temporary file's place in [`UNFINISHED`], given up when it is committed or dropped.
struct Registration(PathBuf);

impl Registration {
    fn new(path: &Path) -> Self {
        if let Ok(mut l) = UNFINISHED.lock() {
            l.push(path.to_path_buf());
        }
        Registration(path.to_path_buf())
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Ok(mut l) = UNFINISHED.lock() {
            if let Some(i) = l.iter().position(|p| *p == self.0) {
                l.swap_remove(i);
            }
        }
    }
}

/// Whether two paths name the same existing file (the same device and inode on Unix; the same
/// canonical path elsewhere). A path that does not exist is no file's.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (fs::canonicalize(a), fs::canonicalize(b)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
    }
}

/// Refuses a `target` that is one of `inputs`, whatever `overwrite` says: a command reading a
/// file never replaces it by its own output (in-place edits are their own, explicit path).
pub fn refuse_input(target: &Path, inputs: &[&Path]) -> Result<()> {
    match inputs.iter().find(|i| same_file(i, target)) {
        Some(i) => Err(WriteError::OutputIsInput {
            path: target.to_path_buf(),
            input: i.to_path_buf(),
        }
        .into()),
        None => Ok(()),
    }
}

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
    /// The temporary file's entry among the unfinished ones.
    _unfinished: Registration,
}

impl AtomicFile {
    /// Starts writing `target`. Without `overwrite`, an existing target is refused now (and again
    /// at the rename, which never replaces a file that appeared meanwhile).
    pub fn create(target: impl AsRef<Path>, overwrite: bool) -> Result<Self> {
        Self::create_from(target, overwrite, &[])
    }

    /// Starts writing `target`, the output of reading `inputs`: a target that is one of the
    /// inputs is refused even with `overwrite` ([`WriteError::OutputIsInput`]).
    pub fn create_from(
        target: impl AsRef<Path>,
        overwrite: bool,
        inputs: &[&Path],
    ) -> Result<Self> {
        let target = target.as_ref().to_path_buf();
        refuse_input(&target, inputs)?;
        if !overwrite && fs::symlink_metadata(&target).is_ok() {
            return Err(WriteError::OutputExists { path: target }.into());
        }
        let dir = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if !dir.is_dir() {
            return Err(WriteError::NoOutputFolder {
                path: target.clone(),
                dir,
            }
            .into());
        }
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "gguf".into());
        let tmp = new_file_mode(
            tempfile::Builder::new()
                .prefix(&format!(".{name}."))
                .suffix(".tmp"),
        )
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
        let unfinished = Registration::new(tmp.path());
        Ok(AtomicFile {
            tmp,
            target,
            overwrite,
            replacing: existing.is_some(),
            _unfinished: unfinished,
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
            _unfinished,
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

/// The temporary file is created with the mode a new file gets (0666 less the umask), not
/// tempfile's private 0600: it becomes the output.
fn new_file_mode<'b, 'x, 'y>(
    b: &'b mut tempfile::Builder<'x, 'y>,
) -> &'b mut tempfile::Builder<'x, 'y> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(fs::Permissions::from_mode(0o666))
    }
    #[cfg(not(unix))]
    {
        b
    }
}

/// Writes `target` atomically with `write`, which gets a buffered writer over the temporary file.
/// When `write` fails, nothing is renamed and the target stays as it was.
pub fn write_atomically<F>(target: impl AsRef<Path>, overwrite: bool, write: F) -> Result<()>
where
    F: FnOnce(&mut BufWriter<&mut File>) -> Result<()>,
{
    write_atomically_from(target, overwrite, &[], write)
}

/// [`write_atomically`] for the output of reading `inputs`, none of which it may replace.
pub fn write_atomically_from<F>(
    target: impl AsRef<Path>,
    overwrite: bool,
    inputs: &[&Path],
    write: F,
) -> Result<()>
where
    F: FnOnce(&mut BufWriter<&mut File>) -> Result<()>,
{
    let mut af = AtomicFile::create_from(target, overwrite, inputs)?;
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
    fn unfinished_files_are_listed_and_inputs_refused() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.gguf");
        // (remove_unfinished is process-wide: tests/promises.rs of the CLI checks it on a child)
        let af = AtomicFile::create(&target, false).unwrap();
        let tmp = af.tmp.path().to_path_buf();
        assert!(UNFINISHED.lock().unwrap().contains(&tmp));
        drop(af);
        assert!(!UNFINISHED.lock().unwrap().contains(&tmp));
        fs::write(&target, b"input").unwrap();
        let e = AtomicFile::create_from(&target, true, &[target.as_path()]).err();
        assert!(matches!(
            e,
            Some(Error::Write(WriteError::OutputIsInput { .. }))
        ));
        let missing = dir.path().join("no/such/folder/x.gguf");
        let e = AtomicFile::create(&missing, false).err();
        assert!(matches!(
            e,
            Some(Error::Write(WriteError::NoOutputFolder { .. }))
        ));
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
