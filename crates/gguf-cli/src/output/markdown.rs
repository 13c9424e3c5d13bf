//! `gguf dump FILE --markdown`: a document a person can paste into a model card — a summary table,
//! tensor types, metadata (long values shortened) and the full tensor list in a folded section.

use std::collections::BTreeMap;

use ggufkit::{GgmlType, Gguf, Value};

use super::value::{escape_line, human_value};
use super::{grouped, human_bytes, shape_text, short_count};
use crate::facts;

/// Text as a Markdown inline code span that is safe inside a table cell.
fn code(s: &str) -> String {
    let s = escape_line(s).replace('|', "\\|");
    if s.is_empty() {
        return "(empty)".into();
    }
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn cut(s: String, max: usize) -> String {
    if s.chars().count() > max {
        let c: String = s.chars().take(max - 3).collect();
        format!("{c}...")
    } else {
        s
    }
}

fn row(out: &mut String, cells: &[String]) {
    out.push('|');
    for c in cells {
        out.push(' ');
        out.push_str(c);
        out.push_str(" |");
    }
    out.push('\n');
}

pub fn markdown(file_name: &str, g: &Gguf<'_>) -> String {
    let mut out = String::new();
    let title = g.model_name().unwrap_or(file_name);
    out.push_str(&format!("# {}\n\n", escape_line(title)));
    out.push_str(&format!(
        "Summary of `{}` by `gguf dump --markdown`.\n\n",
        escape_line(file_name).replace('`', "'")
    ));

    let params = g.parameter_count();
    let data = g.tensor_data_size();
    let mut summary: Vec<(String, String)> = Vec::new();
    if let Some(a) = g.architecture() {
        summary.push(("Architecture".into(), code(a)));
    }
    summary.push((
        "Parameters".into(),
        format!("{} ({})", grouped(params), short_count(params)),
    ));
    summary.push((
        "File size".into(),
        format!(
            "{} ({} bytes)",
            human_bytes(g.expected_len()),
            grouped(g.expected_len())
        ),
    ));
    if params > 0 {
        summary.push((
            "Tensor data".into(),
            format!(
                "{} in {} tensors, {:.2} bits per weight",
                human_bytes(data),
                g.tensor_count(),
                data as f64 * 8.0 / params as f64
            ),
        ));
    }
    summary.push((
        "Format".into(),
        format!(
            "GGUF v{}, {}-endian, alignment {}",
            g.version(),
            g.endian(),
            g.alignment()
        ),
    ));
    for (label, v) in [
        ("Context length", g.context_length()),
        ("Embedding length", g.embedding_length()),
        ("Blocks", g.block_count()),
        ("Attention heads", g.head_count()),
        ("KV heads", g.head_count_kv()),
    ] {
        if let Some(v) = v {
            summary.push((label.into(), grouped(v)));
        }
    }
    if data > 0 {
        summary.push((
            "Memory to load".into(),
            format!(
                "{} of weights (KV cache and compute buffers come on top)",
                human_bytes(data)
            ),
        ));
    }
    if let Some(kv) = facts::kv_cache(g) {
        let at = kv
            .at_context()
            .map(|b| format!("; {} at the full context", human_bytes(b)))
            .unwrap_or_default();
        summary.push((
            "KV cache (f16)".into(),
            format!(
                "{} per {} tokens{at} — {}",
                human_bytes(kv.per_1k()),
                grouped(facts::KV_TOKENS),
                kv.formula()
            ),
        ));
    }
    let tok = facts::tokenizer(g);
    if let Some(t) = &tok {
        let mut s = t.model.clone().map(|m| code(&m)).unwrap_or_default();
        if let Some(n) = t.vocab_size {
            s.push_str(&format!(", {} tokens", grouped(n)));
        }
        if let Some(m) = t.merges {
            s.push_str(&format!(", {} merges", grouped(m)));
        }
        summary.push(("Tokenizer".into(), s));
        if !t.special.is_empty() {
            let sp: Vec<String> = t
                .special
                .iter()
                .map(|x| match &x.text {
                    Some(text) => format!("{} {} ({})", x.role, code(text), x.id),
                    None => format!("{} ({}, not in the vocabulary)", x.role, x.id),
                })
                .collect();
            summary.push(("Special tokens".into(), sp.join(", ")));
        }
        summary.push((
            "Chat template".into(),
            match t.chat_template_bytes {
                Some(n) => format!("present ({} bytes, below)", grouped(n as u64)),
                None => "none".into(),
            },
        ));
    }
    row(&mut out, &["".into(), "".into()]);
    out.push_str("|---|---|\n");
    for (k, v) in summary {
        row(&mut out, &[format!("**{k}**"), v]);
    }

    // tensor types
    if g.tensor_count() > 0 {
        let mut by_type: BTreeMap<GgmlType, (u64, u64, u64)> = BTreeMap::new();
        for t in g.tensors() {
            let e = by_type.entry(t.ggml_type()).or_default();
            e.0 += 1;
            e.1 += t.n_elements();
            e.2 += t.size();
        }
        let mut types: Vec<_> = by_type.into_iter().collect();
        types.sort_by_key(|t| std::cmp::Reverse(t.1 .2));
        out.push_str("\n## Tensor types\n\n");
        out.push_str(
            "| Type | Tensors | Parameters | Size | Share of data |\n|---|---:|---:|---:|---:|\n",
        );
        for (ty, (n, el, bytes)) in types {
            let share = if data > 0 {
                bytes as f64 * 100.0 / data as f64
            } else {
                0.0
            };
            row(
                &mut out,
                &[
                    code(ty.name()),
                    grouped(n),
                    grouped(el),
                    human_bytes(bytes),
                    format!("{share:.1}%"),
                ],
            );
        }
    }

    // metadata
    out.push_str(&format!("\n## Metadata ({} keys)\n\n", g.kv_count()));
    out.push_str("| Key | Type | Value |\n|---|---|---|\n");
    for kv in g.metadata() {
        let ty = match kv.value {
            Value::Array(a) => format!("{}[{}]", a.element_type().name(), grouped(a.len())),
            _ => kv.value_type().name().to_string(),
        };
        let value = match kv.value {
            Value::String(s) if kv.key.as_bytes() == b"tokenizer.chat_template" => {
                format!("({} bytes, below)", grouped(s.len() as u64))
            }
            Value::String(s) => code(&cut(s.to_string_lossy().into_owned(), 200)),
            v => code(&cut(human_value(&v, 8), 200)),
        };
        row(&mut out, &[code(&kv.key()), ty, value]);
    }

    // chat template
    if let Some(Value::String(t)) = g.get("tokenizer.chat_template") {
        let text = t.to_string_lossy();
        let mut fence = "```".to_string();
        while text.contains(fence.as_str()) {
            fence.push('`');
        }
        out.push_str(&format!(
            "\n## Chat template\n\n<details><summary>{} bytes</summary>\n\n{fence}jinja\n{}\n{fence}\n\n</details>\n",
            grouped(t.len() as u64),
            text.trim_end_matches('\n')
        ));
    }

    // tensors
    if g.tensor_count() > 0 {
        out.push_str(&format!(
            "\n## Tensors\n\n<details><summary>{} tensors</summary>\n\n",
            grouped(g.tensor_count() as u64)
        ));
        out.push_str("| Name | Type | Shape | Elements | Bytes |\n|---|---|---|---:|---:|\n");
        for t in g.tensors() {
            row(
                &mut out,
                &[
                    code(&t.name()),
                    code(t.ggml_type().name()),
                    shape_text(t.shape()),
                    grouped(t.n_elements()),
                    grouped(t.size()),
                ],
            );
        }
        out.push_str("\n</details>\n");
    }
    out
}
