//! FILE arguments that are remote locations (`http(s)://`, `s3://`, `gs://`, `az://`): opening
//! them through the library's remote reader, and the `"remote"` member that `--json` output
//! adds to say what the read cost.

use std::path::Path;
use std::sync::Mutex;

use ggufkit::remote::{self, RemoteGguf, RemoteOptions, RemoteStats};
use ggufkit::{Gguf, ReadOptions, Report};

use crate::cmd::{describe, CliError};
use crate::hashing::{Algo, FileHashes, Progress};
use crate::output::json::Json;

/// What the last remote open of each location cost, for the JSON member.
static COSTS: Mutex<Vec<(String, RemoteStats)>> = Mutex::new(Vec::new());

fn record(file: &Path, stats: RemoteStats) {
    let mut c = COSTS.lock().unwrap_or_else(|e| e.into_inner());
    c.retain(|(f, _)| f.as_str() != file.to_string_lossy());
    c.push((file.to_string_lossy().into_owned(), stats));
}

/// True when `file` names a remote location rather than a local path.
pub fn is_remote(file: &Path) -> bool {
    file.to_str().is_some_and(remote::is_remote)
}

/// What reading `file` remotely cost, when it was read remotely.
pub fn cost(file: &Path) -> Option<RemoteStats> {
    let c = COSTS.lock().unwrap_or_else(|e| e.into_inner());
    c.iter()
        .rev()
        .find(|(f, _)| f.as_str() == file.to_string_lossy())
        .map(|(_, s)| *s)
}

/// Opens a remote file's header (the spec's rules, or permissively), keeping the reader for
/// tensor data.
pub fn open_remote(file: &Path, permissive: bool) -> Result<RemoteGguf, CliError> {
    let url = file.to_string_lossy();
    let r = RemoteGguf::open_with(
        &url,
        &RemoteOptions::from_env(),
        &ReadOptions { permissive },
    )
    .map_err(|e| CliError::from_lib(file, &e))?;
    record(file, r.stats());
    Ok(r)
}

/// [`open_remote`], keeping only the header.
pub fn open(file: &Path, permissive: bool) -> Result<Gguf<'static>, CliError> {
    open_remote(file, permissive).map(RemoteGguf::into_gguf)
}

/// The first bytes of a remote file as far as the parser reads them, and the object's length.
pub fn header_prefix(file: &Path) -> Result<(Vec<u8>, u64), CliError> {
    let url = file.to_string_lossy();
    let (bytes, total, stats) = remote::header_prefix(&url, &RemoteOptions::from_env())
        .map_err(|e| CliError::from_lib(file, &e))?;
    record(file, stats);
    Ok((bytes, total))
}

/// Both verdicts of a remote file (`Err` for I/O errors, as for a local file).
pub fn validate(file: &Path) -> Result<Report, String> {
    let url = file.to_string_lossy();
    let (report, stats) =
        remote::validate_url(&url, &RemoteOptions::from_env()).map_err(|e| describe(file, &e))?;
    record(file, stats);
    Ok(report)
}

/// Adds `"remote": {"bytes": N, "requests": M}` before the closing brace of the JSON object in
/// `out` (which may end in a newline), when `file` was read remotely.
pub fn add_member(out: &mut String, file: &Path) {
    let Some(s) = cost(file) else {
        return;
    };
    let newline = out.ends_with('\n');
    let body = out.trim_end_matches('\n');
    let Some(body) = body.strip_suffix('}') else {
        return;
    };
    let mut j = Json::new();
    j.raw(",").key("remote").raw("{").key("bytes").u64(s.bytes);
    j.raw(",").key("requests").u64(s.requests).raw("}}");
    let mut new = String::with_capacity(out.len() + j.out.len());
    new.push_str(body);
    new.push_str(&j.out);
    if newline {
        new.push('\n');
    }
    *out = new;
}

