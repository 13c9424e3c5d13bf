//! The verdicts of a file as `gguf validate --json` writes them: one object per file, one line
//! each.
#![forbid(unsafe_code)]

use crate::json::Json;
use crate::location::ReadCost;
use crate::{Diagnostic, Report};

use super::{cost_member, diagnostic_json};

/// The contract's JSON object for one file (with what fetching it cost, for a remote file), with
/// a newline.
pub fn validation_json(file: &str, r: &Report, cost: Option<ReadCost>) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("valid").bool(r.valid());
    j.raw(",").key("ggml_compatible").bool(r.ggml_compatible());
    j.raw(",").key("errors");
    diagnostics(&mut j, &r.errors);
    j.raw(",").key("warnings");
    diagnostics(&mut j, &r.warnings);
    cost_member(&mut j, cost);
    j.raw("}\n");
    j.out
}

fn diagnostics(j: &mut Json, list: &[Diagnostic]) {
    j.raw("[");
    for (i, d) in list.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        diagnostic_json(j, d);
    }
    j.raw("]");
}
