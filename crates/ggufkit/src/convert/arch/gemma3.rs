//! `Gemma3ForCausalLM` (text): the script's `Gemma3Model`. Norm weights are stored as an offset
//! from one (`+ 1`), the embedding is cut to the tokenizer's real token count, and the text
//! model's keys are completed with Gemma 3's defaults.
#![forbid(unsafe_code)]

use crate::convert::arch::{
    block_count, dropped, mapped, text_model_parameters, Architecture, TensorOut, Transform,
};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::{as_f32, as_u32, Hparams};
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;
use crate::write::OwnedValue;

/// The script's `Gemma3Model`.
pub struct Gemma3;

const NAMES: NameSet = NameSet {
    gemma_norms: true,
    qk_norm: true,
    dense_ffn: true,
    ffn_gate: true,
    experts: false,
    output: true,
};

/// A value of config.json, `default` when absent (Python's `dict.get(key, default)`).
fn get_u32(h: &Hparams, key: &str, default: u32) -> Result<u32, CheckpointError> {
    match h.get(key) {
        None => Ok(default),
        Some(v) => as_u32(v).ok_or_else(|| h.error(key, "a whole number")),
    }
}

fn get_f32(h: &Hparams, key: &str, default: f32) -> Result<f32, CheckpointError> {
    match h.get(key) {
        None => Ok(default),
        Some(v) => as_f32(v).ok_or_else(|| h.error(key, "a number")),
    }
}

/// The tokenizer's real token count: tokenizer.json's vocabulary and added tokens, or (with a
/// tokenizer.model) the config's vocab_size, to which the SentencePiece vocabulary is padded.
fn real_vocab(h: &Hparams, folder: &HfFolder) -> Result<Option<u64>, CheckpointError> {
    if folder.dir().join("tokenizer.model").is_file() {
        return Ok(h.find_u32(&["vocab_size"])?.map(u64::from));
    }
    let path = folder.dir().join("tokenizer.json");
    let text = std::fs::read(&path).map_err(|e| CheckpointError::io(&path, e))?;
    let json: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| CheckpointError::Json {
            path: path.clone(),
            problem: e.to_string(),
        })?;
    let vocab = json["model"]["vocab"].as_object().map(|m| m.len());
    let added = json["added_tokens"].as_array().map(|a| a.len());
    match (vocab, added) {
        (Some(v), Some(a)) => Ok(Some((v + a) as u64)),
        _ => Err(CheckpointError::Json {
            path,
            problem: "key 'model.vocab' or 'added_tokens' is absent".into(),
        }),
    }
}

/// The `+ 1` of norm weights, Gemma's way of storing them.
pub fn norm_shift(name: &str) -> Vec<Transform> {
    if name.ends_with("norm.weight") {
        vec![Transform::AddOne]
    } else {
        vec![]
    }
}

impl Architecture for Gemma3 {
    fn classes(&self) -> &'static [&'static str] {
        &["Gemma3ForCausalLM"]
    }

    fn gguf_arch(&self) -> &'static str {
        "gemma3"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        text_model_parameters("gemma3", h, block_count(h)?, file_type, kv)?;
        let u = |v| OwnedValue::U32(v);
        kv.set(
            "gemma3.context_length".into(),
            u(get_u32(h, "max_position_embeddings", 131072)?),
        );
        kv.set(
            "gemma3.attention.head_count".into(),
            u(get_u32(h, "num_attention_heads", 8)?),
        );
        kv.set(
            "gemma3.attention.layer_norm_rms_epsilon".into(),
            OwnedValue::F32(get_f32(h, "rms_norm_eps", 1e-6)?),
        );
        let head_dim = get_u32(h, "head_dim", 256)?;
        kv.set("gemma3.attention.key_length".into(), u(head_dim));
        kv.set("gemma3.attention.value_length".into(), u(head_dim));
        let theta = h
            .rope_f32(h.rope_full(), "rope_theta")?
            .unwrap_or(1_000_000.0);
        kv.set("gemma3.rope.freq_base".into(), OwnedValue::F32(theta));
        if !matches!(
            h.get("attn_logit_softcapping"),
            None | Some(serde_json::Value::Null)
        ) {
            return Err(h.error(
                "attn_logit_softcapping",
                "null (Gemma 3 has no attention softcapping)",
            ));
        }
        if let Some(cap) = h.find_f32(&["final_logit_softcapping"])? {
            if cap != 0.0 {
                kv.set(
                    "gemma3.final_logit_softcapping".into(),
                    OwnedValue::F32(cap),
                );
            }
        }
        if h.get("sliding_window_pattern").and_then(as_u32) != Some(1) {
            kv.set(
                "gemma3.attention.sliding_window".into(),
                u(h.u32("sliding_window")?),
            );
        }
        kv.set(
            "gemma3.attention.head_count_kv".into(),
            u(get_u32(h, "num_key_value_heads", 4)?),
        );
        Ok(())
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        let n_blocks = block_count(h)?;
        let mut out = Vec::new();
        for (i, t) in folder.tensors().iter().enumerate() {
            if dropped(&t.name) {
                continue;
            }
            let mut transforms = Vec::new();
            let mut rows = None;
            if t.name.contains("embed_tokens.weight") {
                let have = t.entry.shape.first().copied().unwrap_or(0);
                if let Some(n) = real_vocab(h, folder)? {
                    if n < have {
                        transforms.push(Transform::Rows(0..n as usize));
                        rows = Some(n);
                    }
                }
            }
            transforms.extend(norm_shift(&t.name));
            let mut o = mapped(folder, i, NAMES, n_blocks, transforms)?;
            if let Some(n) = rows {
                o.shape[0] = n;
            }
            out.push(o);
        }
        Ok(out)
    }

    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>> {
        Ok(crate::convert::vocab::gemma3_vocab(dir, vocab_size)?)
    }
}
