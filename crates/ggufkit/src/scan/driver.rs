//! The scan driver: `jobs` worker threads take locations in turn, each reading one file at a
//! time, and hand its rows through a bounded channel to the caller's thread, which gives them to
//! the sink as they come. At most `jobs` headers are being read and `2 × jobs` files' rows wait
//! for the sink, so memory is bounded by the files in flight, never by the number of files.
//! Remote reads are blocking calls on the library's runtime, so `jobs` is also the bound on
//! requests in flight.
#![forbid(unsafe_code)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use super::extract::ValueLimit;
use super::output::Done;
use super::read::{local_stamp, scan_location, RemoteConfig};
use super::rows::{FileRow, FileRows};
use super::sink::Sink;
use super::target::Target;
use crate::audit::Depth;
use crate::error::Result;
use crate::location::Location;

/// How a scan runs.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Files read at once (worker threads); at least 1.
    pub jobs: usize,
    /// How much of each array the `metadata` table keeps.
    pub values: ValueLimit,
    /// How remote locations are read.
    pub remote: RemoteConfig,
    /// How deep each file's audit goes (a file that breaks the spec's too, as `gguf audit`
    /// audits it), its findings joining the `findings` table
    /// (default [`Depth::Header`]: every rule but the per-token lookups); `None`: only the
    /// validator's findings are there.
    pub audit: Option<Depth>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            values: ValueLimit::default(),
            remote: RemoteConfig::default(),
            audit: Some(Depth::Header),
        }
    }
}

/// Told of each location as it finishes (from the caller's thread).
pub trait ScanProgress {
    /// The locations the scan will visit (skipped ones included).
    fn total(&self, locations: u64) {
        let _ = locations;
    }
    /// A location was scanned (its `files` row), or skipped (`None`) because the output holds it.
    fn done(&self, row: Option<&FileRow>);
}

/// Progress nobody watches.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoScanProgress;

impl ScanProgress for NoScanProgress {
    fn done(&self, _row: Option<&FileRow>) {}
}

/// What a scan did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Locations read (rows written).
    pub scanned: u64,
    /// Locations skipped because the output already held them, unchanged.
    pub skipped: u64,
    /// Locations that could not be read at all (`read_error`).
    pub unreadable: u64,
    /// Locations read whose file is not valid.
    pub invalid: u64,
    /// Bytes fetched and requests sent for remote locations.
    pub bytes_fetched: u64,
    pub requests: u64,
}

/// Whether the output already holds `loc` as it is now: a local file with the same size and
/// mtime; a remote object with the same size and ETag (those its listing gave, or one `HEAD`
/// request, no body), or, when its row has no ETag (the server gave none), the same size. A
/// location whose row is a read error, or a prefix that could not be listed, is tried again.
fn already_done(loc: &Target, done: &Done, remote: &RemoteConfig) -> bool {
    let Some(prev) = done.get(&loc.name()) else {
        return false;
    };
    match loc {
        Target::File(Location::Path(p)) => {
            local_stamp(p).is_some_and(|now| now.size == prev.size && now.mtime_ns == prev.mtime_ns)
        }
        #[cfg(feature = "remote")]
        Target::File(Location::Url(url)) => {
            super::read::remote_stamp(url, remote).is_some_and(|now| {
                prev.size.is_some() && now.size == prev.size && now.etag == prev.etag
            })
        }
        #[cfg(not(feature = "remote"))]
        Target::File(Location::Url(_)) => {
            let _ = remote;
            true
        }
        Target::Listed { size, etag, .. } => {
            prev.size == Some(*size) && prev.etag.as_ref() == etag.as_ref()
        }
        Target::Unlisted { .. } => false,
    }
}

/// Scans `locations`, skipping those in `done`, and writes each one's rows to `sink` as they
/// come; then finishes the sink. One file's failure is its row, never the scan's end: `Err`
/// only when the sink fails (a full disk).
pub fn scan(
    locations: &[Target],
    done: &Done,
    options: &ScanOptions,
    sink: &mut dyn Sink,
    progress: &dyn ScanProgress,
) -> Result<ScanStats> {
    let jobs = options.jobs.clamp(1, locations.len().max(1));
    progress.total(locations.len() as u64);
    let next = AtomicUsize::new(0);
    let mut stats = ScanStats::default();
    let (tx, rx) = mpsc::sync_channel::<Option<FileRows>>(2 * jobs);
    let result: Result<()> = std::thread::scope(|s| {
        for _ in 0..jobs {
            let tx = tx.clone();
            let next = &next;
            s.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(loc) = locations.get(i) else { break };
                let rows = (!already_done(loc, done, &options.remote))
                    .then(|| scan_location(loc, options));
                if tx.send(rows).is_err() {
                    break; // the sink failed: stop reading
                }
            });
        }
        drop(tx);
        // owned here, so that returning early (a sink error) drops it and stops the workers
        let rx = rx;
        for rows in rx.iter() {
            let Some(rows) = rows else {
                stats.skipped += 1;
                progress.done(None);
                continue;
            };
            stats.scanned += 1;
            let f = &rows.file;
            stats.unreadable += u64::from(f.read_error.is_some());
            stats.invalid += u64::from(f.valid == Some(false));
            stats.bytes_fetched += f.bytes_fetched;
            stats.requests += f.requests;
            progress.done(Some(f));
            sink.write(rows)?;
        }
        Ok(())
    });
    result?;
    sink.finish()?;
    Ok(stats)
}
