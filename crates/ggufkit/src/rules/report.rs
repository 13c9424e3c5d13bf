//! The report of a check and its two verdicts: `valid` (the spec) and `ggml_compatible` (what
//! ggml v0.27.0 would load).
#![forbid(unsafe_code)]

use crate::error::{Diagnostic, Rule};

/// Everything found about one file: errors break the spec, warnings do not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Violations of the spec, the first one met reading front to back first.
    pub errors: Vec<Diagnostic>,
    /// `ggml.endian`, `ggml.nested_array`, `trailing_data`, and names ggml would call duplicates.
    pub warnings: Vec<Diagnostic>,
    /// Diagnostics left out because the file had too many of them.
    pub omitted: usize,
    /// Why the check stopped before the end of the header without finding a broken rule: the
    /// header declares more key-value pairs or tensors than this reader indexes (2^32 - 1, a
    /// header of 64 GB at least). The file is then judged neither valid nor ggml-compatible, and
    /// [`validate_file`](crate::validate_file) returns an error for it.
    pub incomplete: Option<String>,
}

impl Report {
    /// The file satisfies every rule of the spec and the contract.
    pub fn valid(&self) -> bool {
        self.errors.is_empty() && self.incomplete.is_none()
    }

    /// ggml v0.27.0 would load the file with its data: every error is one ggml does not check
    /// (bool bytes, UTF-8) and no warning is one ggml rejects (byte order, nested arrays,
    /// names equal up to a NUL byte).
    pub fn ggml_compatible(&self) -> bool {
        self.incomplete.is_none()
            && self
                .errors
                .iter()
                .all(|d| matches!(d.rule, Rule::ValueBool | Rule::ValueUtf8))
            && self.warnings.iter().all(|d| d.rule == Rule::TrailingData)
    }

    /// The first error, if any.
    pub fn first_error(&self) -> Option<&Diagnostic> {
        self.errors.first()
    }
}
