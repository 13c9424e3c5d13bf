//! Tables as Parquet (feature `scan-parquet`): rows gathered into Arrow record batches of
//! [`BATCH_ROWS`] rows, written in row groups of at most [`ROW_GROUP_ROWS`] rows (or
//! [`ROW_GROUP_BYTES`] of encoded data, whichever comes first), so memory stays flat however
//! many rows a part holds. Snappy-compressed; read by DuckDB, pyarrow, Spark alike.
#![forbid(unsafe_code)]

use std::fs::File;
use std::marker::PhantomData;
use std::path::Path;
use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Float64Builder, Int64Builder, ListBuilder, StringBuilder, UInt64Builder,
};
use arrow_array::{Array, ArrayRef, Int64Array, RecordBatch, StringArray, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::read::Stamp;
use super::sink::TablePart;
use super::table::{Cell, Column, Kind, Row};
use crate::error::{Error, Result};
use crate::write::AtomicFile;

/// Rows gathered before they become a record batch.
pub const BATCH_ROWS: usize = 8192;
/// Rows of one row group at most.
pub const ROW_GROUP_ROWS: usize = 64 * 1024;
/// Encoded bytes buffered for one row group at most.
pub const ROW_GROUP_BYTES: usize = 32 << 20;

fn item_field() -> Arc<Field> {
    Arc::new(Field::new("item", DataType::UInt64, false))
}

/// The Arrow type of a column kind.
fn data_type(kind: Kind) -> DataType {
    match kind {
        Kind::Str => DataType::Utf8,
        Kind::U64 => DataType::UInt64,
        Kind::I64 => DataType::Int64,
        Kind::F64 => DataType::Float64,
        Kind::Bool => DataType::Boolean,
        Kind::ListU64 => DataType::List(item_field()),
    }
}

/// The Arrow schema of table `R`.
pub fn schema<R: Row>() -> SchemaRef {
    Arc::new(Schema::new(
        R::COLUMNS
            .iter()
            .map(|c| Field::new(c.name, data_type(c.kind), c.nullable))
            .collect::<Vec<_>>(),
    ))
}

/// One column being gathered.
enum Builder {
    Str(StringBuilder),
    U64(UInt64Builder),
    I64(Int64Builder),
    F64(Float64Builder),
    Bool(BooleanBuilder),
    List(ListBuilder<UInt64Builder>),
}

impl Builder {
    fn new(c: &Column) -> Builder {
        match c.kind {
            Kind::Str => Builder::Str(StringBuilder::new()),
            Kind::U64 => Builder::U64(UInt64Builder::new()),
            Kind::I64 => Builder::I64(Int64Builder::new()),
            Kind::F64 => Builder::F64(Float64Builder::new()),
            Kind::Bool => Builder::Bool(BooleanBuilder::new()),
            Kind::ListU64 => {
                Builder::List(ListBuilder::new(UInt64Builder::new()).with_field(item_field()))
            }
        }
    }

    /// Appends a cell; a cell of another kind than the column's (a bug of a `Row`) is null.
    fn push(&mut self, cell: Cell<'_>) {
        match (self, cell) {
            (Builder::Str(b), Cell::Str(s)) => b.append_value(s),
            (Builder::Str(b), _) => b.append_null(),
            (Builder::U64(b), Cell::U64(v)) => b.append_value(v),
            (Builder::U64(b), _) => b.append_null(),
            (Builder::I64(b), Cell::I64(v)) => b.append_value(v),
            (Builder::I64(b), _) => b.append_null(),
            (Builder::F64(b), Cell::F64(v)) => b.append_value(v),
            (Builder::F64(b), _) => b.append_null(),
            (Builder::Bool(b), Cell::Bool(v)) => b.append_value(v),
            (Builder::Bool(b), _) => b.append_null(),
            (Builder::List(b), Cell::ListU64(l)) => {
                b.values().append_slice(l);
                b.append(true);
            }
            (Builder::List(b), _) => b.append(false),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Str(b) => Arc::new(b.finish()),
            Builder::U64(b) => Arc::new(b.finish()),
            Builder::I64(b) => Arc::new(b.finish()),
            Builder::F64(b) => Arc::new(b.finish()),
            Builder::Bool(b) => Arc::new(b.finish()),
            Builder::List(b) => Arc::new(b.finish()),
        }
    }
}

fn pq_err(target: &Path, what: &str, e: impl std::fmt::Display) -> Error {
    Error::io_at(
        format!("{what} {}", target.display()),
        target,
        std::io::Error::other(e.to_string()),
    )
}

/// A Parquet part of table `R`.
pub struct ParquetPart<R> {
    file: AtomicFile,
    writer: ArrowWriter<File>,
    schema: SchemaRef,
    builders: Vec<Builder>,
    rows: usize,
    _row: PhantomData<fn(&R)>,
}

impl<R: Row> ParquetPart<R> {
    /// Starts writing `target` (which must not exist).
    pub fn create(target: &Path) -> Result<Self> {
        let file = AtomicFile::create(target, false)?;
        let handle = file
            .file()
            .try_clone()
            .map_err(|e| Error::io_at(format!("writing {}", target.display()), target, e))?;
        let schema = schema::<R>();
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let writer = ArrowWriter::try_new(handle, Arc::clone(&schema), Some(props))
            .map_err(|e| pq_err(target, "starting", e))?;
        Ok(ParquetPart {
            file,
            writer,
            schema,
            builders: R::COLUMNS.iter().map(Builder::new).collect(),
            rows: 0,
            _row: PhantomData,
        })
    }

    /// The gathered rows as a batch, handed to the writer (which closes a row group when it is
    /// full, or when its buffered bytes pass the bound).
    fn flush(&mut self) -> Result<()> {
        if self.rows == 0 {
            return Ok(());
        }
        let columns = self.builders.iter_mut().map(Builder::finish).collect();
        self.rows = 0;
        let target = self.file.target().to_path_buf();
        let batch = RecordBatch::try_new(Arc::clone(&self.schema), columns)
            .map_err(|e| pq_err(&target, "gathering rows of", e))?;
        self.writer
            .write(&batch)
            .map_err(|e| pq_err(&target, "writing", e))?;
        if self.writer.in_progress_size() > ROW_GROUP_BYTES {
            self.writer
                .flush()
                .map_err(|e| pq_err(&target, "writing", e))?;
        }
        Ok(())
    }
}

impl<R: Row> TablePart<R> for ParquetPart<R> {
    fn push(&mut self, row: &R) -> Result<()> {
        for (i, b) in self.builders.iter_mut().enumerate() {
            b.push(row.cell(i));
        }
        self.rows += 1;
        if self.rows >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn commit(mut self: Box<Self>) -> Result<()> {
        self.flush()?;
        let target = self.file.target().to_path_buf();
        let ParquetPart { file, writer, .. } = *self;
        writer
            .close()
            .map_err(|e| pq_err(&target, "finishing", e))?;
        file.commit()
    }
}

/// The location and stamp of every row of a `files` part written in Parquet (resume).
pub fn read_stamps(path: &Path) -> Result<Vec<(String, Stamp)>> {
    let open = |e: std::io::Error| Error::io_at(format!("reading {}", path.display()), path, e);
    let file = File::open(path).map_err(open)?;
    let builder =
        ParquetRecordBatchReaderBuilder::try_new(file).map_err(|e| pq_err(path, "reading", e))?;
    let wanted = ["location", "size", "mtime_ns", "etag"];
    let schema = builder.parquet_schema();
    let indices: Vec<usize> = (0..schema.num_columns())
        .filter(|&i| wanted.contains(&schema.column(i).name()))
        .collect();
    let mask = ProjectionMask::leaves(schema, indices);
    let reader = builder
        .with_projection(mask)
        .build()
        .map_err(|e| pq_err(path, "reading", e))?;
    let mut out = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| pq_err(path, "reading", e))?;
        let col = |name: &str| batch.column_by_name(name).cloned();
        let bad = || pq_err(path, "reading", "a `files` table without its columns");
        let loc = col("location").ok_or_else(bad)?;
        let loc = loc.as_any().downcast_ref::<StringArray>().ok_or_else(bad)?;
        let size = col("size");
        let size = size
            .as_ref()
            .and_then(|a| a.as_any().downcast_ref::<UInt64Array>());
        let mtime = col("mtime_ns");
        let mtime = mtime
            .as_ref()
            .and_then(|a| a.as_any().downcast_ref::<Int64Array>());
        let etag = col("etag");
        let etag = etag
            .as_ref()
            .and_then(|a| a.as_any().downcast_ref::<StringArray>());
        for i in 0..batch.num_rows() {
            let stamp = Stamp {
                size: size.filter(|a| a.is_valid(i)).map(|a| a.value(i)),
                mtime_ns: mtime.filter(|a| a.is_valid(i)).map(|a| a.value(i)),
                etag: etag
                    .filter(|a| a.is_valid(i))
                    .map(|a| a.value(i).to_string()),
            };
            out.push((loc.value(i).to_string(), stamp));
        }
    }
    Ok(out)
}
