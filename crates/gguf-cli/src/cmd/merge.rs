//! `gguf merge FIRST_SHARD -o OUT`: one file from the shards of a split model.

use std::path::PathBuf;

use ggufkit::open::{open_model_from_first, OpenOptions};

use super::{CliError, CmdResult, OK};
use crate::output::progress::Progress;

#[derive(clap::Args)]
#[command(after_long_help = "\
The shards must belong together: FIRST_SHARD is named PREFIX-00001-of-0000N.gguf, every shard
exists with the right split.no, the same split.count and split.tensors.count and byte order, and
no tensor is missing or appears twice. The output has the first shard's metadata without the
split keys, and every tensor in order.")]
pub struct Args {
    /// The first shard (PREFIX-00001-of-0000N.gguf).
    first: PathBuf,
    /// The merged file (refused if it exists, unless --force).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    out: PathBuf,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    let lib = |e: ggufkit::Error| CliError::from_lib(&args.first, &e);
    let location = super::locate(&args.first)?;
    // from the first shard, as llama-gguf-split --merge takes it; the shards' data is copied, so
    // they must be local files
    let opened = open_model_from_first(&location, &OpenOptions::permissive(false))
        .map_err(|e| lib(e.error))?;
    let m = opened.local().map_err(lib)?;
    let total: u64 = m.tensors().map(|t| t.size()).sum();
    let progress = Progress::bytes(total, "merging");
    m.merge_to(&args.out, args.force, progress.callback())
        .map_err(lib)?;
    progress.finish();
    eprintln!(
        "merged {}, {}, into {}",
        crate::output::counted(m.shard_count() as u64, "shard", "shards"),
        crate::output::counted(m.tensor_count() as u64, "tensor", "tensors"),
        args.out.display()
    );
    Ok(OK)
}
