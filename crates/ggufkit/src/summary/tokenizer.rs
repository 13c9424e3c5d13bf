//! The tokenizer a file carries: its model, vocabulary and special tokens.
#![forbid(unsafe_code)]

use crate::Gguf;

/// The tokenizer keys of a file (`tokenizer.ggml.*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tokenizer {
    /// `tokenizer.ggml.model` (`llama`, `gpt2`, `bert`, ...).
    pub model: Option<String>,
    /// `tokenizer.ggml.pre`, the pre-tokenizer.
    pub pre: Option<String>,
    /// Entries of `tokenizer.ggml.tokens`.
    pub vocab_size: Option<u64>,
    /// Entries of `tokenizer.ggml.merges`.
    pub merges: Option<u64>,
    /// The special tokens the file names, in the order of [`TokenRole::ALL`].
    pub special: Vec<SpecialToken>,
}

/// A special token: its role, id, and its text when the vocabulary has that id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecialToken {
    pub role: TokenRole,
    pub id: u64,
    /// The token's string (invalid UTF-8 replaced), `None` when the id is not in the vocabulary.
    pub text: Option<String>,
}

/// What a special token is for, as its `tokenizer.ggml.*_token_id` key says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenRole {
    /// Beginning of sequence.
    Bos,
    /// End of sequence.
    Eos,
    /// End of turn.
    Eot,
    /// Unknown token.
    Unknown,
    /// Padding.
    Padding,
    /// Separator.
    Separator,
    /// Mask.
    Mask,
}

impl TokenRole {
    /// Every role, in the order summaries list them.
    pub const ALL: [TokenRole; 7] = [
        TokenRole::Bos,
        TokenRole::Eos,
        TokenRole::Eot,
        TokenRole::Unknown,
        TokenRole::Padding,
        TokenRole::Separator,
        TokenRole::Mask,
    ];

    /// The short name: `bos`, `eos`, `eot`, `unk`, `pad`, `sep`, `mask`.
    pub fn name(self) -> &'static str {
        match self {
            TokenRole::Bos => "bos",
            TokenRole::Eos => "eos",
            TokenRole::Eot => "eot",
            TokenRole::Unknown => "unk",
            TokenRole::Padding => "pad",
            TokenRole::Separator => "sep",
            TokenRole::Mask => "mask",
        }
    }

    /// The keys that give this role's token id, the first one present winning (`seperator` is
    /// how llama.cpp spells it; files use both spellings).
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            TokenRole::Bos => &["tokenizer.ggml.bos_token_id"],
            TokenRole::Eos => &["tokenizer.ggml.eos_token_id"],
            TokenRole::Eot => &["tokenizer.ggml.eot_token_id"],
            TokenRole::Unknown => &["tokenizer.ggml.unknown_token_id"],
            TokenRole::Padding => &["tokenizer.ggml.padding_token_id"],
            TokenRole::Separator => &[
                "tokenizer.ggml.seperator_token_id",
                "tokenizer.ggml.separator_token_id",
            ],
            TokenRole::Mask => &["tokenizer.ggml.mask_token_id"],
        }
    }
}

impl Tokenizer {
    /// The tokenizer of a file, when it has `tokenizer.ggml.model` or `tokenizer.ggml.tokens`.
    pub fn of(g: &Gguf<'_>) -> Option<Tokenizer> {
        let tokens = g.get_array("tokenizer.ggml.tokens");
        let model = g.get_str("tokenizer.ggml.model").map(str::to_string);
        if model.is_none() && tokens.is_none() {
            return None;
        }
        let special = TokenRole::ALL
            .into_iter()
            .filter_map(|role| {
                let id = role.keys().iter().find_map(|k| g.get_u64(k))?;
                let text = tokens
                    .and_then(|t| t.strings())
                    .and_then(|mut s| s.nth(usize::try_from(id).ok()?))
                    .map(|s| s.to_string_lossy().into_owned());
                Some(SpecialToken { role, id, text })
            })
            .collect();
        Some(Tokenizer {
            model,
            pre: g.get_str("tokenizer.ggml.pre").map(str::to_string),
            vocab_size: tokens.map(|t| t.len()),
            merges: g.get_array("tokenizer.ggml.merges").map(|m| m.len()),
            special,
        })
    }
}
