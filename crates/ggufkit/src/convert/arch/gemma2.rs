//! `Gemma2ForCausalLM`: the script's `Gemma2Model`: its own list of keys (softcapping, sliding
//! window), norms stored as an offset from one (`+ 1`), the output tied to the embedding
//! (`lm_head.weight` is skipped).
#![forbid(unsafe_code)]

use crate::convert::arch::gemma3::norm_shift;
use crate::convert::arch::{block_count, dropped, mapped, Architecture, TensorOut};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::Hparams;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;
use crate::write::OwnedValue;

/// The script's `Gemma2Model`.
pub struct Gemma2;

const NAMES: NameSet = NameSet {
    gemma_norms: true,
    qk_norm: false,
    dense_ffn: true,
    ffn_gate: true,
    experts: false,
    output: false,
};

impl Architecture for Gemma2 {
    fn classes(&self) -> &'static [&'static str] {
        &["Gemma2ForCausalLM"]
    }

    fn gguf_arch(&self) -> &'static str {
        "gemma2"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        let u = |v| OwnedValue::U32(v);
        let f = |key: &str| -> Result<OwnedValue, CheckpointError> {
            h.find_f32(&[key])?
                .map(OwnedValue::F32)
                .ok_or_else(|| h.error(key, "a number (the key is absent)"))
        };
        kv.set(
            "gemma2.context_length".into(),
            u(h.u32("max_position_embeddings")?),
        );
        kv.set("gemma2.embedding_length".into(), u(h.u32("hidden_size")?));
        kv.set("gemma2.block_count".into(), u(block_count(h)?));
        kv.set(
            "gemma2.feed_forward_length".into(),
            u(h.u32("intermediate_size")?),
        );
        let heads = h.u32("num_attention_heads")?;
        kv.set("gemma2.attention.head_count".into(), u(heads));
        let kv_heads = match h.get("num_key_value_heads") {
            Some(_) => h.u32("num_key_value_heads")?,
            None => heads,
        };
        kv.set("gemma2.attention.head_count_kv".into(), u(kv_heads));
        kv.set(
            "gemma2.attention.layer_norm_rms_epsilon".into(),
            f("rms_norm_eps")?,
        );
        kv.set("gemma2.attention.key_length".into(), u(h.u32("head_dim")?));
        kv.set(
            "gemma2.attention.value_length".into(),
            u(h.u32("head_dim")?),
        );
        kv.set("general.file_type".into(), u(file_type));
        kv.set(
            "gemma2.attn_logit_softcapping".into(),
            f("attn_logit_softcapping")?,
        );
        kv.set(
            "gemma2.final_logit_softcapping".into(),
            f("final_logit_softcapping")?,
        );
        kv.set(
            "gemma2.attention.sliding_window".into(),
            u(h.u32("sliding_window")?),
        );
        Ok(())
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        let n_blocks = block_count(h)?;
        let mut out = Vec::new();
        for (i, t) in folder.tensors().iter().enumerate() {
            if dropped(&t.name) || t.name == "lm_head.weight" {
                continue;
            }
            out.push(mapped(folder, i, NAMES, n_blocks, norm_shift(&t.name))?);
        }
        Ok(out)
    }

    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>> {
        // `_set_vocab_sentencepiece`, then add_space_prefix false
        let mut kvs = crate::convert::vocab::sentencepiece_vocab(dir, vocab_size)?;
        kvs.push((
            "tokenizer.ggml.add_space_prefix".into(),
            OwnedValue::Bool(false),
        ));
        Ok(kvs)
    }
}
