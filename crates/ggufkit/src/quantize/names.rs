//! What a tensor's name and shape say to llama-quantize: whether it is quantized at all, which
//! category of the preset rules it falls in, and its layer (for the order tensors are written in).
#![forbid(unsafe_code)]

use std::cmp::Ordering;

/// The broad role of a tensor, from its name, as the preset rules group them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    TokenEmbedding,
    AttentionQ,
    AttentionV,
    AttentionK,
    AttentionQkv,
    AttentionKvB,
    AttentionOutput,
    FfnUp,
    FfnGate,
    FfnDown,
    Output,
    Other,
}

impl Category {
    /// The category of tensor `name` (first match wins, in llama.cpp's order).
    pub fn of(name: &str) -> Category {
        use Category as C;
        if is_output(name) {
            return C::Output;
        }
        if is_token_embedding(name) {
            return C::TokenEmbedding;
        }
        const BY_PART: [(&str, Category); 9] = [
            ("attn_qkv.weight", C::AttentionQkv),
            ("attn_kv_b.weight", C::AttentionKvB),
            ("attn_v.weight", C::AttentionV),
            ("attn_k.weight", C::AttentionK),
            ("attn_q.weight", C::AttentionQ),
            ("attn_output.weight", C::AttentionOutput),
            ("ffn_up", C::FfnUp),
            ("ffn_gate", C::FfnGate),
            ("ffn_down", C::FfnDown),
        ];
        BY_PART
            .iter()
            .find(|(part, _)| name.contains(part))
            .map_or(C::Other, |&(_, c)| c)
    }

    /// The attention-value-like tensors the rules treat as most sensitive (v, fused qkv, MLA kv_b).
    pub fn is_attn_v(self) -> bool {
        matches!(
            self,
            Category::AttentionV | Category::AttentionQkv | Category::AttentionKvB
        )
    }
}

/// `output.weight`.
pub fn is_output(name: &str) -> bool {
    name == "output.weight"
}

/// The token embeddings: `token_embd.weight` and Gemma 3n's `per_layer_token_embd.weight`.
pub fn is_token_embedding(name: &str) -> bool {
    name == "token_embd.weight" || name == "per_layer_token_embd.weight"
}

/// ggml's `ggml_n_dims`: the dimensions up to the last one that is not 1 (at least 1).
pub fn ggml_n_dims(shape: &[u64]) -> usize {
    shape.iter().rposition(|&d| d != 1).map_or(1, |i| i + 1)
}

/// Parts of names that are never quantized (norms, routers, tiny or positional tensors).
const NEVER: &[&str] = &[
    "_norm.weight",
    "ffn_gate_inp.weight",
    "ffn_gate_tid2eid.weight",
    "altup",
    "laurel",
    "per_layer_model_proj",
    "ssm_conv1d",
    "shortconv.conv.weight",
    "indexer.k_proj.weight",
    "indexer.q_proj.weight",
    "time_mix_first.weight",
    "time_mix_w0.weight",
    "time_mix_w1.weight",
    "time_mix_w2.weight",
    "time_mix_v0.weight",
    "time_mix_v1.weight",
    "time_mix_v2.weight",
    "time_mix_a0.weight",
    "time_mix_a1.weight",
    "time_mix_a2.weight",
    "time_mix_g1.weight",
    "time_mix_g2.weight",
    "time_mix_decay_w1.weight",
    "time_mix_decay_w2.weight",
    "time_mix_lerp_fused.weight",
    "attn_rel_b.weight",
    ".position_embd",
    "sam.pos_embd",
    "sam.neck.",
    "sam.net_",
    ".rel_pos",
    ".patch_embd",
    ".patch_merger",
    "a.rvq.codebook",
    "mm.a.code_embd",
];

/// Why llama-quantize leaves a tensor as it is, whatever the preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NotQuantized {
    /// The preset is `COPY`.
    Copy,
    /// One dimension (norms, biases, scales).
    OneDimensional,
    /// The name does not end in `weight`.
    NotAWeight,
    /// A name llama.cpp never quantizes (norms, expert routers, position embeddings...): the
    /// part of the name that matched.
    Excluded(&'static str),
    /// `output.weight` with `--leave-output-tensor`.
    OutputLeft,
}

/// Whether llama-quantize quantizes tensor `name` of `shape` (`tensor_allows_quantization`).
pub fn quantizable(
    name: &str,
    shape: &[u64],
    only_copy: bool,
    leave_output: bool,
) -> Result<(), NotQuantized> {
    if only_copy {
        return Err(NotQuantized::Copy);
    }
    if ggml_n_dims(shape) < 2 {
        return Err(NotQuantized::OneDimensional);
    }
    // llama.cpp tests `rfind("weight") == size - 6`, which a 5-byte name also passes (both
    // sides are npos); kept for the same answer.
    if !(name.ends_with("weight") || name.len() == 5) {
        return Err(NotQuantized::NotAWeight);
    }
    if leave_output && is_output(name) {
        return Err(NotQuantized::OutputLeft);
    }
    if let Some(part) = NEVER.iter().find(|p| name.contains(*p)) {
        return Err(NotQuantized::Excluded(part));
    }
    for exact in ["position_embd.weight", "token_types.weight"] {
        if name == exact {
            return Err(NotQuantized::Excluded(exact));
        }
    }
    Ok(())
}

