//! What the renderers of the model summary ([`ggufkit::summary::Summary`]) say alike: the KV
//! cache's reference length and its formula with the numbers put in.

use ggufkit::summary::KvCache;

/// Tokens of context in the "per 1,024 tokens" KV-cache figure.
pub const KV_TOKENS: u64 = 1024;

/// The KV-cache formula with the numbers put in, and what it assumes.
pub fn kv_formula(kv: &KvCache) -> String {
    let heads = match kv.head_count_kv {
        Some(h) => format!("{} layers × {h} kv heads", kv.n_layer),
        None => format!(
            "{} kv heads summed over {} layers",
            kv.kv_heads_total, kv.n_layer
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
        "{heads} × (key {} + value {}) × {} bytes (f16) = {} bytes per token{from}{swa}",
        kv.key_length, kv.value_length, kv.element_bytes, kv.bytes_per_token
    )
}
