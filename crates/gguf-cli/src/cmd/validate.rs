//! `gguf validate FILE... [--json]`: the two verdicts of each file, with the first violation's
//! rule, offset and message.

use std::path::PathBuf;

use ggufkit::{Diagnostic, Report};

use super::{describe, CmdResult, FAILED, FOUND, OK};
use crate::output::{json::Json, print, Style};

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
            let mut line = json_line(&file.display().to_string(), &report);
            crate::remote::add_member(&mut line, file);
            print(&line);
        } else {
            print(&human(&file.display().to_string(), &report, &style));
        }
    }
    Ok(code)
}

/// The contract's JSON object for one file, with a newline.
pub fn json_line(file: &str, r: &Report) -> String {
    let mut j = Json::new();
    j.raw("{").key("file").str(file);
    j.raw(",").key("valid").bool(r.valid());
    j.raw(",").key("ggml_compatible").bool(r.ggml_compatible());
    j.raw(",").key("errors");
    diagnostics(&mut j, &r.errors);
    j.raw(",").key("warnings");
    diagnostics(&mut j, &r.warnings);
    j.raw("}\n");
    j.out
}

fn diagnostics(j: &mut Json, list: &[Diagnostic]) {
    j.raw("[");
    for (i, d) in list.iter().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.raw("{").key("rule").str(d.rule.id());
        j.raw(",").key("offset").u64(d.offset);
        j.raw(",").key("message").str(&d.message).raw("}");
    }
    j.raw("]");
}

fn human(file: &str, r: &Report, s: &Style) -> String {
    let mut out = String::new();
    let verdict = match (r.valid(), r.ggml_compatible()) {
        (true, true) => s.green("valid, ggml-compatible"),
        (true, false) => format!("{}, {}", s.green("valid"), s.yellow("not ggml-compatible")),
        (false, true) => format!(
            "{}, {}",
            s.red("INVALID"),
            s.yellow("but ggml would load it")
        ),
        (false, false) => s.red("INVALID"),
    };
    out.push_str(&format!("{}: {verdict}\n", s.bold(file)));
    for d in &r.errors {
        out.push_str(&format!(
            "  {} at byte {}: {} [{}]\n",
            s.red("error"),
            d.offset,
            d.message,
            d.rule
        ));
    }
    for d in &r.warnings {
        out.push_str(&format!(
            "  {} at byte {}: {} [{}]\n",
            s.yellow("warning"),
            d.offset,
            d.message,
            d.rule
        ));
    }
    if r.omitted > 0 {
        out.push_str(&format!("  ({} more findings not shown)\n", r.omitted));
    }
    out
}
