//! Will llama.cpp load it: each architecture's loader rules (the keys `load_hparams` reads with
//! their types, the tensors `load_arch_tensors` creates with the shapes it computes from the
//! hyperparameters, the vocabulary `llama_vocab::load` needs), checked as the loader checks them.
//! A file the loader refuses is an error naming the key or tensor, what the file holds and what
//! the loader expects; the table is in [`archs`], the rule written once here.
#![forbid(unsafe_code)]

pub mod archs;
mod hparams;
pub mod table;
mod vocab;

use super::{Finding, Severity};
use crate::Gguf;
use hparams::{Hparams, KeyProblem};
use table::{Arch, Experts, Hybrid, Mtp, Need, TensorRule};

/// `LLAMA_MAX_LAYERS` and `LLAMA_MAX_EXPERTS` (`src/llama-hparams.h`).
const MAX_LAYERS: u64 = 512;
const MAX_EXPERTS: u64 = 1024;

/// The loader's rules for `g`: nothing for a file without tensors (a vocabulary), a note for an
/// architecture not in the table.
pub(super) fn audit_loader(g: &Gguf<'_>, out: &mut Vec<Finding>) {
    if g.tensor_count() == 0 {
        return; // a vocabulary-only file
    }
    check(g, out, false);
}

/// The tensors llama.cpp's loader requires of a file with `g`'s architecture, hyperparameters
/// and vocabulary (whatever tensors `g` holds), with the shapes it computes, in its order: what
/// a file must hold to load. `None` for an architecture not in the table or hyperparameters the
/// loader rejects.
pub fn required_tensors(g: &Gguf<'_>) -> Option<Vec<(String, Vec<u64>)>> {
    loader_tensors(g).map(|t| t.required)
}

/// The tensors llama.cpp's loader takes when present (biases, an untied `output`, rope factors
/// where the scaling uses them...) of a file with `g`'s architecture and hyperparameters, with
/// their shapes, in its order; not the alternatives that replace required tensors (a fused
/// `attn_qkv`, `ffn_gate_up_exps`) nor tensors whose shape the table does not check. `None` as
/// for [`required_tensors`].
pub fn optional_tensors(g: &Gguf<'_>) -> Option<Vec<(String, Vec<u64>)>> {
    loader_tensors(g).map(|t| t.optional)
}

/// What a file of given hyperparameters holds: the tensors the loader requires, and those it
/// takes when present.
struct LoaderTensors {
    required: Vec<(String, Vec<u64>)>,
    optional: Vec<(String, Vec<u64>)>,
}

fn loader_tensors(g: &Gguf<'_>) -> Option<LoaderTensors> {
    let mut out = Vec::new();
    let wanted = check(g, &mut out, true)?;
    let rejected = out.iter().any(|f| {
        matches!(
            f.rule,
            "model.missing-key" | "model.key-type" | "model.hparams"
        ) || f.rule.starts_with("tokenizer.")
    });
    (!rejected).then_some(wanted)
}