/// The layer number C's `sscanf(name, "blk.%d.", &n)` reads (`None` when it reads none): digits
/// after `blk.`, optionally preceded by white space and a sign.
pub fn layer_of(name: &str) -> Option<i32> {
    let rest = name.strip_prefix("blk.")?.as_bytes();
    let mut i = rest
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(rest.len());
    let neg = match rest.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits = rest[i..].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 {
        return None;
    }
    let mut v: i64 = 0;
    for &d in &rest[i..i + digits] {
        v = (v * 10 + i64::from(d - b'0')).min(i64::from(i32::MAX) + 1);
    }
    let v = if neg { -v } else { v };
    Some(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
}

/// The order llama.cpp's model loader keeps tensors in (and llama-quantize writes them in): by
/// layer (tensors outside `blk.N.` first, as layer -1), then by name, byte by byte.
pub fn loader_order(a: &[u8], b: &[u8]) -> Ordering {
    let layer = |n: &[u8]| std::str::from_utf8(n).ok().and_then(layer_of).unwrap_or(-1);
    layer(a).cmp(&layer(b)).then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn categories() {
        assert_eq!(Category::of("output.weight"), Category::Output);
        assert_eq!(Category::of("token_embd.weight"), Category::TokenEmbedding);
        assert_eq!(
            Category::of("per_layer_token_embd.weight"),
            Category::TokenEmbedding
        );
        assert_eq!(Category::of("blk.3.attn_v.weight"), Category::AttentionV);
        assert_eq!(
            Category::of("blk.3.attn_qkv.weight"),
            Category::AttentionQkv
        );
        assert_eq!(
            Category::of("blk.3.attn_kv_b.weight"),
            Category::AttentionKvB
        );
        assert_eq!(Category::of("blk.3.attn_k.weight"), Category::AttentionK);
        assert_eq!(
            Category::of("blk.3.attn_output.weight"),
            Category::AttentionOutput
        );
        assert_eq!(
            Category::of("blk.3.ffn_down_exps.weight"),
            Category::FfnDown
        );
        assert_eq!(
            Category::of("blk.3.ffn_gate_exps.weight"),
            Category::FfnGate
        );
        assert_eq!(Category::of("blk.3.ffn_up_shexp.weight"), Category::FfnUp);
        assert_eq!(Category::of("blk.3.attn_k_norm.weight"), Category::Other);
        assert!(Category::AttentionKvB.is_attn_v());
        assert!(!Category::AttentionK.is_attn_v());
    }

    #[test]
    fn which_tensors_are_quantized() {
        let q = |n: &str, s: &[u64]| quantizable(n, s, false, false);
        assert_eq!(q("blk.0.attn_q.weight", &[64, 64]), Ok(()));
        assert_eq!(q("blk.0.ffn_down_exps.weight", &[64, 64, 8]), Ok(()));
        assert_eq!(
            q("blk.0.attn_norm.weight", &[64]),
            Err(NotQuantized::OneDimensional)
        );
        // a [n, 1] tensor is one-dimensional to ggml
        assert_eq!(
            q("blk.0.attn_q.weight", &[64, 1]),
            Err(NotQuantized::OneDimensional)
        );
        assert_eq!(
            q("blk.0.attn_q.bias", &[64, 64]),
            Err(NotQuantized::NotAWeight)
        );
        assert_eq!(
            q("blk.0.attn_q_norm.weight", &[64, 64]),
            Err(NotQuantized::Excluded("_norm.weight"))
        );
        assert_eq!(
            q("blk.0.ffn_gate_inp.weight", &[64, 8]),
            Err(NotQuantized::Excluded("ffn_gate_inp.weight"))
        );
        assert_eq!(
            q("position_embd.weight", &[64, 64]),
            Err(NotQuantized::Excluded("position_embd.weight"))
        );
        assert_eq!(
            q("v.blk.0.position_embd.weight", &[64, 64]),
            Err(NotQuantized::Excluded(".position_embd"))
        );
        assert_eq!(
            q("abcde", &[64, 64]),
            Ok(()),
            "llama.cpp's 5-byte-name quirk"
        );
        assert_eq!(q("output.weight", &[64, 64]), Ok(()));
        assert_eq!(
            quantizable("output.weight", &[64, 64], false, true),
            Err(NotQuantized::OutputLeft)
        );
        assert_eq!(
            quantizable("blk.0.attn_q.weight", &[64, 64], true, false),
            Err(NotQuantized::Copy)
        );
    }

    #[test]
    fn layers_and_order() {
        assert_eq!(layer_of("blk.12.attn_q.weight"), Some(12));
        assert_eq!(layer_of("blk.-1.x"), Some(-1));
        assert_eq!(layer_of("blk. 7.x"), Some(7));
        assert_eq!(layer_of("blk.x.y"), None);
        assert_eq!(layer_of("v.blk.3.x"), None);
        assert_eq!(layer_of("blk.99999999999.x"), Some(i32::MAX));
        let mut names = vec![
            "blk.10.attn_q.weight",
            "token_embd.weight",
            "blk.2.ffn_up.weight",
            "blk.2.attn_k.weight",
            "output.weight",
            "output_norm.weight",
        ];
        names.sort_by(|a, b| loader_order(a.as_bytes(), b.as_bytes()));
        assert_eq!(
            names,
            [
                "output.weight",
                "output_norm.weight",
                "token_embd.weight",
                "blk.2.attn_k.weight",
                "blk.2.ffn_up.weight",
                "blk.10.attn_q.weight",
            ]
        );
        assert_eq!(ggml_n_dims(&[8, 1, 1]), 1);
        assert_eq!(ggml_n_dims(&[1, 8]), 2);
        assert_eq!(ggml_n_dims(&[]), 1);
    }
}
