//! `Qwen3MoeForCausalLM`: the script's `Qwen3MoeModel` (its `Qwen2MoeModel`): the experts of a
//! block stacked into `ffn_{down,gate,up}_exps` once all were read, the expert feed-forward
//! lengths added to the text model's keys. Experts stored fused, as transformers 5 holds them
//! (`mlp.experts.gate_up_proj`, `mlp.experts.down_proj`), are split and mapped as the script's
//! `Qwen2MoeModel.modify_tensors` does.
#![forbid(unsafe_code)]

use crate::convert::arch::experts::{take_fused, ExpertLayout, ExpertStacker};
use crate::convert::arch::{
    block_count, dropped, mapped, text_model_parameters, Architecture, TensorOut,
};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;
use crate::write::OwnedValue;

/// The script's `Qwen3MoeModel`.
pub struct Qwen3Moe;

const NAMES: NameSet = NameSet {
    gemma_norms: false,
    qk_norm: true,
    dense_ffn: false,
    ffn_gate: false,
    experts: true,
    output: true,
};

/// Qwen MoE's experts: `down_proj`, `gate_proj`, `up_proj` of each expert, stacked in that
/// order.
static EXPERTS: ExpertLayout = ExpertLayout {
    count_keys: &["num_local_experts", "num_experts"],
    projections: &["down_proj", "gate_proj", "up_proj"],
    source_name: |b, x, w| format!("model.layers.{b}.mlp.experts.{x}.{w}.weight"),
    merged_name: |b, w| format!("model.layers.{b}.mlp.experts.{w}.weight"),
};

impl Architecture for Qwen3Moe {
    fn classes(&self) -> &'static [&'static str] {
        &["Qwen3MoeForCausalLM"]
    }

    fn gguf_arch(&self) -> &'static str {
        "qwen3moe"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        text_model_parameters("qwen3moe", h, block_count(h)?, file_type, kv)?;
        if let Some(n) = h.find_u32(&["moe_intermediate_size"])? {
            kv.set(
                "qwen3moe.expert_feed_forward_length".into(),
                OwnedValue::U32(n),
            );
        }
        if let Some(n) = h.find_u32(&["shared_expert_intermediate_size"])? {
            kv.set(
                "qwen3moe.expert_shared_feed_forward_length".into(),
                OwnedValue::U32(n),
            );
        }
        Ok(())
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        let n_blocks = block_count(h)?;
        let mut out = Vec::new();
        let mut experts = ExpertStacker::new(&EXPERTS, NAMES, n_blocks);
        for (i, t) in folder.tensors().iter().enumerate() {
            let name = t.name.as_str();
            if dropped(name) {
                continue;
            }
            if take_fused(NAMES, folder, name, i, n_blocks, &mut out)? {
                continue;
            }
            if name.contains("experts") {
                experts.take(h, folder, name, i, &mut out)?;
                continue;
            }
            out.push(mapped(folder, i, NAMES, n_blocks, vec![])?);
        }
        experts.finish(folder)?;
        Ok(out)
    }

    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>> {
        Ok(crate::convert::vocab::gpt2_vocab(dir, vocab_size)?)
    }
}
