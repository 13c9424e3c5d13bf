//! `gguf layout FILE [--json]`: the byte map of a file as the spec structures it, every field with
//! its offset, length and value ([`ggufkit::layout`]); a broken file is mapped up to the field
//! where it breaks, and that field is marked.

use std::path::PathBuf;

use ggufkit::layout::ByteLayout;
use ggufkit::MappedFile;

use super::{CliError, CmdResult, FAILED, FOUND, OK};
use crate::output::layout_json::write_layout_json;
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
    if crate::remote::is_remote(file) {
        // the header's bytes with range requests; the object's length decides the data fields
        let (bytes, total) = crate::remote::header_prefix(file)?;
        let layout = ByteLayout::of_prefix(&bytes, total);
        if args.json {
            // an array: no place for a "remote" member without changing its shape
            print_json(&layout);
        } else {
            let mut text = layout_text(&layout.fields, &Style::detect());
            if let Some(line) = crate::remote::human_line(file) {
                text.push_str(line.trim_start());
            }
            print(&text);
        }
        return Ok(if layout.outline.report.valid() {
            OK
        } else {
            FOUND
        });
    }
    super::readable(file)?;
    let map = MappedFile::open(file).map_err(|e| CliError::from_lib(file, &e))?;
    let layout = ByteLayout::of(map.bytes());
    if args.json {
        print_json(&layout);
    } else {
        print(&layout_text(&layout.fields, &Style::detect()));
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
