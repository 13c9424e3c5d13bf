//! The model summary as `gguf info --json` writes it for one file: the summary's members
//! (`summary/json.rs`, which Python's `summary()` shares), the KV cache at a context length, and
//! what a remote read cost.
#![forbid(unsafe_code)]

use crate::json::Json;
use crate::location::ReadCost;
use crate::summary::{summary_members, Summary};
use crate::Report;

/// The object of one file of `gguf info --json`: [`summary_members`], then
/// `"kv_cache_at":{"tokens":N,"bytes":B}` for `context` tokens (`bytes` null without an
/// estimate), then what fetching a remote file cost; one line.
pub fn info_json(
    file: &str,
    report: &Report,
    summary: &Summary,
    context: Option<u64>,
    cost: Option<ReadCost>,
) -> String {
    let mut j = Json::new();
    j.raw("{");
    summary_members(&mut j, file, report, summary);
    if let Some(tokens) = context {
        j.raw(",")
            .key("kv_cache_at")
            .raw("{")
            .key("tokens")
            .u64(tokens);
        j.raw(",").key("bytes");
        match &summary.kv_cache {
            Some(kv) => j.u64(kv.bytes_for(tokens)),
            None => j.raw("null"),
        };
        j.raw("}");
    }
    super::cost_member(&mut j, cost);
    j.raw("}\n");
    j.out
}
