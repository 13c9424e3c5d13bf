//! `gguf validate FILE... [--json]`: the two verdicts of each file, with the first violation's
//! rule, offset and message.

use std::path::PathBuf;

use super::{describe, CmdResult, FAILED, FOUND, OK};
use crate::output::validation_json::validation_json;
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
        if let Err(e) = super::readable(file) {
            eprintln!("{e}");
            code = FAILED;
            continue;
        }
        let checked = if crate::remote::is_remote(file) {
            crate::remote::validate(file)
        } else {
            ggufkit::validate_file(file).map_err(|e| describe(file, &e))
        };
        let report = match checked {
            Ok(r) => r,
            Err(e) => {
                eprintln!("gguf: {e}");
                code = FAILED;
                continue;
            }
        };
        if !report.valid() && code == OK {
            code = FOUND;
        }
        if args.json {
            let mut line = validation_json(&file.display().to_string(), &report);
            crate::remote::add_member(&mut line, file);
            print(&line);
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
