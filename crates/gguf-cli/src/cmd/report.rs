//! `gguf report FILE -o report.html`: one self-contained HTML page with the summary, searchable
//! tables, where the bytes go and the byte layout (rendered by `output/html.rs`).

use std::io::Write;
use std::path::PathBuf;

use ggufkit::layout::ByteLayout;
use ggufkit::summary::Summary;
use ggufkit::write::AtomicFile;

use super::{display_name, open_reporting, verdict, CliError, CmdResult};
use crate::output::html::page;

#[derive(clap::Args)]
pub struct Args {
    /// The file to describe.
    file: PathBuf,
    /// Where to write the HTML page (refused if it exists, unless --force; never FILE itself).
    #[arg(short, long, value_name = "OUT.html")]
    output: PathBuf,
    /// Overwrite OUT.html if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    let out_error = |e: ggufkit::Error| CliError::failed(e.to_string());
    // refused before any work: the page must never replace the model it describes
    let mut af = AtomicFile::create_from(&args.output, args.force, &[args.file.as_path()])
        .map_err(out_error)?;
    let g = open_reporting(&args.file)?;
    let layout = ByteLayout::of(g.as_bytes());
    let html = page(&display_name(&args.file), &g, &Summary::of(&g), &layout);
    let write_error = |e: std::io::Error| {
        CliError::failed(format!("{}: cannot write: {e}", args.output.display()))
    };
    {
        let mut w = af.writer();
        w.write_all(html.as_bytes()).map_err(write_error)?;
        w.flush().map_err(write_error)?;
    }
    af.commit().map_err(out_error)?;
    Ok(verdict(&g))
}
