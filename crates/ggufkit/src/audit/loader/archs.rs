//! The architectures whose loader rules the audit knows: for each, what llama.cpp's
//! `load_arch_hparams` reads and what `load_arch_tensors` creates (`src/models/<arch>.cpp` of
//! llama.cpp's sources, the loader's order kept), written as data for the one rule in
//! [`super`]. An empty shape is one the audit does not check (it depends on keys it does not
//! read).
//!
//! An architecture's keys and each of its layers are lists of parts read in order: a run of
//! rules several architectures share (a gated feed-forward, experts, a gated delta net) is a
//! named part written once (a `const fn` of its [`Need`] where architectures create the same run
//! under different conditions), the rest an inline part. Only contiguous runs are parts, so the
//! flattened order is the loader's, which decides the missing tensor or key named first.
#![forbid(unsafe_code)]

use super::table::Dim::*;
use super::table::KeyType::{Str, F32, U32};
use super::table::Need::*;
use super::table::{
    opt, req, req_unless_lite, req_unprefixed, t, Arch, Dim, Experts, FfExp, FfShexp, Hybrid,
    KeyRule, KeyType, Mtp, Need, Qkv, TensorRule,
};

/// The keys `llama_model_base::load_hparams` reads for every architecture.
pub const COMMON_KEYS: &[KeyRule] = &[
    req("context_length", U32),
    req("embedding_length", U32),
    req("block_count", U32),
    opt("expert_count", U32),
    opt("expert_used_count", KeyType::U32PerLayer),
    opt("feed_forward_length", KeyType::U32PerLayer),
    opt("attention.head_count", KeyType::U32PerLayer),
    opt("attention.head_count_kv", KeyType::U32PerLayer),
    opt("rope.freq_base", F32),
    opt("rope.scaling.type", Str),
    opt("attention.key_length", U32),
    opt("attention.value_length", U32),
    opt("rope.dimension_count", U32),
    // the last nextn_predict_layers blocks are multi-token prediction blocks (`n_layer_nextn`)
    opt("nextn_predict_layers", U32),
];

const RMS: KeyRule = req("attention.layer_norm_rms_epsilon", F32);
const NORM_EPS: KeyRule = req("attention.layer_norm_epsilon", F32);

/// The state-space sizes a Mamba-2 mixer or a gated delta net is built from (qwen3next, qwen35,
/// qwen35moe, granitehybrid, falcon-h1, mamba2).
const SSM_KEYS: &[KeyRule] = &[
    req("ssm.conv_kernel", U32),
    req("ssm.inner_size", U32),
    req("ssm.state_size", U32),
    req("ssm.time_step_rank", U32),
    req("ssm.group_count", U32),
];

/// How the experts' weights are scaled, normalized and gated (dots1, glm4moe, deepseek2).
const EXPERT_WEIGHTING_KEYS: &[KeyRule] = &[
    opt("expert_weights_scale", F32),
    opt("expert_weights_norm", KeyType::Bool),
    opt("expert_gating_func", U32),
];

/// granite's and granitemoe's keys: its scales, and the shared expert's width.
const GRANITE_KEYS: &[KeyRule] = &[
    RMS,
    req("logit_scale", F32),
    opt("residual_scale", F32),
    opt("embedding_scale", F32),
    opt("attention.scale", F32),
    opt("expert_shared_feed_forward_length", U32),
];

/// llama's and granite's outside the layers: `output` falls back to `token_embd` (tied); the
/// rope factors, long and short for `longrope` scaling, else `rope_freqs` (each layer takes the
/// one global tensor).
const TIED: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("rope_freqs.weight", &[RotHalf], NotLongRopeOptional),
    t("rope_factors_long.weight", &[RotHalf], LongRopeOptional),
    t("rope_factors_short.weight", &[RotHalf], LongRopeOptional),
];

/// phi3's: the long and short rope factors whatever the scaling, never `rope_freqs`.
const PHI3_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("rope_factors_long.weight", &[RotHalf], Optional),
    t("rope_factors_short.weight", &[RotHalf], Optional),
];

/// `output` always duplicated from `token_embd` (gemma, gemma2, command-r, cohere2).
const EMBD_ONLY: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
];

/// `output` required (qwen2moe, olmo2, gpt-oss).
const UNTIED: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
];

const GQA: Qkv = Qkv {
    q: HeadKTimesHeads,
    k: KGqa,
    v: VGqa,
    optional: false,
};

/// `create_tensor_qkv(layer, i, n_embd, n_embd, n_embd_gqa, n_embd_gqa, ...)`.
const EMBD_GQA: Qkv = Qkv {
    q: Embd,
    k: VGqa,
    v: VGqa,
    optional: false,
};

// The parts the layers are made of, each written once; a layer lists its parts in the
// loader's order.

/// The attention norm, then the output projection of `n_embd_head_k * n_head` rows.
const ATTN_NORM_AND_OUTPUT: &[TensorRule] = &[
    t("blk.{}.attn_norm.weight", &[Embd], Always),
    t(
        "blk.{}.attn_output.weight",
        &[HeadKTimesHeads, Embd],
        Always,
    ),
];

/// The output projection of `n_embd_head_k * n_head` rows, then the attention norm (the order
/// of exaone-moe's, minimax-m2's and seed_oss's loaders).
const ATTN_OUTPUT_AND_NORM: &[TensorRule] = &[
    t(
        "blk.{}.attn_output.weight",
        &[HeadKTimesHeads, Embd],
        Always,
    ),
    t("blk.{}.attn_norm.weight", &[Embd], Always),
];

/// A layer norm with its bias, then the output projection of `[n_embd, n_embd]` with its bias.
const BIASED_ATTN_NORM_AND_OUTPUT: &[TensorRule] = &[
    t("blk.{}.attn_norm.weight", &[Embd], Always),
    t("blk.{}.attn_norm.bias", &[Embd], Always),
    t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
    t("blk.{}.attn_output.bias", &[Embd], Always),
];

/// The key and query norms of `n_embd_head_k` (qwen3's order: the key's first).
const QK_NORMS: &[TensorRule] = &[
    t("blk.{}.attn_k_norm.weight", &[HeadK], Always),
    t("blk.{}.attn_q_norm.weight", &[HeadK], Always),
];

/// A gated feed-forward where `need` says: gate, down and up projections of `n_ff`, in that
/// order.
const fn gated_ffn(need: Need) -> [TensorRule; 3] {
    [
        t("blk.{}.ffn_gate.weight", &[Embd, Ff], need),
        t("blk.{}.ffn_down.weight", &[Ff, Embd], need),
        t("blk.{}.ffn_up.weight", &[Embd, Ff], need),
    ]
}

/// The experts' gate, down and up projections of `n_ff_exp`, in that order: the gate where
/// `gate` says, the others where `need` says.
const fn experts(gate: Need, need: Need) -> [TensorRule; 3] {
    [
        t("blk.{}.ffn_gate_exps.weight", &[Embd, FfExp, Expert], gate),
        t("blk.{}.ffn_down_exps.weight", &[FfExp, Embd, Expert], need),
        t("blk.{}.ffn_up_exps.weight", &[Embd, FfExp, Expert], need),
    ]
}

/// A shared expert `width` wide where `need` says: gate, down and up projections, in that
/// order.
const fn shared_expert(width: Dim, need: Need) -> [TensorRule; 3] {
    // the shapes are 'static: one pair per width a shared expert has
    let (gate_up, down): (&[Dim], &[Dim]) = match width {
        FfShexp => (&[Embd, FfShexp], &[FfShexp, Embd]),
        FfExp => (&[Embd, FfExp], &[FfExp, Embd]),
        FfExpTimesShared => (&[Embd, FfExpTimesShared], &[FfExpTimesShared, Embd]),
        _ => panic!("not a shared expert's width"),
    };
    [
        t("blk.{}.ffn_gate_shexp.weight", gate_up, need),
        t("blk.{}.ffn_down_shexp.weight", down, need),
        t("blk.{}.ffn_up_shexp.weight", gate_up, need),
    ]
}

/// A gated feed-forward in every layer.
const GATED_FFN: &[TensorRule] = &gated_ffn(Always);

/// A gated feed-forward created gate, up, down (gemma's, olmo2's, seed_oss's order).
const GATE_UP_DOWN_FFN: &[TensorRule] = &[
    t("blk.{}.ffn_gate.weight", &[Embd, Ff], Always),
    t("blk.{}.ffn_up.weight", &[Embd, Ff], Always),
    t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
];

/// llama's and granite's gated feed-forward where the model has no experts, its biases optional.
const DENSE_FFN: &[TensorRule] = &[
    t("blk.{}.ffn_gate.weight", &[Embd, Ff], Dense),
    t("blk.{}.ffn_down.weight", &[Ff, Embd], Dense),
    t("blk.{}.ffn_up.weight", &[Embd, Ff], Dense),
    t("blk.{}.ffn_gate.bias", &[Ff], DenseOptional),
    t("blk.{}.ffn_down.bias", &[Embd], DenseOptional),
    t("blk.{}.ffn_up.bias", &[Ff], DenseOptional),
];

