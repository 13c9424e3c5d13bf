//! The hyperparameters as llama.cpp's loader reads them: each key with the type `get_key`
//! insists on (a missing required key or a wrong type is a refusal), per-layer arrays as
//! `get_key_or_arr` takes them, and the derived sizes (`n_embd_head_k`, `n_ff_exp`...) the
//! tensor shapes are computed from.
#![forbid(unsafe_code)]

use super::table::{Arch, Dim, FfExp, FfShexp, Hybrid, KeyRule, KeyType};
use crate::{Gguf, Value, ValueType};

/// gemma3n's `n_altup` and `n_embd_altup`, which llama.cpp fixes rather than reads
/// (`src/llama-hparams.h`).
const GEMMA3N_ALTUP: u64 = 4;
const GEMMA3N_EMBD_ALTUP: u64 = 256;

/// What is wrong with a key, for a finding.
pub(super) enum KeyProblem {
    Missing,
    WrongType(String),
}

/// The hyperparameters the tensor shapes are computed from (layer 0's where the file has one
/// per layer, as `LLAMA_LOAD_LOCALS` takes them).
#[derive(Debug, Default)]
pub(super) struct Hparams {
    /// `block_count`: every block, the multi-token prediction ones included (`n_layer_all`).
    pub n_layer: u64,
    /// `nextn_predict_layers`: how many of the last blocks are multi-token prediction blocks.
    pub n_nextn: u64,
    pub n_embd: u64,
    pub n_vocab: u64,
    pub n_head: u64,
    pub n_head_kv: u64,
    pub n_ff: u64,
    pub n_ff_exp: u64,
    pub n_ff_shexp: u64,
    pub n_expert: u64,
    pub n_expert_used: u64,
    pub head_k: u64,
    pub head_v: u64,
    pub n_rot: u64,
    /// deepseek2's compressed query and key-value ranks.
    pub n_lora_q: u64,
    pub n_lora_kv: u64,
    /// Multi-head latent attention's key and value lengths (`key_length_mla`,
    /// `value_length_mla` when the file has both, else `head_k` and `head_v`).
    pub is_mla: bool,
    pub k_mla: u64,
    pub v_mla: u64,
    pub n_expert_shared: u64,
    pub n_dense_lead: u64,
    /// `interleave_moe_layer_step`: every how many layers one has experts (llama4).
    pub n_moe_step: u64,
    /// A hybrid model's linear-attention (recurrent) layers, one flag per block.
    pub recurrent: Vec<bool>,
    /// `attention.head_count_kv` when the file gives one per layer (empty otherwise: every
    /// layer has [`Hparams::n_head_kv`]).
    pub head_kv_layers: Vec<u64>,
    /// `full_attention_interval` where the file gives it and has no `attention.recurrent_layers`.
    pub attn_interval: Option<u64>,
    /// Linear attention's sizes: `ssm.conv_kernel`, `ssm.state_size`, `ssm.time_step_rank`,
    /// `ssm.group_count`.
    pub ssm_conv: u64,
    /// `ssm.inner_size`.
    pub ssm_inner: u64,
    /// lfm2's `shortconv.l_cache`.
    pub shortconv_cache: u64,
    pub ssm_state: u64,
    pub ssm_dt_rank: u64,
    pub ssm_group: u64,
    /// `rope.scaling.type` is `longrope`.
    pub longrope: bool,
}

