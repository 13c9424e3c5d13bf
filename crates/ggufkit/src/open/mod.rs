//! Opening a [`Location`]: one call for a local path (memory-mapped) and a remote object
//! (`http(s)://`, `s3://`, `gs://`, `az://`: its header by range requests, tensor data on demand,
//! feature `remote`), returning the file and what reading it cost. Programs (the `gguf` command,
//! the Python package) call these instead of choosing a reader themselves:
//!
//! - [`open`]: the parsed file ([`Opened`]): its header, its tensors' data, the cost so far.
//! - [`validate`]: both verdicts, as `gguf validate` gives them.
//! - [`header_bytes`]: the bytes a byte layout is drawn from ([`HeaderBytes`]).
//! - [`open_model`]: a split model from any of its shards ([`OpenedModel`]);
//!   [`open_model_from_first`] from its first shard only, as llama.cpp's tools take one.
//! - [`open_checked`]: the file if a permissive reading gets through, both verdicts in any case,
//!   from one read ([`Checked`]): what `gguf scan` records of each location.
//!
//! Every failure is an [`OpenError`], which names the location.
#![forbid(unsafe_code)]

mod checked;
mod header;
mod model;
mod rounds;

use std::borrow::Cow;

use crate::error::{Error, LocationProblem, RemoteError};
use crate::location::{Location, ReadCost};
use crate::read::{Gguf, ReadOptions, TensorInfo};
#[cfg(feature = "remote")]
use crate::remote::{RemoteGguf, RemoteOptions};
use crate::validate::Report;

pub use checked::{open_checked, Checked};
pub use header::{header_bytes, HeaderBytes};
pub use model::{first_shard, open_model, open_model_from_first, ModelShards, OpenedModel};
pub use rounds::HeaderRounds;

/// A failure to open or read a location, naming it: `LOCATION: what went wrong`.
#[derive(Debug, thiserror::Error)]
#[error("{location}: {error}")]
pub struct OpenError {
    /// The location that could not be read.
    pub location: Location,
    /// What went wrong (a format error carries its rule and offset).
    #[source]
    pub error: Error,
    /// Where even a permissive reading of a local file stopped: every problem the spec's check
    /// finds in it, first problem first (the last is where reading had to stop), so that a program
    /// can say all of them and not only the one that stopped it. `None` otherwise.
    pub findings: Option<Box<Report>>,
}

impl OpenError {
    pub(crate) fn at(location: &Location) -> impl FnOnce(Error) -> OpenError + '_ {
        move |error| OpenError {
            location: location.clone(),
            error,
            findings: None,
        }
    }
}

/// How to read remote locations: the environment's settings (`GGUF_REMOTE_TIMEOUT`,
/// `GGUF_REMOTE_RETRIES`, the stores' own variables), or the given options.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// The parser's options (the spec's rules, or permissive).
    pub read: ReadOptions,
    /// Timeouts and retries of remote reads; `None` reads them from the environment.
    #[cfg(feature = "remote")]
    pub remote: Option<RemoteOptions>,
}

impl OpenOptions {
    /// The spec's rules, or (`permissive`) what ggml would load.
    pub fn permissive(permissive: bool) -> Self {
        OpenOptions {
            read: ReadOptions { permissive },
            #[cfg(feature = "remote")]
            remote: None,
        }
    }

    #[cfg(feature = "remote")]
    pub(crate) fn remote(&self) -> RemoteOptions {
        self.remote.clone().unwrap_or_else(RemoteOptions::from_env)
    }
}

/// Where an opened file's bytes are.
enum Source {
    /// A local file, mapped: every byte is there.
    Mapped(Gguf<'static>),
    /// A remote object: its header is held, tensor data is fetched on demand.
    #[cfg(feature = "remote")]
    Remote(RemoteGguf),
}

/// A GGUF opened from a [`Location`]: its header, its tensor data (borrowed from the map, or
/// fetched), and what reading it cost.
pub struct Opened {
    location: Location,
    source: Source,
}

impl std::fmt::Debug for Opened {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Opened")
            .field("location", &self.location)
            .field("gguf", self.gguf())
            .finish()
    }
}

/// Opens the GGUF at `location` with the spec's rules (or permissively), remote options from the
/// environment: [`open_with`] with [`OpenOptions::permissive`].
pub fn open(location: &Location, permissive: bool) -> Result<Opened, OpenError> {
    open_with(location, &OpenOptions::permissive(permissive))
}

