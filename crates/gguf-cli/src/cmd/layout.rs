//! `gguf layout FILE [--json]`: the byte map of a file as the spec structures it, every field with
//! its offset, length and value ([`ggufkit::layout`]); a broken file is mapped up to the field
//! where it breaks, and that field is marked.

use std::path::PathBuf;

use ggufkit::layout::ByteLayout;
use ggufkit::open::header_bytes;
use ggufkit::render::layout::write_layout_json;

use super::{CliError, CmdResult, FAILED, FOUND, OK};
use crate::output::cost::{cost_line, cost_note};
use crate::output::layout_text::layout_text;
use crate::output::{print, Style};

#[derive(clap::Args)]
pub struct Args {
    /// The file to map.
    file: PathBuf,
    /// A JSON list of `{path, offset, length, value}` (plus `errors` on marked fields).
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let file = &args.file;
    let location = super::locate(file)?;
    // a local file mapped; a remote one's header with range requests, its length deciding the
    // data fields
    let bytes = header_bytes(&location).map_err(|e| CliError::from_lib(file, &e.error))?;
    let layout = bytes.layout();
    if args.json {
        // an array: no place for a "remote" member without changing its shape, so the cost of a
        // remote file is said on stderr
        print_json(&layout);
        if let Some(note) = cost_note(&file.display().to_string(), bytes.cost()) {
            eprintln!("gguf: {note}");
        }
    } else {
        let mut text = layout_text(&layout.fields, &Style::detect());
        if let Some(line) = cost_line(bytes.cost()) {
            text.push_str(line.trim_start());
        }
        print(&text);
    }
    let report = &layout.outline.report;
    super::report_findings(file, report);
    if let Some(why) = &report.incomplete {
        // mapped as far as the reader goes; the rest cannot be judged
        eprintln!("gguf: {}: {why}", file.display());
        return Ok(FAILED);
    }
    Ok(if report.valid() { OK } else { FOUND })
}

/// The layout as JSON on stdout, ignoring a closed pipe as [`print()`] does.
fn print_json(layout: &ByteLayout<'_>) {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let _ = write_layout_json(&layout.fields, &mut out);
}