/// The findings of `g`, and the tensors its hyperparameters require (`None` for an architecture
/// not in the table); `with_trunk`: as of a file that holds the blocks before the multi-token
/// prediction ones, whatever `g` holds (what a generated model must have).
fn check(g: &Gguf<'_>, out: &mut Vec<Finding>, with_trunk: bool) -> Option<LoaderTensors> {
    let name = g.architecture()?;
    let arch_kv = g.get_kv("general.architecture").map_or(0, |kv| kv.offset);
    let Some(arch) = archs::find(name) else {
        out.push(Finding::new(
            "model.unknown-arch",
            Severity::Note,
            "general.architecture",
            arch_kv,
            format!("architecture `{name}` is not one the audit knows; shapes not checked"),
        ));
        return None;
    };
    let key_offset = |key: &str| g.get_kv(key).map_or(arch_kv, |kv| kv.offset);
    let error =
        |out: &mut Vec<Finding>, rule: &'static str, subject: &str, offset: u64, msg: String| {
            out.push(Finding::new(rule, Severity::Error, subject, offset, msg));
        };
    let keys = archs::COMMON_KEYS.iter().chain(arch.key_rules());
    let n_vocab = vocab::audit_vocab(g, arch_kv, out);
    let mut key_findings = Vec::new();
    let h = hparams::read(g, arch, keys, n_vocab, |key, problem| {
        let (rule, msg) = match problem {
            KeyProblem::Missing => (
                "model.missing-key",
                format!(
                    "llama.cpp's {} loader requires {key} (key not found in model)",
                    arch.name
                ),
            ),
            KeyProblem::WrongType(msg) => ("model.key-type", msg),
        };
        key_findings.push(Finding::new(
            rule,
            Severity::Error,
            &key,
            key_offset(&key),
            msg,
        ));
    });
    if !key_findings.is_empty() {
        // the loader stops at the first key it rejects: no shape can be computed
        out.extend(key_findings);
        return None;
    }
    let bc_key = format!("{}.block_count", arch.name);
    if g.get_kv(&bc_key).is_some() && !(1..=MAX_LAYERS).contains(&h.n_layer) {
        let msg = format!(
            "block_count {} is outside 1..={MAX_LAYERS} (llama.cpp aborts)",
            h.n_layer
        );
        error(out, "model.hparams", &bc_key, key_offset(&bc_key), msg);
        return None;
    }
    if h.n_nextn > h.n_layer {
        let key = format!("{}.nextn_predict_layers", arch.name);
        let msg = format!(
            "nextn_predict_layers {} is more than block_count {} (llama.cpp asserts n_layer_nextn <= n_layer_all and aborts)",
            h.n_nextn, h.n_layer
        );
        error(out, "model.hparams", &key, key_offset(&key), msg);
        return None;
    }
    if arch.hybrid == Hybrid::Interval && h.attn_interval == Some(0) {
        let key = format!("{}.full_attention_interval", arch.name);
        let msg = "full_attention_interval 0: llama.cpp divides by it (a crash)".to_string();
        error(out, "model.hparams", &key, key_offset(&key), msg);
        return None;
    }
    if arch.inner_is_twice_embd && h.ssm_inner != h.n_embd.saturating_mul(2) {
        let key = format!("{}.ssm.inner_size", arch.name);
        let msg = format!(
            "ssm.inner_size {} is not twice embedding_length {}: llama.cpp's {} loader supports only an expansion factor of 2 (it refuses or aborts)",
            h.ssm_inner, h.n_embd, arch.name
        );
        error(out, "model.hparams", &key, key_offset(&key), msg);
        return None;
    }
    if let Some(f) = expert_problem(arch, &h) {
        let key = format!("{}.{}", arch.name, f.0);
        error(out, "model.hparams", &key, key_offset(&key), f.1);
    }
    if arch.mla && h.n_head > 0 && h.qk_nope() < 1 {
        let key = format!("{}.rope.dimension_count", arch.name);
        let msg = format!(
            "n_embd_head_qk_nope = {} - {} is not at least 1: the key length ({}) must exceed rope.dimension_count (llama.cpp aborts)",
            h.k_mla, h.n_rot, if h.is_mla { "key_length_mla" } else { "key_length" }
        );
        error(out, "model.hparams", &key, key_offset(&key), msg);
        return None;
    }
    if arch.rot_is_head_k && h.n_head > 0 && h.n_rot != h.head_k {
        let key = format!("{}.rope.dimension_count", arch.name);
        let msg = format!(
            "invalid n_rot: {}, expected {} (n_embd_head_k)",
            h.n_rot, h.head_k
        );
        error(out, "model.hparams", &key, key_offset(&key), msg);
    }
    Some(audit_tensors(g, arch, &h, arch_kv, with_trunk, out))
}

/// The expert counts the loader asserts or throws on: (key suffix, message).
fn expert_problem(arch: &Arch, h: &Hparams) -> Option<(&'static str, String)> {
    let (n, used) = (h.n_expert, h.n_expert_used);
    if n > MAX_EXPERTS {
        return Some((
            "expert_count",
            format!("expert_count {n} is over {MAX_EXPERTS} (llama.cpp aborts)"),
        ));
    }
    if used > n {
        return Some((
            "expert_used_count",
            format!("expert_used_count {used} is over expert_count {n} (llama.cpp aborts)"),
        ));
    }
    if n > 0 && used == 0 {
        return Some((
            "expert_used_count",
            format!("{n} experts but expert_used_count is 0 or absent (llama.cpp aborts)"),
        ));
    }
    // deepseek2's leading dense layers need no experts: it throws when a layer after them has none
    // exaone-moe's prediction blocks are dense: only the trunk's layers have experts
    let moe_end = if arch.layer_rules().any(|r| r.need == Need::MoeTrunk) {
        h.trunk()
    } else {
        h.n_layer
    };
    let needed = match arch.experts {
        Experts::Required => true,
        Experts::RequiredAfterLead => h.n_dense_lead < moe_end,
        Experts::None | Experts::Optional => false,
    };
    if needed && n == 0 {
        return Some((
            "expert_count",
            format!("llama.cpp's {} loader needs expert_count > 0", arch.name),
        ));
    }
    None
}