/// A key's value as the loader reads it: `Ok(None)` when absent.
fn read_key(
    g: &Gguf<'_>,
    key: &str,
    rule: &KeyRule,
    n_layer: u64,
    lite: bool,
) -> Result<Option<u64>, KeyProblem> {
    let Some(kv) = g.get_kv(key) else {
        return if rule.required && !(rule.unless_lite && lite) {
            Err(KeyProblem::Missing)
        } else {
            Ok(None)
        };
    };
    let found = kv.value_type();
    let wrong = || {
        KeyProblem::WrongType(format!(
            "{key} is {}, llama.cpp's loader reads it as {}",
            describe(&kv.value),
            rule.ty.name()
        ))
    };
    match rule.ty {
        KeyType::U32 => match kv.value {
            Value::U32(v) => Ok(Some(u64::from(v))),
            _ => Err(wrong()),
        },
        KeyType::F32 if found == ValueType::F32 => Ok(Some(0)),
        KeyType::Bool if found == ValueType::Bool => Ok(Some(0)),
        KeyType::F32PerLayer => match kv.value {
            Value::F32(_) => Ok(Some(0)),
            Value::Array(a) if a.element_type() == ValueType::F32 && a.len() == n_layer => {
                Ok(Some(0))
            }
            Value::Array(a) if a.element_type() == ValueType::F32 => {
                Err(KeyProblem::WrongType(format!(
                    "key {key} has wrong array length; expected {n_layer}, got {}",
                    a.len()
                )))
            }
            _ => Err(wrong()),
        },
        KeyType::Sections => match kv.value {
            Value::I32(_) => Ok(Some(0)),
            Value::Array(a)
                if matches!(
                    a.element_type(),
                    ValueType::I32 | ValueType::U32 | ValueType::Bool
                ) =>
            {
                if a.len() == 4 {
                    Ok(Some(0))
                } else {
                    Err(KeyProblem::WrongType(format!(
                        "key {key} has wrong array length; expected 4, got {}",
                        a.len()
                    )))
                }
            }
            _ => Err(wrong()),
        },
        KeyType::Str if found == ValueType::String => Ok(Some(0)),
        KeyType::U32PerLayer => match kv.value {
            Value::U32(v) => Ok(Some(u64::from(v))),
            Value::Array(a)
                if matches!(a.element_type(), ValueType::U32 | ValueType::I32)
                    && (n_layer == 0 || a.len() == n_layer) =>
            {
                Ok(Some(a.get(0).and_then(|v| v.as_u64()).unwrap_or(0)))
            }
            Value::Array(a) if matches!(a.element_type(), ValueType::U32 | ValueType::I32) => {
                Err(KeyProblem::WrongType(format!(
                    "{key} has {} entries, llama.cpp's loader wants one per layer ({n_layer})",
                    a.len()
                )))
            }
            _ => Err(wrong()),
        },
        _ => Err(wrong()),
    }
}

/// A value's type as a message says it.
fn describe(v: &Value<'_>) -> String {
    match v {
        Value::Array(a) => format!("an array of {}", a.element_type().name()),
        v => v.value_type().name().to_string(),
    }
}

