//! The vocabulary of a Hugging Face folder as `tokenizer.ggml.*` pairs, built as
//! `convert_hf_to_gguf.py` builds them from tokenizer.json or tokenizer.model.
#![forbid(unsafe_code)]
