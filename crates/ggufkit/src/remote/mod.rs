//! Remote GGUF files (feature `remote`): the header over HTTP range requests or from an object
//! store (S3, GCS, Azure Blob Storage), without downloading the file; tensor data on demand.
//!
//! The header is read by the same parser as local files, over a `Source` (the reader's internal byte-source trait)
//! that fetches what the parser asks for: a first range of 1 MiB (or the whole object when
//! smaller), which also gives the object's size and ETag, then one range as far as the parser
//! guesses the header goes (from the vocabulary it is reading: `read/parser/guess.rs`), then
//! ranges that double what is held when the guess was short. So Gemma 3's 6.5 MB header costs 2
//! requests, a BPE vocabulary with merges 3, any header `O(log H)`, and the transfer is at most
//! the header plus one chunk. The object's size is known, so verdicts (`truncated`
//! tensor data, `trailing_data`) are exactly those of a local file of that length.
//!
//! Locations: `http://` and `https://` (any server that honours `Range`), `s3://bucket/key`,
//! `gs://bucket/key`, `az://container/key`. Stores are configured from the environment as their
//! builders read it (`AWS_*` including `AWS_ENDPOINT` and `AWS_ALLOW_HTTP`, `GOOGLE_*`, `AZURE_*`).
//!
//! Faults end in an error or a correct answer, never a hang or a wrong verdict: requests time
//! out ([`RemoteOptions`]); 5xx answers and reset connections are retried with exponential
//! backoff; a server that ignores `Range` is read from one plain response only as far as the
//! header goes, then the connection is dropped; a body shorter than announced is an error; a
//! response about another version of the object (length or ETag differ; `If-Match` is sent when
//! the ETag is strong) is an error.
//!
//! The API is blocking: it runs its requests on an internal tokio runtime, so call it from
//! ordinary threads (or `spawn_blocking`), not from inside an async task.
#![forbid(unsafe_code)]

mod list;
mod object;
mod scan;
mod shard;
mod source;
mod store;

use std::io;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::StreamExt;
use object_store::{GetOptions, GetRange, ObjectStore};

use crate::error::{Error, Location, Missing, RemoteError, Result};
use crate::read::parser::{self, Mode};
use crate::read::TensorInfo;
use crate::read::{Gguf, ReadOptions};
use crate::validate::verdicts;
use crate::validate::Report;
use object::{describe, Object};
use source::RemoteSource;
use store::{counted, Counters};

pub use crate::location::{is_remote, ReadCost};
pub use list::{is_prefix, list_gguf, Listed};
pub use scan::{object_stamp, scan_url, ScannedHeader};
pub(crate) use shard::shard_url;
pub use shard::{parse_shard_url, RemoteModel, ShardTensor};

/// Size of the first range request: a 32k-token vocabulary's header (about 700 KB) in one
/// request, and enough of a larger one to guess where it ends (BENCHMARKS.md, `gguf scan`).
pub const FIRST_CHUNK: u64 = 1024 * 1024;

/// Timeouts and retries of remote reads.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RemoteOptions {
    /// Bytes asked for by the first request (later ones go as far as the parser guesses the
    /// header ends, or double what is held).
    pub first_chunk: u64,
    /// Time to establish a connection.
    pub connect_timeout: Duration,
    /// Longest wait for the next bytes of a response: a stalled server ends here.
    pub read_timeout: Duration,
    /// Longest time for one whole request, body included.
    pub request_timeout: Duration,
    /// Retries of a request that failed with a 5xx status, a reset connection or a timeout.
    pub max_retries: usize,
    /// First backoff between retries (doubling after each).
    pub retry_backoff: Duration,
    /// No retry starts this long after the first attempt.
    pub retry_timeout: Duration,
}

impl Default for RemoteOptions {
    fn default() -> Self {
        RemoteOptions {
            first_chunk: FIRST_CHUNK,
            connect_timeout: Duration::from_secs(10),
            read_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(600),
            max_retries: 5,
            retry_backoff: Duration::from_millis(100),
            retry_timeout: Duration::from_secs(120),
        }
    }
}

impl RemoteOptions {
    /// The defaults, overridden by `GGUF_REMOTE_TIMEOUT` (seconds: connect and read timeouts) and
    /// `GGUF_REMOTE_RETRIES` (a count) when they are set to numbers.
    pub fn from_env() -> Self {
        let mut o = RemoteOptions::default();
        let num = |k: &str| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.trim().parse::<f64>().ok())
        };
        if let Some(s) = num("GGUF_REMOTE_TIMEOUT").filter(|s| *s > 0.0 && s.is_finite()) {
            o.connect_timeout = Duration::from_secs_f64(s);
            o.read_timeout = Duration::from_secs_f64(s);
        }
        if let Some(n) = num("GGUF_REMOTE_RETRIES").filter(|n| *n >= 0.0) {
            o.max_retries = n as usize;
        }
        o
    }
}

