//! `gguf diff A B [--json]`: what differs between two files (`ggufkit::diff`): header fields,
//! metadata, tensors (data by XXH64). Exit 0 when equal, 1 when they differ.

use std::path::PathBuf;

use ggufkit::diff::{self, Side};
use ggufkit::Error;

use super::{open_reporting, verdict, CliError, CmdResult, FOUND};
use crate::output::diff::{human, json};
use crate::output::progress::Progress;
use crate::output::{print, Style};

#[derive(clap::Args)]
pub struct Args {
    /// The first file.
    a: PathBuf,
    /// The second file.
    b: PathBuf,
    /// One JSON object describing every difference.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let ga = open_reporting(&args.a)?.into_gguf();
    let gb = open_reporting(&args.b)?.into_gguf();
    let bar = Progress::bytes(0, "comparing");
    let d = diff::diff(&ga, &gb, &bar).map_err(|e| match e {
        Error::InComparison { side, source } => {
            let file = if side == Side::A { &args.a } else { &args.b };
            CliError::from_lib(file, &source)
        }
        other => CliError::failed(other.to_string()),
    })?;
    bar.finish();
    let (na, nb) = (args.a.display().to_string(), args.b.display().to_string());
    if args.json {
        print(&json(&na, &nb, &d));
    } else {
        print(&human(&na, &nb, &d, &Style::detect()));
    }
    let files = verdict(&ga).max(verdict(&gb));
    Ok(if d.is_empty() { files } else { FOUND })
}
