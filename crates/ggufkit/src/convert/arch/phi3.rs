//! `Phi3ForCausalLM` (Phi-3, Phi-3.5, Phi-4 mini): the script's `Phi3MiniModel`. Its own
//! hyperparameters (not the text model's: the original context, partial rotary dimensions, a
//! sliding window of 0 when the config has none), the fused `qkv_proj` and `gate_up_proj` kept
//! fused (`attn_qkv`, `ffn_up`), and for a long-context (`longrope`/`su`/`yarn`) config the
//! `rope_factors_long`/`rope_factors_short` tensors first, with the attention factor the script
//! sets while it generates them. The vocabulary is SentencePiece, or BPE when
//! tokenizer_config.json names `GPT2Tokenizer` (Phi-4).
#![forbid(unsafe_code)]

use serde_json::Value;

use crate::convert::arch::qwen2::plain_tensors;
use crate::convert::arch::{block_count, Architecture, TensorOut, TensorSource};
use crate::convert::folder::HfFolder;
use crate::convert::hparams::{as_f32, Hparams};
use crate::convert::outtype::TensorRole;
use crate::convert::plan::KvList;
use crate::convert::tensor_names::NameSet;
use crate::error::CheckpointError;
use crate::write::OwnedValue;

/// The script's `Phi3MiniModel`.
pub struct Phi3;

/// Phi-3's tensor families: the gate is fused into `ffn_up`, no experts.
const NAMES: NameSet = NameSet {
    gemma_norms: false,
    qk_norm: false,
    dense_ffn: true,
    ffn_gate: false,
    experts: false,
    output: true,
};

/// `find_hparam(keys)`: required.
fn need_u32(h: &Hparams, keys: &[&str]) -> Result<u32, CheckpointError> {
    h.find_u32(keys)?
        .ok_or_else(|| h.error(keys[0], "a whole number (the key is absent)"))
}

/// The rope parameters' `original_max_position_embeddings` (required by the script).
fn original_context(h: &Hparams) -> Result<u32, CheckpointError> {
    h.rope_u32(h.rope(), "original_max_position_embeddings")?
        .ok_or_else(|| {
            h.error(
                "rope_parameters.original_max_position_embeddings",
                "a whole number (the key is absent)",
            )
        })
}

/// `int(partial_rotary_factor * n_embd) // n_head`.
fn rope_dims(h: &Hparams) -> Result<u32, CheckpointError> {
    let n_embd = need_u32(h, &["hidden_size", "n_embd"])?;
    let n_head = need_u32(h, &["num_attention_heads", "n_head"])?;
    if n_head == 0 {
        return Err(h.error("num_attention_heads", "a positive number"));
    }
    let pct = match h.rope().get("partial_rotary_factor") {
        None | Some(Value::Null) => 1.0,
        Some(v) => v
            .as_f64()
            .ok_or_else(|| h.error("rope_parameters.partial_rotary_factor", "a number"))?,
    };
    let rotary = pct * f64::from(n_embd);
    if !(0.0..=f64::from(u32::MAX)).contains(&rotary) {
        return Err(h.error(
            "rope_parameters.partial_rotary_factor",
            "a factor between 0 and 1",
        ));
    }
    Ok(rotary as u32 / n_head)
}

/// A factor list of the rope parameters as f32 values (`torch.tensor(..., dtype=float32)`).
fn factors(h: &Hparams, key: &str) -> Result<Option<Vec<f32>>, CheckpointError> {
    match h.rope().get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(as_f32)
            .collect::<Option<Vec<f32>>>()
            .map(Some)
            .ok_or_else(|| h.error(&format!("rope_parameters.{key}"), "a list of numbers")),
        Some(_) => Err(h.error(&format!("rope_parameters.{key}"), "a list of numbers")),
    }
}

/// What `generate_extra_tensors` makes of a long-context config: the attention factor and the
/// long and short factors; `None` without (or with empty) long factors.
struct LongRope {
    attn_factor: f32,
    long: Vec<f32>,
    short: Vec<f32>,
}

