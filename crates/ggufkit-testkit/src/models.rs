//! Tiny models llama.cpp loads, one for every architecture of the audit's loader table
//! (`ggufkit::audit::loader::archs`), made by ggufkit's writer: small hyperparameters, a small
//! byte-level BPE vocabulary, and every tensor the loader requires for them (asked of the
//! library's [`required_tensors`], then checked against llama.cpp itself by the differential
//! test). Tests change the metadata and the tensor list to make mutants.
#![forbid(unsafe_code)]

use ggufkit::audit::loader::archs::{self, COMMON_KEYS};
use ggufkit::audit::loader::table::{Experts, KeyType};
use ggufkit::audit::loader::{optional_tensors, required_tensors};
use ggufkit::{GgmlType, Gguf, GgufBuilder, OwnedValue};

/// The small sizes every tiny model has.
pub const EMBD: u32 = 64;
pub const HEADS: u32 = 4;
pub const KV_HEADS: u32 = 2;
pub const FF: u32 = 64;
pub const BLOCKS: u32 = 2;
pub const EXPERTS: u32 = 4;
pub const EXPERTS_USED: u32 = 2;

/// The vocabulary: single bytes and a few merges' results.
pub const TOKENS: &[&str] = &[
    "a", "b", "c", "d", "e", "ab", "cd", "<s>", "</s>", "Ċ", "Ġ", "Ġa",
];

/// One tensor of a tiny model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub name: String,
    pub ty: GgmlType,
    pub shape: Vec<u64>,
}

/// The metadata of a tiny `arch` model (`moe`: with experts where the architecture may have
/// them, as Mixtral is a llama).
pub fn metadata(arch: &str, moe: bool) -> GgufBuilder<'static> {
    let mut b = GgufBuilder::new();
    let set =
        |b: &mut GgufBuilder<'static>, k: &str, v: OwnedValue| b.set(k, v).expect("a valid key");
    set(&mut b, "general.architecture", arch.into());
    // a name without "phi3" in it: llama.cpp's loader looks up phi-3's special tokens by name
    set(&mut b, "general.name", "tiny model".into());
    let a = archs::find(arch);
    let experts = a.is_some_and(|a| match a.experts {
        Experts::Required | Experts::RequiredAfterLead => true,
        Experts::Optional => moe,
        Experts::None => false,
    });
    let k = |s: &str| format!("{arch}.{s}");
    // a small state-space mixer of `inner` channels (and `groups` groups, where read)
    let ssm = |b: &mut GgufBuilder<'static>, inner: u32, groups: Option<u32>| {
        set(b, &k("ssm.conv_kernel"), 4u32.into());
        set(b, &k("ssm.inner_size"), inner.into());
        set(b, &k("ssm.state_size"), 16u32.into());
        set(b, &k("ssm.time_step_rank"), 4u32.into());
        if let Some(g) = groups {
            set(b, &k("ssm.group_count"), g.into());
        }
    };
    set(&mut b, &k("context_length"), 128u32.into());
    set(&mut b, &k("embedding_length"), EMBD.into());
    set(&mut b, &k("block_count"), BLOCKS.into());
    set(&mut b, &k("feed_forward_length"), FF.into());
    set(&mut b, &k("attention.head_count"), HEADS.into());
    set(&mut b, &k("attention.head_count_kv"), KV_HEADS.into());
    set(&mut b, &k("rope.dimension_count"), (EMBD / HEADS).into());
    if experts {
        set(&mut b, &k("expert_count"), EXPERTS.into());
        set(&mut b, &k("expert_used_count"), EXPERTS_USED.into());
    }
    if matches!(arch, "deepseek2" | "mistral4") {
        // multi-head latent attention: a key longer than its rope part, small ranks
        set(&mut b, &k("rope.dimension_count"), 8u32.into());
        set(&mut b, &k("attention.q_lora_rank"), 16u32.into());
        set(&mut b, &k("attention.kv_lora_rank"), 16u32.into());
    }
    if matches!(arch, "deepseek2" | "mistral4" | "glm4moe" | "dots1") {
        // one leading dense layer, then experts with one shared expert
        set(&mut b, &k("expert_feed_forward_length"), 32u32.into());
        set(&mut b, &k("expert_shared_count"), 1u32.into());
        set(&mut b, &k("leading_dense_block_count"), 1u32.into());
    }
    if arch == "llama4" {
        // layer 0 dense, layer 1 with experts
        set(&mut b, &k("expert_feed_forward_length"), 32u32.into());
        set(&mut b, &k("interleave_moe_layer_step"), 2u32.into());
    }
    if arch == "mamba" {
        // d_inner = 2 * n_embd, as llama.cpp requires
        ssm(&mut b, 2 * EMBD, None);
    }
    if matches!(arch, "falcon-h1" | "mamba2") {
        // a small Mamba-2 mixer
        ssm(&mut b, 64, Some(1));
    }
    if arch == "granitehybrid" {
        // layer 0 Mamba-2 (no key-value heads), layer 1 attention; d_inner = 2 * n_embd
        set(
            &mut b,
            &k("attention.head_count_kv"),
            OwnedValue::from(vec![0u32, KV_HEADS]),
        );
        ssm(&mut b, 2 * EMBD, Some(1));
    }
    if matches!(arch, "lfm2moe" | "exaone-moe") {
        // layer 0 dense, layer 1 with experts
        set(&mut b, &k("expert_feed_forward_length"), 32u32.into());
        set(&mut b, &k("leading_dense_block_count"), 1u32.into());
        set(&mut b, &k("expert_gating_func"), 2u32.into());
    }
    if matches!(arch, "lfm2" | "lfm2moe") {
        // layer 0 a short convolution (no key-value heads), layer 1 attention
        set(
            &mut b,
            &k("attention.head_count_kv"),
            OwnedValue::from(vec![0u32, KV_HEADS]),
        );
        set(&mut b, &k("shortconv.l_cache"), 3u32.into());
    }
    if arch == "ernie4_5-moe" {
        // one leading dense layer, then experts with a shared expert
        set(&mut b, &k("expert_feed_forward_length"), 32u32.into());
        set(
            &mut b,
            &k("expert_shared_feed_forward_length"),
            32u32.into(),
        );
        set(&mut b, &k("leading_dense_block_count"), 1u32.into());
        set(&mut b, &k("interleave_moe_layer_step"), 1u32.into());
    }
    if matches!(arch, "qwen3next" | "qwen35" | "qwen35moe") {
        // layer 0 linear attention, layer 1 attention; small linear-attention heads
        set(&mut b, &k("full_attention_interval"), 2u32.into());
        set(&mut b, &k("ssm.conv_kernel"), 4u32.into());
        set(&mut b, &k("ssm.state_size"), 16u32.into());
        set(&mut b, &k("ssm.time_step_rank"), 4u32.into());
        set(&mut b, &k("ssm.group_count"), 2u32.into());
        set(&mut b, &k("ssm.inner_size"), 64u32.into());
    }
    if let Some(a) = a {
        for rule in COMMON_KEYS
            .iter()
            .chain(a.key_rules())
            .filter(|r| r.required)
        {
            let key = rule.key(arch);
            if b.contains_key(&key) {
                continue;
            }
            let v: OwnedValue = match rule.ty {
                KeyType::F32 | KeyType::F32PerLayer => 1e-5f32.into(),
                KeyType::U32 | KeyType::U32PerLayer => 32u32.into(),
                KeyType::Bool => true.into(),
                KeyType::Str => "linear".into(),
                KeyType::Sections => OwnedValue::from(vec![4i32, 2, 2, 0]),
            };
            set(&mut b, &key, v);
        }
    }
    set(&mut b, "tokenizer.ggml.model", "gpt2".into());
    set(&mut b, "tokenizer.ggml.pre", "default".into());
    set(
        &mut b,
        "tokenizer.ggml.tokens",
        OwnedValue::from(TOKENS.to_vec()),
    );
    set(
        &mut b,
        "tokenizer.ggml.token_type",
        OwnedValue::from(
            TOKENS
                .iter()
                .map(|t| if t.starts_with('<') { 3i32 } else { 1 })
                .collect::<Vec<_>>(),
        ),
    );
    set(
        &mut b,
        "tokenizer.ggml.merges",
        OwnedValue::from(vec!["a b", "c d", "Ġ a"]),
    );
    set(&mut b, "tokenizer.ggml.bos_token_id", 7u32.into());
    set(&mut b, "tokenizer.ggml.eos_token_id", 8u32.into());
    b
}

