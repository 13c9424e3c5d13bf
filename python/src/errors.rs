//! The library's errors as Python exceptions: a rule violation is `ggufkit.FormatError` (with
//! `.rule`, `.offset`, `.message`), a failed read or write `OSError` (the subclass its errno
//! picks: `FileNotFoundError`, `PermissionError`...), a missing key or tensor `KeyError`, and
//! everything else `ggufkit.GGUFError`. Every message is one line naming the file.
#![forbid(unsafe_code)]

use ggufkit::Error;
use pyo3::exceptions::{PyKeyError, PyOSError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

static GGUF_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static FORMAT_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// An exception class of `ggufkit.errors` (Python code, so that `FormatError` can derive from
/// both `GGUFError` and `ValueError`).
fn class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
) -> PyResult<Bound<'py, PyType>> {
    cell.import(py, "ggufkit.errors", name).cloned()
}

/// `ggufkit.GGUFError` with `message`.
pub fn gguf_error(py: Python<'_>, message: String) -> PyErr {
    match class(py, &GGUF_ERROR, "GGUFError") {
        Ok(c) => PyErr::from_type(c, message),
        Err(e) => e,
    }
}

/// The exception for `e`, raised while working on `file` (a path, a URL or `<bytes>`).
pub fn to_py(py: Python<'_>, e: Error, file: &str) -> PyErr {
    match e {
        Error::Format(d) => {
            let line = format!("{file}: {d}");
            match class(py, &FORMAT_ERROR, "FormatError") {
                Ok(c) => PyErr::from_type(c, (line, d.rule.id(), d.offset, d.message)),
                Err(e) => e,
            }
        }
        Error::Io { ref source, .. } => {
            let line = e.to_string();
            match source.raw_os_error() {
                // OSError(errno, strerror, filename) picks the errno's subclass
                Some(errno) => PyOSError::new_err((errno, line, file.to_string())),
                None => PyOSError::new_err(format!("{file}: {line}")),
            }
        }
        Error::NotFound(m) => PyKeyError::new_err(format!("{file}: {m}")),
        // the library says it in plain words; Python callers match FileNotFoundError (ENOENT)
        Error::Write(ref w @ ggufkit::error::WriteError::NoOutputFolder { ref path, .. }) => {
            PyOSError::new_err((2, w.to_string(), path.display().to_string()))
        }
        other => gguf_error(py, format!("{file}: {other}")),
    }
}

/// Converts a library result, naming `file` in the error.
pub trait OrRaise<T> {
    /// The value, or the Python exception for the error.
    fn or_raise(self, py: Python<'_>, file: &str) -> PyResult<T>;
}

impl<T> OrRaise<T> for ggufkit::Result<T> {
    fn or_raise(self, py: Python<'_>, file: &str) -> PyResult<T> {
        self.map_err(|e| to_py(py, e, file))
    }
}
