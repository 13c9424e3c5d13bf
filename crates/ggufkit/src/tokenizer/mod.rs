//! Tokenizing and detokenizing exactly as llama.cpp does, from a GGUF's `tokenizer.ggml.*`.
#![forbid(unsafe_code)]

pub mod pre_type;
pub mod unicode;
