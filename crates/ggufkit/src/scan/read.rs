//! Reading one location for a scan: its identity (size and mtime, or ETag), its header read
//! once, permissively, and its report; every failure becomes the location's `files` row.
#![forbid(unsafe_code)]

use std::path::Path;

use super::driver::ScanOptions;
use super::extract::{rows_of, rows_of_broken, rows_of_unreadable};
use super::rows::{FileRow, FileRows};
use super::target::Target;
use crate::location::Location;
use crate::open::{open_checked, OpenOptions};

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
        Target::File(location) => scan_file(location, loc.name(), options),
        Target::Listed { url, .. } => scan_file(&Location::Url(url.clone()), loc.name(), options),
        Target::Unlisted { prefix, error } => {
            let file = FileRow {
                location: prefix.clone(),
                ..FileRow::default()
            };
            rows_of_unreadable(file, error.clone())
        }
    }
}

/// One file read through [`open_checked`], the door every reading of a location goes through:
/// a local file's identity is its size and mtime (a regular file only), a remote object's its
/// length and ETag from the same read, which also says what it cost.
fn scan_file(location: &Location, name: String, options: &ScanOptions) -> FileRows {
    let mut file = FileRow {
        location: name,
        ..FileRow::default()
    };
    if let Location::Path(path) = location {
        match std::fs::metadata(path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return rows_of_unreadable(file, "not a regular file".to_string()),
            Err(e) => return rows_of_unreadable(file, e.to_string()),
        }
        if let Some(s) = local_stamp(path) {
            file.size = s.size;
            file.mtime_ns = s.mtime_ns;
        }
    }
    match open_checked(location, &open_options(options)) {
        Ok(c) => {
            if c.size.is_some() {
                file.size = c.size;
            }
            file.etag = c.etag;
            if let Some(cost) = c.cost {
                file.bytes_fetched = cost.bytes;
                file.requests = cost.requests;
            }
            match &c.gguf {
                Some(g) => rows_of(file, g, &c.report, options.values, options.audit),
                None => rows_of_broken(file, &c.report),
            }
        }
        // the row names the location already: the error alone
        Err(e) => rows_of_unreadable(file, e.error.to_string()),
    }
}

/// How a scan opens a location: permissively, remote objects with the scan's options.
fn open_options(options: &ScanOptions) -> OpenOptions {
    #[cfg_attr(not(feature = "remote"), allow(unused_mut))]
    let mut o = OpenOptions::permissive(true);
    #[cfg(feature = "remote")]
    {
        o.remote = Some(options.remote.options.clone());
    }
    #[cfg(not(feature = "remote"))]
    let _ = options;
    o
}

/// How remote locations are read (feature `remote`).
#[derive(Clone, Debug, Default)]
pub struct RemoteConfig {
    #[cfg(feature = "remote")]
    pub options: crate::remote::RemoteOptions,
}
