//! The tokenizer models llama.cpp has (`llama_vocab_type`) and the `tokenizer.ggml.model` names
//! that select them.
#![forbid(unsafe_code)]

/// The tokenizer algorithm of a vocabulary (llama.cpp's `LLAMA_VOCAB_TYPE_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Model {
    /// No vocabulary (`none`, `no_vocab`): nothing to encode with.
    None,
    /// SentencePiece BPE with byte fallback (`llama`).
    Spm,
    /// Byte-level BPE (`gpt2`, and the `gemma4`, `hybriddna` and `whitespace` variants).
    Bpe,
    /// WordPiece (`bert`).
    Wpm,
    /// Unigram with a precompiled normalizer (`t5`).
    Ugm,
    /// RWKV's greedy trie tokenizer (`rwkv`).
    Rwkv,
    /// PLaMo-2's Aho-Corasick and dynamic-programming tokenizer (`plamo2`).
    Plamo2,
    /// llama.cpp's test tokenizer (`test`): a rolling hash of 5-byte chunks.
    Test,
}

impl Model {
    /// The model a `tokenizer.ggml.model` value selects, as llama.cpp's loader reads it.
    pub fn from_name(name: &[u8]) -> Option<Model> {
        Some(match name {
            b"no_vocab" | b"none" => Model::None,
            b"llama" => Model::Spm,
            b"bert" => Model::Wpm,
            b"gpt2" | b"hybriddna" | b"whitespace" | b"gemma4" => Model::Bpe,
            b"t5" => Model::Ugm,
            b"rwkv" => Model::Rwkv,
            b"test" => Model::Test,
            b"plamo2" => Model::Plamo2,
            _ => return None,
        })
    }

    /// llama.cpp's name for the type (`SPM`, `BPE`, ... as `llama_vocab::type_name` prints it).
    pub fn type_name(self) -> &'static str {
        match self {
            Model::None => "no vocab",
            Model::Spm => "SPM",
            Model::Bpe => "BPE",
            Model::Wpm => "WPM",
            Model::Ugm => "UGM",
            Model::Rwkv => "RWKV",
            Model::Plamo2 => "PLaMo2",
            Model::Test => "TEST",
        }
    }
}
