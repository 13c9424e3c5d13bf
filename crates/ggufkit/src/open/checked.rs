//! A location read once for what a survey of many files needs ([`open_checked`]): the file when
//! a permissive reading gets through it, both verdicts in any case (where a reading stops, the
//! whole check says why), and for a remote object its length, its ETag and what the read cost.
//! `gguf scan` reads every location through it.
#![forbid(unsafe_code)]

use super::{OpenError, OpenOptions};
use crate::error::Error;
use crate::location::{Location, ReadCost};
use crate::read::{Gguf, ReadOptions};
use crate::validate::Report;

/// What one permissive reading of a location found.
#[derive(Debug)]
pub struct Checked {
    /// The parsed header; `None` when even a permissive reading stops (the report then says
    /// where and why).
    pub gguf: Option<Gguf<'static>>,
    /// Both verdicts, as `gguf validate` gives them.
    pub report: Report,
    /// A remote object's length in bytes (`None` for a local file, whose length is its own
    /// business).
    pub size: Option<u64>,
    /// A remote object's ETag, when the server gave one.
    pub etag: Option<String>,
    /// What reading it cost: `None` for a local file.
    pub cost: Option<ReadCost>,
}

/// Reads the file at `location` permissively, once (a remote header is fetched once, where
/// [`super::open`] then [`super::validate`] would fetch it twice). `Err` only when the location
/// cannot be read at all: a file that breaks the format is a report. `options.read` is not
/// consulted: the reading is permissive, the verdicts those of the spec.
pub fn open_checked(location: &Location, options: &OpenOptions) -> Result<Checked, OpenError> {
    let checked = match location {
        Location::Path(p) => check_local(p),
        Location::Url(url) => check_url(url, options),
    };
    checked.map_err(OpenError::at(location))
}

fn check_local(path: &std::path::Path) -> Result<Checked, Error> {
    let (gguf, report) = match Gguf::open_with(path, &ReadOptions { permissive: true }) {
        Ok(g) => {
            let report = g.report().clone();
            (Some(g), report)
        }
        // a header even a permissive reading cannot get through: the whole check says where
        Err(Error::Format(_)) => (None, crate::validate_file(path)?),
        Err(e) => return Err(e),
    };
    Ok(Checked {
        gguf,
        report,
        size: None,
        etag: None,
        cost: None,
    })
}

#[cfg(feature = "remote")]
fn check_url(url: &str, options: &OpenOptions) -> Result<Checked, Error> {
    let h = crate::remote::scan_url(url, &options.remote())?;
    Ok(Checked {
        gguf: h.gguf,
        report: h.report,
        size: Some(h.size),
        etag: h.etag,
        cost: Some(h.stats),
    })
}

#[cfg(not(feature = "remote"))]
fn check_url(url: &str, _: &OpenOptions) -> Result<Checked, Error> {
    Err(super::no_remote(url))
}
