//! A Llama 2 style vocabulary from tokenizer.json alone (no tokenizer.model), as gguf-py's
//! `LlamaHfVocab` reads it for the script's `_set_vocab_llama_hf`: a BPE model with byte
//! fallback and a `Sequence` decoder. Base tokens in id order (score -1000; `<0xAB>` bytes,
//! control when special, else normal), then the added tokens past the base vocabulary.
#![forbid(unsafe_code)]

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::files::read_json_object;
use super::hf_tokenizer::token_text;
use super::special::SpecialVocab;
use super::token_type::{BYTE, CONTROL, NORMAL, USER_DEFINED};
use crate::convert::Kv;
use crate::error::ConvertError;
use crate::write::{OwnedArray, OwnedValue};

/// What tokenizer.json is, as `LlamaHfVocab` tells it apart.
pub(crate) enum HfKind {
    /// A Llama 2 style BPE with byte fallback: `LlamaHfVocab` reads it.
    LlamaHf,
    /// Llama 3's byte-level BPE (`TypeError` in the script): BPE is meant.
    Llama3,
    /// Neither (`FileNotFoundError` in the script), or no tokenizer.json: BPE is tried.
    Other,
}

/// Classifies `folder`'s tokenizer.json as `LlamaHfVocab.__init__` does before loading it.
pub(crate) fn classify(folder: &Path) -> Result<HfKind, ConvertError> {
    let path = folder.join("tokenizer.json");
    let Some(tj) = read_json_object(&path)? else {
        return Ok(HfKind::Other);
    };
    let model = tj
        .get("model")
        .and_then(Value::as_object)
        .ok_or_else(|| ConvertError::bad_key(&path, "model", "an object"))?;
    let ty = model.get("type").and_then(Value::as_str);
    let flag = |k: &str, default: bool| model.get(k).and_then(Value::as_bool).unwrap_or(default);
    if ty == Some("BPE") && flag("ignore_merges", false) && !flag("byte_fallback", true) {
        return Ok(HfKind::Llama3);
    }
    let decoder = tj
        .get("decoder")
        .and_then(|d| d.get("type"))
        .and_then(Value::as_str);
    if ty != Some("BPE") || !flag("byte_fallback", false) || decoder != Some("Sequence") {
        return Ok(HfKind::Other);
    }
    Ok(HfKind::LlamaHf)
}

fn is_byte_token(t: &str) -> bool {
    let b = t.as_bytes();
    b.len() == 6
        && t.starts_with("<0x")
        && t.ends_with('>')
        && b[3..5].iter().all(u8::is_ascii_hexdigit)
}

/// `_set_vocab_llama_hf`: model `llama`, pre `default`, tokens, scores, types, then
/// `SpecialVocab`.
pub fn llama_hf_vocab(folder: &Path) -> Result<Vec<Kv>, ConvertError> {
    let tok = super::bpe::load(folder)?;
    let t = &tok.tokenizer;
    let base = t.get_vocab_size(false);
    let vocab = t.get_vocab(true);
    let config = read_json_object(&folder.join("tokenizer_config.json"))?.unwrap_or_default();
    // transformers' all_special_tokens: the named ones, then the extra ones, each once
    let mut specials: Vec<String> = Vec::new();
    for k in [
        "bos_token",
        "eos_token",
        "unk_token",
        "sep_token",
        "pad_token",
        "cls_token",
        "mask_token",
    ] {
        if let Some(s) = token_text(config.get(k)) {
            if !specials.iter().any(|x| x == s) {
                specials.push(s.to_string());
            }
        }
    }
    let extra = config
        .get("extra_special_tokens")
        .or_else(|| config.get("additional_special_tokens"));
    if let Some(Value::Array(list)) = extra {
        for v in list {
            if let Some(s) = token_text(Some(v)) {
                if !specials.iter().any(|x| x == s) {
                    specials.push(s.to_string());
                }
            }
        }
    }
    let unk_id = token_text(config.get("unk_token")).and_then(|u| t.token_to_id(u));
    let special_id = |s: &str| t.token_to_id(s).or(unk_id);
    let special_ids: HashSet<u32> = specials.iter().filter_map(|s| special_id(s)).collect();
    // added tokens past the base vocabulary, by id
    let added = t.get_added_tokens_decoder();
    let mut added_vocab: Vec<(u32, String)> = {
        let mut by_content: HashMap<&str, u32> = HashMap::new();
        let mut ids: Vec<u32> = added.keys().copied().collect();
        ids.sort_unstable();
        for id in ids {
            by_content.insert(added[&id].content.as_str(), id);
        }
        by_content
            .into_iter()
            .map(|(c, id)| (id, c.to_string()))
            .collect()
    };
    added_vocab.sort();
    added_vocab.retain(|(id, _)| *id as usize >= base);
    let added_ids: HashSet<u32> = added_vocab.iter().map(|(id, _)| *id).collect();
    let mut reverse: HashMap<u32, &str> = HashMap::with_capacity(vocab.len());
    for (text, id) in &vocab {
        reverse.insert(*id, text.as_str());
    }
    let mut tokens = Vec::with_capacity(base + added_vocab.len());
    let mut types = Vec::with_capacity(base + added_vocab.len());
    for id in 0..base as u32 {
        if added_ids.contains(&id) {
            continue;
        }
        let text = reverse.get(&id).ok_or_else(|| ConvertError::Vocab {
            path: tok.path.clone(),
            problem: format!("no token has id {id}, below the base vocabulary's {base}"),
        })?;
        let ty = if is_byte_token(text) {
            BYTE
        } else if special_ids.contains(&id) {
            CONTROL
        } else {
            NORMAL
        };
        tokens.push(text.to_string());
        types.push(ty);
    }
    for (_, text) in &added_vocab {
        let ty = match specials
            .iter()
            .find(|s| *s == text)
            .and_then(|s| special_id(s))
        {
            Some(id) if special_ids.contains(&id) => CONTROL,
            Some(_) => NORMAL,
            None => USER_DEFINED,
        };
        tokens.push(text.clone());
        types.push(ty);
    }
    let n = tokens.len();
    let mut kvs: Vec<Kv> = vec![
        ("tokenizer.ggml.model".into(), OwnedValue::from("llama")),
        ("tokenizer.ggml.pre".into(), OwnedValue::from("default")),
        (
            "tokenizer.ggml.tokens".into(),
            OwnedValue::Array(OwnedArray::of_strings(tokens)),
        ),
        (
            "tokenizer.ggml.scores".into(),
            OwnedValue::Array(OwnedArray::of_f32(std::iter::repeat_n(-1000.0, n))),
        ),
        (
            "tokenizer.ggml.token_type".into(),
            OwnedValue::Array(OwnedArray::of_i32(types)),
        ),
    ];
    kvs.extend(SpecialVocab::load(folder, false, Some(n))?.to_kvs());
    Ok(kvs)
}
