//! `gguf carve FILE -o OUT`: cut a GGUF out of a larger file.

use std::path::PathBuf;

use ggufkit::write::carve_file_with;

use super::{CliError, CmdResult, OK};
use crate::output::progress::Progress;
use crate::output::{counted, grouped};

#[derive(clap::Args)]
#[command(after_long_help = "\
Scans FILE for the magic \"GGUF\" followed by version 2 or 3 (either byte order), validates the
file from each candidate with the spec's rules, and writes exactly the bytes the first valid
header implies (its len_file: data start plus the last tensor's padded end).")]
pub struct Args {
    /// The larger file to search.
    file: PathBuf,
    /// Where to write the GGUF found (refused if it exists, unless --force).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    out: PathBuf,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    super::readable(&args.file)?;
    // the library sets the bar's total once it has found the GGUF
    let progress = Progress::bytes(0, "carving");
    let found = carve_file_with(&args.file, &args.out, args.force, &progress)
        .map_err(|e| CliError::from_lib(&args.file, &e))?;
    progress.finish();
    eprintln!(
        "found GGUF v{} ({}-endian, {}) at byte {}: wrote {} to {}",
        found.version,
        found.endian,
        counted(found.tensors as u64, "tensor", "tensors"),
        grouped(found.offset),
        counted(found.len, "byte", "bytes"),
        args.out.display()
    );
    Ok(OK)
}