/// The hyperparameters of `arch`, reading every key of `keys` (the common ones, then the
/// architecture's); each problem goes to `problem` with its key.
pub(super) fn read(
    g: &Gguf<'_>,
    arch: &Arch,
    keys: impl Iterator<Item = &'static KeyRule>,
    n_vocab: u64,
    mut problem: impl FnMut(String, KeyProblem),
) -> Hparams {
    let mut values: Vec<(&'static str, u64)> = Vec::new();
    let n_layer = g
        .get(&format!("{}.block_count", arch.name))
        .and_then(|v| match v {
            Value::U32(n) => Some(u64::from(n)),
            _ => None,
        })
        .unwrap_or(0);
    // deepseek2's "lite" models, as its loader recognises them
    let lite = n_layer == 26 || n_layer == 27 || (n_layer == 48 && n_vocab == 128256);
    for rule in keys {
        let key = rule.key(arch.name);
        match read_key(g, &key, rule, n_layer, lite) {
            Ok(Some(v)) => values.push((rule.suffix, v)),
            Ok(None) => {}
            Err(p) => problem(key, p),
        }
    }
    let get = |suffix: &str| values.iter().find(|(s, _)| *s == suffix).map(|&(_, v)| v);
    let n_embd = get("embedding_length").unwrap_or(0);
    let n_head = get("attention.head_count").unwrap_or(0);
    let n_head_kv = get("attention.head_count_kv").unwrap_or(n_head);
    let per_head = n_embd.checked_div(n_head).unwrap_or(0);
    let (head_k, head_v, n_rot) = if n_head > 0 {
        let k = get("attention.key_length").unwrap_or(per_head);
        (
            k,
            get("attention.value_length").unwrap_or(per_head),
            get("rope.dimension_count").unwrap_or(k),
        )
    } else {
        (0, 0, 0)
    };
    let n_ff = get("feed_forward_length").unwrap_or(0);
    // hunyuan-dense and hunyuan_vl: one expert or none is no experts (`load_hparams`)
    let n_expert = get("expert_count").unwrap_or(0);
    let no_experts = arch.one_expert_is_none && n_expert <= 1;
    let (n_expert, n_expert_used) = if no_experts {
        (0, 0)
    } else {
        (n_expert, get("expert_used_count").unwrap_or(0))
    };
    let key_ff_exp = get("expert_feed_forward_length").unwrap_or(0);
    let n_ff_exp = match arch.ff_exp {
        FfExp::Ff => n_ff,
        FfExp::Key => key_ff_exp,
        FfExp::KeyOrFfPerUsed if key_ff_exp > 0 => key_ff_exp,
        FfExp::KeyOrFfPerUsed => n_ff.checked_div(n_expert_used).unwrap_or(0),
    };
    let key_shexp = get("expert_shared_feed_forward_length").unwrap_or(0);
    let n_ff_shexp = match arch.ff_shexp {
        FfShexp::KeyOrFf if key_shexp == 0 => n_ff,
        FfShexp::KeyOrFfExp if key_shexp == 0 => n_ff_exp,
        _ => key_shexp,
    };
    let (key_mla, value_mla) = (
        get("attention.key_length_mla").unwrap_or(0),
        get("attention.value_length_mla").unwrap_or(0),
    );
    let is_mla = key_mla != 0 && value_mla != 0;
    let n_nextn = get("nextn_predict_layers").unwrap_or(0);
    let head_kv_layers = per_layer(
        g,
        &format!("{}.attention.head_count_kv", arch.name),
        n_layer,
    );
    let interval = get("full_attention_interval").unwrap_or(4);
    let recurrent_key = g
        .get_kv(&format!("{}.attention.recurrent_layers", arch.name))
        .is_some();
    let longrope = g
        .get(&format!("{}.rope.scaling.type", arch.name))
        .and_then(|v| v.as_str().map(|s| s == "longrope"))
        .unwrap_or(false);
    Hparams {
        longrope,
        n_lora_q: get("attention.q_lora_rank").unwrap_or(0),
        n_lora_kv: get("attention.kv_lora_rank").unwrap_or(0),
        is_mla,
        k_mla: if is_mla { key_mla } else { head_k },
        v_mla: if is_mla { value_mla } else { head_v },
        n_expert_shared: get("expert_shared_count").unwrap_or(0),
        n_dense_lead: get("leading_dense_block_count").unwrap_or(0),
        n_moe_step: get("interleave_moe_layer_step").unwrap_or(0),
        recurrent: match arch.hybrid {
            Hybrid::Interval => {
                recurrent_layers(g, arch, n_layer, n_layer.saturating_sub(n_nextn), interval)
            }
            // each block's own head count, or the one for all (a scalar 0: every block)
            Hybrid::NoKvHeads => (0..usize::try_from(n_layer.min(super::MAX_LAYERS)).unwrap_or(0))
                .map(|i| head_kv_layers.get(i).copied().unwrap_or(n_head_kv) == 0)
                .collect(),
            Hybrid::None => Vec::new(),
        },
        head_kv_layers,
        attn_interval: get("full_attention_interval").filter(|_| !recurrent_key),
        shortconv_cache: get("shortconv.l_cache").unwrap_or(0),
        ssm_inner: get("ssm.inner_size").unwrap_or(0),
        ssm_conv: get("ssm.conv_kernel").unwrap_or(0),
        ssm_state: get("ssm.state_size").unwrap_or(0),
        ssm_dt_rank: get("ssm.time_step_rank").unwrap_or(0),
        ssm_group: get("ssm.group_count").unwrap_or(0),
        n_nextn,
        n_layer,
        n_embd,
        n_vocab,
        n_head,
        n_head_kv,
        n_ff,
        n_ff_exp,
        n_ff_shexp,
        n_expert,
        n_expert_used,
        head_k,
        head_v,
        n_rot,
    }
}

/// A per-layer key's values when it is an array of `n_layer` integers (empty otherwise).
fn per_layer(g: &Gguf<'_>, key: &str, n_layer: u64) -> Vec<u64> {
    match g.get(key) {
        Some(Value::Array(a)) if a.len() == n_layer && n_layer <= super::MAX_LAYERS => (0..a.len())
            .map(|i| a.get(i).and_then(|v| v.as_u64()).unwrap_or(0))
            .collect(),
        _ => Vec::new(),
    }
}

/// Which of the blocks are linear attention: `attention.recurrent_layers` (one flag per block,
/// or one for all), else every block of the trunk but each `full_attention_interval`-th
/// (`(il + 1) % interval != 0`; none when the interval is 0, which the audit reports).
fn recurrent_layers(
    g: &Gguf<'_>,
    arch: &Arch,
    n_layer: u64,
    trunk: u64,
    interval: u64,
) -> Vec<bool> {
    let n = usize::try_from(n_layer.min(super::MAX_LAYERS)).unwrap_or(0);
    let truthy = |v: Value<'_>| {
        v.as_bool()
            .or_else(|| v.as_u64().map(|x| x != 0))
            .unwrap_or(false)
    };
    match g.get(&format!("{}.attention.recurrent_layers", arch.name)) {
        Some(Value::Array(a)) => (0..n)
            .map(|i| a.get(i as u64).is_some_and(truthy))
            .collect(),
        Some(v) => vec![truthy(v); n],
        None => (0..n as u64)
            .map(|il| il < trunk && interval > 0 && (il + 1) % interval != 0)
            .collect(),
    }
}