/// Opens the GGUF at `location`: a path is mapped and its header parsed; a URL's header is read
/// with range requests (feature `remote`; without it a URL is refused).
pub fn open_with(location: &Location, options: &OpenOptions) -> Result<Opened, OpenError> {
    let source = match location {
        Location::Path(p) => Gguf::open_with(p, &options.read).map(Source::Mapped),
        Location::Url(url) => open_url(url, options),
    };
    source
        .map(|source| Opened {
            location: location.clone(),
            source,
        })
        .map_err(|error| {
            let findings = match (&error, location) {
                // a remote object is not fetched a second time for them
                (Error::Format(_), Location::Path(p)) if options.read.permissive => {
                    crate::validate_file(p).ok().map(Box::new)
                }
                _ => None,
            };
            OpenError {
                findings,
                ..OpenError::at(location)(error)
            }
        })
}

#[cfg(feature = "remote")]
fn open_url(url: &str, options: &OpenOptions) -> Result<Source, Error> {
    RemoteGguf::open_with(url, &options.remote(), &options.read).map(Source::Remote)
}

#[cfg(not(feature = "remote"))]
fn open_url(url: &str, _: &OpenOptions) -> Result<Source, Error> {
    Err(no_remote(url))
}

/// The error of a build without the `remote` feature, given a URL.
#[cfg_attr(feature = "remote", allow(dead_code))]
pub(crate) fn no_remote(url: &str) -> Error {
    RemoteError::Location {
        url: url.to_string(),
        problem: LocationProblem::NotBuiltIn,
    }
    .into()
}

impl Opened {
    /// Where it was opened from.
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// The parsed header (for a remote file, its tensor data is not held:
    /// [`TensorInfo::data`] is `None`; use [`Opened::tensor_data`]).
    pub fn gguf(&self) -> &Gguf<'static> {
        match &self.source {
            Source::Mapped(g) => g,
            #[cfg(feature = "remote")]
            Source::Remote(r) => r.gguf(),
        }
    }

    /// The parsed header, owned.
    pub fn into_gguf(self) -> Gguf<'static> {
        match self.source {
            Source::Mapped(g) => g,
            #[cfg(feature = "remote")]
            Source::Remote(r) => r.into_gguf(),
        }
    }

    /// True when the tensor data is at hand (a mapped file), false when it is fetched per tensor
    /// (a remote object).
    pub fn holds_data(&self) -> bool {
        matches!(self.source, Source::Mapped(_))
    }

    /// The remote reader, for a remote file (its ranges, its streaming).
    #[cfg(feature = "remote")]
    pub fn remote(&self) -> Option<&RemoteGguf> {
        match &self.source {
            Source::Remote(r) => Some(r),
            Source::Mapped(_) => None,
        }
    }

    /// What reading it cost so far (the header, then any data fetched): `None` for a local
    /// file, which is mapped, not fetched.
    pub fn cost(&self) -> Option<ReadCost> {
        match &self.source {
            Source::Mapped(_) => None,
            #[cfg(feature = "remote")]
            Source::Remote(r) => Some(r.stats()),
        }
    }

    /// The data of tensor `t`, one of this file's (without padding): borrowed from the map, or
    /// fetched with one range request. [`Error::TensorDataMissing`] when a local file is cut
    /// short before it.
    pub fn tensor_data<'s>(&'s self, t: &TensorInfo<'s>) -> Result<Cow<'s, [u8]>, Error> {
        match &self.source {
            Source::Mapped(_) => crate::tensor_bytes(t).map(Cow::Borrowed),
            #[cfg(feature = "remote")]
            Source::Remote(r) => r.tensor_data(t).map(Cow::Owned),
        }
    }
}

/// Both verdicts of the file at `location`, as `gguf validate` gives them, and what reading it
/// cost (`None` for a local file). A broken file is a report, not an error: `Err` only when the
/// location cannot be read, or (a local file) declares more than the reader indexes.
pub fn validate(location: &Location) -> Result<(Report, Option<ReadCost>), OpenError> {
    let checked = match location {
        Location::Path(p) => crate::validate_file(p).map(|r| (r, None)),
        Location::Url(url) => validate_url(url),
    };
    checked.map_err(OpenError::at(location))
}

#[cfg(feature = "remote")]
fn validate_url(url: &str) -> Result<(Report, Option<ReadCost>), Error> {
    crate::remote::validate_url(url, &RemoteOptions::from_env()).map(|(r, c)| (r, Some(c)))
}

#[cfg(not(feature = "remote"))]
fn validate_url(url: &str) -> Result<(Report, Option<ReadCost>), Error> {
    Err(no_remote(url))
}
