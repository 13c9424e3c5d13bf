//! The vocabulary the architecture table is written in: the dimensions llama.cpp's loader computes
//! from the hyperparameters, when it requires a tensor, and which keys it reads with which type.
#![forbid(unsafe_code)]

/// A dimension of a tensor as llama.cpp's loader computes it (the names are llama.cpp's locals,
/// see `LLAMA_LOAD_LOCALS` in `src/llama-model.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// `n_embd`: `{arch}.embedding_length`.
    Embd,
    /// `2 * n_embd`: a multi-token prediction block's `nextn.eh_proj` input.
    Embd2,
    /// `n_vocab`: the number of tokens in `tokenizer.ggml.tokens`.
    Vocab,
    /// `n_ff`: the layer's `{arch}.feed_forward_length`.
    Ff,
    /// `2 * n_ff`: phi3's fused gate and up projection.
    Ff2,
    /// `n_expert`: `{arch}.expert_count`.
    Expert,
    /// `n_ff_exp`: an expert's feed-forward length (how each architecture derives it:
    /// [`FfExp`]).
    FfExp,
    /// `n_ff_shexp`: the shared expert's feed-forward length (`{arch}.expert_shared_feed_forward_length`,
    /// else `n_ff` where the architecture says so).
    FfShexp,
    /// `n_embd_head_k * n_head`: the query projection's rows.
    HeadKTimesHeads,
    /// `n_embd_k_gqa = n_embd_head_k * n_head_kv`.
    KGqa,
    /// `n_embd_v_gqa = n_embd_head_v * n_head_kv`.
    VGqa,
    /// `n_embd_head_k`: `{arch}.attention.key_length`, else `n_embd / n_head`.
    HeadK,
    /// `n_head`, and `n_head_kv`.
    Head,
    /// `n_head * n_rot` (gpt-oss's query rows).
    HeadTimesRot,
    /// `n_head_kv * n_rot` (gpt-oss's key and value rows).
    HeadKvTimesRot,
    /// `n_head_kv * (n_embd / n_head)` (olmo2's key norm).
    HeadKvTimesEmbdPerHead,
    /// `n_rot / 2` (rope frequency factors).
    RotHalf,
    /// 1 (a per-tensor scale).
    One,
    /// `q_lora_rank`: `{arch}.attention.q_lora_rank` (deepseek2's compressed query).
    QLora,
    /// `kv_lora_rank`: `{arch}.attention.kv_lora_rank` (deepseek2's compressed key and value).
    KvLora,
    /// `kv_lora_rank + n_rot`: deepseek2's `attn_kv_a_mqa` rows.
    KvLoraPlusRot,
    /// `n_head * n_embd_head_k_mla`: deepseek2's query rows.
    HeadTimesKMla,
    /// `n_embd_head_k_mla - n_rot`: deepseek2's key length without rope.
    QkNope,
    /// `n_embd_head_v_mla`: deepseek2's value length.
    VMla,
    /// `n_head * (n_embd_head_qk_nope + n_embd_head_v_mla)`: deepseek2's `attn_kv_b` rows.
    HeadTimesNopePlusVMla,
    /// `n_head * n_embd_head_v_mla`: deepseek2's `attn_output` columns.
    HeadTimesVMla,
    /// `2 * n_ff_exp`: the experts' gate and up projections fused.
    FfExp2,
    /// `2 * n_embd_head_k * n_head`: qwen3next's query with its gate.
    HeadKTimesHeads2,
    /// `n_embd / n_head / 2`: phimoe's rope factors.
    EmbdPerHeadHalf,
    /// `d_inner`: `ssm.inner_size` (Mamba-2's).
    SsmInner,
    /// `2 * d_inner`: Mamba's `ssm_in` rows.
    SsmInner2,
    /// `dt_rank + 2 * d_state`: Mamba's `ssm_x` rows.
    SsmDtPlus2State,
    /// `d_inner / n_group` and `n_group` (Mamba-2's grouped norm).
    SsmInnerPerGroup,
    SsmGroup,
    /// `2*d_inner + 2*n_group*d_state + n_ssm_head`: Mamba-2's `ssm_in` rows.
    Mamba2InProj,
    /// `d_inner + 2*n_group*d_state`: Mamba-2's convolution channels.
    Mamba2Conv,
    /// `3 * n_embd`: lfm2's convolution input projection.
    Embd3,
    /// lfm2's `shortconv.l_cache`.
    ShortconvCache,
    /// gemma3n's `n_altup` (4, fixed in llama.cpp), `n_altup - 1`, `n_altup * n_altup`.
    Altup,
    AltupMinus1,
    AltupSq,
    /// gemma3n's `laurel_rank` (64, fixed).
    LaurelRank,
    /// gemma3n's `n_embd_altup` (256, fixed), and times the blocks.
    EmbdAltup,
    EmbdAltupTimesLayers,
    /// `ssm.conv_kernel`.
    SsmConv,
    /// `ssm.state_size`: a linear-attention head's key and value length.
    SsmState,
    /// `ssm.time_step_rank`: the linear-attention value heads.
    SsmDtRank,
    /// `2 * ssm.time_step_rank`: qwen3next's `ssm_ba` rows.
    SsmDtRank2,
    /// `value_dim = ssm.state_size * ssm.time_step_rank`.
    SsmValue,
    /// `conv_dim = 2 * key_dim + value_dim`, `key_dim = ssm.state_size * ssm.group_count`.
    SsmConvDim,
    /// `2 * key_dim + 2 * value_dim`: the legacy fused `ssm_in`.
    SsmQkvz,
    /// `n_ff_exp * n_expert_shared`: deepseek2's shared experts.
    FfExpTimesShared,
}

