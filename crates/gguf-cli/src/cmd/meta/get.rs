//! `gguf meta get FILE KEY [--json]`: one value, arrays printed whole; exit 1 when absent.

use std::path::PathBuf;

use ggufkit::render::value::kv_json;

use crate::cmd::{open_reporting, verdict, CmdResult, FOUND};
use crate::output::json::Json;
use crate::output::print;
use crate::output::value::human;

#[derive(clap::Args)]
pub struct Args {
    /// The file to read.
    file: PathBuf,
    /// The key, e.g. `general.architecture`.
    key: String,
    /// The pair as `dump --json` writes a metadata entry: `{"key", "type", ["element_type",] "value"}`.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let g = open_reporting(&args.file)?.into_gguf();
    let Some(kv) = g.get_kv(&args.key) else {
        eprintln!(
            "gguf: {}: no key '{}' among its {} key-value pairs",
            args.file.display(),
            args.key,
            g.kv_count()
        );
        return Ok(FOUND);
    };
    if args.json {
        let mut j = Json::new();
        kv_json(&mut j, &kv);
        j.out.push('\n');
        print(&j.out);
    } else {
        print(&human(&kv.value));
    }
    Ok(verdict(&g))
}
