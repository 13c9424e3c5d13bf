//! `LlamaForCausalLM` (Llama 2 and 3), `MistralForCausalLM` and `MixtralForCausalLM`: the
//! script's `LlamaModel`. The q and k projections are permuted back to llama.cpp's rotary
//! layout; Mixtral's experts are stacked per block into `ffn_{gate,down,up}_exps` once a block's
//! last expert tensor is read (fused experts, `mlp.experts.gate_up_proj`, are refused as the
//! script refuses them); a `llama3` rope adds the `rope_freqs` factors first.
#![forbid(unsafe_code)]

use std::f64::consts::PI;

use crate::convert::arch::experts::{ExpertLayout, ExpertStacker};
use crate::convert::arch::{
    block_count, dropped, map_name, permute_order, role_of, text_model_parameters, Architecture,
    TensorOut, TensorSource, Transform,
};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::outtype::TensorRole;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;
use crate::write::OwnedValue;

/// The script's `LlamaModel`.
pub struct Llama;

const NAMES: NameSet = NameSet {
    gemma_norms: false,
    qk_norm: false,
    dense_ffn: true,
    ffn_gate: true,
    experts: true,
    output: true,
};

/// Mixtral's experts: `w1`, `w2`, `w3` of each expert, stacked as `ffn_{gate,down,up}_exps`.
static EXPERTS: ExpertLayout = ExpertLayout {
    count_keys: &["num_local_experts"],
    projections: &["w1", "w2", "w3"],
    source_name: |b, x, w| format!("model.layers.{b}.block_sparse_moe.experts.{x}.{w}.weight"),
    merged_name: |b, w| format!("layers.{b}.feed_forward.experts.{w}.weight"),
};

impl Architecture for Llama {
    fn classes(&self) -> &'static [&'static str] {
        &[
            "LlamaForCausalLM",
            "MistralForCausalLM",
            "MixtralForCausalLM",
        ]
    }

    fn gguf_arch(&self) -> &'static str {
        "llama"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        text_model_parameters("llama", h, block_count(h)?, file_type, kv)?;
        kv.set(
            "llama.vocab_size".into(),
            OwnedValue::U32(h.u32("vocab_size")?),
        );
        let rope_dim = match h.find_u32(&["head_dim"])? {
            Some(d) => d,
            None => {
                let heads = h.u32("num_attention_heads")?;
                if heads == 0 {
                    return Err(h.error("num_attention_heads", "a positive number"));
                }
                h.u32("hidden_size")? / heads
            }
        };
        kv.set(
            "llama.rope.dimension_count".into(),
            OwnedValue::U32(rope_dim),
        );
        Ok(())
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        let n_blocks = block_count(h)?;
        let mut out = Vec::new();
        if let Some(f) = llama3_rope_factors(h)? {
            out.push(TensorOut {
                name: "rope_freqs.weight".into(),
                shape: vec![f.len() as u64],
                source: TensorSource::Values(f),
                transforms: vec![],
                role: TensorRole::default(),
            });
        }
        let n_head = h
            .find_u32(&["n_heads", "num_attention_heads"])?
            .ok_or_else(|| h.error("num_attention_heads", "a whole number (the key is absent)"))?
            as usize;
        let n_kv_head = h
            .find_u32(&["n_kv_heads", "num_key_value_heads"])?
            .ok_or_else(|| h.error("num_key_value_heads", "a whole number (the key is absent)"))?
            as usize;
        // transformers 5 holds Mixtral's experts fused; the pinned script's Llama tensor map has
        // no fused gate-up tensor and refuses such a checkpoint ("Can not map tensor"): so do we
        if let Some(t) = folder
            .tensors()
            .iter()
            .find(|t| t.name.ends_with("mlp.experts.gate_up_proj"))
        {
            return Err(CheckpointError::Mismatch {
                path: folder.dir().to_path_buf(),
                problem: format!(
                    "tensor '{}': fused experts are not converted for this class (convert_hf_to_gguf.py cannot map them either; per-expert block_sparse_moe tensors are)",
                    t.name
                ),
            });
        }
        let mut experts = ExpertStacker::new(&EXPERTS, NAMES, n_blocks);
        for (i, t) in folder.tensors().iter().enumerate() {
            let name = t.name.as_str();
            if dropped(name) {
                continue;
            }
            let mut transforms = Vec::new();
            let heads = if name.ends_with("q_proj.weight") || name.ends_with("q_proj.bias") {
                Some(n_head)
            } else if name.ends_with("k_proj.weight") || name.ends_with("k_proj.bias") {
                Some(if n_kv_head != n_head {
                    n_kv_head
                } else {
                    n_head
                })
            } else {
                None
            };
            if let Some(heads) = heads {
                let rows = t.entry.shape.first().copied().unwrap_or(0) as usize;
                if permute_order(rows, heads).is_none() {
                    return Err(CheckpointError::Mismatch {
                        path: folder.dir().to_path_buf(),
                        problem: format!(
                            "tensor '{name}' has {rows} rows, which {heads} heads of two halves do not divide"
                        ),
                    });
                }
                transforms.push(Transform::PermuteHeads(heads));
            }
            if name.contains("block_sparse_moe.experts") {
                experts.take(h, folder, name, i, &mut out)?;
                continue;
            }
            let gguf = map_name(NAMES, name, n_blocks, folder)?;
            out.push(TensorOut {
                role: role_of(&gguf),
                name: gguf,
                source: TensorSource::Tensors(vec![i]),
                transforms,
                shape: t.entry.shape.clone(),
            });
        }
        experts.finish(folder)?;
        Ok(out)
    }

    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>> {
        Ok(crate::convert::vocab::llama_vocab(dir, vocab_size)?)
    }
}

