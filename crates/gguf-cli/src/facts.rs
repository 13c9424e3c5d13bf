//! What a person wants to know about a model beyond its bytes: memory to load it, the KV cache it
//! needs per context, its tokenizer. Shared by `info`, `dump --markdown` and `report`.

use ggufkit::{Gguf, Value};

/// Bytes of one cache element: llama.cpp's default KV cache type is f16.
pub const KV_ELEMENT_BYTES: u64 = 2;
/// Tokens in the "per 1k tokens" estimate.
pub const KV_TOKENS: u64 = 1024;

/// A KV-cache estimate and what it was computed from.
pub struct KvCache {
    pub n_layer: u64,
    /// KV heads summed over layers (n_layer × head_count_kv when it is one number).
    pub kv_heads_total: u64,
    /// Heads per layer when every layer has the same number.
    pub head_count_kv: Option<u64>,
    pub key_length: u64,
    pub value_length: u64,
    /// Whether key/value lengths came from `{arch}.attention.key_length`/`value_length` (else
    /// `embedding_length / head_count`).
    pub lengths_from_keys: bool,
    /// Bytes per token of context.
    pub bytes_per_token: u64,
    pub context_length: Option<u64>,
    /// `{arch}.attention.sliding_window`: layers that use it cache at most this many tokens.
    pub sliding_window: Option<u64>,
}

impl KvCache {
    pub fn per_1k(&self) -> u64 {
        self.bytes_per_token.saturating_mul(KV_TOKENS)
    }

    pub fn at_context(&self) -> Option<u64> {
        self.context_length
            .map(|c| self.bytes_per_token.saturating_mul(c))
    }

    /// The formula, with the numbers put in.
    pub fn formula(&self) -> String {
        let heads = match self.head_count_kv {
            Some(h) => format!("{} layers × {h} kv heads", self.n_layer),
            None => format!(
                "{} kv heads summed over {} layers",
                self.kv_heads_total, self.n_layer
            ),
        };
        let from = if self.lengths_from_keys {
            ""
        } else {
            " (lengths = embedding_length / head_count)"
        };
        let swa = match self.sliding_window {
            Some(w) => format!(
                "; an upper bound: layers with the {w}-token sliding window cache at most {w} tokens"
            ),
            None => String::new(),
        };
        format!(
            "{heads} × (key {} + value {}) × {KV_ELEMENT_BYTES} bytes (f16) = {} bytes per token{from}{swa}",
            self.key_length, self.value_length, self.bytes_per_token
        )
    }
}

/// `{arch}.{suffix}` for every layer: a number repeated, or a per-layer array of `n` numbers.
fn per_layer(g: &Gguf<'_>, arch: &str, suffix: &str, n: u64) -> Option<Vec<u64>> {
    match g.get(&format!("{arch}.{suffix}"))? {
        Value::Array(a) => {
            if a.len() != n {
                return None;
            }
            a.iter().map(|v| v.as_u64()).collect()
        }
        v => {
            let x = v.as_u64()?;
            Some(vec![x; usize::try_from(n).ok()?])
        }
    }
}

/// The KV cache an architecture needs, when its keys allow the estimate: block count, head counts
/// (`head_count_kv` defaults to `head_count`, as in llama.cpp), key and value lengths (default
/// `embedding_length / head_count`). Assumes full attention on every layer and an f16 cache.
pub fn kv_cache(g: &Gguf<'_>) -> Option<KvCache> {
    let arch = g.architecture()?;
    let n_layer = g.block_count().filter(|&n| n > 0 && n <= 1 << 16)?;
    let heads = per_layer(g, arch, "attention.head_count", n_layer)?;
    let kv_heads = match g.get(&format!("{arch}.attention.head_count_kv")) {
        Some(_) => per_layer(g, arch, "attention.head_count_kv", n_layer)?,
        None => heads.clone(),
    };
    let kl = g.arch_u64("attention.key_length");
    let vl = g.arch_u64("attention.value_length");
    let lengths_from_keys = kl.is_some() && vl.is_some();
    let default_len = || {
        let h = heads.iter().copied().max().filter(|&h| h > 0)?;
        g.embedding_length().map(|e| e / h)
    };
    let key_length = kl.or_else(default_len)?;
    let value_length = vl.or_else(default_len)?;
    let kv_heads_total = kv_heads.iter().try_fold(0u64, |a, &h| a.checked_add(h))?;
    if kv_heads_total == 0 || key_length + value_length == 0 {
        return None;
    }
    let bytes_per_token = kv_heads_total
        .checked_mul(key_length.checked_add(value_length)?)?
        .checked_mul(KV_ELEMENT_BYTES)?;
    let uniform = kv_heads.iter().all(|&h| h == kv_heads[0]);
    Some(KvCache {
        n_layer,
        kv_heads_total,
        head_count_kv: uniform.then(|| kv_heads[0]),
        key_length,
        value_length,
        lengths_from_keys,
        bytes_per_token,
        context_length: g.context_length(),
        sliding_window: g.arch_u64("attention.sliding_window"),
    })
}

/// A special token: its role, id, and the token string when the vocabulary has it.
pub struct Special {
    pub role: &'static str,
    pub id: u64,
    pub text: Option<String>,
}

pub struct Tokenizer {
    pub model: Option<String>,
    pub pre: Option<String>,
    pub vocab_size: Option<u64>,
    pub merges: Option<u64>,
    pub special: Vec<Special>,
    pub chat_template_bytes: Option<usize>,
}

/// The special-token keys, with the spelling variants files use (`seperator` is how llama.cpp
/// spells it).
const SPECIAL: [(&str, &[&str]); 7] = [
    ("bos", &["tokenizer.ggml.bos_token_id"]),
    ("eos", &["tokenizer.ggml.eos_token_id"]),
    ("eot", &["tokenizer.ggml.eot_token_id"]),
    ("unk", &["tokenizer.ggml.unknown_token_id"]),
    ("pad", &["tokenizer.ggml.padding_token_id"]),
    (
        "sep",
        &[
            "tokenizer.ggml.seperator_token_id",
            "tokenizer.ggml.separator_token_id",
        ],
    ),
    ("mask", &["tokenizer.ggml.mask_token_id"]),
];

/// The tokenizer summary, when the file has a tokenizer.
pub fn tokenizer(g: &Gguf<'_>) -> Option<Tokenizer> {
    let tokens = g.get_array("tokenizer.ggml.tokens");
    let model = g.get_str("tokenizer.ggml.model").map(str::to_string);
    if model.is_none() && tokens.is_none() {
        return None;
    }
    let mut special = Vec::new();
    for (role, keys) in SPECIAL {
        let Some(id) = keys.iter().find_map(|k| g.get_u64(k)) else {
            continue;
        };
        let text = tokens
            .and_then(|t| t.strings())
            .and_then(|mut s| s.nth(usize::try_from(id).ok()?))
            .map(|s| s.to_string_lossy().into_owned());
        special.push(Special { role, id, text });
    }
    let chat_template_bytes = g
        .get_kv("tokenizer.chat_template")
        .map(|kv| match kv.value {
            Value::String(s) => s.len(),
            _ => 0,
        });
    Some(Tokenizer {
        model,
        pre: g.get_str("tokenizer.ggml.pre").map(str::to_string),
        vocab_size: tokens.map(|t| t.len()),
        merges: g.get_array("tokenizer.ggml.merges").map(|m| m.len()),
        special,
        chat_template_bytes,
    })
}

/// A token string for people: quoted, with control characters escaped.
pub fn token_text(s: &str) -> String {
    format!("{s:?}")
}
