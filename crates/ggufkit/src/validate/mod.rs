//! The two verdicts: `valid` (the spec) and `ggml_compatible` (what ggml v0.27.0 would load).
#![forbid(unsafe_code)]

use crate::error::{Diagnostic, Rule};
use crate::read::parser::Findings;

/// Everything found about one file: errors break the spec, warnings do not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Violations of the spec, the first one met reading front to back first.
    pub errors: Vec<Diagnostic>,
    /// `ggml.endian`, `ggml.nested_array`, `trailing_data`, and names ggml would call duplicates.
    pub warnings: Vec<Diagnostic>,
    /// Diagnostics left out because the file had too many of them.
    pub omitted: usize,
}

impl Report {
    pub(crate) fn from_findings(found: Findings, stop: Option<Diagnostic>) -> Report {
        let mut errors = found.errors;
        errors.extend(stop);
        Report {
            errors,
            warnings: found.warnings,
            omitted: found.dropped,
        }
    }

    /// The file satisfies every rule of the spec and the contract.
    pub fn valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// ggml v0.27.0 would load the file with its data: every error is one ggml does not check
    /// (bool bytes, UTF-8) and no warning is one ggml rejects (byte order, nested arrays,
    /// names equal up to a NUL byte).
    pub fn ggml_compatible(&self) -> bool {
        self.errors
            .iter()
            .all(|d| matches!(d.rule, Rule::ValueBool | Rule::ValueUtf8))
            && self.warnings.iter().all(|d| d.rule == Rule::TrailingData)
    }

    /// The first error, if any.
    pub fn first_error(&self) -> Option<&Diagnostic> {
        self.errors.first()
    }
}
