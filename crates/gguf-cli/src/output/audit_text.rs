//! The audit's findings for people, as `gguf audit` prints them: one line per finding with the
//! file, severity, rule, key or tensor, byte offset, template line:col and message.

use ggufkit::audit::{Finding, Severity};

use super::Style;

/// The findings of `file` (already filtered to `least` and above), one line each; a file with
/// none gets one line saying so.
pub fn audit_text(file: &str, least: Severity, findings: &[Finding], s: &Style) -> String {
    if findings.is_empty() {
        return format!(
            "{}: {} (nothing at {} or above)\n",
            s.bold(file),
            s.green("clean"),
            least.name()
        );
    }
    let mut out = String::new();
    for f in findings {
        let sev = match f.severity {
            Severity::Error => s.red("error"),
            Severity::Warning => s.yellow("warning"),
            Severity::Note => s.dim("note"),
        };
        let place = match f.position {
            Some((line, col)) => format!(" (template {line}:{col})"),
            None => String::new(),
        };
        out.push_str(&format!(
            "{}: {sev} [{}] {} at byte {}{place}: {}\n",
            s.bold(file),
            f.rule,
            f.subject,
            f.offset,
            f.message
        ));
    }
    out
}
