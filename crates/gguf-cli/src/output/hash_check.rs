//! The lines of `gguf hash --check`: one per disagreement, then OK or FAILED.

use ggufkit::escape::escape_line;
use ggufkit::hash::{Check, Problem};

/// The lines for file `shown` checked against its manifest section.
pub fn check_text(shown: &str, check: &Check) -> String {
    let mut out = String::new();
    for p in &check.problems {
        let line = match p {
            Problem::TensorDiffers {
                name,
                expected,
                found,
            } => format!(
                "MISMATCH  tensor  {}  (expected {expected}, got {found})",
                escape_line(name)
            ),
            Problem::TensorExtra { name } => format!(
                "EXTRA     tensor  {}  (in the file, not in the manifest)",
                escape_line(name)
            ),
            Problem::TensorMissing { name } => format!(
                "MISSING   tensor  {}  (in the manifest, not in the file)",
                escape_line(name)
            ),
            Problem::DataDiffers { expected, found } => {
                format!("MISMATCH  data  (expected {expected}, got {found})")
            }
            Problem::DataMissing => "MISSING   data  (the manifest has no data line)".to_string(),
        };
        out.push_str(&format!("{shown}: {line}\n"));
    }
    let n = check.problems.len();
    if n == 0 {
        out.push_str(&format!(
            "{shown}: OK ({} and the data section match, {})\n",
            super::counted(check.matching.len() as u64, "tensor", "tensors"),
            check.algo
        ));
    } else {
        out.push_str(&format!(
            "{shown}: FAILED ({n} problem{})\n",
            if n == 1 { "" } else { "s" }
        ));
    }
    out
}