/// What the read behind `c` cost so far.
fn cost_of(c: &Counters) -> ReadCost {
    ReadCost {
        bytes: c.bytes.load(Ordering::Relaxed),
        requests: c.requests.load(Ordering::Relaxed),
    }
}

/// The runtime every remote read runs on (two workers: requests are I/O-bound).
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ggufkit-remote")
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
}

/// An I/O error reading the object at `url`.
fn remote_err(url: &str, what: &str, e: io::Error) -> Error {
    Error::Io {
        context: what.to_string(),
        location: Some(Location::Url(url.to_string())),
        source: e,
    }
}

/// A parsed header fetched from a remote object, and what it took.
struct Fetched {
    object: Object,
    counters: Arc<Counters>,
    bytes: Vec<u8>,
    parsed: std::result::Result<parser::Header, parser::Stop>,
    found: parser::Findings,
}

/// Fetches and parses the header of `url` with the one parser.
fn fetch_header(url: &str, opts: &RemoteOptions, mode: Mode) -> Result<Fetched> {
    let counters = Arc::new(Counters::default());
    let loc = store::locate(url, opts).map_err(|problem| RemoteError::Location {
        url: url.to_string(),
        problem,
    })?;
    let rt = runtime().handle();
    let chunk = opts.first_chunk.max(4);
    let (object, start) = rt
        .block_on(counted(
            &counters,
            Object::open(loc, Arc::clone(&counters), chunk),
        ))
        .map_err(|e| remote_err(url, "reading the header", e))?;
    let mut src = RemoteSource::new(&object, rt, start, chunk);
    let (parsed, found) = parser::parse(&mut src, mode);
    if let Err(parser::Stop::Io(e)) = parsed {
        return Err(remote_err(url, "reading the header", e));
    }
    if let Ok(h) = &parsed {
        // a file without tensors may end in padding that is not trailing data: the verdict needs
        // those bytes, as it has them for a local file
        if let Some(pad_end) = crate::read::data::verdict_bytes_end(h, object.size) {
            use crate::read::source::Source;
            src.available(pad_end)
                .map_err(|e| remote_err(url, "reading the padding after the header", e))?;
        }
    }
    let bytes = src.into_bytes();
    Ok(Fetched {
        object,
        counters,
        bytes,
        parsed,
        found,
    })
}

/// Both verdicts of `gguf validate` for a remote file, and what reading its header cost.
/// `Err` only when the location cannot be read (I/O), as for a local file that cannot be opened.
pub fn validate_url(url: &str, opts: &RemoteOptions) -> Result<(Report, ReadCost)> {
    let f = fetch_header(url, opts, Mode::Permissive)?;
    let report = verdicts(f.parsed, f.found, &f.bytes, f.object.size);
    Ok((report, cost_of(&f.counters)))
}

/// The first bytes of a remote file, as far as the parser reads them (through the header, and a
/// tensor-less file's padding), with the object's length and what fetching them cost: the input
/// of [`outline_sized`](crate::read::outline_sized) (`gguf layout`).
pub fn header_prefix(url: &str, opts: &RemoteOptions) -> Result<(Vec<u8>, u64, ReadCost)> {
    let f = fetch_header(url, opts, Mode::Permissive)?;
    Ok((f.bytes, f.object.size, cost_of(&f.counters)))
}

/// A GGUF header read from a remote object, with on-demand access to its tensor data.
pub struct RemoteGguf {
    url: String,
    gguf: Gguf<'static>,
    object: Arc<Object>,
    counters: Arc<Counters>,
}

impl std::fmt::Debug for RemoteGguf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RemoteGguf")
            .field("url", &self.url)
            .field("size", &self.object.size)
            .field("gguf", &self.gguf)
            .finish()
    }
}

impl RemoteGguf {
    /// Reads the header of the GGUF at `url` with the spec's rules, options from the environment.
    pub fn open(url: &str) -> Result<Self> {
        Self::open_with(url, &RemoteOptions::from_env(), &ReadOptions::default())
    }

    /// [`RemoteGguf::open`] with options.
    pub fn open_with(url: &str, remote: &RemoteOptions, read: &ReadOptions) -> Result<Self> {
        let mode = if read.permissive {
            Mode::Permissive
        } else {
            Mode::Strict
        };
        let f = fetch_header(url, remote, mode)?;
        let header = f.parsed.map_err(Error::from)?;
        let gguf = Gguf::from_remote_parts(f.bytes, f.object.size, header, f.found, mode)?;
        Ok(RemoteGguf {
            url: url.to_string(),
            gguf,
            object: Arc::new(f.object),
            counters: f.counters,
        })
    }

