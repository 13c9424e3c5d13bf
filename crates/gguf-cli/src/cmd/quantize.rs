//! `gguf quantize IN [OUT] PRESET [NTHREADS]`: llama-quantize's quantization, from the library's
//! plan; `--dry-run` prints the plan instead of writing. IN may be the first shard of a split
//! model (every shard is read); `--keep-split` writes one output shard per input shard. IN may
//! be a Hugging Face checkpoint folder: converted (`--outtype`) and quantized in one pass, the
//! library's conversion handed to the quantizer as its input.

use std::path::{Path, PathBuf};

use ggufkit::open::{open_model_from_first, OpenOptions};
use ggufkit::quantize::{self, KvOverride, Preset, QuantizeOptions, TensorTypeOverride};
use ggufkit::GgmlType;

use super::{CliError, CmdResult, OK};
use crate::output::{self, progress::Progress, quantize_plan};

#[derive(clap::Args)]
#[command(after_long_help = "\
PRESET is a llama-quantize preset name (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q2_K_S, Q3_K_S,
Q3_K_M, Q3_K_L, Q4_K_S, Q4_K_M, Q5_K_S, Q5_K_M, Q6_K, IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S,
IQ2_M, IQ3_XXS, IQ3_XS, IQ3_S, IQ3_M, IQ4_NL, IQ4_XS, TQ1_0, TQ2_0, MXFP4_MOE, Q1_0, Q2_0, F16,
BF16, F32, COPY; Q3_K, Q4_K, Q5_K are aliases of the _M presets) in any case, or its llama.cpp
ftype number (15 is Q4_K_M). Without OUT the output is ggml-model-PRESET.gguf beside IN, as
llama-quantize names it.

Each tensor gets the type llama.cpp's rules give it: 1-D tensors, norms and a few others keep
theirs; the preset's mixture gives more bits to the output, attn_v and some ffn_down layers; a
tensor whose rows are not whole blocks of its type falls back to a 32-wide relative (q4_k ->
q5_0, q5_k -> q5_1, q6_k -> q8_0, iq* -> iq4_nl, ...) or f16. --dry-run lists every tensor with
its type, size and the reason, and the totals. The output has llama-quantize's tensor order and
metadata (general.quantization_version, general.file_type); its bytes are llama-quantize's.

IN may be the first shard of a split model (NAME-00001-of-0000N.gguf): every shard is read, as
llama-quantize reads them, and the output is one file unless --keep-split, which writes one
shard per input shard, named after OUT less its .gguf (OUT-00001-of-0000N.gguf, ...), each
tensor in its input's shard, with the split keys (split.no, split.count, split.tensors.count).

IN may be a Hugging Face checkpoint folder (config.json, *.safetensors, tokenizer files): it is
converted as `gguf convert HF_DIR --outtype T` converts it (T: f32, f16, bf16, q8_0, tq1_0,
tq2_0 or auto, the default, as convert_hf_to_gguf.py's) and quantized in the same pass, each
tensor converted when the quantizer reaches it: the bytes of convert_hf_to_gguf.py then
llama-quantize, without the intermediate file. An --imatrix names the converted tensors
(blk.0.attn_q.weight, ...). Without OUT the output is ggml-model-PRESET.gguf in the folder.")]
pub struct Args {
    /// `IN [OUT] PRESET [NTHREADS]`, as llama-quantize takes them.
    #[arg(value_name = "ARGS", num_args = 2..=4, required = true)]
    args: Vec<String>,
    /// Print the plan (each tensor's type, size and reason; totals) without writing anything.
    #[arg(long)]
    dry_run: bool,
    /// Every quantizable tensor gets the preset's type (no mixture).
    #[arg(long)]
    pure: bool,
    /// Leave output.weight as it is.
    #[arg(long)]
    leave_output_tensor: bool,
    /// The type of output.weight.
    #[arg(long, value_name = "TYPE")]
    output_tensor_type: Option<String>,
    /// The type of the token embeddings.
    #[arg(long, value_name = "TYPE")]
    token_embedding_type: Option<String>,
    /// PATTERN=TYPE: tensors whose name the regular expression matches get TYPE (repeatable;
    /// the first match wins).
    #[arg(long, value_name = "PATTERN=TYPE")]
    tensor_type: Vec<String>,
    /// A file of PATTERN=TYPE separated by spaces or new lines (after any --tensor-type).
    #[arg(long, value_name = "FILE")]
    tensor_type_file: Option<PathBuf>,
    /// Allow converting tensors that are already quantized (refused otherwise).
    #[arg(long)]
    allow_requantize: bool,
    /// KEY=TYPE:VALUE (TYPE int, float, bool, str): set a metadata key in the output (repeatable).
    #[arg(long, value_name = "KEY=TYPE:VALUE")]
    override_kv: Vec<String>,
    /// An importance matrix (llama-imatrix's GGUF format, or its legacy .dat format).
    #[arg(long, value_name = "FILE")]
    imatrix: Option<PathBuf>,
    /// Use the importance matrix only for tensors whose name contains this (repeatable).
    #[arg(
        long,
        value_name = "NAME",
        requires = "imatrix",
        conflicts_with = "exclude_weights"
    )]
    include_weights: Vec<String>,
    /// Do not use the importance matrix for tensors whose name contains this (repeatable).
    #[arg(long, value_name = "NAME", requires = "imatrix")]
    exclude_weights: Vec<String>,
    /// L0,L1,...: leave these layers out (later layers are renumbered, block_count set).
    #[arg(long, value_name = "LAYERS")]
    prune_layers: Option<String>,
    /// One output shard per input shard, named OUT-00001-of-0000N.gguf (OUT less .gguf).
    #[arg(long)]
    keep_split: bool,
    /// Threads (default: NTHREADS, else every core).
    #[arg(short = 'j', long, value_name = "N")]
    threads: Option<usize>,
    /// Checkpoint folders: the type converted to before quantizing, as convert_hf_to_gguf.py's
    /// --outtype (f32, f16, bf16, q8_0, tq1_0, tq2_0, auto).
    #[arg(long, value_name = "T")]
    outtype: Option<String>,
    /// Checkpoint folders: the model's name (general.name).
    #[arg(long, value_name = "N")]
    model_name: Option<String>,
    /// Checkpoint folders: a metadata override file, as convert_hf_to_gguf.py's --metadata.
    #[arg(long, value_name = "F")]
    metadata: Option<PathBuf>,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

