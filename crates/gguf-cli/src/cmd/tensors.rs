//! `gguf tensors FILE... [--json] [--filter GLOB] [--sort name|size|offset|type]`: the tensor
//! table, with totals. With `--stats [--tensor GLOB]`: value statistics of each tensor instead
//! (see `tensor_stats`).

use std::path::PathBuf;

use ggufkit::{Gguf, TensorInfo};

use super::{open_reporting, tensor_stats, CmdResult, FAILED, OK};
use crate::output::glob;
use crate::output::json::Json;
use crate::output::table::{Align, Table};
use crate::output::tensor::tensor_json;
use crate::output::{grouped, print, shape_text, Style};

#[derive(clap::Args)]
pub struct Args {
    /// Files to list.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line.
    #[arg(long)]
    json: bool,
    /// Only tensors whose name matches this wildcard pattern (`*`, `?`, `[a-z]`).
    #[arg(long, value_name = "GLOB")]
    filter: Option<String>,
    /// Order of the rows: name (ascending), size (largest first), offset (file order), type (by
    /// type name, then file order).
    #[arg(long, value_enum, default_value_t = SortKey::Offset)]
    sort: SortKey,
    /// Value statistics of each tensor instead of the table: min, max, mean and standard
    /// deviation of the finite values, counts of NaN, Inf and zeros, and a 10-bin histogram,
    /// over the dequantized values (streamed, tensors in parallel).
    #[arg(long)]
    stats: bool,
    /// With --stats: only tensors whose name matches this wildcard pattern.
    #[arg(long, value_name = "GLOB", requires = "stats")]
    tensor: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SortKey {
    Name,
    Size,
    Offset,
    Type,
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let mut code = OK;
    let many = args.files.len() > 1;
    for (i, file) in args.files.iter().enumerate() {
        let g = match open_reporting(file) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
                continue;
            }
        };
        let rows = select(&g, args.filter.as_deref(), args.sort);
        let name = file.display().to_string();
        let body = if args.stats {
            let rows: Vec<TensorInfo<'_>> = rows
                .into_iter()
                .filter(|t| {
                    args.tensor
                        .as_deref()
                        .is_none_or(|p| glob::matches(p, &t.name()))
                })
                .collect();
            let stats = tensor_stats::all_stats(&rows);
            if stats.iter().any(Result::is_err) {
                code = FAILED;
            }
            if args.json {
                tensor_stats::json_line(&name, &rows, &stats)
            } else {
                tensor_stats::human(&rows, &stats)
            }
        } else if args.json {
            json_line(&name, &rows)
        } else {
            human(&rows)
        };
        if args.json {
            let mut line = body;
            crate::remote::add_member(&mut line, file);
            print(&line);
        } else {
            // files after the first are set apart, and named when there are several
            if i > 0 {
                print("\n");
            }
            if many {
                print(&format!("{}\n", style.bold(&name)));
            }
            print(&body);
        }
    }
    Ok(code)
}

/// The tensors to show, filtered and ordered.
pub fn select<'g>(g: &'g Gguf<'_>, filter: Option<&str>, sort: SortKey) -> Vec<TensorInfo<'g>> {
    let mut rows: Vec<TensorInfo<'g>> = g
        .tensors()
        .filter(|t| filter.is_none_or(|f| glob::matches(f, &t.name())))
        .collect();
    match sort {
        SortKey::Offset => {}
        SortKey::Name => rows.sort_by(|a, b| a.name_bytes().cmp(b.name_bytes())),
        SortKey::Size => rows.sort_by_key(|t| std::cmp::Reverse(t.size())),
        SortKey::Type => rows.sort_by_key(|t| t.ggml_type().name()),
    }
    rows
}

fn human(rows: &[TensorInfo<'_>]) -> String {
    let mut t = Table::new(&[
        ("name", Align::Left),
        ("type", Align::Left),
        ("shape", Align::Left),
        ("elements", Align::Right),
        ("bytes", Align::Right),
        ("offset", Align::Right),
    ]);
    let (mut elements, mut bytes) = (0u64, 0u64);
    for r in rows {
        elements = elements.saturating_add(r.n_elements());
        bytes = bytes.saturating_add(r.size());
        t.row(vec![
            r.name().into_owned(),
            r.ggml_type().name().to_string(),
            shape_text(r.shape()),
            grouped(r.n_elements()),
            grouped(r.size()),
            grouped(r.offset()),
        ]);
    }
    let footer = vec![
        format!(
            "{} tensor{}",
            grouped(rows.len() as u64),
            if rows.len() == 1 { "" } else { "s" }
        ),
        String::new(),
        String::new(),
        grouped(elements),
        grouped(bytes),
        String::new(),
    ];
    t.render(&[footer])
}

/// The JSON object of one file, with a newline.
pub fn json_line(file: &str, rows: &[TensorInfo<'_>]) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("tensors").raw("[");
    let (mut elements, mut bytes) = (0u64, 0u64);
    for (i, r) in rows.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        tensor_json(&mut j, r);
        elements = elements.saturating_add(r.n_elements());
        bytes = bytes.saturating_add(r.size());
    }
    j.raw("]");
    j.raw(",").key("total").raw("{");
    j.key("count").u64(rows.len() as u64);
    j.raw(",").key("n_elements").u64(elements);
    j.raw(",").key("size").u64(bytes);
    j.raw("}}\n");
    j.out
}