/// The tensors `b`'s metadata requires, as the library's loader table computes them (`None` when
/// the table rejects the metadata or lacks the architecture).
pub fn tensors_for(b: &GgufBuilder<'_>) -> Option<Vec<Tensor>> {
    let bytes = b.to_vec().ok()?;
    let g = Gguf::from_bytes(&bytes).ok()?;
    let wanted = required_tensors(&g)?;
    Some(
        wanted
            .into_iter()
            .map(|(name, shape)| Tensor {
                name,
                ty: GgmlType::F32,
                shape,
            })
            .collect(),
    )
}

/// The tensors llama.cpp's loader takes when present, for `b`'s metadata, as the library's
/// loader table computes them (empty when the table rejects the metadata).
pub fn optional_for(b: &GgufBuilder<'_>) -> Vec<Tensor> {
    let Some(g_bytes) = b.to_vec().ok() else {
        return Vec::new();
    };
    let Ok(g) = Gguf::from_bytes(&g_bytes) else {
        return Vec::new();
    };
    optional_tensors(&g)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, shape)| Tensor {
            name,
            ty: GgmlType::F32,
            shape,
        })
        .collect()
}

/// The file: `b`'s metadata and `tensors` (zeros; a shape with a zero dimension is kept as is).
pub fn write(b: &GgufBuilder<'_>, tensors: &[Tensor]) -> ggufkit::Result<Vec<u8>> {
    let mut b = b.clone();
    b.clear_tensors();
    let sizes: Vec<usize> = tensors
        .iter()
        .map(|t| {
            let n: u64 = t.shape.iter().product();
            (n * t.ty.type_size() / t.ty.block_size()) as usize
        })
        .collect();
    let zeros = vec![0u8; sizes.iter().copied().max().unwrap_or(0)];
    for (t, &n) in tensors.iter().zip(&sizes) {
        b.add_tensor_with_data(&t.name, t.ty, &t.shape, &zeros[..n])?;
    }
    b.to_vec()
}

/// A valid tiny `arch` model.
pub fn tiny_model(arch: &str, moe: bool) -> Vec<u8> {
    let b = metadata(arch, moe);
    let tensors = tensors_for(&b).expect("the table knows the architecture");
    write(&b, &tensors).expect("the writer writes it")
}
