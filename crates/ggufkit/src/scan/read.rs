//! Reading one location for a scan: its identity (size and mtime, or ETag), its header read
//! once, permissively, and its report; every failure becomes the location's `files` row.
#![forbid(unsafe_code)]

use std::path::Path;

use super::driver::ScanOptions;
use super::extract::{rows_of, rows_of_broken, rows_of_unreadable};
use super::rows::{FileRow, FileRows};
use super::target::Target;
use crate::location::Location;
use crate::{Error, Gguf, ReadOptions};

/// What identifies one version of a file: a rescan is skipped when the stamp is the same.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub size: Option<u64>,
    pub mtime_ns: Option<i64>,
    pub etag: Option<String>,
}

impl Stamp {
    /// The stamp a `files` row records.
    pub fn of(row: &FileRow) -> Stamp {
        Stamp {
            size: row.size,
            mtime_ns: row.mtime_ns,
            etag: row.etag.clone(),
        }
    }
}

/// The stamp of a remote object now (size and ETag, by one `HEAD` request), `None` when it
/// cannot be asked for (then it is scanned again).
#[cfg(feature = "remote")]
pub fn remote_stamp(url: &str, remote: &RemoteConfig) -> Option<Stamp> {
    let (size, etag) = crate::remote::object_stamp(url, &remote.options).ok()?;
    Some(Stamp {
        size: Some(size),
        mtime_ns: None,
        etag,
    })
}

/// The stamp of a local file now (size and mtime), `None` when it cannot be read.
pub fn local_stamp(path: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .and_then(|d| i64::try_from(d.as_nanos()).ok());
    Some(Stamp {
        size: Some(meta.len()),
        mtime_ns,
        etag: None,
    })
}

/// Scans one location; never fails (a failure is in the rows).
pub fn scan_location(loc: &Target, options: &ScanOptions) -> FileRows {
    match loc {
        Target::File(Location::Path(p)) => scan_local(p, loc.name(), options),
        Target::File(Location::Url(url)) | Target::Listed { url, .. } => scan_remote(url, options),
        Target::Unlisted { prefix, error } => {
            let file = FileRow {
                location: prefix.clone(),
                ..FileRow::default()
            };
            rows_of_unreadable(file, error.clone())
        }
    }
}

fn scan_local(path: &Path, location: String, options: &ScanOptions) -> FileRows {
    let mut file = FileRow {
        location,
        ..FileRow::default()
    };
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => {}
        Ok(_) => return rows_of_unreadable(file, "not a regular file".to_string()),
        Err(e) => return rows_of_unreadable(file, e.to_string()),
    }
    if let Some(s) = local_stamp(path) {
        file.size = s.size;
        file.mtime_ns = s.mtime_ns;
    }
    match Gguf::open_with(path, &ReadOptions { permissive: true }) {
        Ok(g) => {
            let report = g.report().clone();
            rows_of(file, &g, &report, options.values, options.audit)
        }
        // a header even a permissive reading cannot get through: the whole check says where
        Err(Error::Format(_)) => match crate::validate_file(path) {
            Ok(report) => rows_of_broken(file, &report),
            Err(e) => rows_of_unreadable(file, e.to_string()),
        },
        Err(e) => rows_of_unreadable(file, e.to_string()),
    }
}

/// How remote locations are read (feature `remote`).
#[derive(Clone, Debug, Default)]
pub struct RemoteConfig {
    #[cfg(feature = "remote")]
    pub options: crate::remote::RemoteOptions,
}

#[cfg(feature = "remote")]
fn scan_remote(url: &str, options: &ScanOptions) -> FileRows {
    let file = FileRow {
        location: url.to_string(),
        ..FileRow::default()
    };
    match crate::remote::scan_url(url, &options.remote.options) {
        Ok(h) => {
            let file = FileRow {
                size: Some(h.size),
                etag: h.etag,
                bytes_fetched: h.stats.bytes,
                requests: h.stats.requests,
                ..file
            };
            match &h.gguf {
                Some(g) => rows_of(file, g, &h.report, options.values, options.audit),
                None => rows_of_broken(file, &h.report),
            }
        }
        Err(e) => rows_of_unreadable(file, e.to_string()),
    }
}

#[cfg(not(feature = "remote"))]
fn scan_remote(url: &str, _options: &ScanOptions) -> FileRows {
    let file = FileRow {
        location: url.to_string(),
        ..FileRow::default()
    };
    rows_of_unreadable(
        file,
        "remote locations need ggufkit's `remote` feature".to_string(),
    )
}
