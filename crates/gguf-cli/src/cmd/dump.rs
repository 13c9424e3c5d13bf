//! `gguf dump FILE [--json]`: everything in the header. JSON is complete (no array shortened);
//! the human form shortens long arrays.

use std::io::Write;
use std::path::PathBuf;

use ggufkit::render::dump::dump_json;
use ggufkit::summary::Summary;

use super::{display_name, open_reporting, verdict, CmdResult};
use crate::output::dump_text::dump_text;
use crate::output::markdown::markdown;
use crate::output::Style;

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
    /// Accepted for compatibility: every read-only command now shows what a damaged file holds,
    /// says what is wrong on stderr and exits 1 (docs/exit-codes.md).
    #[arg(long, hide = true)]
    permissive: bool,
    /// Elements of an array shown in the human form before it is shortened.
    #[arg(long, default_value_t = 8)]
    max_elements: usize,
    /// Characters of a string shown in the human form before it is shortened (JSON is never
    /// shortened; `meta get` prints a value whole).
    #[arg(long, default_value_t = 100)]
    max_chars: usize,
}

pub fn run(args: Args) -> CmdResult {
    let opened = open_reporting(&args.file)?;
    let g = opened.gguf();
    let text = if args.markdown {
        markdown(&display_name(&args.file), g, &Summary::of(g))
    } else if args.json {
        dump_json(g, opened.cost())
    } else {
        dump_text(g, args.max_elements, args.max_chars, &Style::detect())
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(verdict(g))
}
