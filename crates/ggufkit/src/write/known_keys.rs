//! The metadata keys whose type llama.cpp's conventions fix (gguf-py's `Keys` and what
//! llama.cpp's loader reads), so that an edit given no type can use the right one, and the keys
//! a loader cannot do without.
#![forbid(unsafe_code)]

use crate::value::ValueType;
use crate::write::TypeSpec;
use crate::Gguf;

/// Keys of fixed type, whatever the architecture.
const GENERAL: &[(&str, ValueType)] = &[
    ("general.architecture", ValueType::String),
    ("general.name", ValueType::String),
    ("general.alignment", ValueType::U32),
    ("general.file_type", ValueType::U32),
    ("general.quantization_version", ValueType::U32),
    ("tokenizer.ggml.model", ValueType::String),
    ("tokenizer.ggml.pre", ValueType::String),
    ("tokenizer.chat_template", ValueType::String),
    ("tokenizer.ggml.bos_token_id", ValueType::U32),
    ("tokenizer.ggml.eos_token_id", ValueType::U32),
    ("tokenizer.ggml.eot_token_id", ValueType::U32),
    ("tokenizer.ggml.eom_token_id", ValueType::U32),
    ("tokenizer.ggml.unknown_token_id", ValueType::U32),
    ("tokenizer.ggml.seperator_token_id", ValueType::U32),
    ("tokenizer.ggml.padding_token_id", ValueType::U32),
    ("tokenizer.ggml.mask_token_id", ValueType::U32),
    ("tokenizer.ggml.add_bos_token", ValueType::Bool),
    ("tokenizer.ggml.add_eos_token", ValueType::Bool),
    ("tokenizer.ggml.add_space_prefix", ValueType::Bool),
    ("split.no", ValueType::U16),
    ("split.count", ValueType::U16),
    ("split.tensors.count", ValueType::I32),
];

/// Keys `{arch}.SUFFIX` of fixed type, for any architecture.
const PER_ARCH: &[(&str, ValueType)] = &[
    ("context_length", ValueType::U32),
    ("embedding_length", ValueType::U32),
    ("block_count", ValueType::U32),
    ("feed_forward_length", ValueType::U32),
    ("vocab_size", ValueType::U32),
    ("expert_count", ValueType::U32),
    ("expert_used_count", ValueType::U32),
    ("attention.head_count", ValueType::U32),
    ("attention.head_count_kv", ValueType::U32),
    ("attention.key_length", ValueType::U32),
    ("attention.value_length", ValueType::U32),
    ("attention.sliding_window", ValueType::U32),
    ("attention.layer_norm_epsilon", ValueType::F32),
    ("attention.layer_norm_rms_epsilon", ValueType::F32),
    ("rope.dimension_count", ValueType::U32),
    ("rope.freq_base", ValueType::F32),
    ("rope.scaling.factor", ValueType::F32),
    ("rope.scaling.type", ValueType::String),
];

/// The type llama.cpp's conventions give `key`, if they fix one (`general.alignment` is a uint32,
/// `llama.context_length` a uint32, `gemma3.rope.freq_base` a float32).
pub fn known_key_type(key: &str) -> Option<ValueType> {
    if let Some(&(_, t)) = GENERAL.iter().find(|(k, _)| *k == key) {
        return Some(t);
    }
    let (arch, suffix) = key.split_once('.')?;
    if arch == "general" || arch == "tokenizer" || arch == "split" {
        return None;
    }
    PER_ARCH.iter().find(|(s, _)| *s == suffix).map(|&(_, t)| t)
}

/// The type a value set on `key` of `g` takes when the caller names none: a key the file has
/// keeps its type (an array its element types), a new key takes the type llama.cpp's
/// conventions fix for it ([`known_key_type`]); `None` leaves it to the value's own shape.
/// `gguf meta set` and Python's `ggufkit.edit` both ask this.
pub fn type_for_key(g: &Gguf<'_>, key: &str) -> Option<TypeSpec> {
    g.get(key)
        .map(|old| TypeSpec::of(&old))
        .or_else(|| known_key_type(key).map(TypeSpec::Scalar))
}

/// Why a loader needs `key` (of a file whose `general.architecture` is `arch`), when llama.cpp
/// refuses or misreads a model without it; `None` for a key it can do without.
pub fn needed_by_loaders(key: &str, arch: Option<&str>) -> Option<&'static str> {
    match key {
        "general.architecture" => Some("llama.cpp cannot load a model without its architecture"),
        "tokenizer.ggml.model" | "tokenizer.ggml.tokens" => {
            Some("llama.cpp cannot load a model's vocabulary without it")
        }
        _ => {
            let suffix = key.strip_prefix(arch?)?.strip_prefix('.')?;
            matches!(
                suffix,
                "block_count" | "embedding_length" | "context_length"
            )
            .then_some("llama.cpp needs it to build the model's graph")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conventions() {
        assert_eq!(known_key_type("general.alignment"), Some(ValueType::U32));
        assert_eq!(known_key_type("llama.context_length"), Some(ValueType::U32));
        assert_eq!(
            known_key_type("gemma3.rope.freq_base"),
            Some(ValueType::F32)
        );
        assert_eq!(known_key_type("general.unknown"), None);
        assert_eq!(known_key_type("my.thing"), None);
        assert!(needed_by_loaders("general.architecture", None).is_some());
        assert!(needed_by_loaders("llama.block_count", Some("llama")).is_some());
        assert!(needed_by_loaders("qwen2.block_count", Some("llama")).is_none());
        assert!(needed_by_loaders("general.name", Some("llama")).is_none());
    }

    #[test]
    fn an_old_key_keeps_its_type_a_new_one_takes_the_conventions() {
        let mut b = crate::GgufBuilder::new();
        b.set("llama.context_length", crate::OwnedValue::I64(7))
            .expect("a valid pair");
        let bytes = b.to_vec().expect("a valid file");
        let g = Gguf::from_bytes(&bytes).expect("a valid file");
        // the file's own type wins over the conventions' uint32
        assert_eq!(
            type_for_key(&g, "llama.context_length"),
            Some(TypeSpec::Scalar(ValueType::I64))
        );
        assert_eq!(
            type_for_key(&g, "llama.block_count"),
            Some(TypeSpec::Scalar(ValueType::U32))
        );
        assert_eq!(type_for_key(&g, "my.thing"), None);
    }
}