/// A human line: what the read cost.
pub fn human_line(file: &Path) -> Option<String> {
    cost(file).map(|s| {
        format!(
            "  {:<18} {} bytes in {} requests\n",
            "fetched", s.bytes, s.requests
        )
    })
}

/// An incremental digest of one algorithm.
enum Hasher {
    Xxh64(xxhash_rust::xxh64::Xxh64),
    Sha256(sha2::Sha256),
}

impl Hasher {
    fn new(algo: Algo) -> Self {
        match algo {
            Algo::Xxh64 => Hasher::Xxh64(xxhash_rust::xxh64::Xxh64::new(0)),
            Algo::Sha256 => Hasher::Sha256(<sha2::Sha256 as sha2::Digest>::new()),
        }
    }

    fn update(&mut self, b: &[u8]) {
        match self {
            Hasher::Xxh64(h) => h.update(b),
            Hasher::Sha256(h) => sha2::Digest::update(h, b),
        }
    }

    /// The hex digest, written as [`crate::hashing::digest`] writes it.
    fn finish(self) -> String {
        match self {
            Hasher::Xxh64(h) => format!("{:016x}", h.digest()),
            Hasher::Sha256(h) => sha2::Digest::finalize(h)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        }
    }
}

/// `gguf hash` of a remote file: the header with range requests, then the data section streamed
/// in one request, each byte fed to the whole-data digest and to its tensor's, never held.
pub fn hash(file: &Path, algo: Algo) -> Result<FileHashes, CliError> {
    let r = open_remote(file, true)?;
    let g = r.gguf();
    crate::cmd::report_errors(file, g);
    let (start, end) = (g.data_offset(), g.expected_len());
    if r.len() < end {
        return Err(CliError::failed(format!(
            "{}: at byte {}: the file is {} bytes long, but its tensor data needs {} bytes",
            file.display(),
            r.len(),
            r.len(),
            end
        )));
    }
    // tensor ranges in data order; a valid file's never overlap
    let mut spans: Vec<(u64, u64, usize)> = g
        .tensors()
        .enumerate()
        .map(|(i, t)| (t.absolute_offset(), t.absolute_offset() + t.size(), i))
        .collect();
    spans.sort_unstable();
    if spans.windows(2).any(|w| w[1].0 < w[0].1) {
        return Err(CliError::failed(format!(
            "{}: tensors overlap; hash a local copy",
            file.display()
        )));
    }
    let mut hashers: Vec<Option<Hasher>> =
        (0..spans.len()).map(|_| Some(Hasher::new(algo))).collect();
    let mut whole = Hasher::new(algo);
    let mut pos = start;
    let mut next = 0usize;
    let bar = Progress::bytes(end - start, &file.display().to_string());
    r.stream_range(start..end, &mut |chunk: &[u8]| {
        whole.update(chunk);
        let chunk_end = pos + chunk.len() as u64;
        while next < spans.len() && spans[next].1 <= pos {
            next += 1;
        }
        let mut k = next;
        while k < spans.len() && spans[k].0 < chunk_end {
            let (a, b, i) = spans[k];
            let lo = a.max(pos);
            let hi = b.min(chunk_end);
            if lo < hi {
                if let Some(h) = hashers[i].as_mut() {
                    h.update(&chunk[(lo - pos) as usize..(hi - pos) as usize]);
                }
            }
            k += 1;
        }
        pos = chunk_end;
        bar.add(chunk.len() as u64);
        Ok(())
    })
    .map_err(|e| CliError::from_lib(file, &e))?;
    bar.finish();
    record(file, r.stats());
    let names: Vec<String> = g.tensors().map(|t| t.name().into_owned()).collect();
    let tensors = names
        .into_iter()
        .zip(hashers)
        .map(|(n, h)| (n, h.map(Hasher::finish).unwrap_or_default()))
        .collect();
    Ok(FileHashes {
        tensors,
        data: whole.finish(),
    })
}
