//! `samples/tiny-llama.gguf`, the small model the README's first command inspects: a llama model
//! llama.cpp loads and runs (every tensor its llama loader requires, with the shapes it computes
//! from the hyperparameters; a SentencePiece vocabulary with the 256 byte tokens), f32 / q8_0
//! tensors with deterministic contents, made by ggufkit's own writer. The `make_sample` example
//! writes it; a test checks that the committed sample is exactly these bytes, another that
//! node-llama-cpp loads it and generates.
#![forbid(unsafe_code)]

use ggufkit::write::{GgufBuilder, OwnedArray, OwnedValue};
use ggufkit::{GgmlType, ValueType};

const EMBED: u64 = 64;
const BLOCKS: u64 = 2;
const HEADS: u64 = 4;
const KV_HEADS: u64 = 2;
const FF: u64 = 128;
/// `<unk>`, `<s>`, `</s>`, the 256 byte tokens and 29 words.
const VOCAB: u64 = 3 + 256 + 29;

/// Deterministic pseudo-random numbers (a 32-bit LCG): the sample must be reproducible.
struct Lcg(u32);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        self.0
    }
}

/// f32 data: small values around `centre`.
fn f32_data(n: u64, centre: f32, rng: &mut Lcg) -> Vec<u8> {
    (0..n)
        .flat_map(|_| (centre + ((rng.next() >> 16) as f32 / 65536.0 - 0.5) * 0.1).to_le_bytes())
        .collect()
}

/// q8_0 data: blocks of an f16 scale of 1/64 (0x2400) and 32 signed bytes.
fn q8_0_data(n: u64, rng: &mut Lcg) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..n / 32 {
        out.extend(0x2400u16.to_le_bytes());
        out.extend((0..32).map(|_| (rng.next() >> 24) as u8));
    }
    out
}

/// The bytes of `samples/tiny-llama.gguf`.
pub fn tiny_llama() -> ggufkit::Result<Vec<u8>> {
    let mut rng = Lcg(0x6767_7566);
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama")?;
    b.set("general.name", "tiny-llama sample (made by ggufkit)")?;
    b.set("general.file_type", 7u32)?;
    b.set("llama.context_length", 2048u32)?;
    b.set("llama.embedding_length", EMBED as u32)?;
    b.set("llama.block_count", BLOCKS as u32)?;
    b.set("llama.feed_forward_length", FF as u32)?;
    b.set("llama.attention.head_count", HEADS as u32)?;
    b.set("llama.attention.head_count_kv", KV_HEADS as u32)?;
    b.set("llama.rope.dimension_count", (EMBED / HEADS) as u32)?;
    b.set("llama.attention.layer_norm_rms_epsilon", 1e-5f32)?;
    b.set("tokenizer.ggml.model", "llama")?;
    let mut tokens = vec!["<unk>".to_string(), "<s>".into(), "</s>".into()];
    tokens.extend((0..=255u8).map(|b| format!("<0x{b:02X}>")));
    for w in [
        "▁the",
        "▁a",
        "▁model",
        "▁file",
        "▁is",
        "▁tiny",
        "▁and",
        "▁safe",
        "▁to",
        "▁read",
        "▁g",
        "g",
        "u",
        "f",
        "▁tensor",
        "▁data",
        ".",
        ",",
        "▁hello",
        "▁world",
        "s",
        "▁of",
        "▁in",
        "▁it",
        "▁on",
        "▁by",
        "▁ggml",
        "▁gguf",
        "!",
    ] {
        tokens.push(w.into());
    }
    let n = tokens.len();
    assert_eq!(n as u64, VOCAB);
    let strings: Vec<OwnedValue> = tokens.into_iter().map(OwnedValue::String).collect();
    b.set(
        "tokenizer.ggml.tokens",
        OwnedArray::new(ValueType::String, strings)?,
    )?;
    let scores: Vec<OwnedValue> = (0..n).map(|i| OwnedValue::F32(-(i as f32))).collect();
    b.set(
        "tokenizer.ggml.scores",
        OwnedArray::new(ValueType::F32, scores)?,
    )?;
    // unknown, control, byte, normal
    let types: Vec<OwnedValue> = (0..n)
        .map(|i| {
            OwnedValue::I32(match i {
                0 => 2,
                1 | 2 => 3,
                3..=258 => 6,
                _ => 1,
            })
        })
        .collect();
    b.set(
        "tokenizer.ggml.token_type",
        OwnedArray::new(ValueType::I32, types)?,
    )?;
    b.set("tokenizer.ggml.unknown_token_id", 0u32)?;
    b.set("tokenizer.ggml.bos_token_id", 1u32)?;
    b.set("tokenizer.ggml.eos_token_id", 2u32)?;
    b.set(
        "tokenizer.chat_template",
        "{% for m in messages %}<s>{{ m['role'] }}: {{ m['content'] }}</s>{% endfor %}",
    )?;

    let mut data: Vec<(String, GgmlType, Vec<u64>, Vec<u8>)> = Vec::new();
    data.push((
        "token_embd.weight".into(),
        GgmlType::Q8_0,
        vec![EMBED, VOCAB],
        q8_0_data(EMBED * VOCAB, &mut rng),
    ));
    for i in 0..BLOCKS {
        data.push((
            format!("blk.{i}.attn_norm.weight"),
            GgmlType::F32,
            vec![EMBED],
            f32_data(EMBED, 1.0, &mut rng),
        ));
        let head = EMBED / HEADS;
        for (name, rows) in [
            ("attn_q", head * HEADS),
            ("attn_k", head * KV_HEADS),
            ("attn_v", head * KV_HEADS),
        ] {
            data.push((
                format!("blk.{i}.{name}.weight"),
                GgmlType::Q8_0,
                vec![EMBED, rows],
                q8_0_data(EMBED * rows, &mut rng),
            ));
        }
        data.push((
            format!("blk.{i}.attn_output.weight"),
            GgmlType::Q8_0,
            vec![head * HEADS, EMBED],
            q8_0_data(EMBED * head * HEADS, &mut rng),
        ));
        data.push((
            format!("blk.{i}.ffn_norm.weight"),
            GgmlType::F32,
            vec![EMBED],
            f32_data(EMBED, 1.0, &mut rng),
        ));
        for (name, shape) in [
            ("ffn_gate", [EMBED, FF]),
            ("ffn_down", [FF, EMBED]),
            ("ffn_up", [EMBED, FF]),
        ] {
            data.push((
                format!("blk.{i}.{name}.weight"),
                GgmlType::Q8_0,
                shape.to_vec(),
                q8_0_data(EMBED * FF, &mut rng),
            ));
        }
    }
    data.push((
        "output_norm.weight".into(),
        GgmlType::F32,
        vec![EMBED],
        f32_data(EMBED, 1.0, &mut rng),
    ));
    for (name, ty, shape, bytes) in &data {
        b.add_tensor_with_data(name, *ty, shape, bytes)?;
    }
    b.to_vec()
}
