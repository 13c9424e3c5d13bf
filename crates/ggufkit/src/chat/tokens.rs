//! The special-token variables a template sees (`bos_token`, `eos_token`, ...): the strings of
//! the ids the file's `tokenizer.ggml.*_token_id` keys name, looked up in
//! `tokenizer.ggml.tokens`. As transformers passes only the special tokens a tokenizer has, a
//! key that is absent (or names no token) leaves its variable undefined.
#![forbid(unsafe_code)]

use crate::{Gguf, ValueType};

/// Each template variable and the key holding its token id (llama.cpp spells `seperator`).
pub const SPECIAL_TOKEN_KEYS: [(&str, &str); 7] = [
    ("bos_token", "tokenizer.ggml.bos_token_id"),
    ("eos_token", "tokenizer.ggml.eos_token_id"),
    ("unk_token", "tokenizer.ggml.unknown_token_id"),
    ("sep_token", "tokenizer.ggml.seperator_token_id"),
    ("pad_token", "tokenizer.ggml.padding_token_id"),
    ("cls_token", "tokenizer.ggml.cls_token_id"),
    ("mask_token", "tokenizer.ggml.mask_token_id"),
];

/// The special-token strings a template is rendered with, by variable name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecialTokens {
    tokens: Vec<(&'static str, String)>,
}

impl SpecialTokens {
    /// No special tokens.
    pub fn new() -> Self {
        Self::default()
    }

    /// The special tokens of a GGUF's vocabulary. Ids outside `tokenizer.ggml.tokens` (or a
    /// vocabulary that is not a string array) give no variable; tokens that are not UTF-8 are
    /// read lossily.
    pub fn from_gguf(gguf: &Gguf<'_>) -> Self {
        let mut wanted: Vec<(u64, &'static str)> = SPECIAL_TOKEN_KEYS
            .iter()
            .filter_map(|(var, key)| Some((gguf.get_u64(key)?, *var)))
            .collect();
        let mut out = Self::new();
        let Some(tokens) = gguf.get_array("tokenizer.ggml.tokens") else {
            return out;
        };
        if tokens.element_type() != ValueType::String || wanted.is_empty() {
            return out;
        }
        // one walk over the vocabulary for every id asked (strings are variable-length)
        wanted.sort_unstable();
        let last = wanted[wanted.len() - 1].0;
        let mut next = 0;
        for (i, token) in tokens.iter().enumerate() {
            let i = i as u64;
            if i > last {
                break;
            }
            while next < wanted.len() && wanted[next].0 == i {
                if let Some(s) = token.as_str() {
                    out.set(wanted[next].1, s);
                } else if let crate::Value::String(s) = &token {
                    out.set(wanted[next].1, &s.to_string_lossy());
                }
                next += 1;
            }
        }
        out.tokens
            .sort_by_key(|(var, _)| SPECIAL_TOKEN_KEYS.iter().position(|(v, _)| v == var));
        out
    }

    /// Sets the string of one variable (`bos_token`, ...); other names are ignored.
    pub fn set(&mut self, variable: &str, token: &str) {
        let Some((var, _)) = SPECIAL_TOKEN_KEYS.iter().find(|(v, _)| *v == variable) else {
            return;
        };
        match self.tokens.iter_mut().find(|(v, _)| v == var) {
            Some(slot) => slot.1 = token.to_string(),
            None => self.tokens.push((var, token.to_string())),
        }
    }

    /// The string of one variable, when the vocabulary has it.
    pub fn get(&self, variable: &str) -> Option<&str> {
        self.tokens
            .iter()
            .find(|(v, _)| *v == variable)
            .map(|(_, t)| t.as_str())
    }

    /// Every variable that is set, with its string.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        self.tokens.iter().map(|(v, t)| (*v, t.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GgufBuilder;

    #[test]
    fn ids_name_tokens_and_absent_keys_give_no_variable() {
        let mut b = GgufBuilder::new();
        b.set(
            "tokenizer.ggml.tokens",
            vec!["<unk>", "<s>", "</s>", "hello"],
        )
        .unwrap();
        b.set("tokenizer.ggml.bos_token_id", 1u32).unwrap();
        b.set("tokenizer.ggml.eos_token_id", 2u32).unwrap();
        b.set("tokenizer.ggml.unknown_token_id", 0u32).unwrap();
        b.set("tokenizer.ggml.padding_token_id", 99u32).unwrap();
        let bytes = b.to_vec().unwrap();
        let g = Gguf::from_bytes(&bytes).unwrap();
        let t = SpecialTokens::from_gguf(&g);
        assert_eq!(
            t.iter().collect::<Vec<_>>(),
            [
                ("bos_token", "<s>"),
                ("eos_token", "</s>"),
                ("unk_token", "<unk>")
            ]
        );
        assert_eq!(t.get("pad_token"), None);
    }
}
