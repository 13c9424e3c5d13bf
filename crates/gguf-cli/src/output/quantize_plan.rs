//! The plan of `gguf quantize --dry-run` (and the summary after a real run): one row per tensor
//! (name, shape, type before and after, bytes after, reason), then the totals, the type mix and
//! bits per weight.

use ggufkit::quantize::{Plan, PlanKind};

use super::table::{Align, Table};
use super::{counted, grouped, human_bytes, shape_text};

/// The whole plan as text.
pub fn render(plan: &Plan) -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("shape", Align::Left),
        ("from", Align::Left),
        ("to", Align::Left),
        ("bytes", Align::Right),
        ("reason", Align::Left),
    ]);
    for p in &plan.tensors {
        t.row(vec![
            p.name.clone(),
            shape_text(&p.shape),
            p.from.to_string(),
            p.to.to_string(),
            grouped(p.bytes_out),
            p.reason.to_string(),
        ]);
    }
    let footer = vec![vec![
        counted(plan.tensors.len() as u64, "tensor", "tensors"),
        String::new(),
        String::new(),
        String::new(),
        grouped(plan.bytes_out()),
        String::new(),
    ]];
    let mut out = t.render(&footer);
    out.push_str(&totals(plan));
    out
}

/// The totals: sizes and bits per weight before and after, the type mix, fallbacks, the output
/// shards of `--keep-split`, and the tensors that need an importance matrix.
pub fn totals(plan: &Plan) -> String {
    let mut out = String::new();
    if let PlanKind::Preset { preset, file_type } = plan.kind {
        out.push_str(&format!(
            "preset {preset} (general.file_type {file_type})\n"
        ));
    }
    out.push_str(&format!(
        "model size {} ({:.2} bits per weight) -> {} ({:.2} bits per weight)\n",
        human_bytes(plan.bytes_in()),
        plan.bits_per_weight_in(),
        human_bytes(plan.bytes_out()),
        plan.bits_per_weight_out(),
    ));
    let mix: Vec<String> = plan
        .type_counts()
        .iter()
        .map(|(ty, n)| format!("{ty} {}", grouped(*n as u64)))
        .collect();
    out.push_str(&format!("types {}\n", mix.join(", ")));
    if plan.fallbacks > 0 {
        out.push_str(&format!(
            "{} of {} fell back to another type (rows not a multiple of the block size)\n",
            grouped(plan.fallbacks as u64),
            counted(plan.tensors.len() as u64, "tensor", "tensors")
        ));
    }
    if plan.keep_split {
        out.push_str(&format!(
            "--keep-split: {} output shard{}\n",
            plan.output_shards,
            if plan.output_shards == 1 { "" } else { "s" }
        ));
    }
    let need: Vec<&str> = plan.needing_imatrix().map(|t| t.name.as_str()).collect();
    if !need.is_empty() && !plan.has_imatrix {
        out.push_str(&format!(
            "{} an importance matrix (--imatrix), e.g. {}\n",
            if need.len() == 1 {
                "1 tensor needs".to_string()
            } else {
                format!("{} tensors need", grouped(need.len() as u64))
            },
            need[0]
        ));
    }
    out
}