/// The gated feed-forward of the leading dense layers (`layer < leading_dense_block_count`).
const LEAD_DENSE_FFN: &[TensorRule] = &gated_ffn(LeadDense);

/// Experts in every layer: the router, then the gate, down and up projections of `n_ff_exp`.
const EXPERTS: &[TensorRule] = &[
    t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], Always),
    t(
        "blk.{}.ffn_gate_exps.weight",
        &[Embd, FfExp, Expert],
        Always,
    ),
    t(
        "blk.{}.ffn_down_exps.weight",
        &[FfExp, Embd, Expert],
        Always,
    ),
    t("blk.{}.ffn_up_exps.weight", &[Embd, FfExp, Expert], Always),
];

/// Experts in every layer, each as wide as `n_ff` (the router, then gate, down, up).
const EXPERTS_OF_FF: &[TensorRule] = &[
    t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], Always),
    t("blk.{}.ffn_gate_exps.weight", &[Embd, Ff, Expert], Always),
    t("blk.{}.ffn_down_exps.weight", &[Ff, Embd, Expert], Always),
    t("blk.{}.ffn_up_exps.weight", &[Embd, Ff, Expert], Always),
];

/// The shared expert of `n_ff_shexp` where the model has experts and the key says its width.
const SHEXP: &[TensorRule] = &[
    t("blk.{}.ffn_gate_shexp.weight", &[Embd, FfShexp], MoeShexp),
    t("blk.{}.ffn_up_shexp.weight", &[Embd, FfShexp], MoeShexp),
    t("blk.{}.ffn_down_shexp.weight", &[FfShexp, Embd], MoeShexp),
];

/// The experts in the layers after the leading dense ones.
const EXPERTS_AFTER_LEAD: &[TensorRule] = &experts(AfterLead, AfterLead);

/// deepseek2's and dots1's shared experts (`n_ff_exp * n_expert_shared` wide) after the leading
/// dense layers.
const SHARED_EXPERTS_AFTER_LEAD: &[TensorRule] = &shared_expert(FfExpTimesShared, AfterLead);

/// qwen3next's and qwen35moe's router and experts' down projection, before their gate and up
/// projections ([`GATE_UP_EXPS_FUSABLE`]).
const ROUTER_AND_DOWN_EXPS: &[TensorRule] = &[
    t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], Always),
    t(
        "blk.{}.ffn_down_exps.weight",
        &[FfExp, Embd, Expert],
        Always,
    ),
];

/// The experts' gate and up projections as `create_tensor_gate_up_exps` takes them: the fused
/// `ffn_gate_up_exps` when present, else the two (in the layers after the leading dense ones,
/// which is every layer of a model without them).
const GATE_UP_EXPS_FUSABLE: &[TensorRule] = &[
    t(
        "blk.{}.ffn_gate_up_exps.weight",
        &[Embd, FfExp2, Expert],
        AfterLeadOptional,
    ),
    t(
        "blk.{}.ffn_gate_exps.weight",
        &[Embd, FfExp, Expert],
        AfterLeadUnfused,
    ),
    t(
        "blk.{}.ffn_up_exps.weight",
        &[Embd, FfExp, Expert],
        AfterLeadUnfused,
    ),
];

/// qwen3next's and qwen35moe's shared expert with its gate, in every layer.
const GATED_SHEXP: &[TensorRule] = &[
    t("blk.{}.ffn_gate_inp_shexp.weight", &[Embd], Always),
    t("blk.{}.ffn_gate_shexp.weight", &[Embd, FfShexp], Always),
    t("blk.{}.ffn_up_shexp.weight", &[Embd, FfShexp], Always),
    t("blk.{}.ffn_down_shexp.weight", &[FfShexp, Embd], Always),
];

/// qwen3next's and qwen35's norms and attention layers' tensors: the norms before and after
/// attention, the output projection, the query and key norms.
const HYBRID_ATTN: &[TensorRule] = &[
    t("blk.{}.attn_norm.weight", &[Embd], Always),
    t("blk.{}.post_attention_norm.weight", &[Embd], Always),
    t(
        "blk.{}.attn_output.weight",
        &[HeadKTimesHeads, Embd],
        Attention,
    ),
    t("blk.{}.attn_q_norm.weight", &[HeadK], Attention),
    t("blk.{}.attn_k_norm.weight", &[HeadK], Attention),
];

/// The gated delta net's input side in the linear-attention layers: the fused `attn_qkv` and
/// the gate (optional), the convolution, the time step's bias and `ssm_a`.
const DELTA_NET_IN: &[TensorRule] = &[
    t(
        "blk.{}.attn_qkv.weight",
        &[Embd, SsmConvDim],
        RecurrentOptional,
    ),
    t(
        "blk.{}.attn_gate.weight",
        &[Embd, SsmValue],
        RecurrentOptional,
    ),
    t(
        "blk.{}.ssm_conv1d.weight",
        &[SsmConv, SsmConvDim],
        Recurrent,
    ),
    t("blk.{}.ssm_dt.bias", &[SsmDtRank], Recurrent),
    t("blk.{}.ssm_a", &[SsmDtRank], Recurrent),
];

/// qwen35's and qwen35moe's gated delta net: `ssm_beta` and `ssm_alpha` separate, of
/// `ssm.time_step_rank` rows each (qwen3next fuses them into `ssm_ba`).
const DELTA_NET_BETA_ALPHA: &[TensorRule] = &[
    t("blk.{}.ssm_beta.weight", &[Embd, SsmDtRank], Recurrent),
    t("blk.{}.ssm_alpha.weight", &[Embd, SsmDtRank], Recurrent),
];

/// The gated delta net's output side: its norm and output projection.
const DELTA_NET_OUT: &[TensorRule] = &[
    t("blk.{}.ssm_norm.weight", &[SsmState], Recurrent),
    t("blk.{}.ssm_out.weight", &[SsmValue, Embd], Recurrent),
];

/// lfm2's attention (query and key norms) or short convolution, after its attention norm.
const LFM2_ATTN_OR_SHORTCONV: &[TensorRule] = &[
    t("blk.{}.attn_norm.weight", &[Embd], Always),
    t("blk.{}.attn_q_norm.weight", &[HeadK], Attention),
    t("blk.{}.attn_k_norm.weight", &[HeadK], Attention),
    t("blk.{}.attn_output.weight", &[Embd, Embd], Attention),
    t(
        "blk.{}.shortconv.conv.weight",
        &[ShortconvCache, Embd],
        Recurrent,
    ),
    t("blk.{}.shortconv.in_proj.weight", &[Embd, Embd3], Recurrent),
    t("blk.{}.shortconv.out_proj.weight", &[Embd, Embd], Recurrent),
];

/// Mamba-2's time step bias, `A` and `D`, required (mamba2's and falcon-h1's).
const MAMBA2_DT_A_D: &[TensorRule] = &[
    t("blk.{}.ssm_dt.bias", &[SsmDtRank], Always),
    t("blk.{}.ssm_a", &[One, SsmDtRank], Always),
    t("blk.{}.ssm_d", &[One, SsmDtRank], Always),
];

/// llama's layer (Mistral and Mixtral files are `llama` too).
const LLAMA_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.attn_output.bias", &[Embd], Optional),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    DENSE_FFN,
    &[t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], Moe)],
    &experts(MoeOptional, Moe),
    SHEXP,
];

const QWEN2_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    GATED_FFN,
];

const QWEN2MOE_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    EXPERTS,
    &[t("blk.{}.ffn_gate_inp_shexp.weight", &[Embd], Always)],
    &shared_expert(FfShexp, Always),
];

const QWEN3_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    QK_NORMS,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    GATED_FFN,
];

const QWEN3MOE_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    QK_NORMS,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    EXPERTS,
];

const GEMMA_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    GATE_UP_DOWN_FFN,
];

const GEMMA2_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    GATE_UP_DOWN_FFN,
    &[t("blk.{}.post_ffw_norm.weight", &[Embd], Always)],
];

const GEMMA3_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("dense_2.weight", &[], Optional),
    t("dense_3.weight", &[], Optional),
];

const GEMMA3_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[t("blk.{}.post_attention_norm.weight", &[Embd], Always)],
    QK_NORMS,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    GATE_UP_DOWN_FFN,
    &[t("blk.{}.post_ffw_norm.weight", &[Embd], Always)],
];

const PHI3_LAYER: &[&[TensorRule]] = &[&[
    t("blk.{}.attn_norm.weight", &[Embd], Always),
    t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
    t("blk.{}.ffn_norm.weight", &[Embd], Always),
    t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
    // the gate and up projections fused: twice the feed-forward length
    t("blk.{}.ffn_up.weight", &[Embd, Ff2], Always),
]];

const COMMAND_R_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_q_norm.weight", &[HeadK, Head], Layers64),
        t("blk.{}.attn_k_norm.weight", &[], Layers64),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
    ],
    GATED_FFN,
];

