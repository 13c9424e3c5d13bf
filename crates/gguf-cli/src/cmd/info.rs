//! `gguf info FILE...`: what a person wants at a glance.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use ggufkit::{GgmlType, Gguf};

use super::{open, CmdResult, FAILED, OK};
use crate::facts;
use crate::output::{grouped, human_bytes, print, short_count, Style};

#[derive(clap::Args)]
pub struct Args {
    /// Files to summarise.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let mut code = OK;
    for (i, file) in args.files.iter().enumerate() {
        if i > 0 {
            print("\n");
        }
        // permissive: show what can be shown of a damaged file, and say what is wrong
        match open(file, true) {
            Ok(g) => {
                let mut text = summary(file, &g, &style);
                if let Some(line) = crate::remote::human_line(file) {
                    text.push_str(&line);
                }
                print(&text)
            }
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
            }
        }
    }
    Ok(code)
}

fn line(out: &mut String, s: &Style, label: &str, value: impl AsRef<str>) {
    out.push_str(&format!("  {:<18} {}\n", s.dim(label), value.as_ref()));
}

pub fn summary(file: &Path, g: &Gguf<'_>, s: &Style) -> String {
    let mut out = format!("{}\n", s.bold(&file.display().to_string()));
    let report = g.report();
    let verdict = if !report.valid() {
        let e = &report.errors[0];
        s.red(&format!(
            "INVALID at byte {}: {} [{}]",
            e.offset, e.message, e.rule
        ))
    } else if !report.ggml_compatible() {
        s.yellow("valid, not loadable by ggml")
    } else {
        s.green("valid")
    };
    line(&mut out, s, "status", verdict);
    for w in &report.warnings {
        line(&mut out, s, "warning", s.yellow(&w.message));
    }
    line(
        &mut out,
        s,
        "format",
        format!(
            "GGUF v{}, {}-endian, alignment {}",
            g.version(),
            g.endian(),
            g.alignment()
        ),
    );
    if let Some(arch) = g.architecture() {
        line(&mut out, s, "architecture", arch);
    }
    if let Some(name) = g.model_name() {
        line(&mut out, s, "name", name);
    }
    let actual = g.actual_len().unwrap_or(0);
    let size_note = if actual == g.expected_len() {
        "as the header implies".to_string()
    } else if actual < g.expected_len() {
        s.red(&format!(
            "{} short of the {} the header implies",
            human_bytes(g.expected_len() - actual),
            human_bytes(g.expected_len())
        ))
    } else {
        s.yellow(&format!(
            "{} of trailing bytes",
            human_bytes(actual - g.expected_len())
        ))
    };
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
            "{} ({} key-value pairs)",
            human_bytes(g.data_offset()),
            g.kv_count()
        ),
    );

    let params = g.parameter_count();
    let data = g.tensor_data_size();
    line(
        &mut out,
        s,
        "tensors",
        format!(
            "{} tensors, {} parameters ({}), {} of data",
            g.tensor_count(),
            grouped(params),
            short_count(params),
            human_bytes(data)
        ),
    );
    if params > 0 {
        line(
            &mut out,
            s,
            "bits per weight",
            format!("{:.2}", data as f64 * 8.0 / params as f64),
        );
    }
    let mut by_type: BTreeMap<GgmlType, (u64, u64)> = BTreeMap::new();
    for t in g.tensors() {
        let e = by_type.entry(t.ggml_type()).or_default();
        e.0 += 1;
        e.1 += t.size();
    }
    let mut types: Vec<_> = by_type.into_iter().collect();
    types.sort_by_key(|t| std::cmp::Reverse(t.1 .1));
    for (ty, (count, bytes)) in types {
        let share = if data > 0 {
            bytes as f64 * 100.0 / data as f64
        } else {
            0.0
        };
        line(
            &mut out,
            s,
            "",
            format!(
                "{:<8} {:>5} tensors {:>12} {:>6.1}%",
                ty.name(),
                count,
                human_bytes(bytes),
                share
            ),
        );
    }

    let hp = [
        ("context length", g.context_length()),
        ("embedding length", g.embedding_length()),
        ("block count", g.block_count()),
        ("attention heads", g.head_count()),
        ("kv heads", g.head_count_kv()),
    ];
    for (label, v) in hp {
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
    if let Some(kv) = facts::kv_cache(g) {
        let at_ctx = kv
            .at_context()
            .map(|b| format!(", {} at the full context", human_bytes(b)))
            .unwrap_or_default();
        line(
            &mut out,
            s,
            "kv cache",
            format!(
                "{} per {} tokens of context{at_ctx}",
                human_bytes(kv.per_1k()),
                grouped(facts::KV_TOKENS)
            ),
        );
        line(&mut out, s, "", s.dim(&kv.formula()));
    }
    if let Some(t) = facts::tokenizer(g) {
        let mut parts = vec![t.model.clone().unwrap_or_else(|| "unknown model".into())];
        if let Some(pre) = &t.pre {
            parts[0].push_str(&format!(" (pre-tokenizer {pre})"));
        }
        if let Some(n) = t.vocab_size {
            parts.push(format!("{} tokens", grouped(n)));
        }
        if let Some(m) = t.merges {
            parts.push(format!("{} merges", grouped(m)));
        }
        line(&mut out, s, "tokenizer", parts.join(", "));
        if !t.special.is_empty() {
            let sp: Vec<String> = t
                .special
                .iter()
                .map(|x| match &x.text {
                    Some(text) => format!("{} {} {}", x.role, x.id, facts::token_text(text)),
                    None => format!("{} {} (not in the vocabulary)", x.role, x.id),
                })
                .collect();
            line(&mut out, s, "special tokens", sp.join(", "));
        }
    }
    let template = g
        .get_kv("tokenizer.chat_template")
        .map(|kv| match kv.value {
            ggufkit::Value::String(t) => format!("present ({} bytes)", t.len()),
            _ => "present".to_string(),
        });
    line(
        &mut out,
        s,
        "chat template",
        template.unwrap_or_else(|| "none".into()),
    );
    out
}
