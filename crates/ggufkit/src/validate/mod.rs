//! The verdicts: the whole check of a file, above the parser that applies the rules.
//!
//! The rules themselves are below the parser, in `rules/` (one named check per rule of the CLI
//! contract's table, with the diagnostic its violation produces, and the [`Report`]); the checks
//! after the header (data cut short, trailing bytes) are the reader's (`read/data.rs`).
//!
//! - [`Report`]: everything found about a file, and its two verdicts, `valid` (the spec) and
//!   `ggml_compatible` (what ggml v0.27.0 loads).
//! - [`check_fast_paths`]: proof that the parser's fast paths read what its field-by-field path
//!   reads, used by the tests and a fuzz target.
//!
//! [`validate_bytes`] and [`validate_file`] run the whole check and never stop at the first
//! finding; opening a file ([`crate::Gguf::open`]) runs the same checks and stops at the first
//! error unless opened permissively.
#![forbid(unsafe_code)]

mod paths;

use std::path::Path;

use crate::error::{Error, Result};
use crate::map;
use crate::read::data::check_data;
use crate::read::index::Header;
use crate::read::parser::{self, Findings, Mode, Stop};
use crate::read::source::SliceSource;

pub use crate::rules::Report;
pub use paths::check_fast_paths;

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

/// The report of a permissive parse of a file `total` bytes long whose first bytes are `bytes`
/// (see [`check_data`]): shared by local and remote validation.
pub(crate) fn verdicts(
    r: std::result::Result<Header, Stop>,
    found: Findings,
    bytes: &[u8],
    total: u64,
) -> Report {
    match r {
        Ok(h) => {
            let mut report = found.into_report(None);
            check_data(&h, bytes, total, &mut report);
            report
        }
        Err(Stop::Rule(d)) => found.into_report(Some(d)),
        Err(Stop::Io(e)) => found.into_incomplete(e),
    }
}