const COHERE2_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
    ],
    GATED_FFN,
];

const OLMO2_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.attn_q_norm.weight", &[Embd], Always),
        t(
            "blk.{}.attn_k_norm.weight",
            &[HeadKvTimesEmbdPerHead],
            Always,
        ),
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
    ],
    GATE_UP_DOWN_FFN,
    &[t("blk.{}.post_ffw_norm.weight", &[Embd], Always)],
];

const GPT_OSS_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[HeadTimesRot, Embd], Always),
        t("blk.{}.attn_sinks.weight", &[Head], Always),
    ],
    EXPERTS,
    &[
        t("blk.{}.attn_output.bias", &[Embd], Always),
        t("blk.{}.ffn_gate_inp.bias", &[Expert], Always),
        t("blk.{}.ffn_gate_exps.bias", &[FfExp, Expert], Always),
        t("blk.{}.ffn_down_exps.bias", &[Embd, Expert], Always),
        t("blk.{}.ffn_up_exps.bias", &[FfExp, Expert], Always),
    ],
];

const fn arch(
    name: &'static str,
    keys: &'static [&'static [KeyRule]],
    globals: &'static [TensorRule],
    qkv: Qkv,
    layer: &'static [&'static [TensorRule]],
) -> Arch {
    Arch {
        name,
        keys,
        globals,
        qkv: Some(qkv),
        layer,
        experts: Experts::None,
        ff_exp: FfExp::Ff,
        ff_shexp: FfShexp::KeyOrNone,
        rot_is_head_k: false,
        mla: false,
        one_expert_is_none: false,
        inner_is_twice_embd: false,
        mtp: Mtp::None,
        nextn: NEXTN,
        hybrid: Hybrid::None,
    }
}

