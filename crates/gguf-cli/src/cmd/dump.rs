//! `gguf dump FILE [--json]`: everything in the header. JSON is complete (no array shortened);
//! the human form shortens long arrays.

use std::io::Write;
use std::path::PathBuf;

use ggufkit::{Gguf, Value};

use super::{open, CmdResult, OK};
use crate::output::value::human_value;
use crate::output::{json::Json, Style};

#[derive(clap::Args)]
pub struct Args {
    /// The file to dump.
    file: PathBuf,
    /// The contract's JSON object, complete.
    #[arg(long, conflicts_with = "markdown")]
    json: bool,
    /// A Markdown document for a model card: summary, tensor types, metadata, tensors.
    #[arg(long)]
    markdown: bool,
    /// Also dump files that break rules which leave them readable (bool bytes, UTF-8, repeated
    /// keys or names, data cut short), reporting what is wrong on stderr.
    #[arg(long)]
    permissive: bool,
    /// Elements of an array shown in the human form before it is shortened.
    #[arg(long, default_value_t = 8)]
    max_elements: usize,
}

pub fn run(args: Args) -> CmdResult {
    let g = open(&args.file, args.permissive)?;
    super::report_errors(&args.file, &g);
    let text = if args.markdown {
        let name = args
            .file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| args.file.display().to_string());
        crate::output::markdown::markdown(&name, &g)
    } else if args.json {
        let mut j = json(&g);
        j.out.push('\n');
        crate::remote::add_member(&mut j.out, &args.file);
        j.out
    } else {
        human(&g, args.max_elements, &Style::detect())
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(OK)
}

/// The contract's `dump --json` object.
pub fn json(g: &Gguf<'_>) -> Json {
    let mut j = Json::new();
    j.raw("{").key("version").u64(g.version().into());
    j.raw(",").key("endian").str(g.endian().name());
    j.raw(",").key("alignment").u64(g.alignment().into());
    j.raw(",").key("tensor_data_offset").u64(g.data_offset());
    j.raw(",").key("file_size").u64(g.expected_len());
    j.raw(",").key("metadata").raw("[");
    for (i, kv) in g.metadata().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("key").text(kv.key.as_bytes());
        j.raw(",").key("type").str(kv.value_type().name());
        if let Value::Array(a) = kv.value {
            j.raw(",").key("element_type").str(a.element_type().name());
        }
        j.raw(",").key("value").value(&kv.value).raw("}");
    }
    j.raw("]");
    j.raw(",").key("tensors").raw("[");
    for (i, t) in g.tensors().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("name").text(t.name_bytes());
        j.raw(",").key("type").str(t.ggml_type().name());
        j.raw(",").key("shape").raw("[");
        for (k, d) in t.shape().iter().enumerate() {
            if k > 0 {
                j.raw(",");
            }
            j.u64(*d);
        }
        j.raw("]");
        j.raw(",").key("offset").u64(t.offset());
        j.raw(",").key("size").u64(t.size()).raw("}");
    }
    j.raw("]}");
    j
}

fn human(g: &Gguf<'_>, max: usize, s: &Style) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{} version {}, {}-endian, alignment {}, {} key-value pairs, {} tensors\n",
        s.bold("GGUF"),
        g.version(),
        g.endian(),
        g.alignment(),
        g.kv_count(),
        g.tensor_count()
    ));
    out.push_str(&format!(
        "tensor data at byte {}, file size {} (expected {})\n",
        g.data_offset(),
        g.actual_len().unwrap_or(0),
        g.expected_len()
    ));
    out.push_str(&format!("\n{}\n", s.bold("metadata")));
    for (i, kv) in g.metadata().enumerate() {
        let ty = match kv.value {
            Value::Array(a) => format!("array[{}; {}]", a.element_type().name(), a.len()),
            _ => kv.value_type().name().to_string(),
        };
        out.push_str(&format!(
            "{i:>5}  {:<40} {:<22} {}\n",
            kv.key(),
            s.dim(&ty),
            human_value(&kv.value, max)
        ));
    }
    out.push_str(&format!("\n{}\n", s.bold("tensors")));
    for (i, t) in g.tensors().enumerate() {
        let shape: Vec<String> = t.shape().iter().map(|d| d.to_string()).collect();
        out.push_str(&format!(
            "{i:>5}  {:<48} {:<8} [{}]  offset {}  {} bytes\n",
            t.name(),
            t.ggml_type().name(),
            shape.join(", "),
            t.offset(),
            t.size()
        ));
    }
    out
}
