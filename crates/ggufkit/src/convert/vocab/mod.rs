//! The vocabulary of a Hugging Face folder as `tokenizer.ggml.*` pairs, built as
//! `convert_hf_to_gguf.py` builds them: byte-level BPE from tokenizer.json (`bpe.rs`, its
//! pre-tokenizer identified by `pre_hash.rs` against the script's table `pre_hashes.rs`),
//! SentencePiece from tokenizer.model (`spm.rs`, the protobuf messages in `spm_proto.rs`), then
//! gguf-py's `SpecialVocab` (`special.rs`: merges, special token ids, add_bos/add_eos flags,
//! normalizer flags, and the chat template of `chat_template.rs`). Each builder returns the pairs
//! in the order the script writes them.
#![forbid(unsafe_code)]

pub mod bpe;
pub mod chat_template;
mod files;
mod hf_tokenizer;
pub mod pre_hash;
mod pre_hashes;
pub mod special;
pub mod spm;
mod spm_proto;
pub mod token_type;

pub use bpe::gpt2_vocab;
pub use pre_hash::{identify_pre_tokenizer, supported_pre_tokenizers};
pub use spm::{gemma3_vocab, llama_vocab, phi3_vocab, qwen2_vocab, sentencepiece_vocab};
