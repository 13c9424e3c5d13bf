//! One module per subcommand, and what they share: opening files and turning errors into the
//! contract's one-line messages and exit codes.

pub mod audit;
pub mod carve;
pub mod chat;
pub mod convert;
pub mod detokenize;
pub mod diff;
pub mod dump;
pub mod export;
pub mod hash;
pub mod info;
pub mod layout;
pub mod merge;
pub mod meta;
pub mod quantize;
pub mod recipe;
pub mod report;
pub mod scan;
pub mod split;
pub mod tensors;
pub mod tokenize;
pub mod validate;

use std::fmt;
use std::path::Path;

use ggufkit::{Error, Gguf, Location, Opened};

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

/// The contract's one-line description of a library error about a file. Errors about an output
/// name the output, not the input `file`.
pub fn describe(file: &Path, e: &Error) -> String {
    use ggufkit::error::WriteError;
    match e {
        Error::Format(d) => finding(file, d),
        Error::Write(
            WriteError::OutputExists { .. }
            | WriteError::OutputIsInput { .. }
            | WriteError::NoOutputFolder { .. },
        ) => e.to_string(),
        other => format!("{}: {other}", file.display()),
    }
}

/// The location a FILE argument names ([`Location::from_path`]): a remote object as given (the
/// library reads it and says what fails), or a local path, refused in plain words when it is not
/// a file `gguf` can read: missing, a directory, a pipe or a device, or unreadable.
pub fn locate(file: &Path) -> Result<Location, CliError> {
    let location = Location::from_path(file);
    if let Some(p) = location.path() {
        readable_as(p, "a .gguf file", false)?;
    }
    Ok(location)
}

/// [`locate`], for a command that reads the path itself.
pub fn readable(file: &Path) -> Result<(), CliError> {
    locate(file).map(drop)
}

/// [`readable`] for an input of another `kind` (`a manifest`), named in the message about a
/// folder; `streams` lets a text input be a pipe (`<(...)`) or a device.
pub fn readable_as(file: &Path, kind: &str, streams: bool) -> Result<(), CliError> {
    let say = |what: &str| Err(CliError::failed(format!("{}: {what}", file.display())));
    let meta = match std::fs::metadata(file) {
        Ok(m) => m,
        Err(e) => {
            return match e.kind() {
                std::io::ErrorKind::NotFound => say("no such file"),
                std::io::ErrorKind::PermissionDenied => {
                    say("permission denied: this user may not read it")
                }
                _ => say(&format!("cannot be read: {e}")),
            }
        }
    };
    if meta.is_dir() {
        return say(&format!("is a folder, not a file: name {kind} in it"));
    }
    if !meta.is_file() && !streams {
        return say(
            "is not a regular file (a pipe, a socket or a device): gguf reads GGUF files from disk; save the stream to a file first",
        );
    }
    if let Err(e) = std::fs::File::open(file) {
        return match e.kind() {
            std::io::ErrorKind::PermissionDenied => {
                say("permission denied: this user may not read it")
            }
            _ => say(&format!("cannot be opened: {e}")),
        };
    }
    Ok(())
}

pub type CmdResult = Result<u8, CliError>;

/// A file's name as documents title it: its last component (the whole path when it has none).
pub fn display_name(file: &Path) -> String {
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| file.display().to_string())
}

/// Opens a FILE with the spec's rules (or permissively), as a command that needs its header
/// ([`ggufkit::open()`]): a path is mapped; a remote location (`http(s)://`, `s3://`, `gs://`,
/// `az://`) is read with range requests, its header only, and says what that cost.
pub fn open(file: &Path, permissive: bool) -> Result<Opened, CliError> {
    let location = locate(file)?;
    ggufkit::open(&location, permissive).map_err(|e| match &e.findings {
        Some(findings) => unreadable(file, findings, &e.error),
        None => CliError::from_lib(file, &e.error),
    })
}

/// A file even a permissive reading cannot get through: every problem `validate` finds, first
/// problem first, each on its own line; the last, where reading had to stop, ends the command.
fn unreadable(file: &Path, report: &ggufkit::Report, e: &Error) -> CliError {
    match report.errors.split_last() {
        Some((last, before)) => {
            report_findings(
                file,
                &ggufkit::Report {
                    errors: before.to_vec(),
                    ..Default::default()
                },
            );
            CliError::failed(finding(file, last))
        }
        None => CliError::from_lib(file, e),
    }
}

/// One finding as a line: `FILE: ` and the diagnostic's own line, `at byte N: what [rule]`.
fn finding(file: &Path, d: &ggufkit::Diagnostic) -> String {
    format!("{}: {d}", file.display())
}

/// The exit code a read-only command owes to the file it read (docs/exit-codes.md): 0 for a
/// valid file, 1 for an invalid one (whose problems it said on stderr).
pub fn verdict(g: &Gguf<'_>) -> u8 {
    if g.report().valid() {
        OK
    } else {
        FOUND
    }
}

/// Opens a file permissively, as a read-only command does (docs/exit-codes.md): it shows what it
/// can of a damaged file; what is wrong goes to stderr, one line per finding, the first the one
/// `validate` reports first; the command goes on and ends with [`verdict`]'s code at least.
pub fn open_reporting(file: &Path) -> Result<Opened, CliError> {
    let opened = open(file, true)?;
    report_errors(file, opened.gguf());
    Ok(opened)
}

/// Prints what is wrong with a permissively opened file to stderr, one line per finding.
pub fn report_errors(file: &Path, g: &Gguf<'_>) {
    report_findings(file, g.report());
}

/// Prints the errors of `report` about `file` to stderr, one line each.
pub fn report_findings(file: &Path, report: &ggufkit::Report) {
    for d in &report.errors {
        eprintln!("gguf: {}", finding(file, d));
    }
}
