//! `gguf validate FILE... [--json]`: the two verdicts of each file, with the first violation's
//! rule, offset and message.

use std::path::PathBuf;

use ggufkit::render::validation::validation_json;

use super::{describe, CmdResult, FAILED, FOUND, OK};
use crate::output::validation_text::validation_text;
use crate::output::{print, Style};

#[derive(clap::Args)]
pub struct Args {
    /// Files to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let mut code = OK;
    for file in &args.files {
        let location = match super::locate(file) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
                continue;
            }
        };
        let (report, cost) = match ggufkit::open::validate(&location) {
            Ok(checked) => checked,
            Err(e) => {
                eprintln!("gguf: {}", describe(file, &e.error));
                code = FAILED;
                continue;
            }
        };
        if !report.valid() && code == OK {
            code = FOUND;
        }
        if args.json {
            print(&validation_json(&file.display().to_string(), &report, cost));
        } else {
            print(&validation_text(
                &file.display().to_string(),
                &report,
                &style,
            ));
        }
    }
    Ok(code)
}
