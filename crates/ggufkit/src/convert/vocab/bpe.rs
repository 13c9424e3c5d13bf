//! Byte-level BPE from tokenizer.json, as the script's `_set_vocab_gpt2` writes it
//! (`get_vocab_base`): every id below the vocabulary size gets its token text, or `[PAD{id}]`
//! (unused) where the tokenizer has none; added tokens are control tokens when special (or when
//! they look special), user-defined otherwise; then the pre-tokenizer's name and `SpecialVocab`
//! with the merges.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::Path;

use super::files::read_json_object;
use super::hf_tokenizer::HfTokenizer;
use super::special::SpecialVocab;
use super::token_type::{CONTROL, NORMAL, UNUSED, USER_DEFINED};
use crate::convert::Kv;
use crate::error::ConvertError;
use crate::write::{OwnedArray, OwnedValue};

/// Loads `folder`'s tokenizer.json (and tokenizer_config.json) as transformers' `AutoTokenizer`
/// sets it up.
pub(crate) fn load(folder: &Path) -> Result<HfTokenizer, ConvertError> {
    let path = folder.join("tokenizer.json");
    if !path.is_file() {
        return Err(ConvertError::MissingFile {
            path,
            what: "a BPE vocabulary's tokenizer.json",
        });
    }
    let bytes = std::fs::read(&path).map_err(|e| ConvertError::io(&path, e))?;
    let config = read_json_object(&folder.join("tokenizer_config.json"))?;
    HfTokenizer::load(&path, &bytes, config.as_ref())
}

/// Whether an added token's text looks like a control token although not marked special (the
/// script's `does_token_look_special`: command-r, deepseek-coder and gemma mark some of theirs
/// so).
pub fn does_token_look_special(token: &str) -> bool {
    matches!(token, "<pad>" | "<mask>" | "<2mass>" | "[@BOS@]")
        || (token.starts_with("<|") && token.ends_with("|>"))
        || (token.starts_with("<\u{ff5c}") && token.ends_with("\u{ff5c}>"))
        || (token.starts_with("<unused") && token.ends_with('>'))
}

/// The token texts and types of a BPE tokenizer, as `get_vocab_base` lists them.
pub(crate) fn vocab_base(
    tok: &HfTokenizer,
    vocab_size: Option<usize>,
) -> Result<(Vec<String>, Vec<i32>), ConvertError> {
    let t = &tok.tokenizer;
    let vocab = t.get_vocab(true);
    let vocab_size = vocab_size.unwrap_or(vocab.len());
    let max_id = vocab.values().copied().max().unwrap_or(0);
    if vocab.is_empty() || max_id as u64 >= vocab_size as u64 {
        return Err(ConvertError::Vocab {
            path: tok.path.clone(),
            problem: format!(
                "token id {max_id} is not below the model's vocab_size {vocab_size} (config.json)"
            ),
        });
    }
    check_padding(tok, vocab.len(), vocab_size)?;
    let added = t.get_added_tokens_decoder();
    // transformers' get_added_vocab: content -> id, ids ascending (a later id wins a content)
    let mut added_ids: Vec<u32> = added.keys().copied().collect();
    added_ids.sort_unstable();
    let mut added_vocab: HashMap<&str, u32> = HashMap::new();
    for id in &added_ids {
        added_vocab.insert(added[id].content.as_str(), *id);
    }
    let mut reverse: Vec<Option<&str>> = vec![None; vocab_size];
    for (text, id) in &vocab {
        reverse[*id as usize] = Some(text.as_str());
    }
    let mut tokens = Vec::with_capacity(vocab_size);
    let mut types = Vec::with_capacity(vocab_size);
    for (i, slot) in reverse.iter().enumerate() {
        let Some(text) = slot else {
            tokens.push(format!("[PAD{i}]"));
            types.push(UNUSED);
            continue;
        };
        let mut token = (*text).to_string();
        if let Some(&aid) = added_vocab.get(text) {
            // the script indexes the decoder by this id; when the text's added id differs, the
            // added token of that text is the one meant
            let info = added.get(&(i as u32)).unwrap_or(&added[&aid]);
            if !info.normalized {
                // llama.cpp takes control and user-defined tokens as already normalized
                let ids = tok.encode(&token, false)?;
                token = tok.decode(&ids)?;
            }
            if info.special || does_token_look_special(&token) {
                types.push(CONTROL);
            } else {
                token = token.replace('\u{2581}', " ");
                types.push(USER_DEFINED);
            }
        } else {
            types.push(NORMAL);
        }
        tokens.push(token);
    }
    Ok((tokens, types))
}

/// Refuses a vocab_size so far past the tokenizer's tokens that its `[PAD{i}]` slots would be
/// an allocation the files do not justify (real checkpoints pad by a few hundred ids; a hostile
/// config.json could ask for billions).
pub(crate) fn check_padding(
    tok: &HfTokenizer,
    tokens: usize,
    vocab_size: usize,
) -> Result<(), ConvertError> {
    let bound = tokens.saturating_mul(4).saturating_add(1 << 16);
    if vocab_size > bound {
        return Err(ConvertError::Vocab {
            path: tok.path.clone(),
            problem: format!(
                "config.json's vocab_size {vocab_size} is far past the tokenizer's {tokens} \
                 tokens (at most {bound} accepted)"
            ),
        });
    }
    Ok(())
}

/// The `tokenizer.ggml.*` pairs of a BPE folder, as `_set_vocab_gpt2` writes them: model
/// `gpt2`, the pre-tokenizer's name, tokens, token types, then `SpecialVocab` with merges.
/// `vocab_size` is config.json's `vocab_size` (`None`: the tokenizer's own size).
pub fn gpt2_vocab(folder: &Path, vocab_size: Option<usize>) -> Result<Vec<Kv>, ConvertError> {
    let tok = load(folder)?;
    let (tokens, types) = vocab_base(&tok, vocab_size)?;
    let pre = super::pre_hash::identify(&tok)?;
    let mut kvs: Vec<Kv> = vec![
        ("tokenizer.ggml.model".into(), OwnedValue::from("gpt2")),
        ("tokenizer.ggml.pre".into(), OwnedValue::from(pre)),
        (
            "tokenizer.ggml.tokens".into(),
            OwnedValue::Array(OwnedArray::of_strings(tokens)),
        ),
        (
            "tokenizer.ggml.token_type".into(),
            OwnedValue::Array(OwnedArray::of_i32(types)),
        ),
    ];
    kvs.extend(SpecialVocab::load(folder, true, None)?.to_kvs());
    Ok(kvs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_looking_tokens() {
        for t in [
            "<|im_start|>",
            "<pad>",
            "<unused12>",
            "<\u{ff5c}fim\u{ff5c}>",
            "[@BOS@]",
        ] {
            assert!(does_token_look_special(t), "{t}");
        }
        for t in ["<s>", "hello", "<|im_start", "unused1>"] {
            assert!(!does_token_look_special(t), "{t}");
        }
    }
}
