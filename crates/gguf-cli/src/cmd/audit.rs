//! `gguf audit FILE... [--json | --sarif] [--severity LEVEL]`: what a valid file can still hide
//! (dangerous chat templates, a tokenizer or hyperparameters that contradict the file), as the
//! library's audit finds it.

use std::path::PathBuf;

use ggufkit::audit::{Finding, Severity};
use ggufkit::render::audit::audit_json;

use super::{CmdResult, FAILED, FOUND, OK};
use crate::output::audit_sarif::{audit_sarif, Audited};
use crate::output::audit_text::audit_text;
use crate::output::{print, Style};

/// The least severity shown and counted.
#[derive(Clone, Copy, clap::ValueEnum)]
enum Level {
    Note,
    Warning,
    Error,
}

impl Level {
    fn severity(self) -> Severity {
        match self {
            Level::Note => Severity::Note,
            Level::Warning => Severity::Warning,
            Level::Error => Severity::Error,
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// Files to audit.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line (docs/json.md).
    #[arg(long, conflicts_with = "sarif")]
    json: bool,
    /// One SARIF 2.1.0 document for all files, for code-scanning tools.
    #[arg(long)]
    sarif: bool,
    /// Show and count findings at this severity or above; exit 1 when there is any
    /// [default: warning]
    #[arg(long, value_enum, value_name = "LEVEL", default_value_t = Level::Warning, hide_default_value = true)]
    severity: Level,
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let least = args.severity.severity();
    let mut code = OK;
    let mut audited = Vec::new();
    for file in &args.files {
        let name = file.display().to_string();
        let g = match super::open(file, true) {
            Ok(opened) => opened.into_gguf(),
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
                continue;
            }
        };
        // a file that breaks the spec is audited as far as its bytes allow, its violations
        // findings like the rest
        let findings: Vec<Finding> = ggufkit::audit::spec_findings(&g)
            .into_iter()
            .chain(ggufkit::audit::audit(&g))
            .filter(|f| f.severity >= least)
            .collect();
        if !findings.is_empty() && code == OK {
            code = FOUND;
        }
        if args.json {
            print(&audit_json(&name, least, &findings));
        } else if args.sarif {
            audited.push(Audited {
                file: name,
                findings,
            });
        } else {
            print(&audit_text(&name, least, &findings, &style));
        }
    }
    if args.sarif {
        print(&audit_sarif(&audited));
    }
    Ok(code)
}
