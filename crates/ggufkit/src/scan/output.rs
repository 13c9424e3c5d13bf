//! The output folder of a scan: one subfolder per table (`files/`, `metadata/`, `tensors/`,
//! `findings/`), each holding numbered parts (`part-00000.parquet`, or `.jsonl`) that query
//! engines read as one table (`read_parquet('DIR/files/*.parquet')`).
//!
//! A part holds the rows of up to [`ScanOutput::files_per_part`] locations, in all four tables.
//! Each part file is written to a temporary file and renamed into place when complete, the
//! `files` part last: a location is done exactly when its `files` row is in a part. So a scan
//! killed at any point leaves complete parts only, and the next scan into the same folder
//! ([`ScanOutput::open`]) skips the locations they hold (same size and mtime, or same ETag),
//! removes parts of other tables that lack their `files` part and goes on with the next number.
//! One scan writes to a folder at a time.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::read::Stamp;
use super::rows::{FileRow, FileRows, FindingRow, MetadataRow, TensorRow};
use super::sink::{Sink, TablePart};
use super::table::Row;
use crate::error::{Error, Result};

/// How tables are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// Parquet (feature `scan-parquet`).
    #[default]
    Parquet,
    /// JSON Lines.
    Jsonl,
}

impl Format {
    /// The extension of a part file.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Jsonl => "jsonl",
        }
    }

    /// The format a name (`parquet`, `jsonl`) stands for.
    pub fn from_name(s: &str) -> Option<Format> {
        match s {
            "parquet" => Some(Format::Parquet),
            "jsonl" => Some(Format::Jsonl),
            _ => None,
        }
    }
}

/// The four tables' folder names.
pub const TABLES: [&str; 4] = [
    FileRow::TABLE,
    MetadataRow::TABLE,
    TensorRow::TABLE,
    FindingRow::TABLE,
];

/// The locations an output folder already holds, with the stamp each was scanned at.
pub type Done = HashMap<String, Stamp>;

fn io(what: &str, p: &Path, e: std::io::Error) -> Error {
    Error::io_at(format!("{what} {}", p.display()), p, e)
}

/// The part number in a name `part-NNNNN.EXT`, and its extension.
fn part_number(name: &str) -> Option<(u64, &str)> {
    let rest = name.strip_prefix("part-")?;
    let (num, ext) = rest.split_once('.')?;
    Some((num.parse().ok()?, ext))
}

fn part_path(dir: &Path, table: &str, n: u64, format: Format) -> PathBuf {
    dir.join(table)
        .join(format!("part-{n:05}.{}", format.extension()))
}

/// The part files of one table: (number, path, extension).
fn parts(dir: &Path) -> Result<Vec<(u64, PathBuf, String)>> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| io("listing", dir, e))? {
        let e = e.map_err(|e| io("listing", dir, e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some((n, ext)) = part_number(&name) {
            out.push((n, e.path(), ext.to_string()));
        } else if name.starts_with(".part-") && name.ends_with(".tmp") {
            // left by a scan that was killed while writing this part
            let _ = std::fs::remove_file(e.path());
        }
    }
    out.sort();
    Ok(out)
}

/// The rows of one part being written, one writer per table.
struct OpenPart {
    files: Box<dyn TablePart<FileRow>>,
    metadata: Box<dyn TablePart<MetadataRow>>,
    tensors: Box<dyn TablePart<TensorRow>>,
    findings: Box<dyn TablePart<FindingRow>>,
    locations: usize,
}

fn open_table<R: Row + 'static>(
    dir: &Path,
    n: u64,
    format: Format,
) -> Result<Box<dyn TablePart<R>>> {
    let path = part_path(dir, R::TABLE, n, format);
    Ok(match format {
        Format::Jsonl => Box::new(super::jsonl::JsonlPart::<R>::create(&path)?),
        #[cfg(feature = "scan-parquet")]
        Format::Parquet => Box::new(super::parquet::ParquetPart::<R>::create(&path)?),
        #[cfg(not(feature = "scan-parquet"))]
        Format::Parquet => {
            return Err(Error::io_at(
                "writing Parquet",
                &path,
                std::io::Error::other("Parquet output needs ggufkit's `scan-parquet` feature"),
            ))
        }
    })
}

