//! What the renderers of the model summary ([`ggufkit::summary::Summary`]) say alike: the KV
//! cache's reference length and its formula with the numbers put in (the JSON object of `gguf info
//! --json` is the library's, `ggufkit::render::summary::info_json`).

use ggufkit::summary::KvCache;

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
