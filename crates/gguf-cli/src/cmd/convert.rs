//! `gguf convert FILE -o OUT [--endian little|big] [--type TYPE [--all]]`: rewrite a file as the
//! writer lays it out, in the byte order asked for; `gguf convert HF_DIR -o OUT [--outtype T]
//! [--vocab-only] [--dry-run] ...`: a Hugging Face checkpoint folder to the GGUF that llama.cpp's
//! convert_hf_to_gguf.py writes.

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
changes (metadata such as general.file_type is kept as it was).

With a folder (a Hugging Face checkpoint: config.json, *.safetensors, tokenizer files), the output
is the GGUF that llama.cpp's convert_hf_to_gguf.py writes for it, byte for byte, without Python:
--outtype f32|f16|bf16|q8_0|tq1_0|tq2_0|auto as the script has it (auto: the checkpoint's 16-bit
type), --vocab-only, --dry-run (the plan: each tensor's source, GGUF name, dtype, type and shape,
every metadata pair, and with -o the files it would write). An architecture or tokenizer it
cannot convert is refused before anything is written.

--split-max-size N (bytes; NK, NM, NG in powers of 1000) and --split-max-tensors N write the
output in shards as the script does, in the same pass: OUT.gguf becomes OUT-00001-of-0000K.gguf,
... beside it (the first shard holds the metadata, every shard ends with split.no, split.count and
split.tensors.count; llama.cpp loads them from the first). A shard starts when the current one
holds N tensors, or when the next tensor's bytes would take the current one's over N bytes (a
tensor larger than N gets a shard of its own); --no-tensor-first-split keeps the tensors out of
the first shard. A limit that leaves one shard writes OUT itself, without split keys. Every
shard is written beside its target and renamed only when all are complete: a failure or an
interrupt leaves none of them.")]
pub struct Args {
    /// The GGUF file, or the Hugging Face checkpoint folder, to convert.
    file: PathBuf,
    /// The output file (refused if it exists, unless --force).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT",
        required_unless_present = "dry_run"
    )]
    out: Option<PathBuf>,
    /// Checkpoint folders: the output type, as convert_hf_to_gguf.py's --outtype.
    #[arg(long, value_name = "T", default_value = "auto")]
    outtype: String,
    /// Checkpoint folders: write only the metadata and the vocabulary.
    #[arg(long)]
    vocab_only: bool,
    /// Checkpoint folders: print the plan and write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Checkpoint folders: the model's name (general.name).
    #[arg(long, value_name = "N")]
    model_name: Option<String>,
    /// Checkpoint folders: a metadata override file, as the script's --metadata.
    #[arg(long, value_name = "F")]
    metadata: Option<PathBuf>,
    /// Checkpoint folders: the largest shard, as the script's --split-max-size (N, NK, NM, NG).
    #[arg(long, value_name = "N")]
    split_max_size: Option<String>,
    /// Checkpoint folders: the most tensors per shard.
    #[arg(long, value_name = "N")]
    split_max_tensors: Option<usize>,
    /// Checkpoint folders: the first shard of a split output holds the metadata only.
    #[arg(long)]
    no_tensor_first_split: bool,
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
    if args.file.is_dir() {
        return run_checkpoint(args);
    }
    let Some(out) = args.out.clone() else {
        return Err(CliError::failed("-o OUT is required"));
    };
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
        convert(&g, &out, opts, progress.callback()).map_err(lib)?;
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
    quantize::convert_file(&g, &out, &plan, args.force, progress.callback()).map_err(lib)?;
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

/// `gguf convert HF_DIR`: a checkpoint folder through the library's conversion.
fn run_checkpoint(args: Args) -> CmdResult {
    use ggufkit::convert::execute::{execute, plan_folder};
    use ggufkit::convert::split::parse_split_size;
    use ggufkit::convert::{
        output_shards, ConvertOptions as HfOptions, HfFolder, OutType, SplitLimits,
    };

    let lib = |e: ggufkit::Error| CliError::from_lib(&args.file, &e);
    if args.endian.is_some() || args.ty.is_some() {
        return Err(CliError::failed(
            "--endian and --type convert GGUF files; a checkpoint folder takes --outtype",
        ));
    }
    let outtype: OutType = args
        .outtype
        .parse()
        .map_err(|e: ggufkit::error::CheckpointError| CliError::failed(e.to_string()))?;
    let opts = HfOptions {
        outtype,
        vocab_only: args.vocab_only,
        model_name: args.model_name.clone(),
        metadata: args.metadata.clone(),
        split_max_size: args
            .split_max_size
            .as_deref()
            .map(parse_split_size)
            .transpose()
            .map_err(|e| CliError::failed(e.to_string()))?
            .unwrap_or(0),
        split_max_tensors: args.split_max_tensors.unwrap_or(0),
        no_tensor_first_split: args.no_tensor_first_split,
    };
    // the checkpoint error names the folder itself
    let folder = HfFolder::open(&args.file).map_err(|e| CliError::failed(e.to_string()))?;
    let (plan, metadata) = plan_folder(&folder, &opts).map_err(lib)?;
    let limits = SplitLimits::of(&opts);
    let files = match args.out.as_ref() {
        Some(out) => Some(output_shards(&plan, out, &limits).map_err(lib)?),
        None => None,
    };
    if args.dry_run {
        print!("{}", crate::output::convert_plan::render(&plan, &metadata));
        match &files {
            Some(files) => print!("{}", crate::output::convert_plan::render_files(files)),
            None if limits.splits() => {
                println!("files: give -o OUT to see the shards the split options cut")
            }
            None => {}
        }
        return Ok(OK);
    }
    let (Some(out), Some(files)) = (args.out.as_ref(), files) else {
        return Err(CliError::failed("-o OUT is required"));
    };
    let total = files.iter().map(|f| f.tensor_bytes).sum();
    let progress = Progress::bytes(total, "converting");
    execute(
        &folder,
        &plan,
        &metadata,
        &files,
        args.force,
        progress.callback(),
    )
    .map_err(lib)?;
    progress.finish();
    let written = if files.len() == 1 {
        out.display().to_string()
    } else {
        format!(
            "{} .. {} ({} shards)",
            files[0].path.display(),
            files[files.len() - 1].path.display(),
            files.len()
        )
    };
    eprintln!(
        "{} ({}) -> {written}: {} tensors, --outtype {}",
        plan.class,
        plan.arch,
        plan.tensors.len(),
        plan.outtype.name()
    );
    Ok(OK)
}
