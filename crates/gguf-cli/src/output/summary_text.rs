//! The model summary for people, as `gguf info` prints it: one labelled line per fact.

use ggufkit::summary::{ChatTemplate, Summary};
use ggufkit::Report;

use super::summary::{kv_formula, KV_TOKENS};
use super::{counted, grouped, human_bytes, pad, short_count, size_note, Style};
use ggufkit::summary::Split;

fn line(out: &mut String, s: &Style, label: &str, value: impl AsRef<str>) {
    out.push_str(&format!(
        "  {} {}\n",
        pad(&s.dim(label), 18),
        value.as_ref()
    ));
}

/// How the model is split: every shard when the summary is the whole model's, else which shard
/// this file is and where the whole model is described.
fn split_lines(out: &mut String, s: &Style, split: &Split) {
    if split.shards.is_empty() {
        let what = if split.no == 0 {
            "this shard alone: the other shards could not be read".to_string()
        } else {
            "this shard alone; `gguf info` on the first shard describes the whole model".to_string()
        };
        line(
            out,
            s,
            "split",
            s.yellow(&format!(
                "shard {} of {}, {what}",
                split.no + 1,
                split.count
            )),
        );
        return;
    }
    line(
        out,
        s,
        "split",
        format!(
            "{} shards, read as one model from the first, as llama.cpp loads it",
            split.count
        ),
    );
    let name = |p: &std::path::Path| {
        p.file_name().map_or_else(
            || p.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    let width = split
        .shards
        .iter()
        .map(|x| name(&x.path).chars().count())
        .max()
        .unwrap_or(0);
    for x in &split.shards {
        line(
            out,
            s,
            "",
            format!(
                "{}  {:>13}  {:>10}",
                pad(&name(&x.path), width),
                counted(x.tensors, "tensor", "tensors"),
                human_bytes(x.file_size)
            ),
        );
    }
}

/// The summary of the file shown as `title`, with the verdicts of `report`.
pub fn summary_text(
    title: &str,
    report: &Report,
    m: &Summary,
    context: Option<u64>,
    s: &Style,
) -> String {
    let mut out = format!("{}\n", s.bold(title));
    let verdict = if !report.valid() {
        match report.errors.first() {
            Some(e) => s.red(&format!("INVALID {e}")),
            // stopped at the reader's limits without a broken rule
            None => s.red("INVALID"),
        }
    } else if !report.ggml_compatible() {
        s.yellow("valid, not loadable by ggml")
    } else {
        s.green("valid")
    };
    line(&mut out, s, "status", verdict);
    for w in &report.warnings {
        line(&mut out, s, "warning", s.yellow(&w.message));
    }
    if let Some(m) = &m.file_type_mismatch {
        line(&mut out, s, "warning", s.yellow(m));
    }
    let f = &m.format;
    line(
        &mut out,
        s,
        "format",
        format!(
            "GGUF v{}, {}-endian, alignment {}",
            f.version, f.endian, f.alignment
        ),
    );
    if let Some(arch) = &m.architecture {
        line(&mut out, s, "architecture", arch);
    }
    if let Some(name) = &m.name {
        line(&mut out, s, "name", name);
    }
    let actual = f.bytes_present.unwrap_or(0);
    let size_note = size_note(actual, f.file_size, f.trailing_bytes, s);
    line(
        &mut out,
        s,
        "file size",
        format!("{} ({}), {size_note}", human_bytes(actual), grouped(actual)),
    );
    line(
        &mut out,
        s,
        "header",
        format!(
            "{} ({})",
            human_bytes(f.header_bytes),
            counted(f.kv_count, "key-value pair", "key-value pairs")
        ),
    );
    if let Some(split) = &m.split {
        split_lines(&mut out, s, split);
    }

    let params = m.parameters;
    let data = m.tensor_data_bytes;
    line(
        &mut out,
        s,
        "tensors",
        format!(
            "{}, {} parameters ({}), {} of data",
            counted(m.tensor_count(), "tensor", "tensors"),
            grouped(params),
            short_count(params),
            human_bytes(data)
        ),
    );
    if let Some(bpw) = m.bits_per_weight() {
        line(&mut out, s, "bits per weight", format!("{bpw:.2}"));
    }
    // the type column as wide as its longest name (a fork's type is shown with its origin)
    let names: Vec<String> = m.types.iter().map(|t| t.ggml_type.to_string()).collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    for (t, name) in m.types.iter().zip(&names) {
        line(
            &mut out,
            s,
            "",
            format!(
                "{name:<width$} {:>13} {:>12} {:>6.1}%",
                counted(t.tensors, "tensor ", "tensors"),
                human_bytes(t.bytes),
                t.percent
            ),
        );
    }

    let hp = &m.hyperparameters;
    for (label, v) in [
        ("context length", hp.context_length),
        ("embedding length", hp.embedding_length),
        ("block count", hp.block_count),
        ("attention heads", hp.head_count),
        ("kv heads", hp.head_count_kv),
    ] {
        if let Some(v) = v {
            line(&mut out, s, label, grouped(v));
        }
    }
    if data > 0 {
        line(
            &mut out,
            s,
            "memory to load",
            format!(
                "{} ({} bytes of tensor data; KV cache and compute buffers come on top)",
                human_bytes(data),
                grouped(data)
            ),
        );
    }
    if let Some(kv) = &m.kv_cache {
        let at_ctx = kv
            .at_full_context()
            .map(|b| format!(", {} at the full context", human_bytes(b)))
            .unwrap_or_default();
        line(
            &mut out,
            s,
            "kv cache",
            format!(
                "{} per {} tokens of context{at_ctx}",
                human_bytes(kv.bytes_for(KV_TOKENS)),
                grouped(KV_TOKENS)
            ),
        );
        line(&mut out, s, "", s.dim(&kv_formula(kv)));
        if let Some(tokens) = context {
            line(
                &mut out,
                s,
                "",
                format!(
                    "{} at {} tokens (--context)",
                    human_bytes(kv.bytes_for(tokens)),
                    grouped(tokens)
                ),
            );
        }
    } else if context.is_some() {
        line(
            &mut out,
            s,
            "kv cache",
            "no estimate: the file lacks the hyperparameters it needs",
        );
    }
    if let Some(t) = &m.tokenizer {
        let mut parts = vec![t.model.clone().unwrap_or_else(|| "unknown model".into())];
        if let Some(pre) = &t.pre {
            parts[0].push_str(&format!(" (pre-tokenizer {pre})"));
        }
        if let Some(n) = t.vocab_size {
            parts.push(format!("{} tokens", grouped(n)));
        }
        if let Some(n) = t.merges {
            parts.push(format!("{} merges", grouped(n)));
        }
        line(&mut out, s, "tokenizer", parts.join(", "));
        if !t.special.is_empty() {
            let sp: Vec<String> = t
                .special
                .iter()
                .map(|x| match &x.text {
                    Some(text) => format!("{} {} {text:?}", x.role.name(), x.id),
                    None => format!("{} {} (not in the vocabulary)", x.role.name(), x.id),
                })
                .collect();
            line(&mut out, s, "special tokens", sp.join(", "));
        }
    }
    let template = match m.chat_template {
        Some(ChatTemplate::Text { bytes }) => format!("present ({bytes} bytes)"),
        Some(ChatTemplate::NotText { .. }) => "present".to_string(),
        None => "none".to_string(),
    };
    line(&mut out, s, "chat template", template);
    out
}
