//! `ggufkit.audit` and its `AuditFinding`: what a valid file can still hide (dangerous chat
//! templates, a tokenizer or hyperparameters that contradict the file), as `gguf audit` finds it.
#![forbid(unsafe_code)]

use ggufkit::audit::Severity;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::file::{open, File};

/// One finding of the audit: the rule id (docs/audit.md), its severity (`"error"`,
/// `"warning"`, `"note"`), the key or tensor concerned and the byte offset of its pair or info,
/// for a template the 1-based line and column inside it (None otherwise), and a sentence.
#[pyclass(frozen, get_all, eq, module = "ggufkit")]
#[derive(Clone, PartialEq)]
pub struct AuditFinding {
    rule: String,
    severity: String,
    subject: String,
    offset: u64,
    line: Option<u32>,
    column: Option<u32>,
    message: String,
}

impl AuditFinding {
    fn of(f: &ggufkit::audit::Finding) -> Self {
        AuditFinding {
            rule: f.rule.to_string(),
            severity: f.severity.name().to_string(),
            subject: f.subject.clone(),
            offset: f.offset,
            line: f.position.map(|p| p.0),
            column: f.position.map(|p| p.1),
            message: f.message.clone(),
        }
    }
}

#[pymethods]
impl AuditFinding {
    fn __repr__(&self) -> String {
        format!(
            "AuditFinding(rule={:?}, severity={:?}, subject={:?}, offset={}, line={}, column={}, message={:?})",
            self.rule,
            self.severity,
            self.subject,
            self.offset,
            self.line.map_or("None".into(), |l| l.to_string()),
            self.column.map_or("None".into(), |c| c.to_string()),
            self.message
        )
    }

    /// The line `gguf audit` prints, without the file name.
    fn __str__(&self) -> String {
        let place = match (self.line, self.column) {
            (Some(l), Some(c)) => format!(" (template {l}:{c})"),
            _ => String::new(),
        };
        format!(
            "{} [{}] {} at byte {}{place}: {}",
            self.severity, self.rule, self.subject, self.offset, self.message
        )
    }
}

/// Audits a file (a path, bytes, a URL, or an open `ggufkit.File`) and returns its findings at
/// `severity` or above (`"note"`, `"warning"`, `"error"`), in the audit's order. A file that
/// breaks the spec is read permissively and audited as far as its bytes allow, its violations
/// `spec.violation` findings first, as `gguf audit` does; one whose header cannot be read at all
/// raises FormatError.
#[pyfunction]
#[pyo3(signature = (source, *, severity = "warning"))]
pub fn audit(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    severity: &str,
) -> PyResult<Vec<AuditFinding>> {
    let least = Severity::from_name(severity).ok_or_else(|| {
        PyValueError::new_err(format!(
            "severity {severity:?}: expected \"note\", \"warning\" or \"error\""
        ))
    })?;
    let opened;
    let file = match source.cast::<File>() {
        Ok(f) => f.get(),
        Err(_) => {
            opened = open(py, source, true)?;
            &opened
        }
    };
    let held = file.held()?;
    let g = held.gguf();
    let found = py.detach(|| {
        let mut found = ggufkit::audit::spec_findings(g);
        found.extend(ggufkit::audit::audit(g));
        found
    });
    Ok(found
        .iter()
        .filter(|f| f.severity >= least)
        .map(AuditFinding::of)
        .collect())
}