/// Every architecture of the table, by `general.architecture`.
pub const ARCHS: &[Arch] = &[
    Arch {
        experts: Experts::Optional,
        rot_is_head_k: true,
        keys: &[&[RMS, opt("expert_shared_feed_forward_length", U32)]],
        ..arch("llama", &[], TIED, GQA, LLAMA_LAYER)
    },
    arch("qwen2", &[&[RMS]], TIED_QWEN2, EMBD_GQA, QWEN2_LAYER),
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::KeyOrFfPerUsed,
        ff_shexp: FfShexp::KeyOrFf,
        ..arch(
            "qwen2moe",
            &[&[
                RMS,
                opt("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("expert_shared_feed_forward_length", U32),
            ]],
            UNTIED,
            EMBD_GQA,
            QWEN2MOE_LAYER,
        )
    },
    arch("qwen3", &[&[RMS]], QWEN3_GLOBALS, QWEN3_QKV, QWEN3_LAYER),
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::KeyOrFfPerUsed,
        ..arch(
            "qwen3moe",
            &[&[RMS, opt("expert_feed_forward_length", KeyType::U32PerLayer)]],
            TIED_NO_ROPE,
            QWEN3_QKV,
            QWEN3MOE_LAYER,
        )
    },
    arch("gemma", &[&[RMS]], EMBD_ONLY, GQA, GEMMA_LAYER),
    arch(
        "gemma2",
        &[&[
            RMS,
            opt("attention.sliding_window", U32),
            opt("attn_logit_softcapping", F32),
            opt("final_logit_softcapping", F32),
        ]],
        EMBD_ONLY,
        GQA,
        GEMMA2_LAYER,
    ),
    arch(
        "gemma3",
        &[&[
            RMS,
            opt("attention.sliding_window", U32),
            opt("final_logit_softcapping", F32),
        ]],
        GEMMA3_GLOBALS,
        GQA,
        GEMMA3_LAYER,
    ),
    arch(
        "phi3",
        &[&[RMS, opt("attention.sliding_window", U32)]],
        PHI3_GLOBALS,
        Qkv {
            optional: true,
            ..EMBD_GQA
        },
        PHI3_LAYER,
    ),
    arch(
        "command-r",
        &[&[NORM_EPS, opt("logit_scale", F32)]],
        EMBD_ONLY,
        EMBD_GQA,
        COMMAND_R_LAYER,
    ),
    arch(
        "cohere2",
        &[&[
            NORM_EPS,
            req("attention.sliding_window", U32),
            req("logit_scale", F32),
        ]],
        EMBD_ONLY,
        EMBD_GQA,
        COHERE2_LAYER,
    ),
    Arch {
        experts: Experts::Optional,
        ..arch("granite", &[GRANITE_KEYS], TIED, GQA, GRANITE_LAYER)
    },
    arch(
        "olmo2",
        &[&[RMS, opt("attention.sliding_window", U32)]],
        UNTIED,
        EMBD_GQA,
        OLMO2_LAYER,
    ),
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::Key,
        ..arch(
            "gpt-oss",
            &[&[
                RMS,
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                req("attention.sliding_window", U32),
            ]],
            UNTIED,
            Qkv {
                q: HeadTimesRot,
                k: HeadKvTimesRot,
                v: HeadKvTimesRot,
                optional: false,
            },
            GPT_OSS_LAYER,
        )
    },
    // mistral3 (`src/models/mistral3.cpp`): llama's tensors, dense or experts, without llama's
    // n_rot check
    Arch {
        experts: Experts::Optional,
        ..arch(
            "mistral3",
            &[&[
                RMS,
                opt("attention.temperature_scale", F32),
                opt("rope.scaling.yarn_beta_fast", F32),
                opt("rope.scaling.yarn_beta_slow", F32),
                opt("rope.scaling.yarn_log_multiplier", F32),
            ]],
            TIED,
            GQA,
            LLAMA_LAYER,
        )
    },
    arch("phi2", &[&[NORM_EPS]], PHI2_GLOBALS, EMBD_GQA, PHI2_LAYER),
    arch(
        "stablelm",
        &[&[NORM_EPS]],
        STABLELM_GLOBALS,
        EMBD_GQA,
        STABLELM_LAYER,
    ),
    arch(
        "starcoder2",
        &[&[NORM_EPS]],
        NORM_BIAS_TIED,
        EMBD_GQA,
        STARCODER2_LAYER,
    ),
    DEEPSEEK2,
    // glm4moe (`src/models/glm4-moe.cpp`): deepseek2's layout of leading dense layers then
    // experts and multi-token prediction blocks, with plain grouped-query attention
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::KeyOrFfPerUsed,
        mtp: Mtp::Probed,
        ..arch("glm4moe", GLM4MOE_KEYS, TIED_NO_ROPE, GQA, GLM4MOE_LAYER)
    },
    // llama4 (`src/models/llama4.cpp`): experts every `interleave_moe_layer_step` layers, each
    // with a shared expert as wide as the others; the layers between them dense
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::Key,
        ..arch(
            "llama4",
            &[&[
                RMS,
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                req("interleave_moe_layer_step", U32),
                opt("attention.sliding_window", U32),
                opt("rope.freq_base_swa", F32),
            ]],
            TIED_ROPE_FREQS,
            GQA,
            LLAMA4_LAYER,
        )
    },
    arch("exaone", &[&[RMS]], TIED_ROPE_FREQS, GQA, EXAONE_LAYER),
    // exaone4: its multi-token prediction blocks always required (skipped, not loaded)
    Arch {
        mtp: Mtp::Always,
        nextn: EXAONE4_NEXTN,
        ..arch(
            "exaone4",
            &[&[
                RMS,
                opt("attention.sliding_window", U32),
                opt("rope.freq_base_swa", F32),
            ]],
            TIED_ROPE_FREQS,
            GQA,
            EXAONE4_LAYER,
        )
    },
    arch("smollm3", &[&[RMS]], TIED_NO_ROPE, GQA, SMOLLM3_LAYER),
    arch(
        "olmo",
        &[&[NORM_EPS, opt("attention.clamp_kqv", F32)]],
        OLMO_GLOBALS,
        EMBD_GQA,
        OLMO_LAYER,
    ),
    Arch {
        experts: Experts::Required,
        ..arch("olmoe", &[&[RMS]], UNTIED, EMBD_GQA, OLMOE_LAYER)
    },
    // granitemoe (`src/models/granite-moe.cpp`): granite's rules under its own name
    Arch {
        experts: Experts::Optional,
        ..arch("granitemoe", &[GRANITE_KEYS], TIED, GQA, GRANITE_LAYER)
    },
    QWEN3NEXT,
    // glm4 (`src/models/glm4.cpp`): its multi-token prediction blocks always required
    Arch {
        mtp: Mtp::Always,
        ..arch(
            "glm4",
            &[&[RMS, opt("rope.dimension_sections", KeyType::Sections)]],
            TIED_NO_ROPE,
            GQA,
            GLM4_LAYER,
        )
    },
    arch(
        "qwen3vl",
        QWEN3VL_KEYS,
        QWEN3_GLOBALS,
        QWEN3_QKV,
        QWEN3VL_LAYER,
    ),
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::KeyOrFfPerUsed,
        ..arch(
            "qwen3vlmoe",
            &[&[
                opt("n_deepstack_layers", U32),
                req("rope.dimension_sections", KeyType::Sections),
                opt("expert_feed_forward_length", KeyType::U32PerLayer),
                RMS,
            ]],
            TIED_NO_ROPE,
            QWEN3_QKV,
            QWEN3VLMOE_LAYER,
        )
    },
    arch(
        "seed_oss",
        &[&[RMS]],
        TIED_NO_ROPE,
        SEED_OSS_QKV,
        SEED_OSS_LAYER,
    ),
    arch(
        "ernie4_5",
        &[&[RMS, opt("rope.dimension_sections", KeyType::Sections)]],
        TIED_NO_ROPE,
        QWEN3_QKV,
        ERNIE4_5_LAYER,
    ),
    // ernie4_5-moe: experts in every layer after the leading dense ones (whatever
    // `interleave_moe_layer_step` says), a shared expert where its length is given
    Arch {
        experts: Experts::RequiredAfterLead,
        ff_exp: FfExp::Key,
        ..arch(
            "ernie4_5-moe",
            &[&[
                opt("rope.dimension_sections", KeyType::Sections),
                RMS,
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("expert_shared_feed_forward_length", U32),
                req("interleave_moe_layer_step", U32),
                opt("leading_dense_block_count", U32),
            ]],
            TIED_NO_ROPE,
            QWEN3_QKV,
            ERNIE4_5_MOE_LAYER,
        )
    },
    // mistral4 (`src/models/mistral4.cpp`): deepseek2's loader under another name
    Arch {
        name: "mistral4",
        ..DEEPSEEK2
    },
    // exaone-moe (`src/models/exaone-moe.cpp`): leading dense layers, then experts with a
    // shared expert; its multi-token prediction blocks (dense) always required
    Arch {
        experts: Experts::RequiredAfterLead,
        ff_exp: FfExp::Key,
        ff_shexp: FfShexp::KeyOrFfExp,
        mtp: Mtp::Always,
        ..arch(
            "exaone-moe",
            &[&[
                opt("rope.freq_base_swa", F32),
                req("attention.sliding_window", U32),
                RMS,
                opt("expert_shared_count", U32),
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("expert_shared_feed_forward_length", U32),
                req("expert_gating_func", U32),
                opt("expert_weights_scale", F32),
                opt("expert_weights_norm", KeyType::Bool),
                opt("leading_dense_block_count", U32),
            ]],
            UNTIED_ROPE_FREQS,
            SEED_OSS_QKV,
            EXAONE_MOE_LAYER,
        )
    },
    // dots1 (`src/models/dots1.cpp`): key and value projections of `n_head` heads (not
    // `n_head_kv`), leading dense layers, then experts with `expert_shared_count` shared ones
    Arch {
        experts: Experts::RequiredAfterLead,
        ff_exp: FfExp::Key,
        ..arch(
            "dots1",
            &[
                &[
                    RMS,
                    opt("leading_dense_block_count", U32),
                    req("expert_feed_forward_length", KeyType::U32PerLayer),
                    req("expert_shared_count", U32),
                ],
                EXPERT_WEIGHTING_KEYS,
            ],
            UNTIED,
            Qkv {
                q: HeadKTimesHeads,
                k: HeadKTimesHeads,
                v: HeadKTimesHeads,
                optional: false,
            },
            DOTS1_LAYER,
        )
    },
    // minimax-m2 (`src/models/minimax-m2.cpp`): experts of `n_ff` with a required
    // `exp_probs_b`; query and key norms over all heads
    Arch {
        experts: Experts::Required,
        ..arch(
            "minimax-m2",
            &[&[
                RMS,
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("expert_gating_func", U32),
            ]],
            UNTIED,
            QWEN3_QKV,
            MINIMAX_M2_LAYER,
        )
    },
    // hunyuan-moe (`src/models/hunyuan-moe.cpp`): experts of `n_ff` and a shared expert in
    // every layer
    Arch {
        experts: Experts::Required,
        ff_shexp: FfShexp::KeyOrFf,
        ..arch(
            "hunyuan-moe",
            &[&[
                RMS,
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("expert_shared_feed_forward_length", U32),
            ]],
            TIED_NO_ROPE,
            GQA,
            HUNYUAN_MOE_LAYER,
        )
    },
    // phimoe (`src/models/phimoe.cpp`): layer norms with biases, every projection's bias
    // required, experts of `n_ff`, phi3's long and short rope factors
    Arch {
        experts: Experts::Required,
        ..arch("phimoe", &[&[RMS]], PHIMOE_GLOBALS, EMBD_GQA, PHIMOE_LAYER)
    },
    // gemma3n (`src/models/gemma3n.cpp`): gemma3's layer with the per-layer inputs, altup and
    // laurel tensors, of sizes llama.cpp fixes (n_altup 4, laurel_rank 64, n_embd_altup 256)
    arch(
        "gemma3n",
        &[&[
            opt("rope.freq_base_swa", F32),
            req("attention.sliding_window", U32),
            RMS,
        ]],
        GEMMA3N_GLOBALS,
        GQA,
        GEMMA3N_LAYER,
    ),
    // apertus (`src/models/apertus.cpp`): the xIELU activation's parameters (keys without the
    // architecture's prefix), an ungated feed-forward, query and key norms with optional biases
    arch(
        "apertus",
        &[&[
            RMS,
            req_unprefixed("xielu.alpha_n", KeyType::F32PerLayer),
            req_unprefixed("xielu.alpha_p", KeyType::F32PerLayer),
            req_unprefixed("xielu.beta", KeyType::F32PerLayer),
            req_unprefixed("xielu.eps", KeyType::F32PerLayer),
        ]],
        UNTIED_LLAMA_ROPE,
        QWEN3_QKV,
        APERTUS_LAYER,
    ),
    // hunyuan-dense and hunyuan_vl (`src/models/hunyuan-vl.cpp`): qwen3vl's layer
    Arch {
        one_expert_is_none: true,
        ..arch(
            "hunyuan-dense",
            &[&[RMS, opt("rope.dimension_sections", KeyType::Sections)]],
            TIED_NO_ROPE,
            GQA,
            QWEN3VL_LAYER,
        )
    },
    Arch {
        one_expert_is_none: true,
        ..arch(
            "hunyuan_vl",
            &[&[RMS, opt("rope.dimension_sections", KeyType::Sections)]],
            TIED_NO_ROPE,
            GQA,
            QWEN3VL_LAYER,
        )
    },
    // arcee (`src/models/arcee.cpp`): an ungated feed-forward, the one `rope_freqs`
    arch("arcee", &[&[RMS]], TIED_ROPE_FREQS, GQA, ARCEE_LAYER),
    // maincoder (`src/models/maincoder.cpp`): qwen3vl's layer
    arch(
        "maincoder",
        &[&[RMS]],
        TIED_NO_ROPE,
        QWEN3_QKV,
        QWEN3VL_LAYER,
    ),
    // rnd1 (`src/models/rnd1.cpp`): qwen3vlmoe's layer
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::KeyOrFfPerUsed,
        ..arch(
            "rnd1",
            &[&[opt("expert_feed_forward_length", KeyType::U32PerLayer), RMS]],
            TIED_NO_ROPE,
            QWEN3_QKV,
            QWEN3VLMOE_LAYER,
        )
    },
    // nanbeige (`src/models/nanbeige.cpp`): exaone's layer; `num_loops` runs the same blocks
    // again, which adds no tensors
    arch(
        "nanbeige",
        &[&[
            RMS,
            opt("num_loops", U32),
            opt("skip_loop_final_norm", KeyType::Bool),
        ]],
        TIED_ROPE_FREQS,
        GQA,
        EXAONE_LAYER,
    ),
    // qwen2vl (`src/models/qwen2vl.cpp`): qwen2's tensors; only `rope.dimension_sections` read
    arch(
        "qwen2vl",
        &[&[req("rope.dimension_sections", KeyType::Sections)]],
        TIED_QWEN2,
        EMBD_GQA,
        QWEN2_LAYER,
    ),
    // internlm2 and xverse: qwen2's layer, `output` required
    arch("internlm2", &[&[RMS]], UNTIED, EMBD_GQA, QWEN2_LAYER),
    arch("xverse", &[&[RMS]], UNTIED, EMBD_GQA, QWEN2_LAYER),
    // orion (`src/models/orion.cpp`): layer norms with biases
    arch(
        "orion",
        &[&[NORM_EPS]],
        ORION_GLOBALS,
        EMBD_GQA,
        ORION_LAYER,
    ),
    // mellum (`src/models/mellum.cpp`): qwen3vlmoe's layer, `output` required
    Arch {
        experts: Experts::Required,
        ff_exp: FfExp::KeyOrFfPerUsed,
        ..arch(
            "mellum",
            &[&[
                RMS,
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("attention.sliding_window", U32),
                opt("rope.freq_base_swa", F32),
            ]],
            UNTIED,
            QWEN3_QKV,
            QWEN3VLMOE_LAYER,
        )
    },
    // lfm2 (`src/models/lfm2.cpp`): convolution layers where the per-layer
    // `head_count_kv` is 0, attention layers elsewhere; the output norm named `token_embd_norm`
    Arch {
        hybrid: Hybrid::NoKvHeads,
        ..arch(
            "lfm2",
            &[&[
                req("shortconv.l_cache", U32),
                RMS,
                opt("attention.sliding_window", U32),
            ]],
            LFM2_GLOBALS,
            LFM2_QKV,
            LFM2_LAYER,
        )
    },
    // lfm2moe (`src/models/lfm2moe.cpp`): lfm2's layers, experts with a required
    // `exp_probs_b` after the leading dense ones
    Arch {
        hybrid: Hybrid::NoKvHeads,
        experts: Experts::RequiredAfterLead,
        ff_exp: FfExp::Key,
        ..arch(
            "lfm2moe",
            &[&[
                req("shortconv.l_cache", U32),
                RMS,
                opt("leading_dense_block_count", U32),
                req("expert_feed_forward_length", KeyType::U32PerLayer),
                req("expert_gating_func", U32),
            ]],
            LFM2_GLOBALS,
            LFM2_QKV,
            LFM2MOE_LAYER,
        )
    },
    // granitehybrid (`src/models/granite-hybrid.cpp`): Mamba-2 layers where the per-layer
    // `head_count_kv` is 0, attention elsewhere; granite's feed-forward, dense or experts
    Arch {
        hybrid: Hybrid::NoKvHeads,
        experts: Experts::Optional,
        inner_is_twice_embd: true,
        ..arch(
            "granitehybrid",
            &[
                &[
                    RMS,
                    opt("logit_scale", F32),
                    opt("residual_scale", F32),
                    opt("embedding_scale", F32),
                    opt("attention.scale", F32),
                ],
                SSM_KEYS,
                &[
                    opt("rope.scaling.finetuned", KeyType::Bool),
                    opt("expert_shared_feed_forward_length", U32),
                ],
            ],
            TIED_ROPE_FREQS,
            GQA,
            GRANITEHYBRID_LAYER,
        )
    },
    // falcon-h1 (`src/models/falcon-h1.cpp`): a Mamba-2 mixer and attention in every layer
    arch(
        "falcon-h1",
        &[&[RMS], SSM_KEYS],
        TIED_ROPE_FREQS,
        GQA,
        FALCON_H1_LAYER,
    ),
    // mamba (`src/models/mamba.cpp`): a Mamba mixer in every layer, no attention
    Arch {
        qkv: None,
        inner_is_twice_embd: true,
        ..arch(
            "mamba",
            &[&[
                req("ssm.conv_kernel", U32),
                req("ssm.inner_size", U32),
                req("ssm.state_size", U32),
                req("ssm.time_step_rank", U32),
                opt("ssm.dt_b_c_rms", KeyType::Bool),
                RMS,
            ]],
            TIED_NO_ROPE,
            GQA,
            MAMBA_LAYER,
        )
    },
    // mamba2 (`src/models/mamba2.cpp`): a Mamba-2 mixer in every layer, no attention
    Arch {
        qkv: None,
        ..arch(
            "mamba2",
            &[SSM_KEYS, &[RMS]],
            TIED_NO_ROPE,
            GQA,
            MAMBA2_LAYER,
        )
    },
    // qwen35 and qwen35moe (`src/models/qwen35.cpp`, `qwen35moe.cpp`): qwen3next's hybrid
    // layout, the gated delta net's beta and alpha separate, `rope.dimension_sections` required
    Arch {
        mtp: Mtp::Required,
        hybrid: Hybrid::Interval,
        ..arch(
            "qwen35",
            QWEN35_KEYS,
            TIED_NO_ROPE,
            GATED_QUERY_QKV,
            QWEN35_LAYER,
        )
    },
    // qwen35moe: qwen3next's rules, with its own keys and layer (qwen35's and qwen3next's parts)
    Arch {
        name: "qwen35moe",
        keys: QWEN35MOE_KEYS,
        layer: QWEN35MOE_LAYER,
        ..QWEN3NEXT
    },
];

