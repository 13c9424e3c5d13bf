//! The JSON writer of every `--json` output: the library's, so that the CLI and the library's
//! exports spell a value the same way.

use ggufkit::Diagnostic;

pub use ggufkit::json::Json;

/// A finding as every `--json` output writes it: `{"rule", "offset", "message"}`.
pub fn diagnostic_json(j: &mut Json, d: &Diagnostic) {
    j.raw("{").key("rule").str(d.rule.id());
    j.raw(",").key("offset").u64(d.offset);
    j.raw(",").key("message").str(&d.message).raw("}");
}
