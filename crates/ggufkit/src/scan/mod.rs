//! `gguf scan` as a library: index many GGUF files (local paths, directories, URLs) into four
//! tables, `files`, `metadata`, `tensors` and `findings`, written as they come.
//!
//! Every column is something the rest of the library already says of a file: the summary of
//! `gguf info --json`, the keys and tensor infos of `gguf dump --json`, the verdicts and findings
//! of `gguf validate --json`. Each header is read once (by range requests for a remote file: the
//! header and at most one extra chunk, through `crate::remote`, feature `remote`). Many files
//! are read at once within a bound on threads and rows held ([`scan`]); one file's failure is
//! its `files` row, never the scan's end; the output folder ([`ScanOutput`]) is written in parts
//! renamed into place, so an interrupted scan resumes where it stopped. `docs/scale.md` has the
//! tables' columns and queries over them.
//!
//! ```no_run
//! use ggufkit::scan::{self, Format, ScanOptions, ScanOutput, NoScanProgress};
//!
//! let locations = scan::expand(&["models/", "https://example.com/m.gguf"]);
//! let mut out = ScanOutput::open("index".as_ref(), Format::Jsonl)?;
//! let done = out.take_done();
//! let stats = scan::scan(&locations, &done, &ScanOptions::default(), &mut out, &NoScanProgress)?;
//! println!("{} files, {} skipped", stats.scanned, stats.skipped);
//! # Ok::<(), ggufkit::Error>(())
//! ```
#![forbid(unsafe_code)]

mod driver;
mod extract;
mod jsonl;
mod output;
#[cfg(feature = "scan-parquet")]
mod parquet;
mod read;
mod rows;
mod sink;
mod table;
mod target;

pub use driver::{scan, NoScanProgress, ScanOptions, ScanProgress, ScanStats};
pub use extract::ValueLimit;
pub use jsonl::row_json;
pub use output::{Done, Format, ScanOutput, TABLES};
#[cfg(feature = "scan-parquet")]
pub use parquet::{schema, BATCH_ROWS, ROW_GROUP_BYTES, ROW_GROUP_ROWS};
pub use read::{scan_location, RemoteConfig, Stamp};
pub use rows::{FileRow, FileRows, FindingRow, MetadataRow, TensorRow};
pub use sink::{Collect, Sink, TablePart};
pub use table::{Cell, Column, Kind, Row};
pub use target::{expand, Target};
