//! `gguf tensors FILE... [--json] [--filter GLOB] [--sort name|size|offset|type]`: the tensor
//! table, with totals. With `--stats [--tensor GLOB]`: value statistics of each tensor instead
//! (`ggufkit::stats`).

use std::path::PathBuf;

use ggufkit::select::{matches_glob, select_tensors, TensorOrder};
use ggufkit::{stats, TensorInfo};

use super::{open_reporting, verdict, CmdResult, FAILED, OK};
use crate::output::progress::Progress;
use crate::output::{print, Style};
use crate::output::{tensor_stats, tensor_table};

#[derive(clap::Args)]
pub struct Args {
    /// Files to list.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per file, one per line.
    #[arg(long)]
    json: bool,
    /// Only tensors whose name matches this wildcard pattern (`*`, `?`, `[a-z]`).
    #[arg(long, value_name = "GLOB")]
    filter: Option<String>,
    /// Order of the rows: name (ascending), size (largest first), offset (file order), type (by
    /// type name, then file order).
    #[arg(long, value_enum, default_value_t = SortKey::Offset)]
    sort: SortKey,
    /// Value statistics of each tensor instead of the table: min, max, mean and standard
    /// deviation of the finite values, counts of NaN, Inf and zeros, and a 10-bin histogram,
    /// over the dequantized values (streamed, tensors in parallel).
    #[arg(long)]
    stats: bool,
    /// With --stats: only tensors whose name matches this wildcard pattern.
    #[arg(long, value_name = "GLOB", requires = "stats")]
    tensor: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum SortKey {
    Name,
    Size,
    Offset,
    Type,
}

impl From<SortKey> for TensorOrder {
    fn from(k: SortKey) -> TensorOrder {
        match k {
            SortKey::Name => TensorOrder::Name,
            SortKey::Size => TensorOrder::Size,
            SortKey::Offset => TensorOrder::Offset,
            SortKey::Type => TensorOrder::Type,
        }
    }
}

pub fn run(args: Args) -> CmdResult {
    let style = Style::detect();
    let mut code = OK;
    let many = args.files.len() > 1;
    for (i, file) in args.files.iter().enumerate() {
        let opened = match open_reporting(file) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("{e}");
                code = FAILED;
                continue;
            }
        };
        let g = opened.gguf();
        code = code.max(verdict(g));
        let rows = select_tensors(g, args.filter.as_deref(), args.sort.into());
        let name = file.display().to_string();
        let body = if args.stats {
            let rows: Vec<TensorInfo<'_>> = rows
                .into_iter()
                .filter(|t| {
                    args.tensor
                        .as_deref()
                        .is_none_or(|p| matches_glob(p, &t.name()))
                })
                .collect();
            let progress = Progress::bytes(0, "statistics");
            let stats = stats::tensors_stats(&rows, &progress);
            progress.finish();
            if stats.iter().any(Result::is_err) {
                code = FAILED;
            }
            if args.json {
                tensor_stats::json_line(&name, &rows, &stats, opened.cost())
            } else {
                tensor_stats::human(&rows, &stats)
            }
        } else if args.json {
            ggufkit::render::tensor::tensors_json(&name, &rows, opened.cost())
        } else {
            tensor_table::human(&rows)
        };
        if args.json {
            print(&body);
        } else {
            // files after the first are set apart, and named when there are several
            if i > 0 {
                print("\n");
            }
            if many {
                print(&format!("{}\n", style.bold(&name)));
            }
            print(&body);
        }
    }
    Ok(code)
}
