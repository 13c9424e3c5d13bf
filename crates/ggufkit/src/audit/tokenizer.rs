//! The tokenizer arrays against each other, the special-token ids against the vocabulary, and
//! the vocabulary against the embedding and output tensors.
#![forbid(unsafe_code)]

use super::vocab::Vocab;
use super::{Depth, Finding, Severity};
use crate::summary::TokenRole;
use crate::{Gguf, ValueType};

/// Highest token type llama.cpp knows (`LLAMA_TOKEN_TYPE_BYTE`).
const MAX_TOKEN_TYPE: i64 = 6;

pub(super) fn audit_tokenizer(g: &Gguf<'_>, depth: Depth, out: &mut Vec<Finding>) {
    let Some(tokens_kv) = g.get_kv("tokenizer.ggml.tokens") else {
        return;
    };
    let Some(tokens) = tokens_kv.value.as_array() else {
        out.push(Finding::new(
            "tokenizer.type",
            Severity::Error,
            "tokenizer.ggml.tokens",
            tokens_kv.offset,
            format!(
                "tokens are a {}, not an array of strings",
                tokens_kv.value_type().name()
            ),
        ));
        return;
    };
    let n = tokens.len();
    if tokens.element_type() != ValueType::String {
        out.push(Finding::new(
            "tokenizer.type",
            Severity::Error,
            "tokenizer.ggml.tokens",
            tokens_kv.offset,
            format!(
                "tokens are an array of {}, not of strings",
                tokens.element_type().name()
            ),
        ));
    }
    // llama.cpp takes i32 or f32 scores and i32 token types; fewer entries than tokens is a
    // refusal (`Index out of array bounds`), more are ignored
    for (key, wants) in [
        (
            "tokenizer.ggml.scores",
            &[ValueType::F32, ValueType::I32][..],
        ),
        ("tokenizer.ggml.token_type", &[ValueType::I32][..]),
    ] {
        let Some(kv) = g.get_kv(key) else { continue };
        match kv.value.as_array() {
            Some(a) if wants.contains(&a.element_type()) => {
                if a.len() < n {
                    out.push(Finding::new(
                        "tokenizer.length",
                        Severity::Error,
                        key,
                        kv.offset,
                        format!(
                            "{} entries for {n} tokens (llama.cpp refuses fewer)",
                            a.len()
                        ),
                    ));
                } else if a.len() > n {
                    out.push(Finding::new(
                        "tokenizer.length-extra",
                        Severity::Warning,
                        key,
                        kv.offset,
                        format!(
                            "{} entries for {n} tokens (llama.cpp ignores the rest)",
                            a.len()
                        ),
                    ));
                }
            }
            _ => out.push(Finding::new(
                "tokenizer.type",
                Severity::Error,
                key,
                kv.offset,
                format!("not an array of {}", wants[0].name()),
            )),
        }
    }
    if let Some(kv) = g.get_kv("tokenizer.ggml.token_type") {
        if let Some(types) = kv.value.as_array().and_then(|a| a.typed::<i32>()) {
            if let Some((i, t)) = types
                .iter()
                .enumerate()
                .find(|&(_, t)| !(0..=MAX_TOKEN_TYPE).contains(&i64::from(t)))
            {
                out.push(Finding::new(
                    "tokenizer.token-type-range",
                    Severity::Warning,
                    "tokenizer.ggml.token_type",
                    kv.offset,
                    format!(
                        "token {i} has type {t}, outside 0..={MAX_TOKEN_TYPE} (llama.cpp reads it as undefined)"
                    ),
                ));
            }
        }
    }
    for role in TokenRole::ALL {
        for key in role.keys() {
            let Some(kv) = g.get_kv(key) else { continue };
            // llama.cpp reads a special id as a u32 (another type is a refusal) and warns of one
            // past the vocabulary, using its default instead
            match kv.value {
                crate::Value::U32(id) if u64::from(id) >= n => out.push(Finding::new(
                    "tokenizer.special-id",
                    Severity::Warning,
                    key,
                    kv.offset,
                    format!(
                        "{} token id {id} is outside the vocabulary of {n} (llama.cpp loads the file and uses its default id)",
                        role.name()
                    ),
                )),
                crate::Value::U32(_) => {}
                _ => out.push(Finding::new(
                    "tokenizer.type",
                    Severity::Error,
                    key,
                    kv.offset,
                    format!(
                        "a token id of type {}, llama.cpp's loader reads it as u32",
                        kv.value_type().name()
                    ),
                )),
            }
        }
    }
    audit_vocab_vs_tensors(g, n, out);
    if tokens.element_type() != ValueType::String || depth != Depth::Full {
        return;
    }
    let Some(vocab) = Vocab::new(n, tokens.raw_bytes(), tokens.endian()) else {
        return;
    };
    let (dups, first) = vocab.duplicates();
    if let Some(b) = first {
        // the earlier occurrence, found by one more pass over the tokens
        let a = tokens.strings().and_then(|mut all| {
            let repeated = all.nth(b)?.as_bytes();
            tokens.strings()?.position(|t| t.as_bytes() == repeated)
        });
        let a = a.map_or_else(|| "?".to_string(), |a| a.to_string());
        out.push(Finding::new(
            "tokenizer.duplicate",
            Severity::Error,
            "tokenizer.ggml.tokens",
            tokens_kv.offset,
            format!(
                "{dups} duplicate tokens (first: {a} and {b}); llama.cpp's loader aborts on them"
            ),
        ));
    }
    if let Some(kv) = g.get_kv("tokenizer.ggml.merges") {
        match kv.value.as_array().and_then(|a| a.strings()) {
            None => out.push(Finding::new(
                "tokenizer.type",
                Severity::Error,
                "tokenizer.ggml.merges",
                kv.offset,
                "merges are not an array of strings".into(),
            )),
            Some(merges) => {
                for (i, m) in merges.enumerate() {
                    let b = m.as_bytes();
                    let ok = memchr::memchr(b' ', b)
                        .is_some_and(|sp| vocab.contains(&b[..sp]) && vocab.contains(&b[sp + 1..]));
                    if !ok {
                        out.push(Finding::new(
                            "tokenizer.merge-unknown",
                            Severity::Warning,
                            "tokenizer.ggml.merges",
                            kv.offset,
                            format!(
                                "merge {i} ({:?}) names a token that does not exist",
                                m.to_string_lossy()
                            ),
                        ));
                        break;
                    }
                }
            }
        }
    }
}

/// `tokenizer.vocab-vs-tensor`: the embedding and output tensors have a row per token.
fn audit_vocab_vs_tensors(g: &Gguf<'_>, n: u64, out: &mut Vec<Finding>) {
    for name in ["token_embd.weight", "output.weight"] {
        let Some(t) = g.tensor(name) else { continue };
        let rows = t.shape().get(1).copied().unwrap_or(1);
        if rows < n {
            out.push(Finding::new(
                "tokenizer.vocab-vs-tensor",
                Severity::Error,
                name,
                t.info_offset(),
                format!("{rows} rows for a vocabulary of {n} tokens"),
            ));
        }
    }
}
