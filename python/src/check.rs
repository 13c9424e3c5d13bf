//! `ggufkit.validate` and its `Report`: the two verdicts of `gguf validate` and every finding,
//! for a path, bytes or a URL. A bad file is a report, never an exception.
#![forbid(unsafe_code)]

use ggufkit::{validate_bytes, Diagnostic, Location};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

use crate::errors::OrRaise;

/// One broken rule (an error) or a remark (a warning): the rule id as in the CLI contract, the
/// byte offset of the field, and a sentence naming the field, the value found and what was
/// expected.
#[pyclass(frozen, get_all, eq, module = "ggufkit")]
#[derive(Clone, PartialEq)]
pub struct Finding {
    rule: String,
    offset: u64,
    message: String,
}

impl Finding {
    fn of(d: &Diagnostic) -> Self {
        Finding {
            rule: d.rule.id().to_string(),
            offset: d.offset,
            message: d.message.clone(),
        }
    }
}

#[pymethods]
impl Finding {
    #[new]
    fn new(rule: String, offset: u64, message: String) -> Self {
        Finding {
            rule,
            offset,
            message,
        }
    }

    fn __repr__(&self) -> String {
        format!(
            "Finding(rule={:?}, offset={}, message={:?})",
            self.rule, self.offset, self.message
        )
    }

    fn __str__(&self) -> String {
        format!("at byte {}: {} [{}]", self.offset, self.message, self.rule)
    }
}

/// The report of a check: `valid` (the spec), `ggml_compatible` (what ggml would load), the
/// errors (the first one met reading front to back first) and the warnings.
#[pyclass(frozen, get_all, module = "ggufkit")]
pub struct Report {
    valid: bool,
    ggml_compatible: bool,
    errors: Vec<Finding>,
    warnings: Vec<Finding>,
    /// Findings left out because the file had too many.
    omitted: usize,
}

impl Report {
    pub fn of(r: &ggufkit::Report) -> Self {
        Report {
            valid: r.valid(),
            ggml_compatible: r.ggml_compatible(),
            errors: r.errors.iter().map(Finding::of).collect(),
            warnings: r.warnings.iter().map(Finding::of).collect(),
            omitted: r.omitted,
        }
    }
}

#[pymethods]
impl Report {
    fn __bool__(&self) -> bool {
        self.valid
    }

    fn __repr__(&self) -> String {
        format!(
            "Report(valid={}, ggml_compatible={}, errors={}, warnings={})",
            if self.valid { "True" } else { "False" },
            if self.ggml_compatible {
                "True"
            } else {
                "False"
            },
            self.errors.len(),
            self.warnings.len()
        )
    }
}

/// Checks a file (a path, bytes or a URL) against every rule and reports what it finds. Never
/// raises for a bad file; OSError when it cannot be read.
#[pyfunction]
pub fn validate(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Report> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return Ok(Report::of(&validate_bytes(b.as_bytes())));
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        return Ok(Report::of(&validate_bytes(&b.to_vec())));
    }
    let path: std::path::PathBuf = source.extract()?;
    let name = path.display().to_string();
    let location = Location::from_path(&path);
    let (r, _) = py
        .detach(|| ggufkit::open::validate(&location))
        .map_err(|e| e.error)
        .or_raise(py, &name)?;
    Ok(Report::of(&r))
}
