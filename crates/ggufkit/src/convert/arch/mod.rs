//! The architecture table: each Hugging Face class the conversion knows, the GGUF architecture
//! it becomes, the hyperparameters its `set_gguf_parameters` writes (in the script's order) and
//! the tensors its `modify_tensors` yields (renamed, permuted, stacked, split). Adding an
//! architecture is a file here and a line in [`TABLE`].
#![forbid(unsafe_code)]

pub mod experts;
pub mod gemma2;
pub mod gemma3;
pub mod llama;
pub mod phi3;
pub mod qwen2;
pub mod qwen3;
pub mod qwen3_moe;

use std::ops::Range;

use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::outtype::TensorRole;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::{block_id, gguf_name, NameSet};
use crate::error::CheckpointError;
use crate::write::OwnedValue;

/// Where a tensor's elements come from.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorSource {
    /// Tensors of the checkpoint (indexes into [`HfFolder::tensors`]); several are stacked along
    /// a new outermost dimension, in order.
    Tensors(Vec<usize>),
    /// Values the conversion computes (llama 3's rope factors).
    Values(Vec<f32>),
}

/// A change the script makes to a tensor's elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transform {
    /// Llama's q/k permutation (`LlamaModel.permute`) with this many heads: the rows of each
    /// head's two halves interleaved.
    PermuteHeads(usize),
    /// `+ 1` (Gemma's norms are stored as an offset from one).
    AddOne,
    /// Only these outermost rows (a fused tensor split).
    Rows(Range<usize>),
    /// Only these rows of the second-to-last dimension, in every outermost slice (a fused
    /// expert tensor `[experts, 2 × n_ff, n_embd]` split into its gate and up halves).
    InnerRows(Range<usize>),
}

/// One tensor the conversion writes, before its type is decided.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorOut {
    /// The GGUF name.
    pub name: String,
    /// Its elements' origin.
    pub source: TensorSource,
    /// What is done to them, in order (applied to each stacked part before stacking).
    pub transforms: Vec<Transform>,
    /// Its shape, outermost first (torch's order; GGUF's is the reverse).
    pub shape: Vec<u64>,
    /// What the type rules need to know.
    pub role: TensorRole,
}

/// An architecture of the table.
pub trait Architecture: Sync {
    /// The Hugging Face classes (`architectures[0]`) it converts.
    fn classes(&self) -> &'static [&'static str];
    /// The GGUF architecture name.
    fn gguf_arch(&self) -> &'static str;
    /// The hyperparameter keys, in the script's order (after `general.*`, before
    /// `general.quantization_version`); `file_type` is the resolved outtype's.
    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError>;
    /// The pairs the script sets while it prepares the tensors (Phi-3's long-context attention
    /// factor, from `generate_extra_tensors`): written right after `general.architecture`, and
    /// not at all for `--vocab-only`, which prepares no tensors.
    fn tensor_parameters(&self, _h: &Hparams, _kv: &mut KvList) -> Result<(), CheckpointError> {
        Ok(())
    }
    /// The tensors, in the order the script adds them.
    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError>;
    /// The vocabulary pairs its `set_vocab` writes (`vocab_size`: config.json's).
    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>>;
}

/// Every architecture the conversion knows.
pub static TABLE: &[&dyn Architecture] = &[
    &llama::Llama,
    &qwen2::Qwen2,
    &qwen3::Qwen3,
    &qwen3_moe::Qwen3Moe,
    &gemma2::Gemma2,
    &gemma3::Gemma3,
    &phi3::Phi3,
];

/// The architecture converting `class`, or the error naming it and the supported classes.
pub fn find(
    class: &str,
    config: &std::path::Path,
) -> Result<&'static dyn Architecture, CheckpointError> {
    TABLE
        .iter()
        .copied()
        .find(|a| a.classes().contains(&class))
        .ok_or_else(|| CheckpointError::UnsupportedArchitecture {
            path: config.to_path_buf(),
            class: class.to_string(),
            supported: supported(),
        })
}

/// The supported classes, in table order.
pub fn supported() -> Vec<&'static str> {
    TABLE
        .iter()
        .flat_map(|a| a.classes().iter().copied())
        .collect()
}

