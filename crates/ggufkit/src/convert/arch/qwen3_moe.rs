//! `Qwen3MoeForCausalLM`: the script's `Qwen3MoeModel` (its `Qwen2MoeModel`): the experts of a
//! block stacked into `ffn_{down,gate,up}_exps` once all were read, the expert feed-forward
//! lengths added to the text model's keys. Checkpoints that store the experts already fused
//! (`mlp.experts.gate_up_proj`) are refused.
#![forbid(unsafe_code)]

use crate::convert::arch::experts::{stack_shape, ExpertStacker};
use crate::convert::arch::{
    bid, block_count, dropped, map_name, mapped, role_of, text_model_parameters, Architecture,
    TensorOut, TensorSource,
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
        let mut experts: Option<ExpertStacker> = None;
        for (i, t) in folder.tensors().iter().enumerate() {
            let name = t.name.as_str();
            if dropped(name) {
                continue;
            }
            if name.contains("mlp.experts.gate_up_proj") || name.ends_with("mlp.experts.down_proj")
            {
                return Err(CheckpointError::Mismatch {
                    path: folder.dir().to_path_buf(),
                    problem: format!("tensor '{name}': fused expert tensors are not converted"),
                });
            }
            if name.contains("experts") {
                let Some(b) = bid(name) else {
                    return Err(CheckpointError::Mismatch {
                        path: folder.dir().to_path_buf(),
                        problem: format!("expert tensor '{name}' has no block number"),
                    });
                };
                if experts.is_none() {
                    let n = h
                        .find_u32(&["num_local_experts", "num_experts"])?
                        .ok_or_else(|| {
                            h.error("num_experts", "a whole number (the key is absent)")
                        })?;
                    experts = Some(ExpertStacker::new(
                        n as usize,
                        &["down_proj", "gate_proj", "up_proj"],
                        |b, x, w| format!("model.layers.{b}.mlp.experts.{x}.{w}.weight"),
                    ));
                }
                let Some(stacker) = experts.as_mut() else {
                    continue;
                };
                if let Some(stacks) = stacker.add(folder, b, name, i)? {
                    for (w, parts) in stacks {
                        let gguf = map_name(
                            NAMES,
                            &format!("model.layers.{b}.mlp.experts.{w}.weight"),
                            n_blocks,
                            folder,
                        )?;
                        out.push(TensorOut {
                            role: role_of(&gguf),
                            name: gguf,
                            shape: stack_shape(folder, &parts),
                            source: TensorSource::Tensors(parts),
                            transforms: vec![],
                        });
                    }
                }
                continue;
            }
            out.push(mapped(folder, i, NAMES, n_blocks, vec![])?);
        }
        if let Some(stacker) = &experts {
            stacker.finish(folder)?;
        }
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