impl Dim {
    /// llama.cpp's name for it, as a message prints it.
    pub fn name(self) -> &'static str {
        match self {
            Dim::Embd => "n_embd",
            Dim::Embd2 => "2*n_embd",
            Dim::Vocab => "n_vocab",
            Dim::Ff => "n_ff",
            Dim::Ff2 => "2*n_ff",
            Dim::Expert => "n_expert",
            Dim::FfExp => "n_ff_exp",
            Dim::FfShexp => "n_ff_shexp",
            Dim::HeadKTimesHeads => "n_embd_head_k*n_head",
            Dim::KGqa => "n_embd_k_gqa",
            Dim::VGqa => "n_embd_v_gqa",
            Dim::HeadK => "n_embd_head_k",
            Dim::Head => "n_head",
            Dim::HeadTimesRot => "n_head*n_rot",
            Dim::HeadKvTimesRot => "n_head_kv*n_rot",
            Dim::HeadKvTimesEmbdPerHead => "n_head_kv*n_embd/n_head",
            Dim::RotHalf => "n_rot/2",
            Dim::One => "1",
            Dim::QLora => "q_lora_rank",
            Dim::KvLora => "kv_lora_rank",
            Dim::KvLoraPlusRot => "kv_lora_rank+n_rot",
            Dim::HeadTimesKMla => "n_head*n_embd_head_k_mla",
            Dim::QkNope => "n_embd_head_qk_nope",
            Dim::VMla => "n_embd_head_v_mla",
            Dim::HeadTimesNopePlusVMla => "n_head*(n_embd_head_qk_nope+n_embd_head_v_mla)",
            Dim::HeadTimesVMla => "n_head*n_embd_head_v_mla",
            Dim::FfExp2 => "2*n_ff_exp",
            Dim::HeadKTimesHeads2 => "2*n_embd_head_k*n_head",
            Dim::EmbdPerHeadHalf => "n_embd/n_head/2",
            Dim::SsmInner => "d_inner",
            Dim::SsmInner2 => "2*d_inner",
            Dim::SsmDtPlus2State => "dt_rank+2*d_state",
            Dim::SsmInnerPerGroup => "d_inner/n_group",
            Dim::SsmGroup => "n_group",
            Dim::Mamba2InProj => "2*d_inner+2*n_group*d_state+n_ssm_head",
            Dim::Mamba2Conv => "d_inner+2*n_group*d_state",
            Dim::Embd3 => "3*n_embd",
            Dim::ShortconvCache => "n_shortconv_l_cache",
            Dim::Altup => "n_altup",
            Dim::AltupMinus1 => "n_altup-1",
            Dim::AltupSq => "n_altup*n_altup",
            Dim::LaurelRank => "laurel_rank",
            Dim::EmbdAltup => "n_embd_altup",
            Dim::EmbdAltupTimesLayers => "n_embd_altup*n_layer",
            Dim::SsmConv => "ssm_d_conv",
            Dim::SsmState => "ssm_d_state",
            Dim::SsmDtRank => "ssm_dt_rank",
            Dim::SsmDtRank2 => "2*ssm_dt_rank",
            Dim::SsmValue => "value_dim",
            Dim::SsmConvDim => "2*key_dim+value_dim",
            Dim::SsmQkvz => "2*key_dim+2*value_dim",
            Dim::FfExpTimesShared => "n_ff_exp*n_expert_shared",
        }
    }
}