/// The keys of the script's `TextModel.set_gguf_parameters`, in its order, for `arch`.
pub fn text_model_parameters(
    arch: &str,
    h: &Hparams,
    block_count: u32,
    file_type: u32,
    kv: &mut KvList,
) -> Result<(), CheckpointError> {
    let k = |s: &str| format!("{arch}.{s}");
    kv.set(k("block_count"), OwnedValue::U32(block_count));
    let u32_keys: [(&str, &[&str]); 5] = [
        (
            "context_length",
            &[
                "max_position_embeddings",
                "n_ctx",
                "n_positions",
                "max_length",
                "max_sequence_length",
                "model_max_length",
            ],
        ),
        ("embedding_length", &["hidden_size", "n_embd", "dim"]),
        (
            "feed_forward_length",
            &[
                "prefix_dense_intermediate_size",
                "dense_intermediate_size",
                "intermediate_size",
                "n_inner",
                "hidden_dim",
            ],
        ),
        (
            "attention.head_count",
            &["num_attention_heads", "n_head", "n_heads"],
        ),
        (
            "attention.head_count_kv",
            &["num_key_value_heads", "n_kv_heads"],
        ),
    ];
    for (key, names) in u32_keys {
        if let Some(v) = h.find_u32(names)? {
            kv.set(k(key), OwnedValue::U32(v));
        }
    }
    if h.get("is_causal") == Some(&serde_json::Value::Bool(false)) {
        kv.set(k("attention.causal"), OwnedValue::Bool(false));
    }
    let rope = h.rope_full().clone();
    if let Some(rope_type) = rope.get("rope_type").and_then(|t| t.as_str()) {
        let factor = h.rope_f32(&rope, "factor")?;
        match (rope_type, factor) {
            ("linear", Some(f)) => {
                kv.set(k("rope.scaling.type"), OwnedValue::String("linear".into()));
                kv.set(k("rope.scaling.factor"), OwnedValue::F32(f));
            }
            ("yarn", Some(f)) => {
                kv.set(k("rope.scaling.type"), OwnedValue::String("yarn".into()));
                kv.set(k("rope.scaling.factor"), OwnedValue::F32(f));
                let orig = h
                    .rope_u32(&rope, "original_max_position_embeddings")?
                    .ok_or_else(|| {
                        h.error(
                            "rope_parameters.original_max_position_embeddings",
                            "a whole number for yarn",
                        )
                    })?;
                kv.set(
                    k("rope.scaling.original_context_length"),
                    OwnedValue::U32(orig),
                );
                if let Some(v) = h.rope_f32(&rope, "extrapolation_factor")? {
                    kv.set(k("rope.scaling.yarn_ext_factor"), OwnedValue::F32(v));
                }
                let attn = match h.rope_f32(&rope, "attention_factor")? {
                    Some(v) => Some(v),
                    None => h.rope_f32(&rope, "attn_factor")?,
                };
                if let Some(v) = attn {
                    kv.set(k("rope.scaling.yarn_attn_factor"), OwnedValue::F32(v));
                }
                if let Some(v) = h.rope_f32(&rope, "beta_fast")? {
                    kv.set(k("rope.scaling.yarn_beta_fast"), OwnedValue::F32(v));
                }
                if let Some(v) = h.rope_f32(&rope, "beta_slow")? {
                    kv.set(k("rope.scaling.yarn_beta_slow"), OwnedValue::F32(v));
                }
            }
            ("su" | "longrope", _) => {
                kv.set(
                    k("rope.scaling.type"),
                    OwnedValue::String("longrope".into()),
                );
            }
            _ => {}
        }
    }
    if let Some(serde_json::Value::Array(sections)) = h.rope().get("mrope_section") {
        let mut s: Vec<OwnedValue> = sections
            .iter()
            .map(|v| crate::convert::hparams::as_u32(v).map(|n| OwnedValue::I32(n as i32)))
            .collect::<Option<_>>()
            .ok_or_else(|| h.error("rope_parameters.mrope_section", "whole numbers"))?;
        s.resize(4.max(s.len()), OwnedValue::I32(0));
        s.truncate(4);
        kv.set(
            k("rope.dimension_sections"),
            OwnedValue::Array(
                crate::write::OwnedArray::new(crate::value::ValueType::I32, s)
                    .map_err(|_| h.error("mrope_section", "whole numbers"))?,
            ),
        );
    }
    if let Some(theta) = h.rope_f32(&rope, "rope_theta")? {
        kv.set(k("rope.freq_base"), OwnedValue::F32(theta));
    }
    if let Some(serde_json::Value::Object(swa)) = h.rope().get("sliding_attention") {
        if let Some(theta) = h.rope_f32(swa, "rope_theta")? {
            kv.set(k("rope.freq_base_swa"), OwnedValue::F32(theta));
        }
    }
    if let Some(eps) = h.find_f32(&["rms_norm_eps", "norm_eps"])? {
        kv.set(k("attention.layer_norm_rms_epsilon"), OwnedValue::F32(eps));
    }
    if let Some(eps) = h.find_f32(&["layer_norm_eps", "layer_norm_epsilon", "norm_epsilon"])? {
        kv.set(k("attention.layer_norm_epsilon"), OwnedValue::F32(eps));
    }
    if let Some(n) = h.find_u32(&["num_local_experts", "num_experts", "n_routed_experts"])? {
        kv.set(k("expert_count"), OwnedValue::U32(n));
    }
    if let Some(n) = h.find_u32(&[
        "num_experts_per_tok",
        "num_experts_per_token",
        "top_k_experts",
    ])? {
        kv.set(k("expert_used_count"), OwnedValue::U32(n));
    }
    if let Some(n) = h.find_u32(&["n_group"])? {
        kv.set(k("expert_group_count"), OwnedValue::U32(n));
    }
    if let Some(n) = h.find_u32(&["topk_group"])? {
        kv.set(k("expert_group_used_count"), OwnedValue::U32(n));
    }
    let score = h.find(&[
        "score_function",
        "scoring_func",
        "score_func",
        "moe_router_activation",
        "moe_router_activation_func",
        "expert_selection_fn",
    ]);
    if let Some(s) = score.filter(|s| !s.is_null()) {
        let f = match s.as_str() {
            Some("softmax") => 1,
            Some("sigmoid") => 2,
            Some("sqrtsoftplus") => 4,
            _ => return Err(h.error("score_function", "softmax, sigmoid or sqrtsoftplus")),
        };
        kv.set(k("expert_gating_func"), OwnedValue::U32(f));
    }
    if let Some(hd) = h.find_u32(&["head_dim"])? {
        kv.set(k("attention.key_length"), OwnedValue::U32(hd));
        kv.set(k("attention.value_length"), OwnedValue::U32(hd));
    }
    kv.set("general.file_type".into(), OwnedValue::U32(file_type));
    Ok(())
}