/// Llama 3's rope factors (`generate_extra_tensors`), computed in f32 as torch does, when the
/// rope type is `llama3`.
fn llama3_rope_factors(h: &Hparams) -> Result<Option<Vec<f32>>, CheckpointError> {
    let rope = h.rope_full().clone();
    if rope.is_empty() {
        return Ok(None);
    }
    let is_llama3 = rope
        .get("rope_type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_ignore_ascii_case("llama3"));
    if !is_llama3 {
        return Ok(None);
    }
    let base = h.rope_f32(&rope, "rope_theta")?.unwrap_or(10000.0);
    let dim = match h.find_u32(&["head_dim"])? {
        Some(d) => d,
        None => h.u32("hidden_size")? / h.u32("num_attention_heads")?.max(1),
    } as usize;
    let factor = h.rope_f32(&rope, "factor")?.unwrap_or(8.0);
    let low = h.rope_f32(&rope, "low_freq_factor")?.unwrap_or(1.0);
    let high = h.rope_f32(&rope, "high_freq_factor")?.unwrap_or(4.0);
    let old_ctx = h
        .rope_f32(&rope, "original_max_position_embeddings")?
        .unwrap_or(8192.0);
    // Python floats (f64) for the thresholds, f32 tensors for the rest, as the script mixes them
    let (low64, high64, old64) = (f64::from(low), f64::from(high), f64::from(old_ctx));
    let low_wavelen = (old64 / low64) as f32;
    let high_wavelen = (old64 / high64) as f32;
    let two_pi = (2.0 * PI) as f32;
    let mut factors = Vec::with_capacity(dim.div_ceil(2));
    for i in (0..dim).step_by(2) {
        let e = i as f32 / dim as f32;
        let freq = (1.0f32 / base.powf(e)) * 1.0;
        let wavelen = (1.0f32 / freq) * two_pi;
        let f = if wavelen < high_wavelen {
            1.0
        } else if wavelen > low_wavelen {
            factor
        } else {
            let smooth = ((1.0f32 / wavelen) * old_ctx - low) / ((high64 - low64) as f32);
            let d = (1.0 - smooth) / factor + smooth;
            1.0f32 / d
        };
        factors.push(f);
    }
    Ok(Some(factors))
}
