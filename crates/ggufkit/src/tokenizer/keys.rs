//! Reading `tokenizer.ggml.*` keys with llama.cpp's loader's rules: a key of another type than
//! the one it reads is an error naming the key (never a guess), an absent optional key is `None`.
#![forbid(unsafe_code)]

use crate::error::TokenizerError;
use crate::read::Gguf;
use crate::value::{ArrayView, Str, Value, ValueType};

pub(crate) const MODEL: &str = "tokenizer.ggml.model";
pub(crate) const PRE: &str = "tokenizer.ggml.pre";
pub(crate) const TOKENS: &str = "tokenizer.ggml.tokens";
pub(crate) const TOKEN_TYPE: &str = "tokenizer.ggml.token_type";
pub(crate) const TOKEN_TYPE_COUNT: &str = "tokenizer.ggml.token_type_count";
pub(crate) const SCORES: &str = "tokenizer.ggml.scores";
pub(crate) const MERGES: &str = "tokenizer.ggml.merges";
pub(crate) const ADD_BOS: &str = "tokenizer.ggml.add_bos_token";
pub(crate) const ADD_EOS: &str = "tokenizer.ggml.add_eos_token";
pub(crate) const ADD_SEP: &str = "tokenizer.ggml.add_sep_token";
pub(crate) const ADD_PREFIX: &str = "tokenizer.ggml.add_space_prefix";
pub(crate) const REMOVE_EXTRA_WS: &str = "tokenizer.ggml.remove_extra_whitespaces";
pub(crate) const CHARSMAP: &str = "tokenizer.ggml.precompiled_charsmap";
pub(crate) const LOWERCASE: &str = "tokenizer.ggml.normalizer.lowercase";
pub(crate) const STRIP_ACCENTS: &str = "tokenizer.ggml.normalizer.strip_accents";
pub(crate) const SUPPRESS_TOKENS: &str = "tokenizer.ggml.suppress_tokens";
pub(crate) const GENERAL_NAME: &str = "general.name";
pub(crate) const GENERAL_ARCH: &str = "general.architecture";

/// The type of a value as messages name it (`array[string]` for arrays).
fn type_of(v: &Value<'_>) -> String {
    match v {
        Value::Array(a) => format!("array[{}]", a.element_type().name()),
        other => other.value_type().name().to_string(),
    }
}

fn wrong(key: &str, v: &Value<'_>, expected: &'static str) -> TokenizerError {
    TokenizerError::WrongType {
        key: key.to_string(),
        found: type_of(v),
        expected,
    }
}

/// A string key (`string` exactly).
pub(crate) fn string<'g>(
    g: &'g Gguf<'_>,
    key: &'static str,
) -> Result<Option<Str<'g>>, TokenizerError> {
    match g.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(wrong(key, &v, "string")),
    }
}

/// A bool key (`bool` exactly; any non-zero byte is true, as ggml reads it).
pub(crate) fn boolean(g: &Gguf<'_>, key: &'static str) -> Result<Option<bool>, TokenizerError> {
    match g.get(key) {
        None => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b != 0)),
        Some(v) => Err(wrong(key, &v, "bool")),
    }
}

/// A `uint32` key.
pub(crate) fn uint32(g: &Gguf<'_>, key: &str) -> Result<Option<u32>, TokenizerError> {
    match g.get(key) {
        None => Ok(None),
        Some(Value::U32(x)) => Ok(Some(x)),
        Some(v) => Err(wrong(key, &v, "uint32")),
    }
}

/// An array key whose elements are one of `elems`.
pub(crate) fn array<'g>(
    g: &'g Gguf<'_>,
    key: &'static str,
    elems: &[ValueType],
    expected: &'static str,
) -> Result<Option<ArrayView<'g>>, TokenizerError> {
    match g.get(key) {
        None => Ok(None),
        Some(Value::Array(a)) if elems.contains(&a.element_type()) => Ok(Some(a)),
        Some(v) => Err(wrong(key, &v, expected)),
    }
}

/// The special-token id keys llama.cpp reads, in its order (the deprecated FIM names last, so
/// they win when both are present).
pub(crate) const SPECIAL_ID_KEYS: [&str; 17] = [
    "tokenizer.ggml.bos_token_id",
    "tokenizer.ggml.eos_token_id",
    "tokenizer.ggml.eot_token_id",
    "tokenizer.ggml.eom_token_id",
    "tokenizer.ggml.unknown_token_id",
    "tokenizer.ggml.seperator_token_id",
    "tokenizer.ggml.padding_token_id",
    "tokenizer.ggml.mask_token_id",
    "tokenizer.ggml.fim_pre_token_id",
    "tokenizer.ggml.fim_suf_token_id",
    "tokenizer.ggml.fim_mid_token_id",
    "tokenizer.ggml.fim_pad_token_id",
    "tokenizer.ggml.fim_rep_token_id",
    "tokenizer.ggml.fim_sep_token_id",
    "tokenizer.ggml.prefix_token_id",
    "tokenizer.ggml.suffix_token_id",
    "tokenizer.ggml.middle_token_id",
];
