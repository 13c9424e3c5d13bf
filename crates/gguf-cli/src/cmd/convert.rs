//! `gguf convert FILE -o OUT [--endian little|big] [--type TYPE [--all]]`: rewrite a file as the
//! writer lays it out, in the byte order asked for.

use std::path::PathBuf;

use ggufkit::write::{convert_file, ConvertOptions};
use ggufkit::Endian;

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
the multi-byte fields inside quantized blocks: a file's byte order applies to all of it.")]
pub struct Args {
    /// The GGUF file to convert.
    file: PathBuf,
    /// The output file (refused if it exists, unless --force).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    out: PathBuf,
    /// Byte order of the output.
    #[arg(long, value_enum)]
    endian: Option<EndianArg>,
    /// Re-quantize the weights to this ggml type.
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
    if let Some(t) = &args.ty {
        return Err(CliError::failed(format!(
            "{}: --type {t}{}: re-quantization is not yet supported (it needs ggufkit::quant's \
             quantize/dequantize, which this build does not have)",
            args.file.display(),
            if args.all { " --all" } else { "" }
        )));
    }
    let g = open(&args.file, false)?;
    let total = g.tensor_data_size();
    drop(g);
    let opts = ConvertOptions {
        endian: args.endian.map(|e| match e {
            EndianArg::Little => Endian::Little,
            EndianArg::Big => Endian::Big,
        }),
        overwrite: args.force,
    };
    let progress = Progress::bytes(total, "converting");
    convert_file(&args.file, &args.out, opts, progress.callback())
        .map_err(|e| CliError::from_lib(&args.file, &e))?;
    progress.finish();
    Ok(OK)
}