/// Whether the loader creates (`Some(required)`) a tensor of this rule in layer `layer` (`None`
/// outside the layers), given the counts; `fused`: the layer has `ffn_gate_up_exps`.
fn created(need: Need, arch: &Arch, h: &Hparams, layer: Option<u64>, fused: bool) -> Option<bool> {
    let moe = h.n_expert > 0 && arch.experts != Experts::None;
    let lead = layer.is_some_and(|il| il < h.n_dense_lead);
    let recurrent = layer.is_some_and(|il| h.is_recurrent(il));
    let mtp_block = layer.is_some_and(|il| il >= h.trunk());
    let interleaved = layer.is_some_and(|il| h.n_moe_step > 0 && (il + 1) % h.n_moe_step == 0);
    match need {
        Need::Always => Some(true),
        Need::Optional => Some(false),
        Need::Dense => (!moe).then_some(true),
        Need::DenseOptional => (!moe).then_some(false),
        Need::Moe => moe.then_some(true),
        Need::MoeOptional => moe.then_some(false),
        Need::MoeShexp => (moe && h.n_ff_shexp > 0).then_some(true),
        Need::Layers64 => (h.n_layer >= 64).then_some(true),
        Need::LongRopeOptional => h.longrope.then_some(false),
        Need::NotLongRopeOptional => (!h.longrope).then_some(false),
        Need::WithQLora => (h.n_lora_q > 0).then_some(true),
        Need::WithoutQLora => (h.n_lora_q == 0).then_some(true),
        Need::Mla => h.is_mla.then_some(true),
        Need::NotMla => (!h.is_mla).then_some(true),
        Need::LeadDense => lead.then_some(true),
        Need::AfterLead => (!lead).then_some(true),
        Need::AfterLeadOptional => (!lead).then_some(false),
        Need::AfterLeadUnfused => (!lead && !fused).then_some(true),
        Need::AfterLeadShared => (!lead && h.n_expert_shared > 0).then_some(true),
        Need::AfterLeadShexp => (!lead && h.n_ff_shexp > 0).then_some(true),
        Need::LeadDenseOrMtp => (lead || mtp_block).then_some(true),
        Need::MoeTrunk => (!lead && !mtp_block).then_some(true),
        Need::MoeTrunkOptional => (!lead && !mtp_block).then_some(false),
        Need::OptionalWithoutMtp => (h.n_nextn == 0).then_some(false),
        Need::Interleaved => interleaved.then_some(true),
        Need::NotInterleaved => (!interleaved).then_some(true),
        Need::Recurrent => recurrent.then_some(true),
        Need::RecurrentOptional => recurrent.then_some(false),
        Need::Attention => (!recurrent).then_some(true),
        Need::AttentionOptional => (!recurrent).then_some(false),
    }
}

/// A shape as llama.cpp prints it.
fn shape_text(dims: &[u64]) -> String {
    let d: Vec<String> = dims.iter().map(u64::to_string).collect();
    format!("[{}]", d.join(", "))
}

/// Expected and found agree as `llama_model_loader::check_tensor_dims` compares them: each
/// expected dimension, and 1 beyond.
fn same_shape(expected: &[u64], found: &[u64]) -> bool {
    (0..4).all(|i| {
        let e = expected.get(i).copied().unwrap_or(1);
        let f = found.get(i).copied().unwrap_or(1);
        e == f
    })
}

/// One tensor the loader creates, checked; `seen` marks the file's tensors it takes.
struct Check<'g, 'a> {
    g: &'g Gguf<'a>,
    arch: &'g Arch,
    h: &'g Hparams,
    seen: Vec<bool>,
    /// Per rule name: the first missing tensor, how many more layers lack it, the message.
    missing: Vec<(String, String, u64, String)>,
    /// Every tensor a file of these hyperparameters holds (required ones, and the separate
    /// attention projections), with its shape, in the loader's order.
    wanted: Vec<(String, Vec<u64>)>,
    /// The optional tensors of checked shape, outside the alternatives.
    optional: Vec<(String, Vec<u64>)>,
    /// Whether the block being checked is required at all: with `nextn_predict_layers`, the
    /// loader makes the trunk's blocks optional when the file has none of them (`blk.0.attn_norm`
    /// absent) and the prediction blocks optional when it has none of those
    /// (`blk.{trunk}.nextn.eh_proj` absent).
    block_required: bool,
    /// The block being checked (`None` outside the blocks).
    layer: Option<u64>,
    /// Whether the block being checked is a multi-token prediction block, which the loader
    /// creates under `TENSOR_SKIP`: its separate q/k/v are optional.
    skipped: bool,
}

