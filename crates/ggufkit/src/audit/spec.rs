//! A file that breaks the spec is still audited: each error of the reader's report (duplicate
//! tensor names, a type id no ggml has, data cut short...) becomes a `spec.violation` finding,
//! beside what the other rules find in whatever the permissive reading could parse.
#![forbid(unsafe_code)]

use super::{Finding, Severity};
use crate::Gguf;

/// The report's errors as findings, the spec's rule id as the subject.
pub fn spec_findings(g: &Gguf<'_>) -> Vec<Finding> {
    g.report()
        .errors
        .iter()
        .map(|d| {
            Finding::new(
                "spec.violation",
                Severity::Error,
                d.rule.id(),
                d.offset,
                format!("{} (llama.cpp's reader refuses it)", d.message),
            )
        })
        .collect()
}
