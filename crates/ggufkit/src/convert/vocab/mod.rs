//! The vocabulary of a Hugging Face folder as `tokenizer.ggml.*` pairs, built as
//! `convert_hf_to_gguf.py` builds them: byte-level BPE from tokenizer.json (`bpe.rs`, its
//! pre-tokenizer identified by `pre_hash.rs` against the script's table `pre_hashes.rs`),
//! SentencePiece from tokenizer.model (`spm.rs`, the protobuf messages in `spm_proto.rs`) or a
//! Llama 2 style tokenizer.json (`llama_hf.rs`), then
//! gguf-py's `SpecialVocab` (`special.rs`: merges, special token ids, add_bos/add_eos flags,
//! normalizer flags, and the chat template of `chat_template.rs`). Each builder returns the pairs
//! in the order the script writes them.
#![forbid(unsafe_code)]

pub mod bpe;
pub mod chat_template;
pub(crate) mod files;
mod hf_tokenizer;
pub mod llama_hf;
pub mod pre_hash;
mod pre_hashes;
pub mod special;
pub mod spm;
mod spm_proto;
pub mod token_type;

pub use bpe::gpt2_vocab;
pub use llama_hf::llama_hf_vocab;
pub use pre_hash::{identify_pre_tokenizer, supported_pre_tokenizers};
pub use spm::{gemma3_vocab, llama_vocab, phi3_vocab, qwen2_vocab, sentencepiece_vocab};

/// The vocabulary pairs the script's class for `architecture` (config.json's `architectures[0]`)
/// writes for `folder`; `None` for a class this table does not hold. `vocab_size` is the one
/// the class reads from config.json.
pub fn for_architecture(
    architecture: &str,
    folder: &std::path::Path,
    vocab_size: Option<usize>,
) -> Result<Option<Vec<crate::convert::Kv>>, crate::error::ConvertError> {
    let kvs = match architecture {
        // LlamaModel.set_vocab
        "LlamaForCausalLM" | "MistralForCausalLM" | "MixtralForCausalLM" => {
            llama_vocab(folder, vocab_size)?
        }
        // Qwen2Model.set_vocab (Qwen3Model inherits it)
        "Qwen2ForCausalLM" | "Qwen3ForCausalLM" => qwen2_vocab(folder, vocab_size)?,
        // TextModel.set_vocab (Qwen2MoeModel and Qwen3MoeModel keep it)
        "Qwen2MoeForCausalLM" | "Qwen3MoeForCausalLM" => gpt2_vocab(folder, vocab_size)?,
        "Gemma2ForCausalLM" => spm::gemma2_vocab(folder, vocab_size)?,
        "Gemma3ForCausalLM" => gemma3_vocab(folder, vocab_size)?,
        "Phi3ForCausalLM" => phi3_vocab(folder, vocab_size)?,
        _ => return Ok(None),
    };
    Ok(Some(kvs))
}

#[cfg(test)]
mod hostile_tests {
    //! Files that are not what they claim: each is one typed error naming the file, never a
    //! panic.
    use super::*;
    use crate::error::ConvertError;

    fn folder(files: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for (name, bytes) in files {
            std::fs::write(dir.path().join(name), bytes).expect("write");
        }
        dir
    }

    #[test]
    fn a_tokenizer_json_that_does_not_parse() {
        for bytes in [
            &b"{"[..],
            b"[]",
            b"{\"model\": {\"type\": \"BPE\", \"vocab\": 7}}",
            b"{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": [\"a b\"]}}",
            b"\xff\xfe",
        ] {
            let dir = folder(&[("tokenizer.json", bytes)]);
            match gpt2_vocab(dir.path(), None) {
                Err(ConvertError::Tokenizer { path, .. })
                | Err(ConvertError::Json { path, .. }) => {
                    assert!(path.ends_with("tokenizer.json"))
                }
                other => panic!(
                    "{:?}: {:?}",
                    String::from_utf8_lossy(bytes),
                    other.map(|k| k.len())
                ),
            }
        }
    }

    #[test]
    fn a_tokenizer_model_that_is_not_sentencepiece() {
        for bytes in [
            &b""[..],
            b"\x0a\xff\xff\xff\xff\x0f",
            b"GGUF\x03\x00\x00\x00",
            // one piece "a" typed 9
            b"\x0a\x05\x0a\x01a\x18\x09",
            // two unknown pieces
            b"\x0a\x05\x0a\x01a\x18\x02\x0a\x05\x0a\x01b\x18\x02",
            // the same piece twice
            b"\x0a\x03\x0a\x01a\x0a\x03\x0a\x01a",
        ] {
            let dir = folder(&[("tokenizer.model", bytes)]);
            match sentencepiece_vocab(dir.path(), None) {
                Err(ConvertError::SentencePiece { path, .. }) => {
                    assert!(path.ends_with("tokenizer.model"))
                }
                other => panic!("{bytes:?}: {:?}", other.map(|k| k.len())),
            }
        }
    }

    #[test]
    fn a_huge_vocab_size_is_refused_before_padding() {
        // one normal piece "a" and one unknown piece "<unk>"
        let model = b"\x0a\x05\x0a\x01a\x18\x01\x0a\x09\x0a\x05<unk>\x18\x02";
        let dir = folder(&[("tokenizer.model", model)]);
        let kvs = sentencepiece_vocab(dir.path(), Some(3)).expect("a small model");
        assert_eq!(kvs[2].0, "tokenizer.ggml.tokens");
        match sentencepiece_vocab(dir.path(), Some(usize::MAX / 2)) {
            Err(ConvertError::Vocab { problem, .. }) => assert!(problem.contains("vocab_size")),
            other => panic!("{:?}", other.map(|k| k.len())),
        }
    }
}
