//! `gguf report FILE -o report.html`: one self-contained HTML page with the summary, searchable
//! tables, where the bytes go and the byte layout (rendered by `output/html.rs`).

use std::path::PathBuf;

use ggufkit::layout::ByteLayout;
use ggufkit::summary::Summary;

use super::{display_name, open_reporting, CliError, CmdResult, OK};
use crate::output::html::page;

#[derive(clap::Args)]
pub struct Args {
    /// The file to describe.
    file: PathBuf,
    /// Where to write the HTML page.
    #[arg(short, long, value_name = "OUT.html")]
    output: PathBuf,
}

pub fn run(args: Args) -> CmdResult {
    let g = open_reporting(&args.file)?;
    let layout = ByteLayout::of(g.as_bytes());
    let html = page(&display_name(&args.file), &g, &Summary::of(&g), &layout);
    std::fs::write(&args.output, html)
        .map_err(|e| CliError::failed(format!("{}: cannot write: {e}", args.output.display())))?;
    Ok(OK)
}