/// The block count (`find_hparam(["n_layers", "num_hidden_layers", "n_layer", "num_layers"])`).
pub fn block_count(h: &Hparams) -> Result<u32, CheckpointError> {
    h.find_u32(&["n_layers", "num_hidden_layers", "n_layer", "num_layers"])?
        .ok_or_else(|| h.error("num_hidden_layers", "a whole number (the key is absent)"))
}

/// Tensors the script drops before mapping.
pub fn dropped(name: &str) -> bool {
    name.ends_with(".attention.masked_bias")
        || name.ends_with(".attention.bias")
        || name.ends_with(".rotary_emb.inv_freq")
}

/// The GGUF name of `name`, or the script's "Can not map tensor" error.
pub fn map_name(
    set: NameSet,
    name: &str,
    n_blocks: u32,
    folder: &HfFolder,
) -> Result<String, CheckpointError> {
    gguf_name(set, name, n_blocks).ok_or_else(|| CheckpointError::Mismatch {
        path: folder.dir().to_path_buf(),
        problem: format!("tensor '{name}' has no GGUF name in this architecture"),
    })
}

/// The role of a mapped tensor (routers stay f32; embeddings and output are kept f16 under
/// the ternary types).
pub fn role_of(gguf: &str) -> TensorRole {
    let base = gguf.strip_suffix(".weight").unwrap_or("");
    let block_part = base.rsplit('.').next().unwrap_or("");
    TensorRole {
        always_f32: base.starts_with("blk.")
            && block_part == "ffn_gate_inp"
            && gguf.ends_with(".weight"),
        embedding_or_output: base == "token_embd" || base == "output",
    }
}

/// The row order of `LlamaModel.permute` for a tensor of `rows` rows and `heads` heads.
pub fn permute_order(rows: usize, heads: usize) -> Option<Vec<usize>> {
    if heads == 0 || rows % (heads * 2) != 0 {
        return None;
    }
    let half = rows / heads / 2;
    let mut order = Vec::with_capacity(rows);
    for h in 0..heads {
        for i in 0..half {
            for j in 0..2 {
                order.push(h * 2 * half + j * half + i);
            }
        }
    }
    Some(order)
}

/// The block id of a source name (see [`block_id`]).
pub fn bid(name: &str) -> Option<u32> {
    block_id(name)
}

/// Source tensor `i` under its GGUF name, with `transforms`.
pub fn mapped(
    folder: &HfFolder,
    i: usize,
    names: NameSet,
    n_blocks: u32,
    transforms: Vec<Transform>,
) -> Result<TensorOut, CheckpointError> {
    let t = &folder.tensors()[i];
    let gguf = map_name(names, &t.name, n_blocks, folder)?;
    Ok(TensorOut {
        role: role_of(&gguf),
        name: gguf,
        source: TensorSource::Tensors(vec![i]),
        transforms,
        shape: t.entry.shape.clone(),
    })
}

/// Refuses a sentence-transformers folder (`modules.json`), whose pooling the script writes
/// and this conversion does not.
pub fn refuse_pooling(folder: &HfFolder) -> Result<(), CheckpointError> {
    if folder.dir().join("modules.json").is_file() {
        return Err(CheckpointError::Mismatch {
            path: folder.dir().join("modules.json"),
            problem: "sentence-transformers pooling is not converted".into(),
        });
    }
    Ok(())
}
