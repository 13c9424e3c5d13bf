//! What the renderers of the model summary ([`ggufkit::summary::Summary`]) say alike: the KV
//! cache's reference length and its formula with the numbers put in; and the summary's JSON object
//! as `gguf info --json` writes it.

use ggufkit::summary::{summary_members, KvCache, Summary};
use ggufkit::{ReadCost, Report};

use super::cost::cost_member;
use super::json::Json;
use super::{counted, grouped};

/// Tokens of context in the "per 1,024 tokens" KV-cache figure.
pub const KV_TOKENS: u64 = 1024;

/// The KV-cache formula with the numbers put in, and what it assumes.
pub fn kv_formula(kv: &KvCache) -> String {
    let heads = match kv.head_count_kv {
        Some(h) => format!(
            "{} × {}",
            counted(kv.n_layer, "layer", "layers"),
            counted(h, "kv head", "kv heads")
        ),
        None => format!(
            "{} summed over {}",
            counted(kv.kv_heads_total, "kv head", "kv heads"),
            counted(kv.n_layer, "layer", "layers")
        ),
    };
    let from = if kv.lengths_from_keys {
        ""
    } else {
        " (lengths = embedding_length / head_count)"
    };
    let swa = match kv.sliding_window {
        Some(w) => format!(
            "; an upper bound: layers with the {w}-token sliding window cache at most {w} tokens"
        ),
        None => String::new(),
    };
    format!(
        "{heads} × (key {} + value {}) × {} (f16) = {} per token{from}{swa}",
        grouped(kv.key_length),
        grouped(kv.value_length),
        counted(kv.element_bytes, "byte", "bytes"),
        counted(kv.bytes_per_token, "byte", "bytes")
    )
}

/// The object of one file of `gguf info --json`: the library's summary members, then
/// `"kv_cache_at":{"tokens":N,"bytes":B}` with `--context N` (`bytes` null without an estimate),
/// then what fetching a remote file cost; one line.
pub fn info_json(
    title: &str,
    report: &Report,
    summary: &Summary,
    context: Option<u64>,
    cost: Option<ReadCost>,
) -> String {
    let mut j = Json::new();
    j.raw("{");
    summary_members(&mut j, title, report, summary);
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
    cost_member(&mut j, cost);
    j.raw("}\n");
    j.out
}
