//! `gguf convert FILE -o OUT [--endian little|big] [--type TYPE [--all]]`: rewrite a file as the
//! writer lays it out, in the byte order asked for.

use std::path::PathBuf;

use ggufkit::quantize::{self, SkipReason, UniformOptions};
use ggufkit::write::{convert, ConvertOptions};
use ggufkit::{Endian, GgmlType};

use super::{open, CliError, CmdResult, OK};
use crate::output::progress::Progress;

#[derive(Clone, Copy, clap::ValueEnum)]
enum EndianArg {
    Little,
    Big,
}

#[derive(clap::Args)]
#[command(after_long_help = "\
Without --endian or --type, FILE is rewritten as the writer lays files out: bit-identical for a
file already laid out that way, and a clean copy (zero padding, no trailing bytes) of any other.

--endian converts every metadata value and every tensor's data to that byte order, including
the multi-byte fields inside quantized blocks: a file's byte order applies to all of it.

--type TYPE re-quantizes the weights: the tensors llama-quantize quantizes (2 or more dimensions
not counting trailing 1s, a name ending in `weight`, not a norm, expert router or position
embedding), whose first dimension is a multiple of TYPE's block size and whose type is not TYPE
(norms, biases and integer tensors keep theirs); it says which. With --all, every tensor whose
first dimension is a multiple of the block size is converted, 1-D ones included. Nothing else
changes (metadata such as general.file_type is kept as it was).")]
pub struct Args {
    /// The GGUF file to convert.
    file: PathBuf,
    /// The output file (refused if it exists, unless --force).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    out: PathBuf,
    /// Byte order of the output.
    #[arg(long, value_enum)]
    endian: Option<EndianArg>,
    /// Re-quantize the weights (the tensors llama-quantize quantizes) to this ggml type.
    #[arg(long = "type", value_name = "TYPE")]
    ty: Option<String>,
    /// With --type: convert every tensor whose first dimension is a multiple of the block size.
    #[arg(long, requires = "ty")]
    all: bool,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    let lib = |e: ggufkit::Error| CliError::from_lib(&args.file, &e);
    let quantize = args
        .ty
        .as_deref()
        .map(GgmlType::parse)
        .transpose()
        .map_err(|e| CliError::failed(format!("--type: {e}")))?;
    let endian = args.endian.map(|e| match e {
        EndianArg::Little => Endian::Little,
        EndianArg::Big => Endian::Big,
    });
    let g = open(&args.file, false)?.into_gguf();
    let Some(ty) = quantize else {
        let progress = Progress::bytes(g.tensor_data_size(), "converting");
        let opts = ConvertOptions {
            endian,
            overwrite: args.force,
        };
        convert(&g, &args.out, opts, progress.callback()).map_err(lib)?;
        progress.finish();
        return Ok(OK);
    };
    let opts = UniformOptions {
        ty,
        all: args.all,
        endian,
    };
    let plan = quantize::plan_uniform(&g, opts).map_err(lib)?;
    let progress = Progress::bytes(plan.bytes_out(), "converting");
    quantize::convert_file(&g, &args.out, &plan, args.force, progress.callback()).map_err(lib)?;
    progress.finish();
    let names: Vec<&str> = plan.converted().map(|t| t.name.as_str()).collect();
    eprintln!(
        "re-quantized {} of {} to {ty}{}{}",
        crate::output::grouped(names.len() as u64),
        crate::output::counted(plan.tensors.len() as u64, "tensor", "tensors"),
        if names.is_empty() { "" } else { ": " },
        names.join(", ")
    );
    let skipped: Vec<(&str, SkipReason)> =
        plan.skipped().map(|(t, r)| (t.name.as_str(), r)).collect();
    report_skipped(&skipped);
    Ok(OK)
}

/// The tensors `--type` left as they were, one line per reason, and where to go for a
/// llama-quantize mixture with its fallbacks.
fn report_skipped(skipped: &[(&str, SkipReason)]) {
    if skipped.is_empty() {
        return;
    }
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    for (name, r) in skipped {
        let why = match r {
            SkipReason::RowsDoNotFit(_) => "rows not a multiple of the block size".to_string(),
            r => r.to_string(),
        };
        match groups.iter_mut().find(|(w, _)| *w == why) {
            Some((_, names)) => names.push(name),
            None => groups.push((why, vec![name])),
        }
    }
    eprintln!(
        "left {} as they were:",
        crate::output::counted(skipped.len() as u64, "tensor", "tensors")
    );
    for (why, names) in &groups {
        eprintln!("  {} ({why}): {}", names.len(), names.join(", "));
    }
    if skipped
        .iter()
        .any(|(_, r)| matches!(r, SkipReason::RowsDoNotFit(_)))
    {
        eprintln!(
            "`gguf quantize IN OUT PRESET` gives them llama-quantize's fallback types (q4_k -> q5_0, ...) and its per-tensor mixtures"
        );
    } else {
        eprintln!("`gguf quantize IN OUT PRESET` quantizes as llama-quantize does (per-tensor mixtures and fallbacks)");
    }
}
