//! What a scan reads, its targets: files at a [`Location`] (local files, directories walked for
//! `*.gguf`, recursively, in name order; remote URLs, `http(s)://`, `s3://`, `gs://`, `az://`, read
//! by range requests through `crate::remote`, feature `remote`) and the objects of object-store
//! prefixes (`s3://bucket/models/`, listed for `*.gguf`).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use crate::location::{is_remote, Location};

/// One file to scan.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// A file named (a path, or a remote object's URL) or found in a walked directory.
    File(Location),
    /// An object found by listing a prefix, with the length and ETag the listing gave (so a
    /// resumed scan compares them without asking the object again).
    Listed {
        /// The object's URL.
        url: String,
        /// Its length, from the listing.
        size: u64,
        /// Its ETag, from the listing, when the store gave one.
        etag: Option<String>,
    },
    /// An object-store prefix whose listing failed: its `files` row carries the error.
    Unlisted {
        /// The prefix as given.
        prefix: String,
        /// Why it could not be listed.
        error: String,
    },
}

impl Target {
    /// The target as the tables name it: the path as given (joined with the names found in a
    /// walked directory), or the URL.
    pub fn name(&self) -> String {
        match self {
            Target::File(Location::Path(p)) => p.to_string_lossy().into_owned(),
            Target::File(Location::Url(u)) | Target::Listed { url: u, .. } => u.clone(),
            Target::Unlisted { prefix, .. } => prefix.clone(),
        }
    }
}

impl From<Location> for Target {
    fn from(l: Location) -> Self {
        Target::File(l)
    }
}

/// The targets named by `inputs`: each URL as it is, each object-store prefix (a key ending
/// in `/`, or none: `s3://bucket/models/`) replaced by the `*.gguf` objects under it (sorted;
/// feature `remote`, stores configured from the environment), each directory replaced by the
/// `*.gguf` files under it (recursively, sorted by path; symbolic links to directories are not
/// followed), each other path as it is (a path that does not exist is scanned, and gives an
/// error row). A directory or prefix that cannot be listed gives an error row too, through its
/// own name.
pub fn expand<S: AsRef<str>>(inputs: &[S]) -> Vec<Target> {
    let mut out = Vec::new();
    for input in inputs {
        let s = input.as_ref();
        #[cfg(feature = "remote")]
        if crate::remote::is_prefix(s) {
            let opts = crate::remote::RemoteOptions::from_env();
            match crate::remote::list_gguf(s, &opts) {
                Ok(objects) => out.extend(objects.into_iter().map(|o| Target::Listed {
                    url: o.url,
                    size: o.size,
                    etag: o.etag,
                })),
                Err(e) => out.push(Target::Unlisted {
                    prefix: s.to_string(),
                    error: e.to_string(),
                }),
            }
            continue;
        }
        if is_remote(s) {
            out.push(Target::File(Location::Url(s.to_string())));
            continue;
        }
        let p = Path::new(s);
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found);
            found.sort();
            out.extend(found.into_iter().map(|p| Target::File(Location::Path(p))));
        } else {
            out.push(Target::File(Location::Path(p.to_path_buf())));
        }
    }
    out
}

/// Appends the `*.gguf` files under `dir` to `out` (a directory that cannot be read is itself
/// appended, so that its error is a row of the scan). Iterative: no recursion depth to exhaust.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let entries = match std::fs::read_dir(&d) {
            Ok(e) => e,
            Err(_) => {
                out.push(d);
                continue;
            }
        };
        for e in entries.flatten() {
            let path = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() {
                pending.push(path);
            } else if is_gguf_name(&path) {
                out.push(path);
            }
        }
    }
}

/// A name ending in `.gguf` (any case).
fn is_gguf_name(p: &Path) -> bool {
    p.extension()
        .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("gguf"))
}
