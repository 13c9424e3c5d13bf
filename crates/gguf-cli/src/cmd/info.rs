//! `gguf info FILE...`: what a person wants at a glance, the model summary of each file.

use std::path::PathBuf;

use ggufkit::summary::Summary;

use super::{open, CmdResult, FAILED, OK};
use crate::output::summary_text::summary_text;
use crate::output::{print, Style};

#[derive(clap::Args)]
pub struct Args {
    /// Files to summarise.
    #[arg(required = true)]
    files: Vec<PathBuf>,
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let mut code = OK;
    for (i, file) in args.files.iter().enumerate() {
        if i > 0 {
            print("\n");
        }
        // permissive: show what can be shown of a damaged file, and say what is wrong
        match open(file, true) {
            Ok(g) => {
                let title = file.display().to_string();
                let mut text = summary_text(&title, g.report(), &Summary::of(&g), &style);
                if let Some(line) = crate::remote::human_line(file) {
                    text.push_str(&line);
                }
                print(&text)
            }
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
            }
        }
    }
    Ok(code)
}
