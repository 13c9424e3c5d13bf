//! `gguf info FILE... [--json]`: what a person wants at a glance, the model summary of each file.

use std::path::PathBuf;

use ggufkit::summary::Summary;

use super::{open, verdict, CmdResult, FAILED, OK};
use crate::output::summary_text::summary_text;
use crate::output::{print, Style};
use ggufkit::summary::summary_json;

#[derive(clap::Args)]
pub struct Args {
    /// Files to summarise.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line (docs/json.md).
    #[arg(long)]
    json: bool,
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
            Ok(g) => {
                code = code.max(verdict(&g));
                let title = file.display().to_string();
                let summary = Summary::of(&g);
                if args.json {
                    let mut line = summary_json(&title, g.report(), &summary);
                    crate::remote::add_member(&mut line, file);
                    print(&line);
                } else {
                    let mut text = summary_text(&title, g.report(), &summary, &style);
                    if let Some(line) = crate::remote::human_line(file) {
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
