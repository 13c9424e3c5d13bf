//! The audit's loader rules against llama.cpp itself: a tiny valid model of every architecture
//! of the table (`ggufkit_testkit::models`, our writer) and mutants of each (a required tensor
//! dropped, a shape off by one, `head_count_kv` changed, the vocabulary and the embedding rows
//! disagreeing, a required key removed, a key of the wrong type, a type id unknown to the
//! release), each loaded fully by node-llama-cpp's prebuilt llama.cpp. The audit must say "won't
//! load" (an error) exactly when llama.cpp refuses, and name the tensor or key llama.cpp names.
//! The table of every case is printed; llama.cpp's answers are cached by file hash.

use std::path::PathBuf;

use ggufkit::audit::loader::archs::ARCHS;
use ggufkit::audit::loader::table::{Experts, KeyType, Mtp};
use ggufkit::audit::{audit, Finding, Severity};
use ggufkit::{GgmlType, Gguf, OwnedValue};
use ggufkit_testkit::models::{metadata, optional_for, tensors_for, write, Tensor};

/// One generated file: its name, bytes.
struct Case {
    name: String,
    bytes: Vec<u8>,
}

/// Patches the type id of the tensor `name` in a written file to `id`.
fn with_type_id(bytes: &[u8], name: &str, id: u32) -> Vec<u8> {
    let g = Gguf::from_bytes(bytes).unwrap();
    let t = g.tensor(name).unwrap();
    // the info: name length (u64), name, n_dims (u32), dims (u64 each), type (u32), offset
    let at = t.info_offset() as usize + 8 + name.len() + 4 + 8 * t.shape().len();
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&id.to_le_bytes());
    out
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    type Tweaks = Vec<(&'static str, OwnedValue)>;
    let mut variants: Vec<(String, &str, bool, Tweaks)> = ARCHS
        .iter()
        .map(|a| (a.name.to_string(), a.name, false, Vec::new()))
        .collect();
    variants.push(("llama-moe".into(), "llama", true, Vec::new()));
    variants.push(("mistral3-moe".into(), "mistral3", true, Vec::new()));
    variants.push(("granitemoe-moe".into(), "granitemoe", true, Vec::new()));
    variants.push((
        "granitemoe-shexp".into(),
        "granitemoe",
        true,
        vec![("granitemoe.expert_shared_feed_forward_length", 32u32.into())],
    ));
    // glm4moe with its last block a multi-token prediction block, and without shared experts
    variants.push((
        "glm4moe-nextn".into(),
        "glm4moe",
        false,
        vec![("glm4moe.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "glm4moe-noshexp".into(),
        "glm4moe",
        false,
        vec![("glm4moe.expert_shared_count", 0u32.into())],
    ));
    // qwen3next with a multi-token prediction block, with the default interval (every layer
    // linear attention), and with the layers given as a list
    variants.push((
        "qwen3next-nextn".into(),
        "qwen3next",
        false,
        vec![("qwen3next.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "qwen3next-interval4".into(),
        "qwen3next",
        false,
        vec![("qwen3next.full_attention_interval", 4u32.into())],
    ));
    for (arch, key) in [
        ("qwen35", "qwen35.nextn_predict_layers"),
        ("qwen35moe", "qwen35moe.nextn_predict_layers"),
    ] {
        variants.push((
            format!("{arch}-nextn"),
            arch,
            false,
            vec![(key, 1u32.into())],
        ));
    }
    variants.push((
        "qwen3next-listed".into(),
        "qwen3next",
        false,
        vec![(
            "qwen3next.attention.recurrent_layers",
            OwnedValue::from(vec![false, true]),
        )],
    ));
    // llama4 with experts in every layer, and in none (step 0)
    variants.push((
        "llama4-allmoe".into(),
        "llama4",
        false,
        vec![("llama4.interleave_moe_layer_step", 1u32.into())],
    ));
    variants.push((
        "llama4-step0".into(),
        "llama4",
        false,
        vec![("llama4.interleave_moe_layer_step", 0u32.into())],
    ));
    // deepseek2 with the split attn_k_b / attn_v_b (the MLA lengths given), and with a plain query
    variants.push((
        "deepseek2-mla".into(),
        "deepseek2",
        false,
        vec![
            ("deepseek2.attention.key_length_mla", 24u32.into()),
            ("deepseek2.attention.value_length_mla", 16u32.into()),
        ],
    ));
    // multi-token prediction: deepseek2 with its last block an MTP block (the trunk alone, the
    // MTP block's tensors added below), and llama, which has none, with nextn_predict_layers
    variants.push((
        "deepseek2-nextn".into(),
        "deepseek2",
        false,
        vec![("deepseek2.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "llama-nextn".into(),
        "llama",
        false,
        vec![("llama.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "exaone4-nextn".into(),
        "exaone4",
        false,
        vec![("exaone4.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "glm4-nextn".into(),
        "glm4",
        false,
        vec![("glm4.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "ernie4_5-moe-noshexp".into(),
        "ernie4_5-moe",
        false,
        vec![(
            "ernie4_5-moe.expert_shared_feed_forward_length",
            0u32.into(),
        )],
    ));
    variants.push((
        "exaone-moe-nextn".into(),
        "exaone-moe",
        false,
        vec![("exaone-moe.nextn_predict_layers", 1u32.into())],
    ));
    variants.push((
        "nanbeige-loops".into(),
        "nanbeige",
        false,
        vec![("nanbeige.num_loops", 2u32.into())],
    ));
    // lfm2's attention layer with its own key-value head count (a per-layer array)
    variants.push((
        "lfm2-kv1".into(),
        "lfm2",
        false,
        vec![(
            "lfm2.attention.head_count_kv",
            OwnedValue::from(vec![0u32, 1]),
        )],
    ));
    variants.push((
        "lfm2-allconv".into(),
        "lfm2",
        false,
        vec![("lfm2.attention.head_count_kv", 0u32.into())],
    ));
    variants.push((
        "granitehybrid-allmamba".into(),
        "granitehybrid",
        false,
        vec![("granitehybrid.attention.head_count_kv", 0u32.into())],
    ));
    variants.push((
        "granitehybrid-moe".into(),
        "granitehybrid",
        true,
        Vec::new(),
    ));
    variants.push((
        "deepseek2-q".into(),
        "deepseek2",
        false,
        vec![("deepseek2.attention.q_lora_rank", 0u32.into())],
    ));
    for (label, arch, moe, tweaks) in variants {
        let mut meta = metadata(arch, moe);
        for (k, v) in tweaks {
            meta.set(k, v).unwrap();
        }
        let tensors = tensors_for(&meta)
            .unwrap_or_else(|| panic!("{label}: the table rejects its own metadata"));
        let file = |tensors: &[Tensor]| write(&meta, tensors).unwrap();
        out.push(Case {
            name: format!("{label}/valid"),
            bytes: file(&tensors),
        });
        // a required tensor dropped: the last of the last block
        let last = tensors
            .iter()
            .rposition(|t| t.name.starts_with("blk."))
            .unwrap();
        let mut dropped = tensors.clone();
        dropped.remove(last);
        out.push(Case {
            name: format!("{label}/drop {}", tensors[last].name),
            bytes: file(&dropped),
        });
        // a shape off by one: the first 2-d tensor of layer 0
        let two_d = tensors
            .iter()
            .position(|t| t.name.starts_with("blk.0.") && t.shape.len() >= 2)
            .unwrap();
        let mut off = tensors.clone();
        off[two_d].shape[1] += 1;
        out.push(Case {
            name: format!("{label}/shape {}", tensors[two_d].name),
            bytes: file(&off),
        });
        // head_count_kv changed
        let mut m = meta.clone();
        m.set(&format!("{arch}.attention.head_count_kv"), 1u32)
            .unwrap();
        out.push(Case {
            name: format!("{label}/head_count_kv 1"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // one more token than embedding rows
        let mut m = meta.clone();
        let mut toks: Vec<String> = ggufkit_testkit::models::TOKENS
            .iter()
            .map(|s| s.to_string())
            .collect();
        toks.push("zz".into());
        m.set("tokenizer.ggml.tokens", ggufkit::OwnedValue::from(toks))
            .unwrap();
        m.remove("tokenizer.ggml.token_type");
        out.push(Case {
            name: format!("{label}/vocab+1"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // a required key removed: each of the common ones and the architecture's
        let a = ggufkit::audit::loader::archs::find(arch).unwrap();
        for rule in ggufkit::audit::loader::archs::COMMON_KEYS
            .iter()
            .chain(a.key_rules())
            .filter(|r| r.required)
        {
            let mut m = meta.clone();
            m.remove(&rule.key(arch));
            out.push(Case {
                name: format!("{label}/no {}", rule.suffix),
                bytes: write(&m, &tensors).unwrap(),
            });
        }
        // a key of the wrong type
        let mut m = meta.clone();
        m.set(&format!("{arch}.embedding_length"), 64i32).unwrap();
        out.push(Case {
            name: format!("{label}/embedding_length i32"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // no tokenizer model
        let mut m = meta.clone();
        m.remove("tokenizer.ggml.model");
        out.push(Case {
            name: format!("{label}/no tokenizer model"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // an unknown pre-tokenizer
        let mut m = meta.clone();
        m.set("tokenizer.ggml.pre", "frobnicate").unwrap();
        out.push(Case {
            name: format!("{label}/pre frobnicate"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // a special id past the vocabulary (tolerated)
        let mut m = meta.clone();
        m.set("tokenizer.ggml.bos_token_id", 999u32).unwrap();
        out.push(Case {
            name: format!("{label}/bos 999"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // named phi-3 without phi-3's special tokens
        let mut m = meta.clone();
        m.set("general.name", "Phi-3 mini").unwrap();
        out.push(Case {
            name: format!("{label}/named phi-3"),
            bytes: write(&m, &tensors).unwrap(),
        });
        // a tensor the loader does not create
        let mut extra = tensors.clone();
        extra.push(Tensor {
            name: "blk.0.frobnicator.weight".into(),
            ty: GgmlType::F32,
            shape: vec![4],
        });
        out.push(Case {
            name: format!("{label}/extra tensor"),
            bytes: file(&extra),
        });
        // every tensor the loader takes when present, outside the layers and in layer 0
        let optional = optional_for(&meta);
        let mut all = tensors.clone();
        all.extend(
            optional
                .iter()
                .filter(|t| !t.name.starts_with("blk.") || t.name.starts_with("blk.0."))
                .cloned(),
        );
        out.push(Case {
            name: format!("{label}/+{} optional", all.len() - tensors.len()),
            bytes: file(&all),
        });
        // an optional tensor of the wrong length
        if let Some(o) = optional.iter().find(|t| t.name.starts_with("blk.0.")) {
            let mut wrong = tensors.clone();
            let mut o = o.clone();
            o.shape[0] += 1;
            wrong.push(o);
            out.push(Case {
                name: format!("{label}/+{} wrong shape", wrong.last().unwrap().name),
                bytes: file(&wrong),
            });
        }
        // rope factors: rope_freqs, and the long and short ones
        for (scaling, names) in [
            (None, &["rope_freqs.weight"][..]),
            (
                Some("longrope"),
                &["rope_factors_long.weight", "rope_factors_short.weight"][..],
            ),
            (Some("longrope"), &["rope_freqs.weight"][..]),
        ] {
            let mut m = meta.clone();
            if let Some(s) = scaling {
                m.set(&format!("{arch}.rope.scaling.type"), s).unwrap();
            }
            let mut with = tensors.clone();
            for n in names {
                with.push(Tensor {
                    name: n.to_string(),
                    ty: GgmlType::F32,
                    shape: vec![u64::from(
                        ggufkit_testkit::models::EMBD / ggufkit_testkit::models::HEADS / 2,
                    )],
                });
            }
            out.push(Case {
                name: format!("{label}/{} +{}", scaling.unwrap_or("rope"), names.join("+")),
                bytes: write(&m, &with).unwrap(),
            });
        }
        // per-tensor scales: of a projection (taken), of a norm (left unused), of the wrong shape
        let scale = |name: &str, shape: Vec<u64>| Tensor {
            name: name.into(),
            ty: GgmlType::F32,
            shape,
        };
        for (what, extra) in [
            (
                "scales",
                vec![
                    scale("blk.0.attn_output.scale", vec![1]),
                    scale("blk.0.attn_output.input_scale", vec![1]),
                ],
            ),
            ("norm scale", vec![scale("blk.0.attn_norm.scale", vec![1])]),
            ("scale [2]", vec![scale("blk.1.attn_output.scale", vec![2])]),
        ] {
            let mut with = tensors.clone();
            with.extend(extra);
            out.push(Case {
                name: format!("{label}/{what}"),
                bytes: file(&with),
            });
        }
        if label.ends_with("-nextn") {
            nextn_cases(&label, arch, &meta, &tensors, &mut out);
        }
        // rope sections of the wrong length, and one u32 where the loader reads an i32
        if a.key_rules().any(|k| k.ty == KeyType::Sections) {
            let key = format!("{arch}.rope.dimension_sections");
            for (what, v) in [
                ("3 sections", OwnedValue::from(vec![4i32, 2, 2])),
                ("sections u32", OwnedValue::from(4u32)),
            ] {
                let mut m = meta.clone();
                m.set(&key, v).unwrap();
                out.push(Case {
                    name: format!("{label}/{what}"),
                    bytes: write(&m, &tensors).unwrap(),
                });
            }
        }
        // a per-layer f32 key as an array of the wrong length, and as one per layer
        if let Some(rule) = a.key_rules().find(|k| k.ty == KeyType::F32PerLayer) {
            for (what, n) in [("3 values", 3usize), ("one per layer", 2)] {
                let mut m = meta.clone();
                m.set(&rule.key(arch), OwnedValue::from(vec![1e-5f32; n]))
                    .unwrap();
                out.push(Case {
                    name: format!("{label}/{} {what}", rule.suffix),
                    bytes: write(&m, &tensors).unwrap(),
                });
            }
        }
        // one expert, which some loaders take for none, and which the others refuse
        if a.one_expert_is_none || arch == "llama" {
            let mut m = meta.clone();
            m.set(&format!("{arch}.expert_count"), 1u32).unwrap();
            out.push(Case {
                name: format!("{label}/expert_count 1"),
                bytes: write(&m, &tensors).unwrap(),
            });
        }
        // falcon-h1's feed-forward norm named as every other architecture names it
        if arch == "falcon-h1" {
            let renamed: Vec<Tensor> = tensors
                .iter()
                .map(|t| Tensor {
                    name: if t.name.ends_with(".ffn_norm") {
                        format!("{}.weight", t.name)
                    } else {
                        t.name.clone()
                    },
                    ..t.clone()
                })
                .collect();
            out.push(Case {
                name: format!("{label}/ffn_norm.weight"),
                bytes: file(&renamed),
            });
        }
        // an inner size the loader asserts against
        if a.inner_is_twice_embd {
            let mut m = meta.clone();
            m.set(&format!("{arch}.ssm.inner_size"), 96u32).unwrap();
            out.push(Case {
                name: format!("{label}/ssm.inner_size 96"),
                bytes: write(&m, &tensors).unwrap(),
            });
        }
        // no experts at all where the architecture requires them
        if matches!(a.experts, Experts::Required | Experts::RequiredAfterLead) {
            let mut m = meta.clone();
            m.remove(&format!("{arch}.expert_count"));
            m.remove(&format!("{arch}.expert_used_count"));
            out.push(Case {
                name: format!("{label}/no experts"),
                bytes: write(&m, &tensors).unwrap(),
            });
        }
        // the experts' gate and up fused in layer 1: taken by qwen3next's and qwen35moe's
        // loaders (deepseek2's below), left unused and missing by the others
        let has = |n: &str| tensors.iter().any(|t| t.name == n);
        if arch != "deepseek2"
            && has("blk.1.ffn_gate_exps.weight")
            && has("blk.1.ffn_up_exps.weight")
        {
            out.push(Case {
                name: format!("{label}/fused gate_up_exps"),
                bytes: file(&fuse_gate_up(&tensors)),
            });
        }
        if arch == "glm4moe" && !label.ends_with("-nextn") {
            // every layer dense: the expert tensors left unused
            let mut m = meta.clone();
            m.set("glm4moe.leading_dense_block_count", 2u32).unwrap();
            out.push(Case {
                name: format!("{label}/all dense, expert tensors left"),
                bytes: write(&m, &tensors).unwrap(),
            });
        }
        if arch == "deepseek2" && !label.ends_with("-nextn") {
            // the experts' gate and up projections fused into one tensor in layer 1
            out.push(Case {
                name: format!("{label}/fused gate_up_exps"),
                bytes: file(&fuse_gate_up(&tensors)),
            });
            // no room left for the key's part without rope (llama.cpp asserts)
            let mut m = meta.clone();
            let head_k: u32 = if m.contains_key("deepseek2.attention.key_length_mla") {
                24
            } else {
                16
            };
            m.set("deepseek2.rope.dimension_count", head_k).unwrap();
            out.push(Case {
                name: format!("{label}/rope = key length"),
                bytes: write(&m, &tensors).unwrap(),
            });
            // every layer dense: no experts needed
            let mut m = meta.clone();
            m.set("deepseek2.leading_dense_block_count", 2u32).unwrap();
            out.push(Case {
                name: format!("{label}/all dense, expert tensors left"),
                bytes: write(&m, &tensors).unwrap(),
            });
        }
        // a type id this release does not know (olmo has no output norm)
        let valid = file(&tensors);
        let target = if tensors.iter().any(|t| t.name == "output_norm.weight") {
            "output_norm.weight"
        } else {
            "token_embd.weight"
        };
        out.push(Case {
            name: format!("{label}/type id 99"),
            bytes: with_type_id(&valid, target, 99),
        });
    }
    out
}

/// `tensors` with layer 1's gate and up experts fused into one `ffn_gate_up_exps`.
fn fuse_gate_up(tensors: &[Tensor]) -> Vec<Tensor> {
    let mut fused: Vec<Tensor> = tensors
        .iter()
        .filter(|t| !t.name.starts_with("blk.1.ffn_gate_exps"))
        .cloned()
        .collect();
    let up = fused
        .iter()
        .position(|t| t.name == "blk.1.ffn_up_exps.weight")
        .unwrap();
    fused[up].name = "blk.1.ffn_gate_up_exps.weight".into();
    fused[up].shape[1] *= 2;
    fused
}

/// A model with `nextn_predict_layers` 1 of 2 blocks (`tensors`: the trunk alone): the last
/// block added whole (with deepseek2's `nextn.*` tensors, which the table lists as optional
/// while the file lacks `blk.1.nextn.eh_proj`), the block with one tensor missing, and more
/// prediction blocks than blocks.
fn nextn_cases(
    label: &str,
    arch: &str,
    meta: &ggufkit::GgufBuilder<'static>,
    tensors: &[Tensor],
    out: &mut Vec<Case>,
) {
    let mtp = ggufkit::audit::loader::archs::find(arch).is_some_and(|a| a.mtp != Mtp::None);
    let block: Vec<Tensor> = if mtp {
        optional_for(meta)
            .into_iter()
            .filter(|t| t.name.starts_with("blk.1.") && !t.name.contains("ffn_gate_up_exps"))
            .filter(|t| {
                // the optional biases left out (glm4moe's exp_probs_b is required)
                (!t.name.ends_with(".bias") || t.name.contains("exp_probs_b"))
                    && !t.name.contains("embed_tokens")
                    && !t.name.contains("shared_head")
            })
            .collect()
    } else {
        // llama's block 0, renamed
        tensors
            .iter()
            .filter(|t| t.name.starts_with("blk.0."))
            .map(|t| Tensor {
                name: t.name.replacen("blk.0.", "blk.1.", 1),
                ..t.clone()
            })
            .collect()
    };
    assert!(!block.is_empty(), "{label}: no block 1");
    let mut whole = tensors.to_vec();
    whole.extend(block.iter().cloned());
    out.push(Case {
        name: format!("{label}/+block 1 ({} tensors)", block.len()),
        bytes: write(meta, &whole).unwrap(),
    });
    if mtp {
        // the optional ones of the MTP block too
        let mut all = whole.clone();
        all.extend(
            optional_for(meta)
                .into_iter()
                .filter(|t| t.name.starts_with("blk.1.nextn."))
                .filter(|t| !whole.iter().any(|w| w.name == t.name)),
        );
        out.push(Case {
            name: format!("{label}/+block 1 and its optional nextn"),
            bytes: write(meta, &all).unwrap(),
        });
        // the MTP block present (its eh_proj) but a tensor of it missing
        let gone = whole
            .iter()
            .position(|t| t.name == "blk.1.ffn_norm.weight")
            .or_else(|| {
                whole
                    .iter()
                    .position(|t| t.name == "blk.1.post_attention_norm.weight")
            })
            .expect("the MTP block's norm");
        let mut missing = whole.clone();
        let gone_name = missing.remove(gone).name;
        out.push(Case {
            name: format!(
                "{label}/+block 1 without {}",
                gone_name
                    .trim_start_matches("blk.1.")
                    .trim_end_matches(".weight")
            ),
            bytes: write(meta, &missing).unwrap(),
        });
    }
    let mut m = meta.clone();
    m.set(&format!("{arch}.nextn_predict_layers"), 3u32)
        .unwrap();
    out.push(Case {
        name: format!("{label}/nextn 3 of 2 blocks"),
        bytes: write(&m, tensors).unwrap(),
    });
}

/// The audit's errors of a file (`None` when it does not parse: a file the reader refuses).
fn errors(bytes: &[u8]) -> Vec<Finding> {
    match Gguf::from_bytes(bytes) {
        Ok(g) => audit(&g)
            .into_iter()
            .filter(|f| f.severity == Severity::Error)
            .collect(),
        Err(e) => vec![Finding::new("read", Severity::Error, "", 0, e.to_string())],
    }
}

/// llama.cpp's reasons that name no key or tensor, and the rule of the audit that names it.
const UNNAMED: &[(&str, &str)] = &[
    ("unknown pre-tokenizer type", "tokenizer.unknown-pre"),
    ("n_embd_head_qk_nope", "model.hparams"),
    ("wrong number of tensors", "model.unused-tensor"),
    ("wrong number of tensors", "model.block-count"),
    // exaone-moe's rope_freqs beside prediction blocks, counted once more per block
    ("too many tensors created", "model.unused-tensor"),
    ("n_layer_nextn <= hparams.n_layer_all", "model.hparams"),
    // no experts where the architecture needs them: a throw, an assert, or a zero dimension
    ("n_expert must be > 0", "model.hparams"),
    ("cannot have zero experts", "model.hparams"),
    ("t_meta.ne[dim] >= 1", "model.hparams"),
    // expert_used_count 0 beside experts, or over expert_count
    ("n_expert_used_max", "model.hparams"),
    ("2 * n_embd == d_inner", "model.hparams"),
    ("only an expansion factor of 2", "model.hparams"),
    ("GGML_ASSERT(n_expert && n_expert_used)", "model.hparams"),
    ("_Map_base::at", "tokenizer.missing"),
    // the reader refuses before the loader
    ("Invalid type or block size", "read"),
    ("invalid ggml type", "read"),
];

/// llama.cpp's process ended without a message (qwen35moe without experts divides `n_ff` by
/// `n_expert_used`, 0: a floating-point exception), and the rule of the audit that says why.
const CRASHES: &[(&str, &str)] = &[("aborted", "model.hparams")];

/// Whether llama.cpp's reason names what an error of the audit names.
fn same_subject(reason: &str, errors: &[Finding]) -> bool {
    if let Some((_, rule)) = CRASHES.iter().find(|(r, _)| reason == *r) {
        return errors.iter().any(|f| f.rule == *rule);
    }
    let named = |f: &Finding| !f.subject.is_empty() && reason.contains(&f.subject);
    let unnamed = |f: &Finding| {
        UNNAMED
            .iter()
            .any(|(r, rule)| reason.contains(r) && f.rule == *rule)
    };
    errors.iter().any(|f| named(f) || unnamed(f))
}

#[test]
fn the_audit_says_wont_load_exactly_when_llama_cpp_refuses() {
    let cases = cases();
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<PathBuf> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let p = dir.path().join(format!("{i:03}.gguf"));
            std::fs::write(&p, &c.bytes).unwrap();
            p
        })
        .collect();
    let Some(loaded) = ggufkit_testkit::llama_load::load_all(&paths, false) else {
        return;
    };
    let mut disagreements = Vec::new();
    println!(
        "{:<40} {:<8} {:<8} reason / audit",
        "case", "llama", "audit"
    );
    for (c, l) in cases.iter().zip(&loaded) {
        let errs = errors(&c.bytes);
        let audit_ok = errs.is_empty();
        let reason = l.reason().unwrap_or_default();
        let agree = if l.ok {
            audit_ok
        } else {
            !audit_ok && same_subject(&reason, &errs)
        };
        let first = errs
            .first()
            .map(|f| format!("[{}] {}", f.rule, f.subject))
            .unwrap_or_default();
        println!(
            "{:<40} {:<8} {:<8} {} | {}{}",
            c.name,
            if l.ok { "loads" } else { "refuses" },
            if audit_ok { "loads" } else { "refuses" },
            reason,
            first,
            if agree { "" } else { "   <-- DISAGREE" }
        );
        if !agree {
            disagreements.push(format!(
                "{}: llama.cpp {:?}, audit {:?}",
                c.name, reason, errs
            ));
        }
    }
    println!(
        "{} cases, {} disagreements",
        cases.len(),
        disagreements.len()
    );
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}
