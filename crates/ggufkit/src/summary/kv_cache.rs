//! The KV cache an architecture needs per token of context, estimated from its keys the way
//! llama.cpp sizes it: full attention on every layer, an f16 cache.
#![forbid(unsafe_code)]

use crate::{Gguf, Value};

/// A KV-cache estimate and the numbers it was computed from:
/// `kv_heads_total × (key_length + value_length) × element_bytes` bytes per token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KvCache {
    /// `{arch}.block_count`.
    pub n_layer: u64,
    /// KV heads summed over layers (`n_layer × head_count_kv` when every layer has the same).
    pub kv_heads_total: u64,
    /// KV heads per layer, when every layer has the same number.
    pub head_count_kv: Option<u64>,
    pub key_length: u64,
    pub value_length: u64,
    /// Whether the key and value lengths came from `{arch}.attention.key_length` and
    /// `.value_length`; otherwise both are `embedding_length / head_count`.
    pub lengths_from_keys: bool,
    /// Bytes of one cached element ([`KvCache::F16_ELEMENT_BYTES`]).
    pub element_bytes: u64,
    /// Bytes per token of context.
    pub bytes_per_token: u64,
    /// `{arch}.context_length`, the full context the model was trained for.
    pub context_length: Option<u64>,
    /// `{arch}.attention.sliding_window`: layers that use it cache at most this many tokens, so
    /// the estimate is then an upper bound.
    pub sliding_window: Option<u64>,
}

impl KvCache {
    /// Bytes of an f16 element, llama.cpp's default KV-cache type.
    pub const F16_ELEMENT_BYTES: u64 = 2;

    /// The estimate for a file, when its keys allow it: `{arch}.block_count` (1 to 65,536),
    /// `{arch}.attention.head_count` and `.head_count_kv` (each a number or one per layer;
    /// `head_count_kv` defaults to `head_count`, as in llama.cpp), and the key and value lengths
    /// (default `embedding_length / head_count`).
    pub fn of(g: &Gguf<'_>) -> Option<KvCache> {
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
        let kv_length = key_length.checked_add(value_length)?;
        if kv_heads_total == 0 || kv_length == 0 {
            return None;
        }
        let element_bytes = Self::F16_ELEMENT_BYTES;
        let bytes_per_token = kv_heads_total
            .checked_mul(kv_length)?
            .checked_mul(element_bytes)?;
        let uniform = kv_heads.iter().all(|&h| Some(&h) == kv_heads.first());
        Some(KvCache {
            n_layer,
            kv_heads_total,
            head_count_kv: kv_heads.first().copied().filter(|_| uniform),
            key_length,
            value_length,
            lengths_from_keys,
            element_bytes,
            bytes_per_token,
            context_length: g.context_length(),
            sliding_window: g.arch_u64("attention.sliding_window"),
        })
    }

    /// Bytes of cache for `tokens` tokens of context (saturating).
    pub fn bytes_for(&self, tokens: u64) -> u64 {
        self.bytes_per_token.saturating_mul(tokens)
    }

    /// Bytes of cache at the model's full context, when the file says what it is.
    pub fn at_full_context(&self) -> Option<u64> {
        self.context_length.map(|c| self.bytes_for(c))
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
