//! `gguf dump FILE --markdown`: a document a person can paste into a model card — a summary table,
//! tensor types, metadata (long values shortened) and the full tensor list in a folded section.

use ggufkit::summary::{ChatTemplate, Summary};
use ggufkit::{Gguf, Value};

use super::summary::{kv_formula, KV_TOKENS};
use super::value::{escape_line, human_value};
use super::{counted, grouped, human_bytes, shape_text, short_count, shorten};

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

fn row(out: &mut String, cells: &[String]) {
    out.push('|');
    for c in cells {
        out.push(' ');
        out.push_str(c);
        out.push_str(" |");
    }
    out.push('\n');
}

/// The document for the file `file_name`, whose summary is `m`.
pub fn markdown(file_name: &str, g: &Gguf<'_>, m: &Summary) -> String {
    let mut out = String::new();
    let title = m.name.as_deref().unwrap_or(file_name);
    out.push_str(&format!("# {}\n\n", escape_line(title)));
    out.push_str(&format!(
        "Summary of `{}` by `gguf dump --markdown`.\n\n",
        escape_line(file_name).replace('`', "'")
    ));

    let f = &m.format;
    let params = m.parameters;
    let data = m.tensor_data_bytes;
    let mut summary: Vec<(String, String)> = Vec::new();
    if let Some(a) = &m.architecture {
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
            human_bytes(f.file_size),
            grouped(f.file_size)
        ),
    ));
    if let Some(bpw) = m.bits_per_weight() {
        summary.push((
            "Tensor data".into(),
            format!(
                "{} in {}, {bpw:.2} bits per weight",
                human_bytes(data),
                super::counted(m.tensor_count(), "tensor", "tensors")
            ),
        ));
    }
    summary.push((
        "Format".into(),
        format!(
            "GGUF v{}, {}-endian, alignment {}",
            f.version, f.endian, f.alignment
        ),
    ));
    let hp = &m.hyperparameters;
    for (label, v) in [
        ("Context length", hp.context_length),
        ("Embedding length", hp.embedding_length),
        ("Blocks", hp.block_count),
        ("Attention heads", hp.head_count),
        ("KV heads", hp.head_count_kv),
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
    if let Some(kv) = &m.kv_cache {
        let at = kv
            .at_full_context()
            .map(|b| format!("; {} at the full context", human_bytes(b)))
            .unwrap_or_default();
        summary.push((
            "KV cache (f16)".into(),
            format!(
                "{} per {} tokens{at} — {}",
                human_bytes(kv.bytes_for(KV_TOKENS)),
                grouped(KV_TOKENS),
                kv_formula(kv)
            ),
        ));
    }
    if let Some(t) = &m.tokenizer {
        let mut s = t.model.as_deref().map(code).unwrap_or_default();
        if let Some(n) = t.vocab_size {
            s.push_str(&format!(", {} tokens", grouped(n)));
        }
        if let Some(n) = t.merges {
            s.push_str(&format!(", {} merges", grouped(n)));
        }
        summary.push(("Tokenizer".into(), s));
        if !t.special.is_empty() {
            let sp: Vec<String> = t
                .special
                .iter()
                .map(|x| match &x.text {
                    Some(text) => format!("{} {} ({})", x.role.name(), code(text), x.id),
                    None => format!("{} ({}, not in the vocabulary)", x.role.name(), x.id),
                })
                .collect();
            summary.push(("Special tokens".into(), sp.join(", ")));
        }
        // a template that is not a string has no text to show below: 0 bytes of it
        let template = match m.chat_template {
            Some(ChatTemplate::Text { bytes }) => Some(bytes),
            Some(ChatTemplate::NotText { .. }) => Some(0),
            None => None,
        };
        summary.push((
            "Chat template".into(),
            match template {
                Some(n) => format!("present ({} bytes, below)", grouped(n)),
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
    if !m.types.is_empty() {
        out.push_str("\n## Tensor types\n\n");
        out.push_str(
            "| Type | Tensors | Parameters | Size | Share of data |\n|---|---:|---:|---:|---:|\n",
        );
        for t in &m.types {
            row(
                &mut out,
                &[
                    code(&t.ggml_type.to_string()),
                    grouped(t.tensors),
                    grouped(t.elements),
                    human_bytes(t.bytes),
                    format!("{:.1}%", t.percent),
                ],
            );
        }
    }

    // metadata
    out.push_str(&format!(
        "\n## Metadata ({})\n\n",
        counted(g.kv_count() as u64, "key", "keys")
    ));
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
            Value::String(s) => code(&shorten(s.to_string_lossy().into_owned(), 200)),
            v => code(&shorten(human_value(&v, 8), 200)),
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
            "\n## Tensors\n\n<details><summary>{}</summary>\n\n",
            super::counted(g.tensor_count() as u64, "tensor", "tensors")
        ));
        out.push_str("| Name | Type | Shape | Elements | Bytes |\n|---|---|---|---:|---:|\n");
        for t in g.tensors() {
            row(
                &mut out,
                &[
                    code(&t.name()),
                    code(&t.tensor_type().to_string()),
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