/// When the loader requires a tensor (`create_tensor` without `TENSOR_NOT_REQUIRED`, under the
/// architecture's own conditions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Always.
    Always,
    /// Never: the loader takes it when present (biases, tied `output`, rope factors).
    Optional,
    /// When `n_expert == 0` (a dense feed-forward), else not created at all.
    Dense,
    /// When `n_expert > 0`, else not created at all.
    Moe,
    /// Taken when present and `n_expert > 0`.
    MoeOptional,
    /// Taken when present and `n_expert == 0`.
    DenseOptional,
    /// When `n_expert > 0` and `n_ff_shexp > 0` (llama's and granite's shared expert).
    MoeShexp,
    /// When the model has 64 layers or more (command-r's query and key norms).
    Layers64,
    /// Taken when present and `rope.scaling.type` is `longrope` (llama's and granite's
    /// `rope_factors_long`/`_short`).
    LongRopeOptional,
    /// Taken when present and `rope.scaling.type` is not `longrope` (their `rope_freqs`).
    NotLongRopeOptional,
    /// When `q_lora_rank > 0` (deepseek2's compressed query), else not created.
    WithQLora,
    /// When `q_lora_rank == 0` (deepseek2's plain query), else not created.
    WithoutQLora,
    /// When the file has `key_length_mla` and `value_length_mla` (deepseek2's split `attn_k_b`
    /// and `attn_v_b`), else not created.
    Mla,
    /// Without them (deepseek2's older unsplit `attn_kv_b`).
    NotMla,
    /// In the leading dense layers (`layer < leading_dense_block_count`).
    LeadDense,
    /// In the layers after them (deepseek2's experts).
    AfterLead,
    /// Taken when present, in the layers after the leading dense ones.
    AfterLeadOptional,
    /// In the layers after the leading dense ones unless the layer has the fused
    /// `ffn_gate_up_exps` (`create_tensor_gate_up_exps`).
    AfterLeadUnfused,
    /// In the layers after the leading dense ones when `expert_shared_count > 0` (glm4moe's
    /// shared experts).
    AfterLeadShared,
    /// In the layers after the leading dense ones when `n_ff_shexp > 0` (ernie4_5-moe's shared
    /// expert).
    AfterLeadShexp,
    /// In the leading dense layers and the multi-token prediction blocks (exaone-moe's dense
    /// feed-forward).
    LeadDenseOrMtp,
    /// In the layers after the leading dense ones, before the prediction blocks.
    MoeTrunk,
    /// Taken when present in those layers.
    MoeTrunkOptional,
    /// Taken when present in a model without multi-token prediction blocks; with them the
    /// loader refuses it (exaone-moe's `rope_freqs`, created once more, skipped, in each
    /// prediction block: "too many tensors created").
    OptionalWithoutMtp,
    /// In the expert layers of an interleaved model: every `interleave_moe_layer_step`-th
    /// (llama4: `(il + 1) % step == 0`, none when the step is 0).
    Interleaved,
    /// In the other layers of an interleaved model (their dense feed-forward).
    NotInterleaved,
    /// In a hybrid model's linear-attention (recurrent) layers.
    Recurrent,
    /// Taken when present in a hybrid model's recurrent layers.
    RecurrentOptional,
    /// In a hybrid model's attention layers.
    Attention,
    /// Taken when present in a hybrid model's attention layers.
    AttentionOptional,
}

/// One tensor the loader creates. `name` holds `{}` where a per-layer tensor has its layer.
#[derive(Clone, Copy, Debug)]
pub struct TensorRule {
    pub name: &'static str,
    pub shape: &'static [Dim],
    pub need: Need,
}

/// The query, key and value projections as `create_tensor_qkv` creates them: a fused
/// `attn_qkv` of `q + k + v` rows, else the three (required unless `optional`), each with an
/// optional bias.
#[derive(Clone, Copy, Debug)]
pub struct Qkv {
    pub q: Dim,
    pub k: Dim,
    pub v: Dim,
    /// phi3 passes `TENSOR_NOT_REQUIRED` for the separate projections.
    pub optional: bool,
}

