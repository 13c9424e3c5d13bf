//! What is checked, and the verdicts: the one place to learn the rules of the format.
//!
//! - `rules`: every rule of the CLI contract's table as a named check, with the diagnostic
//!   its violation produces. The parser (`read/parser/`) calls these checks on every field as it
//!   reads the header, on its field-by-field path and its fast paths alike.
//! - `data`: the checks after the header, against the file's length (`truncated` tensor data,
//!   `trailing_data`).
//! - [`Report`]: everything found about a file, and its two verdicts, `valid` (the spec) and
//!   `ggml_compatible` (what ggml v0.27.0 loads).
//! - [`check_fast_paths`]: proof that the parser's fast paths read what its field-by-field path
//!   reads, used by the tests and a fuzz target.
//!
//! [`validate_bytes`] and [`validate_file`] run the whole check and never stop at the first
//! finding; opening a file ([`crate::Gguf::open`]) runs the same checks and stops at the first
//! error unless opened permissively.
#![forbid(unsafe_code)]

pub(crate) mod data;
pub(crate) mod line_endings;
mod paths;
mod report;
pub(crate) mod rules;

use std::path::Path;

use crate::error::{Error, Result};
use crate::map;
use crate::read::parser::{self, Mode};
use crate::read::source::SliceSource;

pub use paths::check_fast_paths;
pub use report::Report;
pub(crate) use report::{incomplete, verdicts};

/// Runs the whole check of a GGUF in memory and reports every finding: the two verdicts of
/// `gguf validate`. Never fails: a file that cannot be parsed is an invalid file, and one whose
/// header declares more entries than the reader indexes is reported [`Report::incomplete`].
pub fn validate_bytes(bytes: &[u8]) -> Report {
    let (r, found) = parser::parse(&mut SliceSource(bytes), Mode::Permissive);
    verdicts(r, found, bytes, bytes.len() as u64)
}

/// [`validate_bytes`] on a file, memory-mapped; an error, not a report, when the check cannot
/// finish (a header beyond the reader's limits, see [`Report::incomplete`]).
pub fn validate_file(path: impl AsRef<Path>) -> Result<Report> {
    let path = path.as_ref();
    let file = std::fs::File::open(path)
        .map_err(|e| Error::io_at(format!("opening {}", path.display()), path, e))?;
    let map = map::Map::new(&file)
        .map_err(|e| Error::io_at(format!("mapping {}", path.display()), path, e))?;
    let report = validate_bytes(map.as_slice());
    match report.incomplete {
        Some(reason) => Err(Error::NotValidated {
            path: path.to_path_buf(),
            reason,
        }),
        None => Ok(report),
    }
}
