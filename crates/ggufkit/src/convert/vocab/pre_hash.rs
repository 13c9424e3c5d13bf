//! Which BPE pre-tokenizer a tokenizer.json has, identified as `convert_hf_to_gguf.py`'s
//! `get_vocab_base_pre` does: the ids of its check text (with the special tokens transformers'
//! `encode` adds), the sha256 of their Python repr (`[1, 2, 3]`), looked up in the script's table.
#![forbid(unsafe_code)]

use sha2::{Digest, Sha256};

use super::hf_tokenizer::HfTokenizer;
use super::pre_hashes::{CHECK_TEXT, PRE_HASHES};
use crate::error::ConvertError;

/// The sha256 (hex) of the Python repr of `ids`, as the script hashes `str(chktok)`.
pub fn ids_hash(ids: &[u32]) -> String {
    let mut repr = String::with_capacity(ids.len() * 7 + 2);
    repr.push('[');
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            repr.push_str(", ");
        }
        repr.push_str(itoa::Buffer::new().format(*id));
    }
    repr.push(']');
    let digest = Sha256::digest(repr.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The pre-tokenizer name the script gives `hash`, if it knows it.
pub fn pre_tokenizer_for_hash(hash: &str) -> Option<&'static str> {
    PRE_HASHES.iter().find(|(h, _)| *h == hash).map(|(_, n)| *n)
}

/// Every pre-tokenizer name the table knows, sorted, each once.
pub fn supported_pre_tokenizers() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = PRE_HASHES.iter().map(|(_, n)| *n).collect();
    names.sort_unstable();
    names.dedup();
    names
}

/// The `tokenizer.ggml.pre` name of a loaded tokenizer, or the typed error naming its hash.
pub(crate) fn identify(tok: &HfTokenizer) -> Result<&'static str, ConvertError> {
    let ids = tok.encode(CHECK_TEXT, true)?;
    let hash = ids_hash(&ids);
    pre_tokenizer_for_hash(&hash).ok_or_else(|| ConvertError::UnknownPreTokenizer {
        path: tok.path.clone(),
        hash,
        supported: supported_pre_tokenizers(),
    })
}

/// The `tokenizer.ggml.pre` name of the BPE tokenizer in `folder` (its tokenizer.json, set up
/// with its tokenizer_config.json as transformers sets it up).
pub fn identify_pre_tokenizer(folder: &std::path::Path) -> Result<&'static str, ConvertError> {
    let tok = super::bpe::load(folder)?;
    identify(&tok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_of_the_python_repr() {
        // python3 -c 'import hashlib; print(hashlib.sha256(str([1, 22, 333]).encode()).hexdigest())'
        assert_eq!(
            ids_hash(&[1, 22, 333]),
            "276d8737d9d5a80805e0731e8d5ae18972a8e3ba721f4988f67151c6e9159068"
        );
        assert_eq!(
            ids_hash(&[]),
            "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
        );
    }

    #[test]
    fn the_table_knows_the_common_pre_tokenizers() {
        let names = supported_pre_tokenizers();
        for n in [
            "llama-bpe",
            "qwen2",
            "deepseek-llm",
            "gpt-2",
            "falcon",
            "starcoder",
        ] {
            assert!(names.contains(&n), "{n} missing from {names:?}");
        }
        assert!(pre_tokenizer_for_hash("00").is_none());
    }
}
