//! `Qwen2ForCausalLM`: the script's `Qwen2Model`, a text model with nothing renamed or reshaped.
#![forbid(unsafe_code)]

use crate::convert::arch::{
    block_count, dropped, mapped, refuse_pooling, text_model_parameters, Architecture, TensorOut,
};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;

/// The script's `Qwen2Model`.
pub struct Qwen2;

/// The tensor families of a dense Qwen: no q/k norms.
pub const NAMES: NameSet = NameSet {
    gemma_norms: false,
    qk_norm: false,
    dense_ffn: true,
    ffn_gate: true,
    experts: false,
    output: true,
};

/// Every tensor mapped as it is (the dense text models' `modify_tensors`).
pub fn plain_tensors(
    h: &Hparams,
    folder: &HfFolder,
    names: NameSet,
) -> Result<Vec<TensorOut>, CheckpointError> {
    let n_blocks = block_count(h)?;
    let mut out = Vec::new();
    for (i, t) in folder.tensors().iter().enumerate() {
        if !dropped(&t.name) {
            out.push(mapped(folder, i, names, n_blocks, vec![])?);
        }
    }
    Ok(out)
}

impl Architecture for Qwen2 {
    fn classes(&self) -> &'static [&'static str] {
        &["Qwen2ForCausalLM"]
    }

    fn gguf_arch(&self) -> &'static str {
        "qwen2"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        text_model_parameters("qwen2", h, block_count(h)?, file_type, kv)
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        refuse_pooling(folder)?;
        plain_tensors(h, folder, NAMES)
    }

    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>> {
        Ok(crate::convert::vocab::qwen2_vocab(dir, vocab_size)?)
    }
}
