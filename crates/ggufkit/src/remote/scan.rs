//! A remote header read for a scan (`crate::scan`): the parsed file when it parses, both
//! verdicts, the object's length and ETag, and what the read cost, all from one fetch (the
//! header and at most one extra chunk), where opening and validating would fetch it twice.
#![forbid(unsafe_code)]

use std::sync::Arc;

use object_store::ObjectStoreExt;

use super::object::describe;
use super::store::{self, counted, Counters};
use super::{cost_of, fetch_header, remote_err, runtime, ReadCost, RemoteOptions};
use crate::error::RemoteError;
use crate::error::Result;
use crate::read::parser::Mode;
use crate::read::Gguf;
use crate::validate::{verdicts, Report};

/// What one fetch of a remote header tells a scan.
#[derive(Debug)]
pub struct ScannedHeader {
    /// The header, read permissively; `None` when even a permissive reading stops (the report
    /// then says where and why).
    pub gguf: Option<Gguf<'static>>,
    /// The verdicts of `gguf validate` for the object.
    pub report: Report,
    /// The object's length in bytes.
    pub size: u64,
    /// The object's ETag, when the server gave one.
    pub etag: Option<String>,
    /// What reading the header cost.
    pub stats: ReadCost,
}

/// Reads the header of `url` once and returns the file, its verdicts and its identity. `Err`
/// only when the location cannot be read at all (I/O, an unknown scheme).
pub fn scan_url(url: &str, opts: &RemoteOptions) -> Result<ScannedHeader> {
    let f = fetch_header(url, opts, Mode::Permissive)?;
    let size = f.object.size;
    let etag = f.object.etag.clone();
    let stats = cost_of(&f.counters);
    let (gguf, report) = match f.parsed {
        Ok(header) => {
            let g = Gguf::from_remote_parts(f.bytes, size, header, f.found, Mode::Permissive)?;
            let report = g.report().clone();
            (Some(g), report)
        }
        Err(stop) => (None, verdicts(Err(stop), f.found, &f.bytes, size)),
    };
    Ok(ScannedHeader {
        gguf,
        report,
        size,
        etag,
        stats,
    })
}

/// What identifies the current version of a remote object, from one `HEAD` request (no body):
/// its length and ETag, which a resumed scan compares with the ones it recorded.
pub fn object_stamp(url: &str, opts: &RemoteOptions) -> Result<(u64, Option<String>)> {
    let loc = store::locate(url, opts).map_err(|problem| RemoteError::Location {
        url: url.to_string(),
        problem,
    })?;
    let counters = Arc::new(Counters::default());
    let meta = runtime()
        .handle()
        .block_on(counted(&counters, loc.store.head(&loc.path)))
        .map_err(|e| remote_err(url, "asking for the object's ETag", describe(e, &loc)))?;
    Ok((meta.size, meta.e_tag.filter(|e| !e.is_empty())))
}