/// The output folder as a [`Sink`]: one folder per table, numbered parts, resumable.
pub struct ScanOutput {
    dir: PathBuf,
    format: Format,
    next: u64,
    open: Option<OpenPart>,
    done: Done,
    /// Locations in one part (default 1,000): what a killed scan loses at most.
    pub files_per_part: usize,
}

impl ScanOutput {
    /// Opens (creating it if needed) the output folder `dir`: reads which locations its
    /// complete parts hold, removes what an interrupted scan left unfinished.
    pub fn open(dir: &Path, format: Format) -> Result<ScanOutput> {
        for t in TABLES {
            let d = dir.join(t);
            std::fs::create_dir_all(&d).map_err(|e| io("creating", &d, e))?;
        }
        let files = parts(&dir.join(FileRow::TABLE))?;
        let complete: std::collections::HashSet<u64> = files.iter().map(|(n, _, _)| *n).collect();
        let mut next = files.iter().map(|(n, _, _)| n + 1).max().unwrap_or(0);
        for t in &TABLES[1..] {
            for (n, path, _) in parts(&dir.join(t))? {
                if complete.contains(&n) {
                    next = next.max(n + 1);
                } else {
                    std::fs::remove_file(&path).map_err(|e| io("removing", &path, e))?;
                }
            }
        }
        let mut done = Done::new();
        for (_, path, ext) in &files {
            for (loc, stamp) in read_stamps(path, ext)? {
                done.insert(loc, stamp);
            }
        }
        Ok(ScanOutput {
            dir: dir.to_path_buf(),
            format,
            next,
            open: None,
            done,
            files_per_part: 1000,
        })
    }

    /// The locations the folder held when it was opened, and their stamps.
    pub fn done(&self) -> &Done {
        &self.done
    }

    /// [`ScanOutput::done`], moved out (the folder keeps an empty set): what a scan is given,
    /// without a copy of a million entries.
    pub fn take_done(&mut self) -> Done {
        std::mem::take(&mut self.done)
    }

    fn commit(&mut self) -> Result<()> {
        if let Some(p) = self.open.take() {
            // the `files` part last: it says the part is complete
            p.metadata.commit()?;
            p.tensors.commit()?;
            p.findings.commit()?;
            p.files.commit()?;
        }
        Ok(())
    }
}

impl Sink for ScanOutput {
    fn write(&mut self, rows: FileRows) -> Result<()> {
        if self.open.is_none() {
            let (d, n, f) = (&self.dir, self.next, self.format);
            self.open = Some(OpenPart {
                files: open_table(d, n, f)?,
                metadata: open_table(d, n, f)?,
                tensors: open_table(d, n, f)?,
                findings: open_table(d, n, f)?,
                locations: 0,
            });
            self.next += 1;
        }
        let Some(p) = self.open.as_mut() else {
            return Ok(());
        };
        rows.metadata.iter().try_for_each(|r| p.metadata.push(r))?;
        rows.tensors.iter().try_for_each(|r| p.tensors.push(r))?;
        rows.findings.iter().try_for_each(|r| p.findings.push(r))?;
        p.files.push(&rows.file)?;
        p.locations += 1;
        if p.locations >= self.files_per_part {
            self.commit()?;
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<()> {
        self.commit()
    }
}

/// The locations and stamps of one `files` part.
fn read_stamps(path: &Path, ext: &str) -> Result<Vec<(String, Stamp)>> {
    match ext {
        "jsonl" => read_jsonl_stamps(path),
        #[cfg(feature = "scan-parquet")]
        "parquet" => super::parquet::read_stamps(path),
        _ => Ok(Vec::new()),
    }
}

fn read_jsonl_stamps(path: &Path) -> Result<Vec<(String, Stamp)>> {
    let text = std::fs::read_to_string(path).map_err(|e| io("reading", path, e))?;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| {
            io(
                "reading",
                path,
                std::io::Error::new(std::io::ErrorKind::InvalidData, e),
            )
        })?;
        let Some(loc) = v.get("location").and_then(|l| l.as_str()) else {
            continue;
        };
        let stamp = Stamp {
            size: v.get("size").and_then(serde_json::Value::as_u64),
            mtime_ns: v.get("mtime_ns").and_then(serde_json::Value::as_i64),
            etag: v.get("etag").and_then(|e| e.as_str()).map(str::to_string),
        };
        out.push((loc.to_string(), stamp));
    }
    Ok(out)
}