fn lib_err(e: impl std::fmt::Display) -> CliError {
    CliError::failed(e.to_string())
}

/// IN, OUT (when given or implied) and PRESET and NTHREADS from the positional arguments: the
/// second is PRESET when it is a preset name or number, else OUT.
fn positional(a: &Args) -> Result<(PathBuf, Option<PathBuf>, Preset, Option<usize>), CliError> {
    let input = PathBuf::from(&a.args[0]);
    let rest = &a.args[1..];
    let (out, preset_arg, tail) = match Preset::parse(&rest[0]) {
        Some(_) => (None, &rest[0], &rest[1..]),
        None if rest.len() >= 2 => (Some(PathBuf::from(&rest[0])), &rest[1], &rest[2..]),
        None => {
            return Err(lib_err(ggufkit::error::QuantizeError::UnknownPreset {
                name: rest[0].clone(),
            }))
        }
    };
    let preset = Preset::parse(preset_arg).ok_or_else(|| {
        lib_err(ggufkit::error::QuantizeError::UnknownPreset {
            name: preset_arg.clone(),
        })
    })?;
    let threads = match tail {
        [] => None,
        [n] => Some(
            n.parse::<usize>()
                .map_err(|_| CliError::failed(format!("NTHREADS '{n}' is not a number")))?,
        ),
        _ => {
            return Err(CliError::failed(
                "too many arguments: IN [OUT] PRESET [NTHREADS]",
            ))
        }
    };
    let out = match out {
        Some(o) => Some(o),
        None if a.dry_run => None,
        None => {
            // a checkpoint folder gets it inside, as convert_hf_to_gguf.py puts its output
            let dir = if input.is_dir() {
                input.as_path()
            } else {
                input.parent().unwrap_or(Path::new(""))
            };
            Some(dir.join(format!("ggml-model-{}.gguf", preset.name)))
        }
    };
    Ok((input, out, preset, threads))
}

fn options(a: &Args, preset: Preset, threads: Option<usize>) -> Result<QuantizeOptions, CliError> {
    let mut o = QuantizeOptions::new(preset);
    o.pure = a.pure;
    o.leave_output = a.leave_output_tensor;
    o.allow_requantize = a.allow_requantize;
    o.output_type = a
        .output_tensor_type
        .as_deref()
        .map(GgmlType::parse)
        .transpose()
        .map_err(|e| CliError::failed(format!("--output-tensor-type: {e}")))?;
    o.token_embedding_type = a
        .token_embedding_type
        .as_deref()
        .map(GgmlType::parse)
        .transpose()
        .map_err(|e| CliError::failed(format!("--token-embedding-type: {e}")))?;
    for s in &a.tensor_type {
        o.tensor_types
            .push(TensorTypeOverride::parse(s).map_err(lib_err)?);
    }
    if let Some(f) = &a.tensor_type_file {
        super::readable_as(f, "a file of PATTERN=TYPE lines", true)?;
        let text = std::fs::read_to_string(f)
            .map_err(|e| CliError::failed(format!("{}: {e}", f.display())))?;
        let list = TensorTypeOverride::parse_list(&text)
            .map_err(|e| CliError::failed(format!("{}: {e}", f.display())))?;
        o.tensor_types.extend(list);
    }
    for s in &a.override_kv {
        o.kv_overrides.push(KvOverride::parse(s).map_err(lib_err)?);
    }
    o.threads = a.threads.or(threads).filter(|&n| n > 0);
    o.keep_split = a.keep_split;
    if let Some(list) = &a.prune_layers {
        for id in list.split(',') {
            let n = id.trim().parse::<u32>().map_err(|_| {
                CliError::failed(format!("--prune-layers: invalid layer id '{id}'"))
            })?;
            o.prune_layers.push(n);
        }
    }
    if let Some(path) = &a.imatrix {
        super::readable_as(path, "an importance matrix (.gguf or .dat)", false)?;
        // llama-quantize records the path exactly as given on the command line
        o.use_imatrix(
            path,
            &path.to_string_lossy(),
            &a.include_weights,
            &a.exclude_weights,
        )
        .map_err(lib_err)?;
    }
    Ok(o)
}

