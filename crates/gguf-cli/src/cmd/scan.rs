//! `gguf scan LOCATION... -o DIR [--format parquet|jsonl] [--jobs N] [--full-arrays]
//! [--full-audit]`: index
//! files, directories and URLs into the four tables of `ggufkit::scan` in DIR; a scan into a
//! folder that already holds one resumes it (files already there, unchanged, are skipped).

use std::path::PathBuf;
use std::time::Instant;

use ggufkit::audit::Depth;
use ggufkit::scan::{self, Format, RemoteConfig, ScanOptions, ScanOutput, ValueLimit};

use super::{CliError, CmdResult, OK};
use crate::output::scan_progress::ScanBar;
use crate::output::{counted, grouped};

#[derive(clap::Args)]
pub struct Args {
    /// Files, directories (walked for *.gguf), URLs (http(s)://, s3://, gs://, az://) and
    /// object-store prefixes (s3://bucket/models/, listed for *.gguf).
    #[arg(required = true)]
    locations: Vec<String>,
    /// The output folder: files/, metadata/, tensors/ and findings/, in numbered parts.
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    output: PathBuf,
    /// How the tables are written.
    #[arg(long, default_value = "parquet", value_parser = ["parquet", "jsonl"])]
    format: String,
    /// Files read at once (default: the number of cores; more for remote locations).
    #[arg(long, value_name = "N")]
    jobs: Option<usize>,
    /// Keep every element of every array in the metadata table (by default the first 64).
    #[arg(long)]
    full_arrays: bool,
    /// Run every rule of `gguf audit` on each file, the per-token lookups too (duplicate
    /// tokens, merges naming no token), which cost several times the header's reading; by
    /// default the findings table has every other rule's.
    #[arg(long)]
    full_audit: bool,
}

pub fn run(args: Args) -> CmdResult {
    let format = Format::from_name(&args.format).unwrap_or_default();
    let mut out =
        ScanOutput::open(&args.output, format).map_err(|e| CliError::failed(e.to_string()))?;
    let locations = scan::expand(&args.locations);
    let mut options = ScanOptions {
        values: ValueLimit {
            full_arrays: args.full_arrays,
            ..ValueLimit::default()
        },
        remote: RemoteConfig {
            options: ggufkit::remote::RemoteOptions::from_env(),
        },
        audit: Some(if args.full_audit {
            Depth::Full
        } else {
            Depth::Header
        }),
        ..ScanOptions::default()
    };
    if let Some(j) = args.jobs {
        options.jobs = j.max(1);
    }
    let done = out.take_done();
    let bar = ScanBar::new();
    let start = Instant::now();
    let stats = scan::scan(&locations, &done, &options, &mut out, &bar)
        .map_err(|e| CliError::failed(e.to_string()))?;
    bar.finish();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "scanned {} in {:.2} s ({} skipped as already in {}, {} not valid, {} unreadable, {} fetched in {})",
        counted(stats.scanned, "file", "files"),
        secs,
        grouped(stats.skipped),
        args.output.display(),
        grouped(stats.invalid),
        grouped(stats.unreadable),
        crate::output::human_bytes(stats.bytes_fetched),
        counted(stats.requests, "request", "requests")
    );
    Ok(OK)
}