impl Check<'_, '_> {
    fn take(&mut self, name: &str) -> Option<usize> {
        let i = self.g.tensor_index(name)?;
        self.seen[i] = true;
        Some(i)
    }

    fn tensor(
        &mut self,
        rule_name: &str,
        name: &str,
        dims: &[table::Dim],
        required: bool,
        out: &mut Vec<Finding>,
    ) -> bool {
        let required = required && self.block_required;
        let expected: Vec<u64> = dims.iter().map(|&d| self.h.dim_in(d, self.layer)).collect();
        let formula: Vec<&str> = dims.iter().map(|d| d.name()).collect();
        if required || (rule_name == "blk.{}.attn_qkv" && self.block_required && !self.skipped) {
            self.wanted.push((name.to_string(), expected.clone()));
        } else if !dims.is_empty()
            && !matches!(
                rule_name,
                "blk.{}.attn_qkv.weight" | "blk.{}.ffn_gate_up_exps.weight" | "scale"
            )
        {
            self.optional.push((name.to_string(), expected.clone()));
        }
        let Some(i) = self.take(name) else {
            if required {
                if let Some(m) = self.missing.iter_mut().find(|m| m.0 == rule_name) {
                    m.2 += 1;
                } else {
                    let msg = format!(
                        "missing tensor '{name}': llama.cpp's {} loader requires it, of shape {} ([{}])",
                        self.arch.name,
                        shape_text(&expected),
                        formula.join(", ")
                    );
                    self.missing
                        .push((rule_name.to_string(), name.to_string(), 0, msg));
                }
            }
            return false;
        };
        let Some(t) = self.g.tensor_at(i) else {
            return true;
        };
        if !dims.is_empty() && !same_shape(&expected, t.shape()) {
            out.push(Finding::new(
                "model.tensor-shape",
                Severity::Error,
                name,
                t.info_offset(),
                format!(
                    "tensor '{name}' has wrong shape; expected {} ([{}]), got {}",
                    shape_text(&expected),
                    formula.join(", "),
                    shape_text(t.shape())
                ),
            ));
        }
        true
    }

    fn rule(&mut self, r: &TensorRule, layer: Option<u64>, out: &mut Vec<Finding>) {
        let fused = r.need == Need::AfterLeadUnfused
            && layer.is_some_and(|il| {
                self.g
                    .tensor_index(&format!("blk.{il}.ffn_gate_up_exps.weight"))
                    .is_some()
            });
        let Some(required) = created(r.need, self.arch, self.h, layer, fused) else {
            return;
        };
        let name = match layer {
            Some(i) => r.name.replacen("{}", &i.to_string(), 1),
            None => r.name.to_string(),
        };
        self.tensor(r.name, &name, r.shape, required, out);
    }
}

/// Every tensor the loader creates, in its order, then the ones it would leave unused; returns
/// the tensors a file of these hyperparameters holds.
fn audit_tensors(
    g: &Gguf<'_>,
    arch: &Arch,
    h: &Hparams,
    arch_kv: u64,
    with_trunk: bool,
    out: &mut Vec<Finding>,
) -> LoaderTensors {
    let mut c = Check {
        g,
        arch,
        h,
        seen: vec![false; g.tensor_count()],
        missing: Vec::new(),
        wanted: Vec::new(),
        optional: Vec::new(),
        block_required: true,
        skipped: false,
        layer: None,
    };
    for r in arch.globals {
        c.rule(r, None, out);
    }
    // with multi-token prediction blocks: the trunk's blocks, then (where the architecture has
    // them) the prediction blocks, each group required only when the file has its first tensor
    // (a file of the prediction blocks alone, or of the trunk alone)
    let trunk = h.trunk();
    let has = |name: String| g.tensor_index(&name).is_some();
    let trunk_required = matches!(arch.mtp, Mtp::None | Mtp::Always)
        || h.n_nextn == 0
        || with_trunk
        || has("blk.0.attn_norm.weight".into());
    let mtp_required = matches!(arch.mtp, Mtp::Required | Mtp::Always)
        || has(format!("blk.{trunk}.nextn.eh_proj.weight"));
    let blocks = if arch.mtp == Mtp::None {
        trunk
    } else {
        h.n_layer
    };
    for il in 0..blocks {
        c.block_required = if il < trunk {
            trunk_required
        } else {
            mtp_required
        };
        c.skipped = il >= trunk;
        c.layer = Some(il);
        if let Some(q) = arch.qkv.filter(|_| !h.is_recurrent(il)) {
            qkv(&mut c, q, il, out);
        }
        for r in arch.layer_rules() {
            c.rule(r, Some(il), out);
        }
        if il >= trunk {
            for r in arch.nextn {
                c.rule(r, Some(il), out);
            }
        }
    }
    c.block_required = true;
    c.skipped = false;
    c.layer = None;
    scales(&mut c, out);
    report(c, h, arch, arch_kv, out)
}

