//! Hugging Face tensor names → GGUF names, as gguf-py's `TensorNameMap` maps them for the
//! architectures of the table: a name is looked up whole, else without its `.weight` or `.bias`
//! suffix (which the GGUF name then gets back).
#![forbid(unsafe_code)]

/// Which of the table's optional tensor families an architecture has (gguf-py's
/// `MODEL_TENSORS[arch]` decides which mappings apply).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NameSet {
    /// Gemma's four norms per block (`post_attention_layernorm` is `post_attention_norm`).
    pub gemma_norms: bool,
    /// q/k norms (`attn_q_norm`, `attn_k_norm`).
    pub qk_norm: bool,
    /// A dense feed-forward (`ffn_gate`, `ffn_up`, `ffn_down`).
    pub dense_ffn: bool,
    /// A gate in the dense feed-forward (phi3 fuses it into `ffn_up`).
    pub ffn_gate: bool,
    /// Experts (`ffn_gate_inp`, `ffn_*_exps`).
    pub experts: bool,
    /// An output projection (`output`): Gemma 2 has none.
    pub output: bool,
}

/// The GGUF name of the whole name `key` (no suffix tried), for a model of `n_blocks` blocks.
fn map_exact(set: NameSet, key: &str, n_blocks: u32) -> Option<String> {
    let fixed = match key {
        "model.embed_tokens" | "token_embd" => Some("token_embd"),
        "model.norm" | "output_norm" => Some("output_norm"),
        "lm_head" | "output" if set.output => Some("output"),
        "rope_freqs" => Some("rope_freqs"),
        _ => None,
    };
    if let Some(f) = fixed {
        return Some(f.to_string());
    }
    let (bid, rest) = if let Some(r) = key.strip_prefix("model.layers.") {
        split_block(r)?
    } else if let Some(r) = key.strip_prefix("layers.") {
        // only the merged experts of mixtral are named so
        let (b, rest) = split_block(r)?;
        if !rest.starts_with("feed_forward.experts.") {
            return None;
        }
        (b, rest)
    } else if let Some(r) = key.strip_prefix("blk.") {
        let (b, rest) = split_block(r)?;
        return (b < n_blocks).then(|| format!("blk.{b}.{rest}"));
    } else {
        return None;
    };
    if bid >= n_blocks {
        return None;
    }
    let g = match rest {
        "input_layernorm" => "attn_norm",
        "post_attention_layernorm" if set.gemma_norms => "post_attention_norm",
        "post_attention_layernorm" => "ffn_norm",
        "pre_feedforward_layernorm" if set.gemma_norms => "ffn_norm",
        "post_feedforward_layernorm" if set.gemma_norms => "post_ffw_norm",
        "self_attn.q_proj" => "attn_q",
        "self_attn.k_proj" => "attn_k",
        "self_attn.v_proj" => "attn_v",
        "self_attn.o_proj" => "attn_output",
        "self_attn.qkv_proj" => "attn_qkv",
        "self_attn.q_norm" if set.qk_norm => "attn_q_norm",
        "self_attn.k_norm" if set.qk_norm => "attn_k_norm",
        "mlp.gate_proj" if set.dense_ffn && set.ffn_gate => "ffn_gate",
        "mlp.up_proj" if set.dense_ffn => "ffn_up",
        "mlp.down_proj" if set.dense_ffn => "ffn_down",
        "mlp.gate_up_proj" if set.dense_ffn => "ffn_up",
        "block_sparse_moe.gate" | "mlp.gate" if set.experts => "ffn_gate_inp",
        "feed_forward.experts.w1" | "mlp.experts.gate_proj" if set.experts => "ffn_gate_exps",
        "feed_forward.experts.w2" | "mlp.experts.down_proj" if set.experts => "ffn_down_exps",
        "feed_forward.experts.w3" | "mlp.experts.up_proj" if set.experts => "ffn_up_exps",
        _ => return None,
    };
    Some(format!("blk.{bid}.{g}"))
}

fn split_block(r: &str) -> Option<(u32, &str)> {
    let (b, rest) = r.split_once('.')?;
    if b.is_empty() || !b.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((b.parse().ok()?, rest))
}

/// The GGUF name of `name`: whole, else without `.weight` / `.bias` (kept on the result).
pub fn gguf_name(set: NameSet, name: &str, n_blocks: u32) -> Option<String> {
    if let Some(n) = map_exact(set, name, n_blocks) {
        return Some(n);
    }
    for suffix in [".weight", ".bias"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            if let Some(n) = map_exact(set, stem, n_blocks) {
                return Some(n + suffix);
            }
        }
    }
    None
}

/// The block id the script gives a tensor: the first dot-separated part that is all digits.
pub fn block_id(name: &str) -> Option<u32> {
    name.split('.')
        .find(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
        .and_then(|p| p.parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LLAMA: NameSet = NameSet {
        gemma_norms: false,
        qk_norm: false,
        dense_ffn: true,
        ffn_gate: true,
        experts: true,
        output: true,
    };

    #[test]
    fn maps_llama_names() {
        let m = |n: &str| gguf_name(LLAMA, n, 2);
        assert_eq!(
            m("model.embed_tokens.weight").as_deref(),
            Some("token_embd.weight")
        );
        assert_eq!(m("lm_head.weight").as_deref(), Some("output.weight"));
        assert_eq!(
            m("model.layers.1.post_attention_layernorm.weight").as_deref(),
            Some("blk.1.ffn_norm.weight")
        );
        assert_eq!(
            m("model.layers.0.self_attn.q_proj.bias").as_deref(),
            Some("blk.0.attn_q.bias")
        );
        assert_eq!(
            m("layers.0.feed_forward.experts.w2.weight").as_deref(),
            Some("blk.0.ffn_down_exps.weight")
        );
        assert_eq!(m("model.layers.2.self_attn.q_proj.weight"), None);
        assert_eq!(m("model.layers.0.self_attn.q_norm.weight"), None);
        assert_eq!(block_id("model.layers.12.mlp.experts.3.w1"), Some(12));
    }
}
