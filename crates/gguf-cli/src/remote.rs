//! FILE arguments that are remote locations (`http(s)://`, `s3://`, `gs://`, `az://`): opening
//! them through the library's remote reader, and the `"remote"` member that `--json` output
//! adds to say what the read cost.

use std::path::Path;
use std::sync::Mutex;

use ggufkit::hash::{self, FileHashes, HashAlgo};
use ggufkit::remote::{self, RemoteGguf, RemoteOptions, RemoteStats};
use ggufkit::{Error, Gguf, ReadOptions, Report};

use crate::cmd::{describe, CliError};
use crate::output::json::Json;
use crate::output::progress::Progress;

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
            "  {:<18} {} in {}\n",
            "fetched",
            crate::output::counted(s.bytes, "byte", "bytes"),
            crate::output::counted(s.requests, "request", "requests")
        )
    })
}

/// `gguf hash` of a remote file: the header with range requests, then the data section streamed
/// in one request (`ggufkit::hash::hash_remote`).
pub fn hash(file: &Path, algo: HashAlgo) -> Result<FileHashes, CliError> {
    let r = open_remote(file, true)?;
    crate::cmd::report_errors(file, r.gguf());
    let bar = Progress::bytes(0, &file.display().to_string());
    let hashes = hash::hash_remote(&r, algo, &bar).map_err(|e| match e {
        Error::OverlappingTensors { .. } => CliError::failed(format!(
            "{}: tensors overlap; hash a local copy",
            file.display()
        )),
        other => CliError::from_lib(file, &other),
    })?;
    bar.finish();
    record(file, r.stats());
    Ok(hashes)
}
