//! `gguf split FILE (--max-tensors N | --max-size SIZE) -o PREFIX [--dry-run]`: shards compatible
//! with llama.cpp's `gguf-split`.

use std::path::PathBuf;

use ggufkit::shard::{parse_size, plan_split, split, SplitLimit, SplitOptions};

use super::{open, CliError, CmdResult, OK};
use crate::output::progress::Progress;
use crate::output::{counted, human_bytes, print};

#[derive(clap::Args)]
#[command(after_long_help = "\
Shards are named PREFIX-00001-of-0000N.gguf. The first holds all the metadata, every shard the
keys split.no (uint16, from 0), split.tensors.count (int32) and split.count (uint16), as
llama.cpp's gguf-split writes them; `gguf merge` or llama.cpp load them back as one model.")]
#[command(group(
    clap::ArgGroup::new("limit")
        .required(true)
        .multiple(false)
        .args(["max_tensors", "max_size"])
))]
pub struct Args {
    /// The GGUF file to split.
    file: PathBuf,
    /// At most N tensors per shard.
    #[arg(long, value_name = "N")]
    max_tensors: Option<usize>,
    /// At most SIZE bytes of tensors per shard (each padded to 32 bytes; metadata not counted):
    /// a number and a unit, K, M, G, T (powers of 1,000, as gguf-split reads M and G) or KiB,
    /// MiB, GiB, TiB: 500M, 100MB, 1.5G. A tensor larger than SIZE gets a shard of its own,
    /// which is then larger (said on stderr).
    #[arg(long, value_name = "SIZE")]
    max_size: Option<String>,
    /// Prefix of the shard names.
    #[arg(short = 'o', long = "output", value_name = "PREFIX")]
    prefix: PathBuf,
    /// Print the plan without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// The first shard holds the metadata only.
    #[arg(long)]
    no_tensor_first_split: bool,
    /// Overwrite existing shard files.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    let limit = match (&args.max_tensors, &args.max_size) {
        (Some(n), _) => SplitLimit::MaxTensors(*n),
        (None, Some(s)) => SplitLimit::MaxSize(
            parse_size(s).map_err(|e| CliError::failed(format!("--max-size: {e}")))?,
        ),
        (None, None) => return Err(CliError::failed("give --max-tensors or --max-size")),
    };
    let opts = SplitOptions {
        limit,
        no_tensor_first_split: args.no_tensor_first_split,
        overwrite: args.force,
    };
    let lib = |e: ggufkit::Error| CliError::from_lib(&args.file, &e);
    let g = open(&args.file, false)?.into_gguf();
    let plan = plan_split(&g, &args.prefix, &opts).map_err(lib)?;
    let total = g.tensor_data_size();
    if let SplitLimit::MaxSize(max) = limit {
        for (i, p) in plan.iter().enumerate() {
            let big = p
                .tensors
                .iter()
                .filter_map(|&j| g.tensor_at(j))
                .find(|t| t.size() > max);
            if let Some(t) = big {
                eprintln!(
                    "gguf: warning: tensor '{}' alone takes {}, more than --max-size {}: shard {} holds it and is larger",
                    t.name(),
                    counted(t.size(), "byte", "bytes"),
                    counted(max, "byte", "bytes"),
                    i + 1
                );
            }
        }
    }
    let mut out = format!("{}\n", counted(plan.len() as u64, "shard", "shards"));
    for p in &plan {
        out.push_str(&format!(
            "{}  {}  {}\n",
            p.path.display(),
            counted(p.tensors.len() as u64, "tensor", "tensors"),
            human_bytes(p.size)
        ));
    }
    if !args.dry_run {
        let progress = Progress::bytes(total, "splitting");
        split(&g, &args.prefix, &opts, progress.callback()).map_err(lib)?;
        progress.finish();
    }
    print(&out);
    Ok(OK)
}
