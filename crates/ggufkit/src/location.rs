//! Where a GGUF is: a local path or the URL of a remote object, told apart by one rule
//! ([`is_remote`]), and what reading it cost ([`ReadCost`]). This module knows names only; opening
//! a location is the business of [`mod@crate::open`].
#![forbid(unsafe_code)]

use std::fmt;
use std::path::{Path, PathBuf};

/// URL schemes the remote reader handles (feature `remote`): HTTP(S) and the object stores
/// (S3, Google Cloud Storage, Azure Blob Storage, with the aliases their tools accept).
const REMOTE_SCHEMES: [&str; 9] = [
    "http", "https", "s3", "s3a", "gs", "az", "azure", "abfs", "abfss",
];

/// True when `s` names a remote object (`http(s)://`, `s3://`, `gs://`, `az://`, …, followed by
/// something) rather than a local path. The rule holds with or without the `remote` feature, so a
/// URL is never mistaken for a file name.
pub fn is_remote(s: &str) -> bool {
    let Some((scheme, rest)) = s.split_once("://") else {
        return false;
    };
    !rest.is_empty()
        && REMOTE_SCHEMES
            .iter()
            .any(|r| scheme.eq_ignore_ascii_case(r))
}

/// Where a file is: a local path, or the URL of a remote object.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A local file.
    Path(PathBuf),
    /// A remote object (`https://`, `s3://`, `gs://`, `az://`).
    Url(String),
}

impl Location {
    /// The location a command-line argument or a caller's string names: a URL when
    /// [`is_remote`] says so, else a path.
    pub fn parse(s: &str) -> Location {
        if is_remote(s) {
            Location::Url(s.to_string())
        } else {
            Location::Path(PathBuf::from(s))
        }
    }

    /// [`Location::parse`] of a path argument: a path whose text is a URL (`s3://b/k.gguf` given
    /// where a path was expected) is that URL.
    pub fn from_path(p: &Path) -> Location {
        match p.to_str() {
            Some(s) if is_remote(s) => Location::Url(s.to_string()),
            _ => Location::Path(p.to_path_buf()),
        }
    }

    /// True for a remote object.
    pub fn is_remote(&self) -> bool {
        matches!(self, Location::Url(_))
    }

    /// The local path, when this is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Location::Path(p) => Some(p),
            Location::Url(_) => None,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Path(p) => write!(f, "{}", p.display()),
            Location::Url(u) => f.write_str(u),
        }
    }
}

impl From<&Path> for Location {
    fn from(p: &Path) -> Self {
        Location::Path(p.to_path_buf())
    }
}

impl From<PathBuf> for Location {
    fn from(p: PathBuf) -> Self {
        Location::Path(p)
    }
}

/// What reading a remote location cost: HTTP requests sent (retries included) and body bytes
/// received. A local file is mapped, not fetched, and costs none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadCost {
    /// Body bytes received.
    pub bytes: u64,
    /// HTTP requests sent, retries included.
    pub requests: u64,
}

impl std::ops::Add for ReadCost {
    type Output = ReadCost;

    fn add(self, other: ReadCost) -> ReadCost {
        ReadCost {
            bytes: self.bytes.saturating_add(other.bytes),
            requests: self.requests.saturating_add(other.requests),
        }
    }
}
