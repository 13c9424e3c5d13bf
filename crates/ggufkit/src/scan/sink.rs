//! Where a scan's rows go as they come: a [`Sink`] takes each location's rows whole; the output
//! folder ([`ScanOutput`](super::ScanOutput)) is the sink the CLI uses, and a program can give
//! its own (a channel, a database).
#![forbid(unsafe_code)]

use super::rows::FileRows;
use super::table::Row;
use crate::error::Result;

/// Takes the rows of each scanned location, in the order locations finish.
pub trait Sink {
    /// One location's rows (all four tables).
    fn write(&mut self, rows: FileRows) -> Result<()>;
    /// The scan is over: make everything written durable and visible.
    fn finish(&mut self) -> Result<()>;
}

/// Collects every row in memory (tests, small scans, bindings that return tables).
#[derive(Debug, Default)]
pub struct Collect {
    pub rows: Vec<FileRows>,
}

impl Sink for Collect {
    fn write(&mut self, rows: FileRows) -> Result<()> {
        self.rows.push(rows);
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// One part file of one table being written; invisible until committed.
pub trait TablePart<R: Row>: Send {
    /// Appends a row.
    fn push(&mut self, row: &R) -> Result<()>;
    /// Completes the part and renames it into place.
    fn commit(self: Box<Self>) -> Result<()>;
}