/// The weights whose per-tensor `.scale` and `.input_scale` the loader's generic pass takes when
/// it created the weight (`llama_model_base::load_tensors`, e.g. NVFP4's second scale); the
/// experts' are one per expert.
const SCALED: &[&str] = &[
    "attn_q",
    "attn_k",
    "attn_v",
    "attn_output",
    "attn_qkv",
    "attn_gate",
    "ffn_gate",
    "ffn_down",
    "ffn_up",
    "ffn_gate_shexp",
    "ffn_down_shexp",
    "ffn_up_shexp",
    "ffn_gate_exps",
    "ffn_down_exps",
    "ffn_up_exps",
    "ssm_in",
    "ssm_out",
    "ssm_alpha",
    "ssm_beta",
    "nextn.eh_proj",
    "nextn.shared_head_head",
];

/// The generic pass: the scales of the weights the loader took (a scale of any other tensor is
/// left unused, which the loader refuses), and `output`'s when it is NVFP4.
fn scales(c: &mut Check<'_, '_>, out: &mut Vec<Finding>) {
    let g = c.g;
    let taken = |c: &Check<'_, '_>, name: &str| g.tensor_index(name).is_some_and(|i| c.seen[i]);
    // the multi-token prediction blocks' weights are skipped, not loaded: their scales unused
    for il in 0..c.h.trunk() {
        for base in SCALED {
            if !taken(c, &format!("blk.{il}.{base}.weight")) {
                continue;
            }
            let dims: &[table::Dim] = if base.ends_with("_exps") {
                &[table::Dim::Expert]
            } else {
                &[table::Dim::One]
            };
            for suffix in ["scale", "input_scale"] {
                c.tensor(
                    "scale",
                    &format!("blk.{il}.{base}.{suffix}"),
                    dims,
                    false,
                    out,
                );
            }
        }
    }
    let output = ["output.weight", "token_embd.weight"]
        .into_iter()
        .find_map(|n| g.tensor_index(n).filter(|&i| c.seen[i]))
        .and_then(|i| g.tensor_at(i));
    if output.is_some_and(|t| t.ggml_type().is_ok_and(|ty| ty == crate::GgmlType::NVFP4)) {
        for name in ["output.scale", "output.input_scale"] {
            c.tensor("scale", name, &[table::Dim::One], false, out);
        }
    }
}

/// A layer's attention projections as `create_tensor_qkv` creates them: fused, else the three,
/// each with its optional bias.
fn qkv(c: &mut Check<'_, '_>, q: table::Qkv, il: u64, out: &mut Vec<Finding>) {
    let h = c.h;
    let g = c.g;
    let blk = |s: &str| format!("blk.{il}.{s}");
    if c.tensor(
        "blk.{}.attn_qkv.weight",
        &blk("attn_qkv.weight"),
        &[table::Dim::Embd],
        false,
        &mut Vec::new(),
    ) {
        // fused: its rows are q + k + v
        let at = Some(il);
        let rows = h
            .dim_in(q.q, at)
            .saturating_add(h.dim_in(q.k, at))
            .saturating_add(h.dim_in(q.v, at));
        check_fused(g, &blk("attn_qkv.weight"), h.n_embd, rows, out);
        c.take(&blk("attn_qkv.bias"));
    } else {
        for (part, d) in [("q", q.q), ("k", q.k), ("v", q.v)] {
            c.tensor(
                "blk.{}.attn_qkv",
                &blk(&format!("attn_{part}.weight")),
                &[table::Dim::Embd, d],
                !q.optional && !c.skipped,
                out,
            );
        }
    }
    for (part, d) in [("q", q.q), ("k", q.k), ("v", q.v)] {
        c.tensor(
            "blk.{}.attn_b",
            &blk(&format!("attn_{part}.bias")),
            &[d],
            false,
            out,
        );
    }
}

