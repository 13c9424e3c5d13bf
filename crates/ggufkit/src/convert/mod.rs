//! A Hugging Face checkpoint folder to GGUF, as llama.cpp's `convert_hf_to_gguf.py` writes it
//! (feature `convert`): the vocabulary builders (`vocab/`) and the general metadata
//! (`metadata.rs`) give the script's key-value pairs, in its order.
#![forbid(unsafe_code)]

pub mod metadata;
pub mod vocab;

/// One metadata pair as a builder returns it: the key and its owned value.
pub type Kv = (String, crate::write::OwnedValue);