fn long_rope(h: &Hparams) -> Result<Option<LongRope>, CheckpointError> {
    let Some(long) = factors(h, "long_factor")?.filter(|l| !l.is_empty()) else {
        return Ok(None);
    };
    let short = factors(h, "short_factor")?;
    let max_pos = need_u32(h, &["n_positions", "max_position_embeddings"])?;
    let orig = original_context(h)?;
    if orig == 0 {
        return Err(h.error(
            "rope_parameters.original_max_position_embeddings",
            "a positive number",
        ));
    }
    let scale = f64::from(max_pos) / f64::from(orig);
    let rope_type = match h.rope().get("rope_type") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.to_lowercase(),
        Some(_) => return Err(h.error("rope_parameters.rope_type", "a string")),
    };
    let attn_factor = match rope_type.as_str() {
        "" => {
            return Err(h.error(
                "rope_parameters.rope_type",
                "a rope type for the long factors (the key is absent)",
            ))
        }
        "su" | "longrope" if scale > 1.0 => (1.0 + scale.ln() / f64::from(orig).ln()).sqrt() as f32,
        "yarn" if scale > 1.0 => (0.1 * scale.ln() + 1.0) as f32,
        "su" | "longrope" | "yarn" => 1.0,
        other => {
            return Err(h.error(
                "rope_parameters.rope_type",
                &format!("su, longrope or yarn with long factors, not '{other}'"),
            ))
        }
    };
    let Some(short) = short else {
        return Err(h.error(
            "rope_parameters.short_factor",
            "a list of numbers beside long_factor (the key is absent)",
        ));
    };
    let dims = rope_dims(h)?;
    // the script compares with rope_dims / 2 as a float: an odd count of dimensions never matches
    if long.len() != short.len() || dims % 2 != 0 || long.len() != (dims / 2) as usize {
        return Err(h.error(
            "rope_parameters.long_factor",
            &format!(
                "long and short factors of {} values each (half the {dims} rotary dimensions); they have {} and {}",
                f64::from(dims) / 2.0,
                long.len(),
                short.len()
            ),
        ));
    }
    Ok(Some(LongRope {
        attn_factor,
        long,
        short,
    }))
}

