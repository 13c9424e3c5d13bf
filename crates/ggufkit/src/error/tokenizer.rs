//! Building a tokenizer from a file's `tokenizer.ggml.*` keys, and using it: what llama.cpp would
//! refuse when loading the vocabulary, and what it would abort on while encoding or decoding.
#![forbid(unsafe_code)]

/// Why a vocabulary was refused, or why encoding or decoding with it failed
/// ([`Error::Tokenizer`](super::Error::Tokenizer)).
///
/// Loading errors name the key, as llama.cpp's loader does; the others name the token id, the
/// byte or the special token that was missing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenizerError {
    /// A key llama.cpp requires is absent.
    #[error("key not found in the metadata: {key}")]
    MissingKey {
        /// The key.
        key: &'static str,
    },
    /// A key whose value is not of the type llama.cpp reads it as.
    #[error("key {key} has type {found}, expected {expected}")]
    WrongType {
        /// The key.
        key: String,
        /// The type found (`array[string]` for arrays).
        found: String,
        /// The type llama.cpp requires.
        expected: &'static str,
    },
    /// `tokenizer.ggml.model` names no tokenizer llama.cpp knows.
    #[error("unknown tokenizer model '{model}' in tokenizer.ggml.model")]
    UnknownModel {
        /// The name found.
        model: String,
    },
    /// `tokenizer.ggml.pre` names no pre-tokenizer llama.cpp knows (BPE vocabularies only).
    #[error("unknown pre-tokenizer type '{pre}' in tokenizer.ggml.pre")]
    UnknownPre {
        /// The name found.
        pre: String,
    },
    /// A per-token array shorter than the token list.
    #[error("{key} has {len} elements, fewer than the {tokens} tokens")]
    ArrayTooShort {
        /// The array's key.
        key: &'static str,
        /// Its length.
        len: u64,
        /// The number of tokens.
        tokens: u64,
    },
    /// More tokens than a `llama_token` (int32) can number.
    #[error(
        "tokenizer.ggml.tokens declares {count} tokens, more than llama.cpp's int32 ids can number"
    )]
    TooManyTokens {
        /// The declared count.
        count: u64,
    },
    /// Two tokens with the same text (llama.cpp asserts that every text is unique).
    #[error("tokenizer.ggml.tokens: token {id} repeats the text of token {first}: {text:?}")]
    DuplicateToken {
        /// The later token.
        id: u32,
        /// The earlier token with the same text.
        first: u32,
        /// The text (lossy UTF-8).
        text: String,
    },
    /// `tokenizer.ggml.precompiled_charsmap` is malformed.
    #[error("tokenizer.ggml.precompiled_charsmap: {reason}")]
    Charsmap {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// A PLaMo-2 vocabulary without a `<0xXX>` byte token for this byte.
    #[error("tokenizer.ggml.tokens: the PLaMo-2 byte token <0x{byte:02X}> is missing")]
    MissingByteToken {
        /// The byte.
        byte: u8,
    },
    /// Encoding needed the token of a byte that the vocabulary does not have (llama.cpp throws).
    #[error("the vocabulary has no token for byte 0x{byte:02X}, which the text needs")]
    NoByteToken {
        /// The byte.
        byte: u8,
    },
    /// Encoding with `add_special` needs a special token the vocabulary does not define.
    #[error("the vocabulary asks for a {which} token but defines none")]
    MissingSpecial {
        /// `BOS`, `EOS` or `SEP`.
        which: &'static str,
    },
    /// The vocabulary's model is `none`: llama.cpp cannot encode with it.
    #[error("the vocabulary's model is '{model}': it has no tokenizer to encode with")]
    NoVocab {
        /// The model name (`none` or `no_vocab`).
        model: String,
    },
    /// A token id at or past the vocabulary's size.
    #[error("token id {id} is out of range: the vocabulary has {vocab_size} tokens")]
    IdOutOfRange {
        /// The id asked for.
        id: u32,
        /// The number of tokens.
        vocab_size: u32,
    },
    /// A token that llama.cpp's loader looks up by text for this vocabulary is absent.
    #[error("tokenizer.ggml.tokens has no token {text:?}, which llama.cpp requires for {reason}")]
    MissingToken {
        /// The token's text.
        text: &'static str,
        /// Why it is needed.
        reason: &'static str,
    },
    /// A token whose byte value cannot be read from its text (a byte token not of the `<0xXX>` form).
    #[error("token {id} is a byte token but its text is not <0xXX>")]
    BadByteToken {
        /// The token id.
        id: u32,
    },
    /// A text where llama.cpp's greedy RWKV tokenizer would loop forever: a token starts with
    /// the byte at `offset`, but no token is a prefix of the text there.
    #[error("no token matches the text at byte {offset} of a fragment, though tokens start with that byte (llama.cpp loops forever here)")]
    NoProgress {
        /// The byte offset in the fragment.
        offset: usize,
    },
    /// The pre-tokenizer's expressions cannot be used (llama.cpp throws while tokenizing).
    #[error("pre-tokenizer '{pre}': {message}")]
    PreTokenizer {
        /// The pre-tokenizer type.
        pre: String,
        /// Why its expressions fail.
        message: String,
    },
}
