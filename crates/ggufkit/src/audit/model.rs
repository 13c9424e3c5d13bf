//! Hyperparameters against the tensors they describe, for the architectures llama.cpp knows best.
#![forbid(unsafe_code)]

use super::{Finding, Severity};
use crate::Gguf;

/// Architectures whose tensor names and shapes follow llama.cpp's common layout.
const KNOWN: &[&str] = &[
    "llama",
    "qwen2",
    "qwen3",
    "qwen2moe",
    "qwen3moe",
    "gemma",
    "gemma2",
    "gemma3",
    "phi3",
    "mistral",
    "mixtral",
    "deepseek2",
    "gpt-oss",
];

pub(super) fn audit_model(g: &Gguf<'_>, out: &mut Vec<Finding>) {
    let Some(arch) = g.architecture() else { return };
    if g.tensor_count() == 0 {
        return; // a vocabulary-only file
    }
    let arch_kv = g.get_kv("general.architecture").map_or(0, |kv| kv.offset);
    if !KNOWN.contains(&arch) {
        out.push(Finding::new(
            "model.unknown-arch",
            Severity::Note,
            "general.architecture",
            arch_kv,
            format!("architecture `{arch}` is not one the audit knows; shapes not checked"),
        ));
        return;
    }
    let key_off = |suffix: &str| {
        g.get_kv(&format!("{arch}.{suffix}"))
            .map_or(arch_kv, |kv| kv.offset)
    };
    let Some(embd) = g.tensor("token_embd.weight") else {
        out.push(Finding::new(
            "model.missing-tensor",
            Severity::Error,
            "token_embd.weight",
            arch_kv,
            "the token embedding tensor is missing".into(),
        ));
        return;
    };
    let n_embd = g.embedding_length();
    if let Some(e) = n_embd {
        if embd.shape().first() != Some(&e) {
            out.push(Finding::new(
                "model.embedding-length",
                Severity::Error,
                &format!("{arch}.embedding_length"),
                key_off("embedding_length"),
                format!(
                    "embedding_length {e} but token_embd.weight is {:?}",
                    embd.shape()
                ),
            ));
        }
    }
    let blocks = g
        .tensors()
        .filter_map(|t| {
            let name = t.name();
            let rest = name.strip_prefix("blk.")?;
            rest.split('.').next()?.parse::<u64>().ok()
        })
        .max()
        .map(|m| m + 1);
    if let (Some(bc), Some(present)) = (g.block_count(), blocks) {
        if bc != present {
            out.push(Finding::new(
                "model.block-count",
                Severity::Error,
                &format!("{arch}.block_count"),
                key_off("block_count"),
                format!("block_count {bc} but the tensors have blocks 0..{present}"),
            ));
        }
    }
    // Head count times head length against the query projection's output rows.
    if let (Some(heads), Some(q)) = (g.head_count(), g.tensor("blk.0.attn_q.weight")) {
        let head_len = g
            .arch_u64("attention.key_length")
            .or_else(|| n_embd.map(|e| e / heads.max(1)));
        if let (Some(hl), Some(&rows)) = (head_len, q.shape().get(1)) {
            if heads.checked_mul(hl) != Some(rows) {
                out.push(Finding::new(
                    "model.head-shape",
                    Severity::Error,
                    &format!("{arch}.attention.head_count"),
                    key_off("attention.head_count"),
                    format!("{heads} heads of {hl} but blk.0.attn_q.weight has {rows} rows"),
                ));
            }
        }
    }
    if let (Some(ff), Some(up)) = (
        g.arch_u64("feed_forward_length"),
        g.tensor("blk.0.ffn_up.weight"),
    ) {
        if up.shape().get(1) != Some(&ff) {
            out.push(Finding::new(
                "model.feed-forward-length",
                Severity::Error,
                &format!("{arch}.feed_forward_length"),
                key_off("feed_forward_length"),
                format!(
                    "feed_forward_length {ff} but blk.0.ffn_up.weight is {:?}",
                    up.shape()
                ),
            ));
        }
    }
    if let (Some(n), Some(exps)) = (
        g.arch_u64("expert_count"),
        g.tensor("blk.0.ffn_up_exps.weight"),
    ) {
        if exps.shape().get(2) != Some(&n) {
            out.push(Finding::new(
                "model.expert-count",
                Severity::Error,
                &format!("{arch}.expert_count"),
                key_off("expert_count"),
                format!(
                    "expert_count {n} but blk.0.ffn_up_exps.weight is {:?}",
                    exps.shape()
                ),
            ));
        }
    }
}