impl Architecture for Phi3 {
    fn classes(&self) -> &'static [&'static str] {
        &["Phi3ForCausalLM"]
    }

    fn gguf_arch(&self) -> &'static str {
        "phi3"
    }

    fn parameters(
        &self,
        h: &Hparams,
        file_type: u32,
        kv: &mut KvList,
    ) -> Result<(), CheckpointError> {
        let k = |s: &str| format!("phi3.{s}");
        let n_embd = need_u32(h, &["hidden_size", "n_embd"])?;
        let n_head = need_u32(h, &["num_attention_heads", "n_head"])?;
        let n_head_kv = need_u32(h, &["num_key_value_heads", "n_head_kv"])?;
        let rms_eps = h
            .find_f32(&["rms_norm_eps"])?
            .ok_or_else(|| h.error("rms_norm_eps", "a number (the key is absent)"))?;
        let max_pos = need_u32(h, &["n_positions", "max_position_embeddings"])?;
        let orig = original_context(h)?;
        let dims = rope_dims(h)?;
        let theta = h
            .rope_f32(h.rope_full(), "rope_theta")?
            .ok_or_else(|| h.error("rope_parameters.rope_theta", "a number (the key is absent)"))?;
        kv.set(k("context_length"), OwnedValue::U32(max_pos));
        kv.set(
            k("rope.scaling.original_context_length"),
            OwnedValue::U32(orig),
        );
        kv.set(k("embedding_length"), OwnedValue::U32(n_embd));
        kv.set(
            k("feed_forward_length"),
            OwnedValue::U32(need_u32(h, &["intermediate_size"])?),
        );
        kv.set(k("block_count"), OwnedValue::U32(block_count(h)?));
        kv.set(k("attention.head_count"), OwnedValue::U32(n_head));
        kv.set(k("attention.head_count_kv"), OwnedValue::U32(n_head_kv));
        kv.set(
            k("attention.layer_norm_rms_epsilon"),
            OwnedValue::F32(rms_eps),
        );
        kv.set(k("rope.dimension_count"), OwnedValue::U32(dims));
        kv.set(k("rope.freq_base"), OwnedValue::F32(theta));
        kv.set("general.file_type".into(), OwnedValue::U32(file_type));
        // 0 when absent or null: what tells Phi-4 from the other Phi-3 models
        let window = h.find_u32(&["sliding_window"])?.unwrap_or(0);
        kv.set(k("attention.sliding_window"), OwnedValue::U32(window));
        Ok(())
    }

    fn tensor_parameters(&self, h: &Hparams, kv: &mut KvList) -> Result<(), CheckpointError> {
        if let Some(l) = long_rope(h)? {
            kv.set(
                "phi3.rope.scaling.attn_factor".into(),
                OwnedValue::F32(l.attn_factor),
            );
        }
        Ok(())
    }

    fn tensors(&self, h: &Hparams, folder: &HfFolder) -> Result<Vec<TensorOut>, CheckpointError> {
        let mut out = Vec::new();
        if let Some(l) = long_rope(h)? {
            for (name, values) in [
                ("rope_factors_long", l.long),
                ("rope_factors_short", l.short),
            ] {
                out.push(TensorOut {
                    name: format!("{name}.weight"),
                    shape: vec![values.len() as u64],
                    source: TensorSource::Values(values),
                    transforms: vec![],
                    role: TensorRole::default(),
                });
            }
        }
        out.extend(plain_tensors(h, folder, NAMES)?);
        Ok(out)
    }

    fn vocab(
        &self,
        dir: &std::path::Path,
        vocab_size: Option<usize>,
    ) -> crate::Result<Vec<crate::convert::Kv>> {
        Ok(crate::convert::vocab::phi3_vocab(dir, vocab_size)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hparams(config: serde_json::Value) -> Hparams {
        let serde_json::Value::Object(map) = config else {
            unreachable!()
        };
        Hparams::new("config.json".into(), map)
    }

    fn phi3_config(rope: serde_json::Value) -> serde_json::Value {
        serde_json::json!({
            "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2,
            "intermediate_size": 128, "num_hidden_layers": 2, "rms_norm_eps": 1e-5,
            "max_position_embeddings": 256, "original_max_position_embeddings": 64,
            "rope_theta": 10000.0, "rope_scaling": rope,
        })
    }

    #[test]
    fn longrope_attention_factor_and_factor_lengths() {
        let h = hparams(phi3_config(serde_json::json!({
            "rope_type": "longrope", "long_factor": [1, 2, 3, 4, 5, 6, 7, 8],
            "short_factor": [1, 1, 1, 1, 1, 1, 1, 1],
        })));
        let l = long_rope(&h).unwrap().unwrap();
        let expected = (1.0 + 4f64.ln() / 64f64.ln()).sqrt() as f32;
        assert_eq!(l.attn_factor, expected);
        assert_eq!(l.long.len(), 8);
        let bad = hparams(phi3_config(serde_json::json!({
            "rope_type": "longrope", "long_factor": [1, 2, 3], "short_factor": [1, 1, 1],
        })));
        let e = long_rope(&bad).err().unwrap().to_string();
        assert!(e.contains("long_factor") && e.contains("16 rotary"), "{e}");
        let untyped = hparams(phi3_config(serde_json::json!({
            "long_factor": [1, 2, 3, 4, 5, 6, 7, 8], "short_factor": [1, 1, 1, 1, 1, 1, 1, 1],
        })));
        assert!(long_rope(&untyped).is_err());
    }

    #[test]
    fn no_long_factors_no_rope_tensors() {
        let h = hparams(phi3_config(serde_json::Value::Null));
        assert!(long_rope(&h).unwrap().is_none());
        let mut kv = KvList::default();
        Phi3.parameters(&h, 1, &mut kv).unwrap();
        assert_eq!(
            kv.get("phi3.attention.sliding_window"),
            Some(&OwnedValue::U32(0))
        );
        assert_eq!(
            kv.get("phi3.rope.dimension_count"),
            Some(&OwnedValue::U32(16))
        );
    }
}