pub fn run(args: Args) -> CmdResult {
    let (input, out, preset, threads) = positional(&args)?;
    let opts = options(&args, preset, threads)?;
    // refused before any work, in the words of every writing command
    if let Some(out) = &out {
        ggufkit::write::atomic::refuse_input(out, &[input.as_path()])
            .map_err(|e| CliError::failed(e.to_string()))?;
    }
    if input.is_dir() {
        return run_checkpoint(&args, &input, out, &opts);
    }
    if args.outtype.is_some() || args.model_name.is_some() || args.metadata.is_some() {
        return Err(CliError::failed(format!(
            "{}: --outtype, --model-name and --metadata convert a checkpoint folder; IN is a file",
            input.display()
        )));
    }
    let lib = |e: ggufkit::Error| CliError::from_lib(&input, &e);
    // a missing file or a pipe said in plain words, as every command says it
    let location = super::locate(&input)?;
    // from the first shard, as llama-quantize takes a split model; local files (the data is read)
    let opened = open_model_from_first(&location, &OpenOptions::permissive(false))
        .map_err(|e| lib(e.error))?;
    let model = opened.local().map_err(lib)?;
    quantize_input(&args, &input, quantize::Input::from(model), out, &opts)
}

/// `gguf quantize HF_DIR ...`: the checkpoint's conversion as the quantizer's input.
fn run_checkpoint(
    args: &Args,
    dir: &Path,
    out: Option<PathBuf>,
    opts: &QuantizeOptions,
) -> CmdResult {
    use ggufkit::convert::execute::plan_folder;
    use ggufkit::convert::{Conversion, ConvertOptions, HfFolder, OutType};

    let outtype: OutType = args
        .outtype
        .as_deref()
        .unwrap_or("auto")
        .parse()
        .map_err(|e: ggufkit::error::CheckpointError| CliError::failed(e.to_string()))?;
    let convert = ConvertOptions {
        outtype,
        model_name: args.model_name.clone(),
        metadata: args.metadata.clone(),
        ..ConvertOptions::default()
    };
    // the checkpoint error names the folder itself
    let folder = HfFolder::open(dir).map_err(|e| CliError::failed(e.to_string()))?;
    let (plan, metadata) =
        plan_folder(&folder, &convert).map_err(|e| CliError::from_lib(dir, &e))?;
    let conversion = Conversion::new(folder, plan, metadata);
    quantize_input(args, dir, conversion.input(), out, opts)
}

/// The quantization of `g` (read from `file`) into `out`, or its plan with `--dry-run`.
fn quantize_input(
    args: &Args,
    file: &Path,
    g: quantize::Input<'_, '_>,
    out: Option<PathBuf>,
    opts: &QuantizeOptions,
) -> CmdResult {
    let lib = |e: ggufkit::Error| CliError::from_lib(file, &e);
    if let (Some(path), Some(values)) = (&args.imatrix, &opts.importance) {
        let names: Vec<String> = g.tensor_names().map(|n| n.into_owned()).collect();
        quantize::imatrix::check_matches(values, path, names.iter().map(|s| s.as_str()))
            .map_err(lib_err)?;
    }
    let plan = quantize::plan(g, opts).map_err(lib)?;
    if args.dry_run {
        output::print(&quantize_plan::render(&plan));
        if !plan.has_imatrix && plan.needing_imatrix().next().is_some() {
            eprintln!("gguf: warning: quantizing with this plan needs an importance matrix");
        }
        return Ok(OK);
    }
    let Some(out) = out else {
        return Err(CliError::failed("no output file"));
    };
    // every output file (one per shard with --keep-split), none of them an input
    let outputs = quantize::output_paths(&out, &plan);
    let inputs = g.paths();
    for o in &outputs {
        ggufkit::write::atomic::refuse_input(o, &inputs)
            .map_err(|e| CliError::failed(e.to_string()))?;
    }
    let progress = Progress::bytes(plan.bytes_out(), "quantizing");
    let written = quantize::quantize_file(g, &out, &plan, opts, args.force, progress.callback())
        .map_err(lib)?;
    progress.finish();
    eprint!("{}", quantize_plan::totals(&plan));
    for o in written {
        eprintln!("wrote {}", o.display());
    }
    Ok(OK)
}
