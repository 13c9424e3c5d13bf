//! The few hyperparameters of a model that llama-quantize's rules look at.
#![forbid(unsafe_code)]

use crate::read::Gguf;

/// What the per-tensor rules need to know about the model: its architecture, layer count,
/// grouped-query attention ratio and expert count.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModelInfo {
    /// `general.architecture` (`llama`, `gemma3`, `falcon`...).
    pub arch: String,
    /// `{arch}.block_count`.
    pub n_layer: u32,
    /// `{arch}.attention.head_count` (the first layer's when per layer).
    pub n_head: u32,
    /// `{arch}.attention.head_count_kv` (the first layer's; `n_head` when absent).
    pub n_head_kv: u32,
    /// `{arch}.expert_count` (0 when absent).
    pub n_expert: u32,
}

impl ModelInfo {
    /// The hyperparameters as `g`'s metadata gives them.
    pub fn of(g: &Gguf<'_>) -> ModelInfo {
        let arch = g.architecture().unwrap_or_default().to_string();
        let n_head = g.head_count().map_or(0, clamp_u32);
        ModelInfo {
            n_layer: g.block_count().map_or(0, clamp_u32),
            n_head,
            n_head_kv: g.head_count_kv().map_or(n_head, clamp_u32),
            n_expert: g.arch_u64("expert_count").map_or(0, clamp_u32),
            arch,
        }
    }

    /// Applies `--override-kv` integers to the hyperparameters, as llama.cpp's loader sees the
    /// overridden values when the rules run.
    pub fn apply_overrides(&mut self, overrides: &[super::overrides::KvOverride]) {
        for o in overrides {
            let crate::write::OwnedValue::U32(v) = o.value else {
                continue;
            };
            let Some(suffix) = o
                .key
                .strip_prefix(self.arch.as_str())
                .and_then(|k| k.strip_prefix('.'))
            else {
                continue;
            };
            match suffix {
                "block_count" => self.n_layer = v,
                "attention.head_count" => self.n_head = v,
                "attention.head_count_kv" => self.n_head_kv = v,
                "expert_count" => self.n_expert = v,
                _ => {}
            }
        }
    }

    /// Query heads per key-value head (`n_gqa`), 0 without key-value heads.
    pub fn n_gqa(&self) -> u32 {
        self.n_head.checked_div(self.n_head_kv).unwrap_or(0)
    }

    /// Whether llama.cpp sees a 70B Llama (80 layers, grouped-query attention), whose attn_v
    /// gets more bits.
    pub fn is_llama_70b(&self) -> bool {
        self.arch == "llama" && self.n_layer == 80 && self.n_head != self.n_head_kv
    }

    /// Falcon, which several rules treat apart.
    pub fn is_falcon(&self) -> bool {
        self.arch == "falcon"
    }
}

fn clamp_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quantize::KvOverride;

    #[test]
    fn overrides_change_the_hyperparameters() {
        let mut m = ModelInfo {
            arch: "llama".into(),
            n_layer: 32,
            n_head: 32,
            n_head_kv: 32,
            n_expert: 0,
        };
        assert_eq!(m.n_gqa(), 1);
        let o: Vec<KvOverride> = [
            "llama.attention.head_count_kv=int:8",
            "llama.expert_count=int:8",
            "other.block_count=int:2",
            "llama.block_count=str:x",
        ]
        .iter()
        .map(|s| KvOverride::parse(s).unwrap())
        .collect();
        m.apply_overrides(&o);
        assert_eq!((m.n_gqa(), m.n_expert, m.n_layer), (4, 8, 32));
        assert!(!m.is_llama_70b());
        m.n_layer = 80;
        assert!(m.is_llama_70b());
    }
}
