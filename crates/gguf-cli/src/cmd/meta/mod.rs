//! `gguf meta get|set|rm`: read one value (`get`, in `get.rs`), or edit metadata: in place
//! when the header still fits before the tensor data, otherwise through a temporary file renamed
//! over the target.

mod get;
mod value_arg;

use std::path::{Path, PathBuf};

use ggufkit::write::{edit, needed_by_loaders, type_for_key, EditOutcome, EditTarget, MetaEdit};
use ggufkit::Gguf;

use crate::cmd::{open, CliError, CmdResult, OK};
use crate::output::progress::Progress;
use value_arg::{parse_type, parse_value};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: MetaCommand,
}

#[derive(clap::Subcommand)]
enum MetaCommand {
    /// Print one value (arrays whole); exit 1 when the key is absent.
    Get(get::Args),
    /// Set one key (a new key goes last; an existing key keeps its place).
    #[command(after_long_help = SET_HELP)]
    Set(SetArgs),
    /// Remove keys.
    Rm(RmArgs),
}

const SET_HELP: &str = "\
TYPES
  uint8 int8 uint16 int16 uint32 int32 float32 bool string uint64 int64 float64
  (short forms: u8 i8 u16 i16 u32 i32 f32 u64 i64 f64 str)
  array            a JSON array, element type inferred
  array[TYPE]      a JSON array whose elements have TYPE; nests: array[array[int8]]

Without --type, an existing key keeps its type; a new key whose type llama.cpp's conventions fix
takes that type (general.alignment and general.file_type are uint32, {arch}.context_length
uint32, {arch}.rope.freq_base float32, tokenizer.ggml.add_bos_token bool, ...); any other new
key is inferred: true/false is a bool, a JSON array an array, an integer int32 (int64, uint64
when larger), another number float32, anything else a string. Use --type string to store text
that looks like a number.

In arrays, floats may be \"nan\", \"inf\", \"-inf\"; elements of array[array] may be objects
as `gguf dump --json` prints them: {\"element_type\": \"int8\", \"value\": [1, 2]}.

OUTPUT
  -o OUT       write a new file (refused if OUT exists, unless --force)
  --in-place   edit FILE: the header is rewritten in place when it still ends in the same
               alignment block (the tensor data does not move); otherwise FILE is rewritten to a
               temporary file next to it and renamed over it, so it is never left damaged.

EXAMPLES
  gguf meta set model.gguf general.name 'My model' --in-place
  gguf meta set model.gguf llama.context_length 8192 -o out.gguf
  gguf meta set model.gguf tokenizer.ggml.eos_token_ids '[1, 106]' --type 'array[uint32]' --in-place";

/// Where an edit goes.
#[derive(clap::Args)]
#[group(required = true, multiple = false)]
struct Output {
    /// Write the result to this new file.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    out: Option<PathBuf>,
    /// Edit FILE itself (in place when the header fits, else by an atomic rewrite).
    #[arg(long)]
    in_place: bool,
}

#[derive(clap::Args)]
struct SetArgs {
    /// The GGUF file.
    file: PathBuf,
    /// The key to set.
    key: String,
    /// The value (JSON for arrays).
    #[arg(allow_hyphen_values = true)]
    value: String,
    /// The value's type: a scalar type, `array` or `array[TYPE]` (see below).
    #[arg(long = "type", short = 't', value_name = "T")]
    ty: Option<String>,
    #[command(flatten)]
    output: Output,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Args)]
struct RmArgs {
    /// The GGUF file.
    file: PathBuf,
    /// The keys to remove.
    #[arg(required = true)]
    keys: Vec<String>,
    #[command(flatten)]
    output: Output,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    match args.command {
        MetaCommand::Get(a) => get::run(a),
        MetaCommand::Set(a) => set(a),
        MetaCommand::Rm(a) => rm(a),
    }
}

fn set(a: SetArgs) -> CmdResult {
    let g = open(&a.file, false)?.into_gguf();
    let spec = match &a.ty {
        Some(t) => Some(parse_type(t).map_err(CliError::failed)?),
        None => type_for_key(&g, &a.key),
    };
    let value = parse_value(&a.value, spec.as_ref())
        .map_err(|e| CliError::failed(format!("value for '{}': {e}", a.key)))?;
    apply(
        g,
        &a.file,
        &[MetaEdit::Set(a.key.clone(), value)],
        &a.output,
        a.force,
        &format!("set {}", a.key),
    )
}

fn rm(a: RmArgs) -> CmdResult {
    let g = open(&a.file, false)?.into_gguf();
    // said once the removal is done (a refused edit removes nothing)
    let warnings: Vec<String> = a
        .keys
        .iter()
        .filter(|key| g.get(key).is_some())
        .filter_map(|key| {
            needed_by_loaders(key, g.architecture())
                .map(|why| format!("gguf: warning: removed {key}: {why}"))
        })
        .collect();
    let edits: Vec<_> = a.keys.iter().cloned().map(MetaEdit::Remove).collect();
    let done = apply(
        g,
        &a.file,
        &edits,
        &a.output,
        a.force,
        &format!("removed {}", a.keys.join(", ")),
    )?;
    for w in &warnings {
        eprintln!("{w}");
    }
    Ok(done)
}

fn apply(
    g: Gguf<'_>,
    file: &Path,
    edits: &[MetaEdit],
    output: &Output,
    force: bool,
    what: &str,
) -> CmdResult {
    let progress = Progress::bytes(g.tensor_data_size(), "writing");
    let lib = |e: ggufkit::Error| CliError::from_lib(file, &e);
    let target = match &output.out {
        Some(out) => EditTarget::Output {
            path: out,
            overwrite: force,
        },
        None => EditTarget::InPlace,
    };
    let outcome = edit(g, edits, target, progress.callback()).map_err(lib)?;
    progress.finish();
    match (outcome, &output.out) {
        (_, Some(out)) => eprintln!("{what}: wrote {}", out.display()),
        (EditOutcome::InPlace { bytes_written }, None) => eprintln!(
            "{what}: {} edited in place ({} written)",
            file.display(),
            crate::output::counted(bytes_written, "byte", "bytes")
        ),
        (_, None) => eprintln!(
            "{what}: {} rewritten (the new header ends in another alignment block than the old, so the tensor data moved)",
            file.display()
        ),
    }
    Ok(OK)
}