/// `output` required, the one `rope_freqs` taken when present unless the model has
/// multi-token prediction blocks (exaone-moe).
const UNTIED_ROPE_FREQS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
    t("rope_freqs.weight", &[RotHalf], OptionalWithoutMtp),
];

/// exaone-moe's layer: query and key norms; a dense feed-forward in the leading layers and the
/// prediction blocks, experts (`exp_probs_b` optional) and a shared expert in the others.
const EXAONE_MOE_LAYER: &[&[TensorRule]] = &[
    ATTN_OUTPUT_AND_NORM,
    &[
        t("blk.{}.attn_q_norm.weight", &[HeadK], Always),
        t("blk.{}.attn_k_norm.weight", &[HeadK], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    &gated_ffn(LeadDenseOrMtp),
    &[
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], MoeTrunk),
        t("blk.{}.exp_probs_b.bias", &[Expert], MoeTrunkOptional),
    ],
    &experts(MoeTrunk, MoeTrunk),
    &shared_expert(FfShexp, MoeTrunk),
];

/// dots1's layer.
const DOTS1_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    QK_NORMS,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    LEAD_DENSE_FFN,
    &[
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], AfterLead),
        t("blk.{}.exp_probs_b.bias", &[Expert], AfterLeadOptional),
    ],
    EXPERTS_AFTER_LEAD,
    SHARED_EXPERTS_AFTER_LEAD,
];

/// minimax-m2's layer.
const MINIMAX_M2_LAYER: &[&[TensorRule]] = &[
    ATTN_OUTPUT_AND_NORM,
    &[
        t("blk.{}.attn_q_norm.weight", &[HeadKTimesHeads], Always),
        t("blk.{}.attn_k_norm.weight", &[KGqa], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    EXPERTS_OF_FF,
    &[t("blk.{}.exp_probs_b.bias", &[Expert], Always)],
];

/// hunyuan-moe's layer.
const HUNYUAN_MOE_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    QK_NORMS,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    EXPERTS_OF_FF,
    &[
        t("blk.{}.ffn_gate_shexp.weight", &[Embd, FfShexp], Always),
        t("blk.{}.ffn_up_shexp.weight", &[Embd, FfShexp], Always),
        t("blk.{}.ffn_down_shexp.weight", &[FfShexp, Embd], Always),
    ],
];

/// phimoe's outside the layers: phi2's, and the long and short rope factors of
/// `n_embd/n_head/2` taken when present whatever the scaling.
const PHIMOE_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output_norm.bias", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
    t("output.bias", &[Vocab], Always),
    t("rope_factors_long.weight", &[EmbdPerHeadHalf], Optional),
    t("rope_factors_short.weight", &[EmbdPerHeadHalf], Optional),
];

/// phimoe's layer.
const PHIMOE_LAYER: &[&[TensorRule]] = &[
    BIASED_ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.bias", &[Embd], Always),
    ],
    EXPERTS_OF_FF,
];

/// gemma3n's outside the layers: `output` tied, the altup projections, the per-layer token
/// embedding and its projection.
const GEMMA3N_GLOBALS: &[TensorRule] = &[
    t("output.weight", &[Embd, Vocab], Optional),
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("altup_proj.weight", &[Embd, Embd, AltupMinus1], Always),
    t(
        "altup_unembd_proj.weight",
        &[Embd, Embd, AltupMinus1],
        Always,
    ),
    t(
        "per_layer_token_embd.weight",
        &[EmbdAltupTimesLayers, Vocab],
        Always,
    ),
    t(
        "per_layer_model_proj.weight",
        &[Embd, EmbdAltupTimesLayers],
        Always,
    ),
    t("per_layer_proj_norm.weight", &[EmbdAltup], Always),
    t("output_norm.weight", &[Embd], Always),
];

/// gemma3n's layer.
const GEMMA3N_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.attn_q_norm.weight", &[HeadK], Always),
        t("blk.{}.attn_k_norm.weight", &[HeadK], Always),
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    GATE_UP_DOWN_FFN,
    &[
        t("blk.{}.post_ffw_norm.weight", &[Embd], Always),
        t("blk.{}.inp_gate.weight", &[Embd, EmbdAltup], Always),
        t("blk.{}.proj.weight", &[EmbdAltup, Embd], Always),
        t("blk.{}.post_norm.weight", &[Embd], Always),
        t("blk.{}.altup_correct_coef.weight", &[Altup, Altup], Always),
        t("blk.{}.altup_correct_scale.weight", &[Embd], Always),
        t(
            "blk.{}.altup_predict_coef.weight",
            &[Altup, AltupSq],
            Always,
        ),
        t("blk.{}.altup_router.weight", &[Embd, Altup], Always),
        t("blk.{}.altup_router_norm.weight", &[Embd], Always),
        t("blk.{}.laurel_l.weight", &[Embd, LaurelRank], Always),
        t("blk.{}.laurel_r.weight", &[LaurelRank, Embd], Always),
        t("blk.{}.laurel_post_norm.weight", &[Embd], Always),
    ],
];

