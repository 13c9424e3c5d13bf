//! `gguf report FILE -o report.html`: one self-contained HTML page with the summary, searchable
//! tables, where the bytes go and the byte layout (rendered by `output/html.rs`).

use std::io::Write;
use std::path::{Path, PathBuf};

use ggufkit::layout::ByteLayout;
use ggufkit::summary::Summary;
use ggufkit::write::AtomicFile;

use super::{display_name, open_reporting, verdict, CliError, CmdResult};
use crate::output::html::page;

#[derive(clap::Args)]
pub struct Args {
    /// The file to describe.
    file: PathBuf,
    /// Where to write the HTML page, named .html or .htm (refused if it exists, unless --force;
    /// never FILE itself).
    #[arg(short, long, value_name = "OUT.html")]
    output: PathBuf,
    /// Overwrite OUT.html if it exists.
    #[arg(long)]
    force: bool,
}

/// The page is HTML: an output named otherwise (`.md`, `.json`, no extension) is refused, with
/// where the other forms come from.
fn html_name(out: &Path) -> Result<(), CliError> {
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("html" | "htm") => Ok(()),
        _ => Err(CliError::failed(format!(
            "{}: report writes an HTML page: name the output .html (Markdown comes from `gguf dump --markdown FILE`, JSON from `gguf info --json FILE`)",
            out.display()
        ))),
    }
}

pub fn run(args: Args) -> CmdResult {
    let out_error = |e: ggufkit::Error| CliError::failed(e.to_string());
    // refused before any work: the page must never replace the model it describes, nor be
    // written under a name that says it is something else
    ggufkit::write::atomic::refuse_input(&args.output, &[args.file.as_path()])
        .map_err(out_error)?;
    html_name(&args.output)?;
    let mut af = AtomicFile::create_from(&args.output, args.force, &[args.file.as_path()])
        .map_err(out_error)?;
    let g = open_reporting(&args.file)?.into_gguf();
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