/// The missing tensors (each once), those the loader leaves unused, and the tensors a file of
/// these hyperparameters holds.
fn report(
    c: Check<'_, '_>,
    h: &Hparams,
    arch: &Arch,
    arch_kv: u64,
    out: &mut Vec<Finding>,
) -> LoaderTensors {
    let g = c.g;
    // each missing tensor once, with how many more layers lack the same one
    for (_, name, more, msg) in &c.missing {
        let msg = if *more > 0 {
            format!("{msg} (and {more} more layers lack it)")
        } else {
            msg.clone()
        };
        out.push(Finding::new(
            "model.missing-tensor",
            Severity::Error,
            name,
            arch_kv,
            msg,
        ));
    }
    let mut beyond = None;
    let mut unused = Vec::new();
    for (i, t) in g.tensors().enumerate() {
        if c.seen[i] {
            continue;
        }
        let name = t.name();
        let layer = name
            .strip_prefix("blk.")
            .and_then(|r| r.split('.').next())
            .and_then(|n| n.parse::<u64>().ok());
        let blocks = if arch.mtp == Mtp::None {
            h.trunk()
        } else {
            h.n_layer
        };
        match layer {
            Some(n) if n >= blocks => beyond = Some(beyond.map_or(n, |b: u64| b.max(n))),
            _ => unused.push((name.to_string(), t.info_offset())),
        }
    }
    if let Some(last) = beyond {
        let (key, msg) = if h.n_nextn > 0 && last < h.n_layer {
            (
                format!("{}.nextn_predict_layers", arch.name),
                format!(
                    "nextn_predict_layers {}: llama.cpp's {} loader creates only the first {} of the {} blocks (it has no multi-token prediction blocks), and leaves the tensors of blocks up to blk.{last} unused (wrong number of tensors)",
                    h.n_nextn, arch.name, h.trunk(), h.n_layer
                ),
            )
        } else {
            (
                format!("{}.block_count", arch.name),
                format!(
                    "block_count {} but the file has tensors of blocks up to blk.{last}, which the loader leaves unused (wrong number of tensors)",
                    h.n_layer
                ),
            )
        };
        out.push(Finding::new(
            "model.block-count",
            Severity::Error,
            &key,
            g.get_kv(&key)
                .or_else(|| g.get_kv(&format!("{}.block_count", arch.name)))
                .map_or(0, |kv| kv.offset),
            msg,
        ));
    }
    if let Some((first, offset)) = unused.first() {
        let more = unused.len() - 1;
        let nor = if more > 0 {
            format!(" (nor {more} more)")
        } else {
            String::new()
        };
        let counted_twice = arch
            .globals
            .iter()
            .any(|r| r.name == first && r.need == Need::OptionalWithoutMtp);
        let msg = if counted_twice {
            format!(
                "'{first}' beside nextn_predict_layers {}: llama.cpp's {} loader counts it once more in each prediction block and refuses the file (too many tensors created){nor}",
                h.n_nextn, arch.name
            )
        } else {
            format!(
                "llama.cpp's {} loader does not create '{first}'{nor}: it refuses a file with tensors it leaves unused (wrong number of tensors)",
                arch.name
            )
        };
        out.push(Finding::new(
            "model.unused-tensor",
            Severity::Error,
            first,
            *offset,
            msg,
        ));
    }
    LoaderTensors {
        required: c.wanted,
        optional: c.optional,
    }
}

/// A fused `attn_qkv.weight` against `[n_embd, q + k + v]`.
fn check_fused(g: &Gguf<'_>, name: &str, n_embd: u64, rows: u64, out: &mut Vec<Finding>) {
    let Some(t) = g.tensor(name) else { return };
    if !same_shape(&[n_embd, rows], t.shape()) {
        out.push(Finding::new(
            "model.tensor-shape",
            Severity::Error,
            name,
            t.info_offset(),
            format!(
                "tensor '{name}' has wrong shape; expected {} ([n_embd, q+k+v rows]), got {}",
                shape_text(&[n_embd, rows]),
                shape_text(t.shape())
            ),
        ));
    }
}
