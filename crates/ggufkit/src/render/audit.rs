//! The audit's findings as `gguf audit --json` writes them: one object per file, one line each
//! (schema in docs/json.md).
#![forbid(unsafe_code)]

use crate::audit::{Finding, Severity};
use crate::json::Json;

/// The JSON object of one file's findings (already filtered to `least` and above), with a
/// newline.
pub fn audit_json(file: &str, least: Severity, findings: &[Finding]) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("severity").str(least.name());
    j.raw(",").key("counts").raw("{");
    for (i, sev) in [Severity::Error, Severity::Warning, Severity::Note]
        .into_iter()
        .enumerate()
    {
        if i > 0 {
            j.raw(",");
        }
        let n = findings.iter().filter(|f| f.severity == sev).count();
        j.key(sev.name()).u64(n as u64);
    }
    j.raw("}");
    j.raw(",").key("findings").raw("[");
    for (i, f) in findings.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("rule").str(f.rule);
        j.raw(",").key("severity").str(f.severity.name());
        j.raw(",").key("subject").str(&f.subject);
        j.raw(",").key("offset").u64(f.offset);
        match f.position {
            Some((line, col)) => {
                j.raw(",").key("line").u64(line.into());
                j.raw(",").key("column").u64(col.into());
            }
            None => {
                j.raw(",").key("line").raw("null");
                j.raw(",").key("column").raw("null");
            }
        }
        j.raw(",").key("message").str(&f.message).raw("}");
    }
    j.raw("]}\n");
    j.out
}
