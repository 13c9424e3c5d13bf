//! `gguf info FILE... [--json]`: what a person wants at a glance, the model summary of each file.

use std::path::{Path, PathBuf};

use ggufkit::render::summary::info_json;
use ggufkit::summary::Summary;
use ggufkit::Gguf;

use super::{open, verdict, CmdResult, FAILED, FOUND, OK};
use crate::output::cost::cost_line;
use crate::output::summary_text::summary_text;
use crate::output::{print, Style};

#[derive(clap::Args)]
pub struct Args {
    /// Files to summarise.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line (docs/json.md).
    #[arg(long)]
    json: bool,
    /// Also estimate the KV cache (f16, every layer) for N tokens of context
    /// (`kv_cache_at` in JSON).
    #[arg(long, value_name = "N")]
    context: Option<u64>,
}

/// The summary of `file` ([`Summary::of_file`]: a local split model's first shard describes the
/// whole model); when the other shards cannot be read, this shard's alone, the reason on stderr
/// and exit code 1. Remote files are described alone.
fn model_summary(file: &Path, g: &Gguf<'_>) -> (Summary, u8) {
    match Summary::of_file(g) {
        (s, None) => (s, OK),
        (s, Some(e)) => {
            eprintln!(
                "gguf: {}; describing this shard alone",
                super::describe(file, &e)
            );
            (s, FOUND)
        }
    }
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let mut code = OK;
    for (i, file) in args.files.iter().enumerate() {
        if i > 0 && !args.json {
            print("\n");
        }
        // permissive: show what can be shown of a damaged file, and say what is wrong (in the
        // status line, which is the first problem `validate` reports)
        match open(file, true) {
            Ok(opened) => {
                let g = opened.gguf();
                code = code.max(verdict(g));
                let title = file.display().to_string();
                let (summary, whole) = model_summary(file, g);
                code = code.max(whole);
                if args.json {
                    let cost = opened.cost();
                    print(&info_json(&title, g.report(), &summary, args.context, cost));
                } else {
                    let mut text = summary_text(&title, g.report(), &summary, args.context, &style);
                    if let Some(line) = cost_line(opened.cost()) {
                        text.push_str(&line);
                    }
                    print(&text)
                }
            }
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
            }
        }
    }
    Ok(code)
}
