//! Small ready-made files, built with the [`encode`](crate::encode) encoder.
#![forbid(unsafe_code)]

use crate::encode::{Encoder, Model, V};

/// A small llama-shaped model: 2 blocks, a tokenizer with special tokens, 7 f32 tensors.
pub fn tiny_model() -> Model {
    let vals = |n: usize, k: f32| (0..n).map(|i| i as f32 * k).collect::<Vec<_>>();
    Model::new()
        .kv("general.architecture", V::str("llama"))
        .kv("general.name", V::str("tiny"))
        .kv("llama.block_count", V::U32(2))
        .kv("llama.context_length", V::U32(256))
        .kv("llama.embedding_length", V::U32(8))
        .kv("llama.attention.head_count", V::U32(2))
        .kv("llama.attention.head_count_kv", V::U32(1))
        .kv("tokenizer.ggml.model", V::str("llama"))
        .kv(
            "tokenizer.ggml.tokens",
            V::strs(&["<unk>", "<s>", "</s>", "a|b"]),
        )
        .kv("tokenizer.ggml.scores", V::f32s(&[0.0, 0.0, 0.0, -1.5]))
        .kv("tokenizer.ggml.bos_token_id", V::U32(1))
        .kv("tokenizer.ggml.eos_token_id", V::U32(2))
        .kv("tokenizer.ggml.unknown_token_id", V::U32(0))
        .f32("token_embd.weight", &[8, 4], &vals(32, 0.5))
        .f32("blk.0.attn_q.weight", &[8, 8], &vals(64, 0.25))
        .f32("blk.0.attn_norm.weight", &[8], &vals(8, 1.0))
        .f32("blk.1.attn_q.weight", &[8, 8], &vals(64, -0.25))
        .f32("blk.1.attn_norm.weight", &[8], &vals(8, 2.0))
        .f32("output_norm.weight", &[8], &vals(8, 3.0))
        .f32("output.weight", &[8, 4], &vals(32, 0.125))
}

/// A file with one key whose value is `depth` arrays nested in each other around one u8. Written
/// field by field: a [`V`] that deep would make the encoder recurse as deep.
pub fn deep_nesting(depth: usize) -> Vec<u8> {
    let mut e = Encoder::header(3, 0, 1);
    e.key("deep", 9);
    for _ in 0..depth {
        e.u32(9).u64(1);
    }
    e.u32(0).u64(1).u8(7);
    e.bytes
}

/// A file with one key whose value nests `depth` arrays of two elements, `[[[..., []], []], []]`:
/// at every level a nested array that is not its parent's last element, which a walk must step
/// over (quadratic in the depth unless the reader knows where each one ends).
pub fn deep_pairs(depth: usize) -> Vec<u8> {
    let mut e = Encoder::header(3, 0, 1);
    e.key("pairs", 9);
    for _ in 0..depth {
        e.u32(9).u64(2);
    }
    e.u32(0).u64(0);
    for _ in 0..depth {
        e.u32(0).u64(0);
    }
    e.bytes
}
