//! One module per subcommand, and what they share: opening files and turning errors into the
//! contract's one-line messages and exit codes.

pub mod carve;
pub mod convert;
pub mod diff;
pub mod dump;
pub mod export;
pub mod hash;
pub mod info;
pub mod layout;
pub mod merge;
pub mod meta;
pub mod quantize;
pub mod report;
pub mod split;
pub mod tensors;
pub mod validate;

use std::fmt;
use std::path::Path;

use ggufkit::{Error, Gguf, ReadOptions};

use crate::remote;

/// Exit code: the command ran and found nothing wrong.
pub const OK: u8 = 0;
/// Exit code: the command ran and found a problem (invalid file, difference, mismatch).
pub const FOUND: u8 = 1;
/// Exit code: the command could not run.
pub const FAILED: u8 = 2;

/// An error that ends a command: one line for stderr and the exit code.
#[derive(Debug)]
pub struct CliError {
    pub code: u8,
    pub message: String,
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "gguf: {}", self.message)
    }
}

impl CliError {
    /// The command could not run (exit 2).
    pub fn failed(message: impl Into<String>) -> Self {
        CliError {
            code: FAILED,
            message: message.into(),
        }
    }

    /// A library error about `file`, as the contract's one line: `FILE: at byte N: what`.
    pub fn from_lib(file: &Path, e: &Error) -> Self {
        CliError::failed(describe(file, e))
    }
}

/// The contract's one-line description of a library error about a file.
pub fn describe(file: &Path, e: &Error) -> String {
    match e {
        Error::Format(d) => format!("{}: at byte {}: {}", file.display(), d.offset, d.message),
        other => format!("{}: {other}", file.display()),
    }
}

pub type CmdResult = Result<u8, CliError>;

/// A file's name as documents title it: its last component (the whole path when it has none).
pub fn display_name(file: &Path) -> String {
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.display().to_string())
}

/// Opens a file with the spec's rules (or permissively), as a command that needs its header.
/// A FILE that is a remote location (`http(s)://`, `s3://`, `gs://`, `az://`) is read with range
/// requests, its header only.
pub fn open(file: &Path, permissive: bool) -> Result<Gguf<'static>, CliError> {
    if remote::is_remote(file) {
        return remote::open(file, permissive);
    }
    let opts = ReadOptions { permissive };
    Gguf::open_with(file, &opts).map_err(|e| CliError::from_lib(file, &e))
}

/// Opens a file permissively, as a command that shows what it can of a damaged file: what is
/// wrong goes to stderr, one line per finding, and the command goes on.
pub fn open_reporting(file: &Path) -> Result<Gguf<'static>, CliError> {
    let g = open(file, true)?;
    report_errors(file, &g);
    Ok(g)
}

/// Prints what is wrong with a permissively opened file to stderr, one line per finding.
pub fn report_errors(file: &Path, g: &Gguf<'_>) {
    for d in &g.report().errors {
        eprintln!(
            "gguf: {}: at byte {}: {} [{}]",
            file.display(),
            d.offset,
            d.message,
            d.rule
        );
    }
}
