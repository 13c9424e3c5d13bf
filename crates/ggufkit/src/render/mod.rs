//! The JSON outputs of the contract (`docs/json.md`), written once for every program that gives
//! them: the `gguf` command's `--json` (`dump`, `tensors`, `validate`, `audit`, `layout`), the
//! WebAssembly package's `toJSON()`, `summary()`, `validate()`, `audit()`... (the summary's own
//! members are `summary/json.rs`'s, shared with Python). Each function returns the text of one object or array; nothing is printed.
#![forbid(unsafe_code)]

pub mod audit;
pub mod dump;
pub mod layout;
pub mod summary;
pub mod tensor;
pub mod validation;
pub mod value;

use crate::json::Json;
use crate::location::ReadCost;
use crate::Diagnostic;

/// A finding as every `--json` output writes it: `{"rule", "offset", "message"}`.
pub fn diagnostic_json(j: &mut Json, d: &Diagnostic) {
    j.raw("{").key("rule").str(d.rule.id());
    j.raw(",").key("offset").u64(d.offset);
    j.raw(",").key("message").str(&d.message).raw("}");
}

/// Appends `,"remote":{"bytes":N,"requests":M}` to an open JSON object when the file was
/// fetched.
pub fn cost_member(j: &mut Json, cost: Option<ReadCost>) {
    let Some(c) = cost else {
        return;
    };
    j.raw(",").key("remote").raw("{").key("bytes").u64(c.bytes);
    j.raw(",").key("requests").u64(c.requests).raw("}");
}
