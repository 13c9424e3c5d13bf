//! `Qwen3ForCausalLM`: the script's `Qwen3Model` (Qwen 2 with q/k norms). Its rerankers (a
//! classifier head made from two embedding rows) are refused.
#![forbid(unsafe_code)]

use crate::convert::arch::qwen2::plain_tensors;
use crate::convert::arch::{
    block_count, refuse_pooling, text_model_parameters, Architecture, TensorOut,
};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;

/// The script's `Qwen3Model`.
pub struct Qwen3;

const NAMES: NameSet = NameSet {
    gemma_norms: false,
    qk_norm: true,
    dense_ffn: true,
    ffn_gate: true,
    experts: false,
    output: true,
};

/// Whether the script would take the folder for a Qwen 3 reranker.
fn is_reranker(h: &Hparams, folder: &HfFolder) -> bool {
    let readme = std::fs::read_to_string(folder.dir().join("README.md"))
        .unwrap_or_default()
        .to_lowercase();
    if readme.contains("# qwen3-reranker") || readme.contains("# qwen3-vl-reranker") {
        return true;
    }
    let dir_name = folder
        .dir()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let hints = [
        dir_name,
        h.get("_name_or_path")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string(),
        h.get("model_type")
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string(),
    ];
    hints.iter().any(|n| {
        let n = n.to_lowercase();
        n.contains("qwen3-reranker") || n.contains("qwen3-vl-reranker")
    })
}

impl Architecture for Qwen3 {
    fn classes(&self) -> &'static [&'static str] {
        &["Qwen3ForCausalLM"]
    }

    fn gguf_arch(&self) -> &'static str {
        "qwen3"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        text_model_parameters("qwen3", h, block_count(h)?, file_type, kv)
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        refuse_pooling(folder)?;
        if is_reranker(h, folder) {
            return Err(CheckpointError::Mismatch {
                path: folder.dir().to_path_buf(),
                problem: "a Qwen 3 reranker: its classifier head is not converted".into(),
            });
        }
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