/// How an architecture derives `n_ff_exp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FfExp {
    /// `n_ff` (llama's and granite's experts).
    Ff,
    /// `{arch}.expert_feed_forward_length`, else `n_ff / n_expert_used` (qwen2moe, qwen3moe).
    KeyOrFfPerUsed,
    /// `{arch}.expert_feed_forward_length` (required by gpt-oss).
    Key,
}

/// How an architecture derives `n_ff_shexp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FfShexp {
    /// `{arch}.expert_shared_feed_forward_length`, else 0 (no shared expert).
    KeyOrNone,
    /// `{arch}.expert_shared_feed_forward_length`, else `n_ff` (qwen2moe).
    KeyOrFf,
    /// `{arch}.expert_shared_feed_forward_length`, else `n_ff_exp` (exaone-moe).
    KeyOrFfExp,
}

/// Whether an architecture has experts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Experts {
    /// Never (its loader creates no expert tensors).
    None,
    /// When `{arch}.expert_count` says so (llama is Mixtral too, granite is granitemoe's base).
    Optional,
    /// Always: the loader throws (or asserts) when `n_expert` or `n_expert_used` is 0.
    Required,
    /// In the layers after the leading dense ones: the loader throws when one of them would have
    /// no experts (deepseek2; a model all of whose layers are dense needs none).
    RequiredAfterLead,
}

/// The type llama.cpp's `get_key` insists on (`key ... has wrong type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyType {
    U32,
    F32,
    /// A `u32`, or an array of one per layer (`get_key_or_arr`).
    U32PerLayer,
    /// An `f32`, or an array of one `f32` per layer (`get_key_or_arr`).
    F32PerLayer,
    Bool,
    Str,
    /// `rope.dimension_sections`: an array of exactly 4 (i32, u32 or bool), or one i32 for all
    /// four (`get_key_or_arr` into `std::array<int, 4>`).
    Sections,
}

impl KeyType {
    pub fn name(self) -> &'static str {
        match self {
            KeyType::U32 => "u32",
            KeyType::F32 => "f32",
            KeyType::U32PerLayer => "u32 or an array of one per layer",
            KeyType::F32PerLayer => "f32 or an array of one f32 per layer",
            KeyType::Bool => "bool",
            KeyType::Str => "string",
            KeyType::Sections => "an array of 4 i32 (or one i32)",
        }
    }
}

/// A key `{arch}.{suffix}` the loader reads.
#[derive(Clone, Copy, Debug)]
pub struct KeyRule {
    pub suffix: &'static str,
    pub ty: KeyType,
    pub required: bool,
    /// Not required of deepseek2's "lite" models (26 or 27 layers, or 48 with a vocabulary of
    /// 128256 tokens), which have no compressed query.
    pub unless_lite: bool,
    /// The key is `suffix` itself, without the architecture's prefix (apertus's `xielu.*`).
    pub unprefixed: bool,
}

impl KeyRule {
    /// The key's full name in a file of architecture `arch`.
    pub fn key(&self, arch: &str) -> String {
        if self.unprefixed {
            self.suffix.to_string()
        } else {
            format!("{arch}.{}", self.suffix)
        }
    }
}