impl Hparams {
    /// Whether block `il` is a linear-attention (recurrent) layer.
    pub fn is_recurrent(&self, il: u64) -> bool {
        usize::try_from(il)
            .ok()
            .and_then(|i| self.recurrent.get(i))
            .copied()
            .unwrap_or(false)
    }

    /// The blocks before the multi-token prediction ones (`n_layer()`).
    pub fn trunk(&self) -> u64 {
        self.n_layer.saturating_sub(self.n_nextn)
    }

    /// A dimension's value in layer `layer` (with the layer's own `head_count_kv` where the file
    /// gives one per layer, else [`Hparams::n_head_kv`]).
    pub fn dim_in(&self, d: Dim, layer: Option<u64>) -> u64 {
        let kv = layer
            .and_then(|il| usize::try_from(il).ok())
            .and_then(|i| self.head_kv_layers.get(i).copied())
            .unwrap_or(self.n_head_kv);
        let m = |a: u64, b: u64| a.saturating_mul(b);
        match d {
            Dim::Embd => self.n_embd,
            Dim::Embd2 => m(2, self.n_embd),
            Dim::Vocab => self.n_vocab,
            Dim::Ff => self.n_ff,
            Dim::Ff2 => m(2, self.n_ff),
            Dim::Expert => self.n_expert,
            Dim::FfExp => self.n_ff_exp,
            Dim::FfShexp => self.n_ff_shexp,
            Dim::HeadKTimesHeads => m(self.head_k, self.n_head),
            Dim::KGqa => m(self.head_k, kv),
            Dim::VGqa => m(self.head_v, kv),
            Dim::HeadK => self.head_k,
            Dim::Head => self.n_head,
            Dim::HeadTimesRot => m(self.n_head, self.n_rot),
            Dim::HeadKvTimesRot => m(kv, self.n_rot),
            Dim::HeadKvTimesEmbdPerHead => m(kv, self.n_embd.checked_div(self.n_head).unwrap_or(0)),
            Dim::RotHalf => self.n_rot / 2,
            Dim::One => 1,
            Dim::QLora => self.n_lora_q,
            Dim::KvLora => self.n_lora_kv,
            Dim::KvLoraPlusRot => self.n_lora_kv.saturating_add(self.n_rot),
            Dim::HeadTimesKMla => m(self.n_head, self.k_mla),
            Dim::QkNope => self.qk_nope(),
            Dim::VMla => self.v_mla,
            Dim::HeadTimesNopePlusVMla => m(self.n_head, self.qk_nope().saturating_add(self.v_mla)),
            Dim::HeadTimesVMla => m(self.n_head, self.v_mla),
            Dim::FfExp2 => m(2, self.n_ff_exp),
            Dim::HeadKTimesHeads2 => m(2, m(self.head_k, self.n_head)),
            Dim::EmbdPerHeadHalf => self.n_embd.checked_div(self.n_head).unwrap_or(0) / 2,
            Dim::SsmInner => self.ssm_inner,
            Dim::SsmInner2 => m(2, self.ssm_inner),
            Dim::SsmDtPlus2State => self.ssm_dt_rank.saturating_add(m(2, self.ssm_state)),
            Dim::SsmInnerPerGroup => self.ssm_inner.checked_div(self.ssm_group).unwrap_or(0),
            Dim::SsmGroup => self.ssm_group,
            Dim::Mamba2InProj => m(2, self.ssm_inner)
                .saturating_add(m(2, m(self.ssm_group, self.ssm_state)))
                .saturating_add(self.ssm_dt_rank),
            Dim::Mamba2Conv => self
                .ssm_inner
                .saturating_add(m(2, m(self.ssm_group, self.ssm_state))),
            Dim::Embd3 => m(3, self.n_embd),
            Dim::ShortconvCache => self.shortconv_cache,
            Dim::Altup => GEMMA3N_ALTUP,
            Dim::AltupMinus1 => GEMMA3N_ALTUP - 1,
            Dim::AltupSq => GEMMA3N_ALTUP * GEMMA3N_ALTUP,
            Dim::LaurelRank => 64,
            Dim::EmbdAltup => GEMMA3N_EMBD_ALTUP,
            Dim::EmbdAltupTimesLayers => m(GEMMA3N_EMBD_ALTUP, self.trunk()),
            Dim::SsmConv => self.ssm_conv,
            Dim::SsmState => self.ssm_state,
            Dim::SsmDtRank => self.ssm_dt_rank,
            Dim::SsmDtRank2 => m(2, self.ssm_dt_rank),
            Dim::SsmValue => self.ssm_value(),
            Dim::SsmConvDim => m(2, self.ssm_key()).saturating_add(self.ssm_value()),
            Dim::SsmQkvz => m(2, self.ssm_key()).saturating_add(m(2, self.ssm_value())),
            Dim::FfExpTimesShared => m(self.n_ff_exp, self.n_expert_shared),
        }
    }

    /// Linear attention's `key_dim` and `value_dim`.
    fn ssm_key(&self) -> u64 {
        self.ssm_state.saturating_mul(self.ssm_group)
    }

    fn ssm_value(&self) -> u64 {
        self.ssm_state.saturating_mul(self.ssm_dt_rank)
    }

    /// `n_embd_head_qk_nope`: the key length without its rope part (0 when rope takes it all,
    /// which the loader asserts against).
    pub fn qk_nope(&self) -> u64 {
        self.k_mla.saturating_sub(self.n_rot)
    }
}
