//! The verdicts of a file for people, as `gguf validate` prints them: the verdict line, then each
//! error and warning with its offset and rule.

use ggufkit::Report;

use super::Style;

/// The verdicts of `file`.
pub fn validation_text(file: &str, r: &Report, s: &Style) -> String {
    let mut out = String::new();
    let verdict = match (r.valid(), r.ggml_compatible()) {
        (true, true) => s.green("valid, ggml-compatible"),
        (true, false) => format!("{}, {}", s.green("valid"), s.yellow("not ggml-compatible")),
        (false, true) => format!(
            "{}, {}",
            s.red("INVALID"),
            s.yellow("but ggml would load it")
        ),
        (false, false) => s.red("INVALID"),
    };
    out.push_str(&format!("{}: {verdict}\n", s.bold(file)));
    for d in &r.errors {
        out.push_str(&format!("  {} {d}\n", s.red("error")));
    }
    for d in &r.warnings {
        out.push_str(&format!("  {} {d}\n", s.yellow("warning")));
    }
    if r.omitted > 0 {
        out.push_str(&format!(
            "  ({} not shown)\n",
            super::counted(r.omitted as u64, "more finding", "more findings")
        ));
    }
    out
}