    /// The header, as for a local file (tensor data is not held: [`TensorInfo::data`] is `None`;
    /// use [`RemoteGguf::tensor_bytes`]).
    ///
    /// [`TensorInfo::data`]: crate::TensorInfo::data
    pub fn gguf(&self) -> &Gguf<'static> {
        &self.gguf
    }

    /// The header, owned.
    pub fn into_gguf(self) -> Gguf<'static> {
        self.gguf
    }

    /// The location it was opened from.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The object's length in bytes.
    pub fn len(&self) -> u64 {
        self.object.size
    }

    /// True for an empty object (which is never a valid GGUF).
    pub fn is_empty(&self) -> bool {
        self.object.size == 0
    }

    /// Bytes received and requests sent so far (the header's, then any data read).
    pub fn stats(&self) -> ReadCost {
        cost_of(&self.counters)
    }

    /// Bytes `range` of the object, with one range request.
    pub fn read_range(&self, range: Range<u64>) -> Result<Vec<u8>> {
        let what = format!("reading bytes {}..{}", range.start, range.end);
        runtime()
            .handle()
            .block_on(counted(&self.counters, self.object.range(range)))
            .map_err(|e| remote_err(&self.url, &what, e))
    }

    /// The data of tensor `name` (without padding), with one range request.
    pub fn tensor_bytes(&self, name: &str) -> Result<Vec<u8>> {
        let t = self
            .gguf
            .tensor(name)
            .ok_or_else(|| Missing::Tensor { name: name.into() })?;
        self.tensor_data(&t)
    }

    /// The data of tensor `t`, one of this object's (the same as [`Self::tensor_bytes`], for a
    /// tensor already in hand: a repeated name in a permissive file names only the first).
    pub fn tensor_data(&self, t: &TensorInfo<'_>) -> Result<Vec<u8>> {
        let name = t.name();
        let start = t.absolute_offset();
        let end = start
            .checked_add(t.size())
            .filter(|&e| e <= self.object.size);
        let Some(end) = end else {
            return Err(RemoteError::TensorPastEnd {
                name: name.into_owned(),
                start,
                size: t.size(),
                object_size: self.object.size,
            }
            .into());
        };
        runtime()
            .handle()
            .block_on(counted(&self.counters, self.object.range(start..end)))
            .map_err(|e| remote_err(&self.url, &format!("reading tensor '{name}'"), e))
    }

    /// Streams bytes `range` of the object to `sink` as they arrive, with one request and memory
    /// bounded by the transport's buffers (for hashing a whole file without holding it).
    pub fn stream_range(
        &self,
        range: Range<u64>,
        sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
    ) -> Result<u64> {
        let what = format!("reading bytes {}..{}", range.start, range.end);
        runtime()
            .handle()
            .block_on(counted(&self.counters, stream(&self.object, range, sink)))
            .map_err(|e| remote_err(&self.url, &what, e))
    }
}

async fn stream(
    obj: &Object,
    range: Range<u64>,
    sink: &mut dyn FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<u64> {
    if range.end > obj.size || range.start > range.end {
        return Err(io::Error::other(format!(
            "bytes {}..{} are outside the object's {} bytes",
            range.start, range.end, obj.size
        )));
    }
    if range.start == range.end {
        return Ok(0);
    }
    let whole = range.start == 0 && range.end == obj.size;
    if !obj.ranges && !whole {
        return Err(io::Error::other(
            "the server ignores Range requests; only the whole object can be streamed",
        ));
    }
    let options = GetOptions {
        range: (!whole || obj.ranges).then(|| GetRange::Bounded(range.clone())),
        if_match: obj.etag.clone().filter(|e| !e.starts_with("W/")),
        ..Default::default()
    };
    let res = obj
        .loc
        .store
        .get_opts(&obj.loc.path, options)
        .await
        .map_err(|e| describe(e, &obj.loc))?;
    obj.same_object(&res.meta)?;
    if res.range != range {
        return Err(io::Error::other(format!(
            "asked for bytes {}..{}, the server sent bytes {}..{}",
            range.start, range.end, res.range.start, res.range.end
        )));
    }
    let want = range.end - range.start;
    let mut got = 0u64;
    let mut body = res.into_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| describe(e, &obj.loc))?;
        obj.counters.add_bytes(chunk.len() as u64);
        got += chunk.len() as u64;
        if got > want {
            return Err(io::Error::other(format!(
                "the server sent more than the {want} bytes asked for"
            )));
        }
        sink(&chunk)?;
    }
    if got < want {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!("the response ended after {got} of the {want} bytes it announced"),
        ));
    }
    Ok(got)
}
