//! What `llama_vocab::load` refuses: no `tokenizer.ggml.model` or an unknown one, no token list
//! (or not one of strings), a BPE vocabulary without merges or with a pre-tokenizer name it does
//! not know, scores or token types shorter than the list. The rest of the tokenizer's rules
//! (what it tolerates) are the audit's `tokenizer` module.
#![forbid(unsafe_code)]

use crate::audit::{Finding, Severity};
use crate::tokenizer::pre_name::pre_settings;
use crate::tokenizer::Model;
use crate::{Gguf, ValueType};

/// The findings of a vocabulary the loader refuses; returns `n_vocab` (0 when there is none).
pub(super) fn audit_vocab(g: &Gguf<'_>, arch_kv: u64, out: &mut Vec<Finding>) -> u64 {
    let mut refuse = |rule: &'static str, key: &str, offset: u64, msg: String| {
        out.push(Finding::new(rule, Severity::Error, key, offset, msg));
    };
    let Some(model_kv) = g.get_kv("tokenizer.ggml.model") else {
        refuse(
            "tokenizer.missing",
            "tokenizer.ggml.model",
            arch_kv,
            "llama.cpp's loader requires tokenizer.ggml.model (key not found in model)".into(),
        );
        return 0;
    };
    let Some(name) = model_kv.value.as_str() else {
        refuse(
            "tokenizer.type",
            "tokenizer.ggml.model",
            model_kv.offset,
            format!(
                "tokenizer.ggml.model is {}, not a string",
                model_kv.value_type().name()
            ),
        );
        return 0;
    };
    let Some(model) = Model::from_name(name.as_bytes()) else {
        refuse(
            "tokenizer.unknown-model",
            "tokenizer.ggml.model",
            model_kv.offset,
            format!("unknown tokenizer: '{name}'"),
        );
        return 0;
    };
    if model == Model::None {
        return g.get_u64("tokenizer.ggml.vocab_size").unwrap_or(0);
    }
    if model == Model::Bpe || model == Model::Plamo2 {
        let kimi = g.get_str("tokenizer.ggml.pre") == Some("kimi-k2");
        if g.get_kv("tokenizer.ggml.merges").is_none() && !kimi && model == Model::Bpe {
            refuse(
                "tokenizer.missing",
                "tokenizer.ggml.merges",
                model_kv.offset,
                format!(
                    "cannot find tokenizer merges in model file (a `{name}` vocabulary needs them)"
                ),
            );
        }
    }
    if model == Model::Bpe {
        if let Some(kv) = g.get_kv("tokenizer.ggml.pre") {
            match kv.value.as_str() {
                Some(pre) if pre_settings(pre.as_bytes()).is_none() => refuse(
                    "tokenizer.unknown-pre",
                    "tokenizer.ggml.pre",
                    kv.offset,
                    format!("unknown pre-tokenizer type: '{pre}'"),
                ),
                Some(_) => {}
                None => refuse(
                    "tokenizer.type",
                    "tokenizer.ggml.pre",
                    kv.offset,
                    format!(
                        "tokenizer.ggml.pre is {}, not a string",
                        kv.value_type().name()
                    ),
                ),
            }
        }
    }
    let Some(tokens_kv) = g.get_kv("tokenizer.ggml.tokens") else {
        refuse(
            "tokenizer.missing",
            "tokenizer.ggml.tokens",
            model_kv.offset,
            "cannot find tokenizer vocab in model file".into(),
        );
        return 0;
    };
    let Some(tokens) = tokens_kv
        .value
        .as_array()
        .filter(|a| a.element_type() == ValueType::String)
    else {
        return 0; // the tokenizer module's `tokenizer.type`
    };
    phi3_tokens(g, &tokens, tokens_kv.offset, out);
    tokens.len()
}

/// The tokens llama.cpp's loader sets attributes of, by name, when `general.name` says phi-3
/// (`std::unordered_map::at` throws when one is absent).
const PHI3_TOKENS: [&str; 4] = ["</s>", "<unk>", "<s>", "<|endoftext|>"];

/// A model named phi-3 whose vocabulary lacks a token the loader looks up by name.
fn phi3_tokens(g: &Gguf<'_>, tokens: &crate::ArrayView<'_>, offset: u64, out: &mut Vec<Finding>) {
    let name = g.model_name().unwrap_or("").to_lowercase();
    let pre = g.get_str("tokenizer.ggml.pre").unwrap_or("");
    let arch = g.architecture().unwrap_or("");
    let masked = ["jina-v2-de", "jina-v2-es", "jina-v2-code"]
        .iter()
        .any(|p| pre.contains(p))
        || ["nomic-bert-moe", "jina-bert-v3"]
            .iter()
            .any(|a| arch.contains(a));
    if masked || !(name.contains("phi-3") || name.contains("phi3")) {
        return;
    }
    let Some(strings) = tokens.strings() else {
        return;
    };
    let mut found = [false; 4];
    for t in strings {
        if let Some(i) = PHI3_TOKENS
            .iter()
            .position(|p| p.as_bytes() == t.as_bytes())
        {
            found[i] = true;
        }
    }
    if let Some(i) = found.iter().position(|f| !f) {
        out.push(Finding::new(
            "tokenizer.missing",
            Severity::Error,
            "tokenizer.ggml.tokens",
            offset,
            format!(
                "general.name says phi-3, and llama.cpp's loader then looks up the token {:?}, which the vocabulary lacks (it throws)",
                PHI3_TOKENS[i]
            ),
        ));
    }
}
