//! `gguf recipe FILE [--json]`: a quantized file's type mix as a `--tensor-type-file` (on
//! stdout), and the preset it matches (on stderr), from `ggufkit::quantize::Recipe`.

use std::path::PathBuf;

use ggufkit::quantize::Recipe;

use super::{open, CliError, CmdResult, OK};
use crate::output::{print, recipe};

#[derive(clap::Args)]
#[command(after_long_help = "\
Prints one PATTERN=TYPE line for each tensor llama-quantize would quantize (2-D weights, not the
norms and the other tensors it never touches), each pattern naming that tensor exactly. Saved to
a file and given to `gguf quantize SOURCE OUT PRESET --tensor-type-file FILE` (or llama-quantize's)
with the same source, it gives every tensor the type it has in FILE. stderr names the preset whose
own rules give this mix, if one does (and whether with an importance matrix), else the preset of
the file's general.file_type.")]
pub struct Args {
    /// The quantized file.
    file: PathBuf,
    /// One JSON object: the file type, the matching presets, the type counts, each tensor's
    /// name, type and pattern, and the --tensor-type-file text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: Args) -> CmdResult {
    let g = open(&args.file, false)?.into_gguf();
    let r = Recipe::of(&g).map_err(|e| CliError::from_lib(&args.file, &e))?;
    let file = args.file.display().to_string();
    if args.json {
        print(&recipe::json(&file, &r));
    } else {
        print(&r.to_tensor_type_file());
        eprint!("{}", recipe::summary(&file, &r));
    }
    Ok(OK)
}