/// `output` required, llama's rope factors (the long and short ones only under `longrope`
/// scaling, `rope_freqs` only without it).
const UNTIED_LLAMA_ROPE: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
    t("rope_freqs.weight", &[RotHalf], NotLongRopeOptional),
    t("rope_factors_long.weight", &[RotHalf], LongRopeOptional),
    t("rope_factors_short.weight", &[RotHalf], LongRopeOptional),
];

/// apertus's layer.
const APERTUS_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.attn_output.bias", &[Embd], Optional),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
        t("blk.{}.ffn_up.weight", &[Embd, Ff], Always),
        t("blk.{}.attn_q_norm.weight", &[HeadK], Always),
        t("blk.{}.attn_q_norm.bias", &[HeadK], Optional),
        t("blk.{}.attn_k_norm.weight", &[HeadK], Always),
        t("blk.{}.attn_k_norm.bias", &[HeadK], Optional),
    ],
];

/// orion's outside the layers: the output norm's bias, `output` required.
const ORION_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output_norm.bias", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
];

/// orion's layer: qwen2's with the norms' biases.
const ORION_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_norm.bias", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.bias", &[Embd], Always),
    ],
    GATED_FFN,
];

/// lfm2's outside the layers: its output norm is `token_embd_norm`; the ColBERT head
/// `dense_2` optional (its shape not checked).
const LFM2_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("token_embd_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("dense_2.weight", &[], Optional),
    t("dense_2.bias", &[], Optional),
];

/// lfm2's layer: a gated feed-forward, then attention (query and key norms) or a short
/// convolution.
const LFM2_LAYER: &[&[TensorRule]] = &[
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    GATED_FFN,
    LFM2_ATTN_OR_SHORTCONV,
];

/// lfm2moe's layer.
const LFM2MOE_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], AfterLead),
    ],
    EXPERTS_AFTER_LEAD,
    &[t("blk.{}.exp_probs_b.bias", &[Expert], AfterLead)],
    LEAD_DENSE_FFN,
    LFM2_ATTN_OR_SHORTCONV,
];

/// granitehybrid's layer: Mamba-2's mixer (its convolution's bias optional) or attention (its
/// output's bias optional); granite's feed-forward.
const GRANITEHYBRID_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.ssm_in.weight", &[Embd, Mamba2InProj], Recurrent),
        t(
            "blk.{}.ssm_conv1d.weight",
            &[SsmConv, Mamba2Conv],
            Recurrent,
        ),
        t("blk.{}.ssm_conv1d.bias", &[Mamba2Conv], RecurrentOptional),
        t("blk.{}.ssm_dt.bias", &[SsmDtRank], Recurrent),
        t("blk.{}.ssm_a", &[One, SsmDtRank], Recurrent),
        t("blk.{}.ssm_d", &[One, SsmDtRank], Recurrent),
        t(
            "blk.{}.ssm_norm.weight",
            &[SsmInnerPerGroup, SsmGroup],
            Recurrent,
        ),
        t("blk.{}.ssm_out.weight", &[SsmInner, Embd], Recurrent),
        t(
            "blk.{}.attn_output.weight",
            &[HeadKTimesHeads, Embd],
            Attention,
        ),
        t("blk.{}.attn_output.bias", &[Embd], AttentionOptional),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], Moe),
        t(
            "blk.{}.ffn_gate_exps.weight",
            &[Embd, Ff, Expert],
            MoeOptional,
        ),
        t("blk.{}.ffn_down_exps.weight", &[Ff, Embd, Expert], Moe),
        t("blk.{}.ffn_up_exps.weight", &[Embd, Ff, Expert], Moe),
    ],
    SHEXP,
    DENSE_FFN,
];

/// falcon-h1's layer: Mamba-2's mixer (its convolution's bias and its norm optional) beside
/// attention, a gated feed-forward with optional biases; its feed-forward norm is named
/// `blk.N.ffn_norm`, without `.weight`, as its loader asks for it.
const FALCON_H1_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.ssm_in.weight", &[Embd, Mamba2InProj], Always),
        t("blk.{}.ssm_conv1d.weight", &[SsmConv, Mamba2Conv], Always),
        t("blk.{}.ssm_conv1d.bias", &[Mamba2Conv], Optional),
    ],
    MAMBA2_DT_A_D,
    &[
        t(
            "blk.{}.ssm_norm.weight",
            &[SsmInnerPerGroup, SsmGroup],
            Optional,
        ),
        t("blk.{}.ssm_out.weight", &[SsmInner, Embd], Always),
        t(
            "blk.{}.attn_output.weight",
            &[HeadKTimesHeads, Embd],
            Always,
        ),
        t("blk.{}.attn_output.bias", &[Embd], Optional),
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm", &[Embd], Always),
    ],
    GATED_FFN,
    &[
        t("blk.{}.ffn_gate.bias", &[Ff], Optional),
        t("blk.{}.ffn_down.bias", &[Embd], Optional),
        t("blk.{}.ffn_up.bias", &[Ff], Optional),
    ],
];

/// mamba's layer: the selective-scan mixer.
const MAMBA_LAYER: &[&[TensorRule]] = &[&[
    t("blk.{}.attn_norm.weight", &[Embd], Always),
    t("blk.{}.ssm_in.weight", &[Embd, SsmInner2], Always),
    t("blk.{}.ssm_conv1d.weight", &[SsmConv, SsmInner], Always),
    t("blk.{}.ssm_conv1d.bias", &[SsmInner], Always),
    t("blk.{}.ssm_x.weight", &[SsmInner, SsmDtPlus2State], Always),
    t("blk.{}.ssm_dt.weight", &[SsmDtRank, SsmInner], Always),
    t("blk.{}.ssm_dt.bias", &[SsmInner], Always),
    t("blk.{}.ssm_a", &[SsmState, SsmInner], Always),
    t("blk.{}.ssm_d", &[SsmInner], Always),
    t("blk.{}.ssm_out.weight", &[SsmInner, Embd], Always),
]];

/// mamba2's layer: the mixer, its convolution's bias and its norm required.
const MAMBA2_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.ssm_in.weight", &[Embd, Mamba2InProj], Always),
        t("blk.{}.ssm_conv1d.weight", &[SsmConv, Mamba2Conv], Always),
        t("blk.{}.ssm_conv1d.bias", &[Mamba2Conv], Always),
    ],
    MAMBA2_DT_A_D,
    &[
        t(
            "blk.{}.ssm_norm.weight",
            &[SsmInnerPerGroup, SsmGroup],
            Always,
        ),
        t("blk.{}.ssm_out.weight", &[SsmInner, Embd], Always),
    ],
];

/// arcee's layer: no gate.
const ARCEE_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
        t("blk.{}.ffn_up.weight", &[Embd, Ff], Always),
    ],
];

/// qwen35's keys: qwen3next's linear-attention sizes and `rope.dimension_sections`.
const QWEN35_KEYS: &[&[KeyRule]] = &[
    &[RMS, req("rope.dimension_sections", KeyType::Sections)],
    SSM_KEYS,
    &[opt("full_attention_interval", U32)],
];

const QWEN35MOE_KEYS: &[&[KeyRule]] = &[
    &[
        opt("expert_feed_forward_length", KeyType::U32PerLayer),
        opt("expert_shared_feed_forward_length", U32),
        RMS,
        req("rope.dimension_sections", KeyType::Sections),
    ],
    SSM_KEYS,
    &[opt("full_attention_interval", U32)],
];

/// qwen35's layer: the norms, the attention layers' output and query and key norms, the
/// linear-attention layers' gated delta net (`ssm_beta` and `ssm_alpha` of
/// `ssm.time_step_rank` rows each; the fused `attn_qkv` and the gate optional), a gated
/// feed-forward.
const QWEN35_LAYER: &[&[TensorRule]] = &[
    HYBRID_ATTN,
    DELTA_NET_IN,
    DELTA_NET_BETA_ALPHA,
    DELTA_NET_OUT,
    GATED_FFN,
];

/// qwen35moe's layer: qwen35's attention and gated delta net, qwen3next's experts and gated
/// shared expert.
const QWEN35MOE_LAYER: &[&[TensorRule]] = &[
    HYBRID_ATTN,
    DELTA_NET_IN,
    DELTA_NET_BETA_ALPHA,
    DELTA_NET_OUT,
    ROUTER_AND_DOWN_EXPS,
    GATE_UP_EXPS_FUSABLE,
    GATED_SHEXP,
];

/// `create_tensor_qkv(layer, i, n_embd, n_embd_head_k * n_head, n_embd_gqa, n_embd_gqa)`
/// (qwen3, qwen3moe, qwen3vl, ernie4_5: the key's rows are the value's).
const QWEN3_QKV: Qkv = Qkv { k: VGqa, ..GQA };