/// One architecture's loader rules, from its `load_arch_hparams` and `load_arch_tensors` in
/// llama.cpp's `src/models/<arch>.cpp`.
#[derive(Clone, Copy, Debug)]
pub struct Arch {
    /// `general.architecture`.
    pub name: &'static str,
    /// The keys it reads beyond the ones every architecture reads ([`super::archs::COMMON_KEYS`]),
    /// in its order: a list of parts read one after the other ([`Arch::key_rules`]).
    pub keys: &'static [&'static [KeyRule]],
    /// Tensors outside the layers, in the loader's order.
    pub globals: &'static [TensorRule],
    /// Each layer's attention projections as `create_tensor_qkv` makes them; `None` where the
    /// layer's rules list them (deepseek2's compressed attention).
    pub qkv: Option<Qkv>,
    /// Each layer's other tensors, in the loader's order: a list of parts (shared sub-lists such
    /// as a gated feed-forward), read one after the other ([`Arch::layer_rules`]).
    pub layer: &'static [&'static [TensorRule]],
    pub experts: Experts,
    pub ff_exp: FfExp,
    pub ff_shexp: FfShexp,
    /// The loader throws `invalid n_rot` unless `rope.dimension_count` equals `n_embd_head_k`.
    pub rot_is_head_k: bool,
    /// Multi-head latent attention (deepseek2): the loader asserts a key length without rope of
    /// at least 1 (`n_embd_head_k_mla > n_rot`).
    pub mla: bool,
    /// The loader takes an `expert_count` of 1 for none, and then ignores `expert_used_count`
    /// (hunyuan-dense, hunyuan_vl: `load_hparams`).
    pub one_expert_is_none: bool,
    /// The loader asserts `ssm.inner_size` is twice `embedding_length` (granitehybrid, mamba).
    pub inner_is_twice_embd: bool,
    /// Whether the loader creates the last `nextn_predict_layers` blocks (multi-token
    /// prediction) too.
    pub mtp: Mtp,
    /// A multi-token prediction block's own tensors, beside the block's usual ones.
    pub nextn: &'static [TensorRule],
    /// Which layers are recurrent (linear attention, convolution) rather than attention;
    /// [`Arch::qkv`] is created in the attention layers only.
    pub hybrid: Hybrid,
}

impl Arch {
    /// The keys it reads beyond the common ones, its parts flattened, in the loader's order.
    pub fn key_rules(&self) -> impl Iterator<Item = &'static KeyRule> {
        self.keys.iter().flat_map(|part| part.iter())
    }

    /// Each layer's tensors beyond [`Arch::qkv`], its parts flattened, in the loader's order.
    pub fn layer_rules(&self) -> impl Iterator<Item = &'static TensorRule> {
        self.layer.iter().flat_map(|part| part.iter())
    }
}

/// How a hybrid architecture's loader tells its recurrent layers from its attention layers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hybrid {
    /// Every layer is attention.
    None,
    /// qwen3next, qwen35: `attention.recurrent_layers`, else all but every
    /// `full_attention_interval`-th layer of the trunk.
    Interval,
    /// lfm2, granitehybrid: the layers whose `attention.head_count_kv` is 0 (one per layer, or
    /// one for all).
    NoKvHeads,
}

/// How the loader treats the last `nextn_predict_layers` blocks, the multi-token prediction
/// blocks. Where it creates them it skips them (llama.cpp does not load them by default): their
/// separate query, key and value projections (`create_tensor_qkv` under `TENSOR_SKIP`) are
/// optional, and the scales of their weights are left unused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mtp {
    /// It creates only the blocks before them and leaves their tensors unused.
    None,
    /// deepseek2, glm4moe: it creates them, each with [`Arch::nextn`]; the trunk's
    /// blocks are required only when the file has `blk.0.attn_norm`, the prediction blocks only
    /// when it has `blk.{first}.nextn.eh_proj`.
    Probed,
    /// qwen3next: as [`Mtp::Probed`], but the prediction blocks are required whatever the file
    /// holds.
    Required,
    /// exaone4: every block required, the trunk's and the prediction blocks'.
    Always,
}

/// A required key.
pub const fn req(suffix: &'static str, ty: KeyType) -> KeyRule {
    KeyRule {
        suffix,
        ty,
        required: true,
        unless_lite: false,
        unprefixed: false,
    }
}

/// A required key without the architecture's prefix.
pub const fn req_unprefixed(suffix: &'static str, ty: KeyType) -> KeyRule {
    KeyRule {
        suffix,
        ty,
        required: true,
        unless_lite: false,
        unprefixed: true,
    }
}

/// A key required except of deepseek2's lite models.
pub const fn req_unless_lite(suffix: &'static str, ty: KeyType) -> KeyRule {
    KeyRule {
        suffix,
        ty,
        required: true,
        unless_lite: true,
        unprefixed: false,
    }
}

/// A key read when present.
pub const fn opt(suffix: &'static str, ty: KeyType) -> KeyRule {
    KeyRule {
        suffix,
        ty,
        required: false,
        unless_lite: false,
        unprefixed: false,
    }
}

/// A tensor rule.
pub const fn t(name: &'static str, shape: &'static [Dim], need: Need) -> TensorRule {
    TensorRule { name, shape, need }
}
