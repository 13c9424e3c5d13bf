//! `ggufkit._native.scan`: the library's scan (`ggufkit::scan`) of many locations, its four
//! tables returned column by column with each column's name, kind and nullability, as the
//! library declares them. `ggufkit/scan.py` turns them into `pyarrow.Table`s; no column is
//! computed here.
#![forbid(unsafe_code)]

use ggufkit::audit::Depth;
use ggufkit::scan::{
    Cell, Collect, Column, FileRows, Kind, NoScanProgress, RemoteConfig, Row, ScanOptions,
    ValueLimit,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// The name of a column kind, as `ggufkit/scan.py` maps it to an Arrow type.
fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Str => "string",
        Kind::U64 => "uint64",
        Kind::I64 => "int64",
        Kind::F64 => "float64",
        Kind::Bool => "bool",
        Kind::ListU64 => "list<uint64>",
    }
}

fn cell<'py>(py: Python<'py>, c: Cell<'_>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match c {
        Cell::Null => py.None().into_bound(py),
        Cell::Str(s) => s.into_pyobject(py)?.into_any(),
        Cell::U64(v) => v.into_pyobject(py)?.into_any(),
        Cell::I64(v) => v.into_pyobject(py)?.into_any(),
        Cell::F64(v) => v.into_pyobject(py)?.into_any(),
        Cell::Bool(v) => v.into_pyobject(py)?.to_owned().into_any(),
        Cell::ListU64(v) => PyList::new(py, v)?.into_any(),
    })
}

/// Sets `out[R::TABLE]` to `(columns, values)`: `columns` a list of `(name, kind, nullable)`,
/// `values` a list per column, in row order.
fn table<'py, R: Row>(
    out: &Bound<'py, PyDict>,
    rows: &[FileRows],
    of: impl Fn(&FileRows) -> Vec<&R>,
) -> PyResult<()> {
    let py = out.py();
    let cols: &[Column] = R::COLUMNS;
    let columns = PyList::empty(py);
    let values: Vec<Bound<'py, PyList>> = cols.iter().map(|_| PyList::empty(py)).collect();
    for c in cols {
        columns.append((c.name, kind_name(c.kind), c.nullable))?;
    }
    for r in rows {
        for row in of(r) {
            for (i, v) in values.iter().enumerate() {
                v.append(cell(py, row.cell(i))?)?;
            }
        }
    }
    out.set_item(R::TABLE, (columns, PyList::new(py, values)?))
}

/// Scans `locations` (paths, folders walked for `*.gguf`, URLs, object-store prefixes) with
/// `jobs` files at once and returns the four tables as `{name: (columns, values)}`. A file that
/// cannot be read is its row (`read_error`), never an exception. `full_audit` runs every rule of
/// the audit, the per-token lookups too.
#[pyfunction]
#[pyo3(signature = (locations, jobs=None, full_arrays=false, full_audit=false))]
pub fn scan<'py>(
    py: Python<'py>,
    locations: Vec<String>,
    jobs: Option<usize>,
    full_arrays: bool,
    full_audit: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let rows = py.detach(|| {
        let locations = ggufkit::scan::expand(&locations);
        let mut options = ScanOptions {
            values: ValueLimit {
                full_arrays,
                ..ValueLimit::default()
            },
            remote: RemoteConfig {
                options: ggufkit::remote::RemoteOptions::from_env(),
            },
            audit: Some(if full_audit {
                Depth::Full
            } else {
                Depth::Header
            }),
            ..ScanOptions::default()
        };
        if let Some(j) = jobs {
            options.jobs = j.max(1);
        }
        let mut sink = Collect::default();
        // a Collect sink never fails, so neither does the scan
        ggufkit::scan::scan(
            &locations,
            &Default::default(),
            &options,
            &mut sink,
            &NoScanProgress,
        )
        .map(|_| sink.rows)
    });
    let rows = rows.map_err(|e| pyo3::exceptions::PyOSError::new_err(e.to_string()))?;
    let out = PyDict::new(py);
    table(&out, &rows, |r| vec![&r.file])?;
    table(&out, &rows, |r| r.metadata.iter().collect())?;
    table(&out, &rows, |r| r.tensors.iter().collect())?;
    table(&out, &rows, |r| r.findings.iter().collect())?;
    Ok(out)
}
