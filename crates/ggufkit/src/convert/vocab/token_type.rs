//! The token types `tokenizer.ggml.token_type` holds (gguf-py's `TokenType`, numbered as
//! SentencePiece numbers its piece types).
#![forbid(unsafe_code)]

/// An ordinary token.
pub const NORMAL: i32 = 1;
/// The unknown token.
pub const UNKNOWN: i32 = 2;
/// A control token (special: never produced by splitting text).
pub const CONTROL: i32 = 3;
/// A token added by the user, matched before the model runs.
pub const USER_DEFINED: i32 = 4;
/// A slot with no token (`[PAD{i}]` padding).
pub const UNUSED: i32 = 5;
/// A byte-fallback token (`<0xAB>`).
pub const BYTE: i32 = 6;
