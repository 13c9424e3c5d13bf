//! `general.file_type` against the tensor mix: the quantize module's planner says which type each
//! tensor gets under the declared file type (its preset's rules and shape fallbacks); a file
//! where most quantizable tensors have another type does not hold what it declares.
#![forbid(unsafe_code)]

use std::collections::BTreeMap;

use super::{Finding, Severity};
use crate::quantize::{plan, Preset, QuantizeOptions, Reason};
use crate::summary::FileType;
use crate::Gguf;

pub(super) fn audit_file_type(g: &Gguf<'_>, out: &mut Vec<Finding>) {
    let Some(kv) = g.get_kv("general.file_type") else {
        return;
    };
    let Some(declared) = FileType::of(g) else {
        return;
    };
    let Some(preset) = Preset::all().find(|p| !p.only_copy && p.ftype.id() == declared.id()) else {
        return; // an id llama.cpp no longer knows: nothing to compare with
    };
    let mut opts = QuantizeOptions::new(preset);
    opts.allow_requantize = true;
    let Ok(planned) = plan(g, &opts) else {
        return; // shapes the planner refuses are the validator's business
    };
    let quantizable: Vec<_> = planned
        .tensors
        .iter()
        .filter(|t| !matches!(t.reason, Reason::Kept(_)))
        .collect();
    let agree = quantizable.iter().filter(|t| t.from == t.to).count();
    if quantizable.is_empty() || agree * 2 >= quantizable.len() {
        return;
    }
    let mut mix: BTreeMap<_, usize> = BTreeMap::new();
    for t in &quantizable {
        *mix.entry(t.from.name()).or_default() += 1;
    }
    let mut mix: Vec<_> = mix.into_iter().collect();
    mix.sort_by_key(|m| std::cmp::Reverse(m.1));
    let mix: Vec<String> = mix.iter().map(|(t, n)| format!("{n} {t}")).collect();
    out.push(Finding::new(
        "model.file-type",
        Severity::Warning,
        "general.file_type",
        kv.offset,
        format!(
            "general.file_type is {} ({}) but only {agree} of {} quantizable tensors have the type it gives them; they are {}",
            declared.id(),
            preset.name,
            quantizable.len(),
            mix.join(", ")
        ),
    ));
}