/// lfm2's and lfm2moe's: `create_tensor_qkv(layer, i, n_embd, n_embd, n_embd_k_gqa, n_embd_v_gqa)`.
const LFM2_QKV: Qkv = Qkv {
    q: Embd,
    k: KGqa,
    v: VGqa,
    optional: false,
};

/// qwen3next's, qwen35's and qwen35moe's: the query twice as wide, with its gate.
const GATED_QUERY_QKV: Qkv = Qkv {
    q: HeadKTimesHeads2,
    ..GQA
};

/// seed_oss: the key and the value both `n_head_kv * n_embd_head_k`.
const SEED_OSS_QKV: Qkv = Qkv {
    q: HeadKTimesHeads,
    k: KGqa,
    v: KGqa,
    optional: false,
};

/// glm4's layer (`src/models/glm4.cpp`): norms before and after attention and the
/// feed-forward, the gate and up projections fused into `ffn_up` of `2*n_ff`.
const GLM4_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
        t("blk.{}.ffn_up.weight", &[Embd, Ff2], Always),
        t("blk.{}.post_ffw_norm.weight", &[Embd], Always),
    ],
];

/// qwen3vl's keys: `rope.dimension_sections` required.
const QWEN3VL_KEYS: &[&[KeyRule]] = &[&[
    opt("n_deepstack_layers", U32),
    req("rope.dimension_sections", KeyType::Sections),
    RMS,
]];

/// qwen3vl's layer (`src/models/qwen3vl.cpp`): qwen3's, its key and query norms required.
const QWEN3VL_LAYER: &[&[TensorRule]] = QWEN3_LAYER;

/// qwen3vlmoe's layer (`src/models/qwen3vlmoe.cpp`): qwen3moe's, experts in every layer.
const QWEN3VLMOE_LAYER: &[&[TensorRule]] = QWEN3MOE_LAYER;

/// seed_oss's layer (`src/models/seed-oss.cpp`): the norm after attention serves the
/// feed-forward (no `ffn_norm`).
const SEED_OSS_LAYER: &[&[TensorRule]] = &[
    ATTN_OUTPUT_AND_NORM,
    &[t("blk.{}.post_attention_norm.weight", &[Embd], Always)],
    GATE_UP_DOWN_FFN,
];

/// ernie4_5's layer (`src/models/ernie4-5.cpp`): an optional output bias, a gated
/// feed-forward.
const ERNIE4_5_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.attn_output.bias", &[Embd], Optional),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    GATED_FFN,
];

/// ernie4_5-moe's layer: the leading dense layers' feed-forward, then experts (their
/// `exp_probs_b` and gate optional) and a shared expert of `expert_shared_feed_forward_length`.
const ERNIE4_5_MOE_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.attn_output.bias", &[Embd], Optional),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], AfterLead),
        t("blk.{}.exp_probs_b.bias", &[Expert], AfterLeadOptional),
    ],
    &experts(AfterLeadOptional, AfterLead),
    &shared_expert(FfShexp, AfterLeadShexp),
    LEAD_DENSE_FFN,
];

/// qwen3next's layer: the norms; in attention layers the output projection and the query and
/// key norms (the query projection is twice as wide, with its gate); in linear-attention layers
/// the gated delta net's tensors (the fused `attn_qkv` of `2*key_dim+value_dim` rows, the gate
/// and the legacy `ssm_in` optional); experts (fused gate and up taken) and the shared expert
/// with its gate, in every layer.
const QWEN3NEXT_LAYER: &[&[TensorRule]] = &[
    HYBRID_ATTN,
    &[t(
        "blk.{}.ssm_in.weight",
        &[Embd, SsmQkvz],
        RecurrentOptional,
    )],
    DELTA_NET_IN,
    &[t("blk.{}.ssm_ba.weight", &[Embd, SsmDtRank2], Recurrent)],
    DELTA_NET_OUT,
    ROUTER_AND_DOWN_EXPS,
    GATE_UP_EXPS_FUSABLE,
    GATED_SHEXP,
];

/// glm4moe's keys beyond the common ones (`load_arch_hparams`).
const GLM4MOE_KEYS: &[&[KeyRule]] = &[
    &[
        req("expert_feed_forward_length", KeyType::U32PerLayer),
        RMS,
        opt("rope.dimension_sections", KeyType::Sections),
        req("expert_shared_count", U32),
        opt("leading_dense_block_count", U32),
    ],
    EXPERT_WEIGHTING_KEYS,
];

/// glm4moe's layer: attention with optional biases and query and key norms, the norm after
/// attention (no `ffn_norm`), the leading dense layers' feed-forward, then experts with their
/// required `exp_probs_b` and `expert_shared_count` shared experts (the fused
/// `ffn_gate_up_exps` is not taken).
const GLM4MOE_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.attn_q_norm.weight", &[HeadK], Optional),
        t("blk.{}.attn_k_norm.weight", &[HeadK], Optional),
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], AfterLead),
        t("blk.{}.exp_probs_b.bias", &[Expert], AfterLead),
    ],
    EXPERTS_AFTER_LEAD,
    &shared_expert(FfExpTimesShared, AfterLeadShared),
    LEAD_DENSE_FFN,
];

/// `output` tied, the one `rope_freqs` each layer takes when present whatever the scaling
/// (llama4, exaone, exaone4).
const TIED_ROPE_FREQS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("rope_freqs.weight", &[RotHalf], Optional),
];

/// llama4's layer: llama's attention and norms, then experts (with a shared expert of
/// `n_ff_exp`) in the interleaved layers, a dense feed-forward in the others.
const LLAMA4_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], Interleaved),
    ],
    &experts(Interleaved, Interleaved),
    &shared_expert(FfExp, Interleaved),
    &gated_ffn(NotInterleaved),
];

/// exaone's layer (`src/models/exaone.cpp`): llama's without its biases or experts.
const EXAONE_LAYER: &[&[TensorRule]] = &[
    ATTN_NORM_AND_OUTPUT,
    &[t("blk.{}.ffn_norm.weight", &[Embd], Always)],
    GATED_FFN,
];

/// exaone4's layer (`src/models/exaone4.cpp`): norms after attention and after the
/// feed-forward (none before), query and key norms, `attn_output` of `[n_embd, n_embd]`.
const EXAONE4_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.post_attention_norm.weight", &[Embd], Always),
        t("blk.{}.attn_q_norm.weight", &[HeadK], Always),
        t("blk.{}.attn_k_norm.weight", &[HeadK], Always),
    ],
    GATED_FFN,
    &[t("blk.{}.post_ffw_norm.weight", &[Embd], Always)],
];

/// exaone4's multi-token prediction block's own tensors: no `embed_tokens` nor
/// `shared_head_head`.
const EXAONE4_NEXTN: &[TensorRule] = &[
    t("blk.{}.nextn.eh_proj.weight", &[Embd2, Embd], Always),
    t("blk.{}.nextn.enorm.weight", &[Embd], Always),
    t("blk.{}.nextn.hnorm.weight", &[Embd], Always),
    t("blk.{}.nextn.shared_head_norm.weight", &[Embd], Optional),
];

/// smollm3's layer (`src/models/smollm3.cpp`).
const SMOLLM3_LAYER: &[&[TensorRule]] = EXAONE_LAYER;

/// olmo's outside the layers: no output norm, `output` tied.
const OLMO_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output.weight", &[Embd, Vocab], Optional),
];

/// olmo's layer (`src/models/olmo.cpp`): no norm tensors at all.
const OLMO_LAYER: &[&[TensorRule]] = &[
    &[t("blk.{}.attn_output.weight", &[Embd, Embd], Always)],
    GATED_FFN,
];

/// olmoe's layer (`src/models/olmoe.cpp`): query and key norms of `n_embd` each, experts of
/// `n_ff` in every layer.
const OLMOE_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.attn_q_norm.weight", &[Embd], Always),
        t("blk.{}.attn_k_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    EXPERTS_OF_FF,
];

/// qwen3next (`src/models/qwen3next.cpp`): linear-attention (gated delta net) layers and
/// every `full_attention_interval`-th an attention layer, experts and a gated shared
/// expert in each; its multi-token prediction blocks required once declared.
const QWEN3NEXT: Arch = Arch {
    experts: Experts::Required,
    ff_exp: FfExp::KeyOrFfPerUsed,
    ff_shexp: FfShexp::KeyOrFf,
    mtp: Mtp::Required,
    hybrid: Hybrid::Interval,
    ..arch(
        "qwen3next",
        &[
            &[
                opt("expert_feed_forward_length", KeyType::U32PerLayer),
                opt("expert_shared_feed_forward_length", U32),
                RMS,
            ],
            SSM_KEYS,
            &[opt("full_attention_interval", U32)],
        ],
        TIED_NO_ROPE,
        GATED_QUERY_QKV,
        QWEN3NEXT_LAYER,
    )
};

