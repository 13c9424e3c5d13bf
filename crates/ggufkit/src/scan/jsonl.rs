//! Tables as JSON Lines: one object per row, the columns in order, numbers exact and text
//! escaped by the library's JSON writer ([`Json`]); written to a temporary file renamed into
//! place at commit.
#![forbid(unsafe_code)]

use std::io::Write;
use std::marker::PhantomData;
use std::path::Path;

use super::sink::TablePart;
use super::table::{Cell, Row};
use crate::error::{Error, Result};
use crate::json::Json;
use crate::write::AtomicFile;

/// Bytes buffered before they are written to the temporary file.
const FLUSH_AT: usize = 1 << 20;

/// A row as one JSON object (without the newline).
pub fn row_json<R: Row>(row: &R, j: &mut Json) {
    j.raw("{");
    for (i, c) in R::COLUMNS.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.key(c.name);
        match row.cell(i) {
            Cell::Null => j.raw("null"),
            Cell::Str(s) => j.str(s),
            Cell::U64(v) => j.u64(v),
            Cell::I64(v) => j.i64(v),
            Cell::F64(v) => j.f64(v),
            Cell::Bool(v) => j.bool(v),
            Cell::ListU64(l) => {
                j.raw("[");
                for (k, v) in l.iter().enumerate() {
                    if k > 0 {
                        j.raw(",");
                    }
                    j.u64(*v);
                }
                j.raw("]")
            }
        };
    }
    j.raw("}");
}

/// A JSON Lines part of table `R`.
pub struct JsonlPart<R> {
    file: AtomicFile,
    buf: Json,
    _row: PhantomData<fn(&R)>,
}

impl<R: Row> JsonlPart<R> {
    /// Starts writing `target` (which must not exist).
    pub fn create(target: &Path) -> Result<Self> {
        Ok(JsonlPart {
            file: AtomicFile::create(target, false)?,
            buf: Json::new(),
            _row: PhantomData,
        })
    }

    fn flush(&mut self) -> Result<()> {
        let target = self.file.target().to_path_buf();
        self.file
            .file_mut()
            .write_all(self.buf.out.as_bytes())
            .map_err(|e| Error::io_at(format!("writing {}", target.display()), &target, e))?;
        self.buf.out.clear();
        Ok(())
    }
}

impl<R: Row> TablePart<R> for JsonlPart<R> {
    fn push(&mut self, row: &R) -> Result<()> {
        row_json(row, &mut self.buf);
        self.buf.raw("\n");
        if self.buf.out.len() >= FLUSH_AT {
            self.flush()?;
        }
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        self.flush()?;
        self.file.commit()
    }
}