/// deepseek2 (`src/models/deepseek2.cpp`): multi-head latent attention, leading dense layers
/// then experts, probed multi-token prediction blocks.
const DEEPSEEK2: Arch = Arch {
    experts: Experts::RequiredAfterLead,
    ff_exp: FfExp::Key,
    qkv: None,
    mla: true,
    mtp: Mtp::Probed,
    ..arch(
        "deepseek2",
        DEEPSEEK2_KEYS,
        TIED_NO_ROPE,
        GQA,
        DEEPSEEK2_LAYER,
    )
};

/// phi2's and starcoder2's outside the layers: the output norm with its bias (phi2 adds a
/// required `output` with a bias, [`PHI2_GLOBALS`]).
const NORM_BIAS_TIED: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output_norm.bias", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
];

const PHI2_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output_norm.bias", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
    t("output.bias", &[Vocab], Always),
];

/// phi2's layer (`src/models/phi2.cpp`): one norm before attention and feed-forward, every
/// projection with its bias, no gate.
const PHI2_LAYER: &[&[TensorRule]] = &[
    BIASED_ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
        t("blk.{}.ffn_down.bias", &[Embd], Always),
        t("blk.{}.ffn_up.weight", &[Embd, Ff], Always),
        t("blk.{}.ffn_up.bias", &[Ff], Always),
    ],
];

/// starcoder2's layer (`src/models/starcoder2.cpp`): layer norms with biases, the projections'
/// biases required, no gate.
const STARCODER2_LAYER: &[&[TensorRule]] = &[
    BIASED_ATTN_NORM_AND_OUTPUT,
    &[
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
        t("blk.{}.ffn_norm.bias", &[Embd], Always),
        t("blk.{}.ffn_down.weight", &[Ff, Embd], Always),
        t("blk.{}.ffn_up.weight", &[Embd, Ff], Always),
        t("blk.{}.ffn_down.bias", &[Embd], Always),
        t("blk.{}.ffn_up.bias", &[Ff], Always),
    ],
];

/// stablelm's outside the layers: the output norm's bias and `output` required.
const STABLELM_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.bias", &[Embd], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Always),
];

/// stablelm's layer (`src/models/stablelm.cpp`): the attention norm with its bias, StableLM 2
/// 12B's optional query and key norms, an optional feed-forward norm (absent with its parallel
/// residual), a gated feed-forward. The key norm's `[n_embd_head_k, n_head_kv]` is not checked.
const STABLELM_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_norm.bias", &[Embd], Always),
        t("blk.{}.attn_output.weight", &[Embd, Embd], Always),
        t("blk.{}.attn_q_norm.weight", &[HeadK, Head], Optional),
        t("blk.{}.attn_k_norm.weight", &[], Optional),
        t("blk.{}.ffn_norm.weight", &[Embd], Optional),
        t("blk.{}.ffn_norm.bias", &[Embd], Optional),
    ],
    GATED_FFN,
];

/// deepseek2's layer (`src/models/deepseek2.cpp`): multi-head latent attention (the query
/// compressed through `q_lora_rank` or plain, the key and value through `kv_lora_rank`, split
/// into `attn_k_b` and `attn_v_b` where the file says the MLA lengths, else the older unsplit
/// `attn_kv_b`), the leading dense layers' feed-forward, then experts and shared experts.
const DEEPSEEK2_LAYER: &[&[TensorRule]] = &[
    &[
        t("blk.{}.attn_norm.weight", &[Embd], Always),
        t("blk.{}.attn_q_a_norm.weight", &[QLora], WithQLora),
        t("blk.{}.attn_kv_a_norm.weight", &[KvLora], Always),
        t("blk.{}.attn_q_a.weight", &[Embd, QLora], WithQLora),
        t("blk.{}.attn_q_b.weight", &[QLora, HeadTimesKMla], WithQLora),
        t("blk.{}.attn_q.weight", &[Embd, HeadTimesKMla], WithoutQLora),
        t(
            "blk.{}.attn_kv_a_mqa.weight",
            &[Embd, KvLoraPlusRot],
            Always,
        ),
        t("blk.{}.attn_k_b.weight", &[QkNope, KvLora, Head], Mla),
        t("blk.{}.attn_v_b.weight", &[KvLora, VMla, Head], Mla),
        t(
            "blk.{}.attn_kv_b.weight",
            &[KvLora, HeadTimesNopePlusVMla],
            NotMla,
        ),
        t("blk.{}.attn_output.weight", &[HeadTimesVMla, Embd], Always),
        t("blk.{}.ffn_norm.weight", &[Embd], Always),
    ],
    LEAD_DENSE_FFN,
    &[
        t("blk.{}.ffn_gate_inp.weight", &[Embd, Expert], AfterLead),
        t("blk.{}.exp_probs_b.bias", &[Expert], AfterLeadOptional),
        t(
            "blk.{}.ffn_down_exps.weight",
            &[FfExp, Embd, Expert],
            AfterLead,
        ),
    ],
    GATE_UP_EXPS_FUSABLE,
    SHARED_EXPERTS_AFTER_LEAD,
];

/// A multi-token prediction block's own tensors (`blk.N.nextn.*` in the last
/// `nextn_predict_layers` blocks, beside the block's usual ones), as deepseek2's, glm4moe's and
/// qwen3next's loaders create them: the projection and the two norms with the block, the rest
/// optional.
pub const NEXTN: &[TensorRule] = &[
    t("blk.{}.nextn.eh_proj.weight", &[Embd2, Embd], Always),
    t("blk.{}.nextn.enorm.weight", &[Embd], Always),
    t("blk.{}.nextn.hnorm.weight", &[Embd], Always),
    t("blk.{}.nextn.embed_tokens.weight", &[Embd, Vocab], Optional),
    t(
        "blk.{}.nextn.shared_head_head.weight",
        &[Embd, Vocab],
        Optional,
    ),
    t("blk.{}.nextn.shared_head_norm.weight", &[Embd], Optional),
];

/// deepseek2's keys beyond the common ones (`load_arch_hparams`).
const DEEPSEEK2_KEYS: &[&[KeyRule]] = &[
    &[
        RMS,
        opt("leading_dense_block_count", U32),
        req_unless_lite("attention.q_lora_rank", U32),
        req("attention.kv_lora_rank", U32),
        opt("attention.key_length_mla", U32),
        opt("attention.value_length_mla", U32),
        req("expert_feed_forward_length", KeyType::U32PerLayer),
        req("expert_shared_count", U32),
    ],
    EXPERT_WEIGHTING_KEYS,
    &[
        opt("rope.scaling.yarn_log_multiplier", F32),
        opt("attention.temperature_scale", F32),
        opt("attention.temperature_length", U32),
    ],
];

/// qwen2's output side: `output` tied, with an optional bias.
const TIED_QWEN2: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("output.bias", &[Vocab], Optional),
];

/// qwen3's: `output` tied, an optional reranker head.
const QWEN3_GLOBALS: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
    t("cls.output.weight", &[], Optional),
];

/// `output` tied, no rope factors.
const TIED_NO_ROPE: &[TensorRule] = &[
    t("token_embd.weight", &[Embd, Vocab], Always),
    t("output_norm.weight", &[Embd], Always),
    t("output.weight", &[Embd, Vocab], Optional),
];

/// granite's layer: llama's (its feed-forward dense or experts) without the rope factors' key.
const GRANITE_LAYER: &[&[TensorRule]] = LLAMA_LAYER;

/// The rules of an architecture, `None` for one the table does not have.
pub fn find(name: &str) -> Option<&'static Arch> {
    ARCHS.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_is_one_llama_cpp_loads() {
        for a in ARCHS {
            assert!(
                matches!(
                    crate::releases::architecture(a.name),
                    crate::releases::ArchSupport::Since(_)
                ),
                "{} is not an architecture llama.cpp's releases load",
                a.name
            );
        }
    }

    #[test]
    fn names_are_unique_and_every_layer_tensor_has_its_place() {
        for (i, a) in ARCHS.iter().enumerate() {
            assert!(ARCHS[..i].iter().all(|b| b.name != a.name), "{}", a.name);
            assert!(a.layer_rules().all(|r| r.name.starts_with("blk.{}.")));
            assert!(a.globals.iter().all(|r| !r.name.contains("{}")));
        }
    }

    #[test]
    fn parts_never_repeat_a_tensor_or_a_key() {
        // a part listed twice, or two parts that overlap, would create a tensor or read a key
        // twice, which llama.cpp's loader never does
        for a in ARCHS {
            let names: Vec<&str> = a.layer_rules().map(|r| r.name).collect();
            for (i, name) in names.iter().enumerate() {
                assert!(!names[..i].contains(name), "{}: {name} twice", a.name);
            }
            let keys: Vec<&str> = COMMON_KEYS
                .iter()
                .chain(a.key_rules())
                .map(|k| k.suffix)
                .collect();
            for (i, key) in keys.iter().enumerate() {
                assert!(!keys[..i].contains(key), "{}: {key} twice", a.name);
            }
        }
    }
}
