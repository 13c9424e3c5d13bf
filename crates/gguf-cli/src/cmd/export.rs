//! `gguf export FILE --tensor NAME -o OUT.npy` and `gguf export FILE -o OUT.safetensors`:
//! tensors dequantized bit for bit as ggml's reference code does (`ggufkit::export`).

use std::path::{Path, PathBuf};

use ggufkit::export::{self, Dtype, ExportFormat};
use ggufkit::Error;

use crate::output::progress::Progress;

use super::{open_reporting, verdict, CliError, CmdResult};

/// Float dtype of a .safetensors export.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DtypeArg {
    F32,
    F16,
    Bf16,
}

impl From<DtypeArg> for Dtype {
    fn from(d: DtypeArg) -> Dtype {
        match d {
            DtypeArg::F32 => Dtype::F32,
            DtypeArg::F16 => Dtype::F16,
            DtypeArg::Bf16 => Dtype::Bf16,
        }
    }
}

#[derive(clap::Args)]
#[command(after_long_help = "\
With --tensor, writes that tensor as a NumPy .npy file (format 1.0, C order, shape the reverse of
the stored shape): float32 values exactly as ggml's reference dequantization gives them, or the
tensor's own dtype for i8/i16/i32/i64. Without --tensor, writes every tensor to a .safetensors file
(float tensors as --dtype, integer tensors in their own dtype) with the GGUF metadata as strings in
__metadata__. f64 tensors are rounded to float32. The output is written to a temporary file next
to OUT and renamed over it at the end. The format is OUT's extension's: .npy needs --tensor,
.safetensors takes every tensor; any other name is refused.")]
pub struct Args {
    /// The GGUF file.
    file: PathBuf,
    /// The tensor to export as .npy; without it, every tensor goes to a .safetensors file.
    #[arg(long, value_name = "NAME")]
    tensor: Option<String>,
    /// The output file (refused if it exists, unless --force).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    out: PathBuf,
    /// Float dtype of the tensors in a .safetensors export.
    #[arg(long, value_enum, default_value = "f32")]
    dtype: DtypeArg,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    ggufkit::write::atomic::refuse_input(&args.out, &[args.file.as_path()])
        .map_err(|e| CliError::failed(e.to_string()))?;
    check_format(&args)?;
    // a remote file: the header with range requests, then the one tensor with one more
    let opened = open_reporting(&args.file)?;
    let g = opened.gguf();
    let done = match &args.tensor {
        Some(name) => {
            npy_dtype(&args)?;
            let t = g.tensor(name).ok_or_else(|| no_tensor(&args.file, name))?;
            let data = opened
                .tensor_data(&t)
                .map_err(|e| CliError::from_lib(&args.file, &e))?;
            let progress = Progress::bytes(data.len() as u64, "exporting");
            export::save_npy_with(&t, &data, &args.out, args.force, &progress)
        }
        None if !opened.holds_data() => {
            return Err(CliError::failed(format!(
            "{}: exporting every tensor of a remote file is not supported; name one with --tensor",
            args.file.display()
        )))
        }
        None => {
            let progress = Progress::bytes(g.tensor_data_size(), "exporting");
            export::save_safetensors_with(g, args.dtype.into(), &args.out, args.force, &progress)
        }
    };
    done.map_err(|e| export_error(&args.file, e))?;
    Ok(verdict(g))
}

/// The format is the output's extension's, and must fit what is asked: `.npy` for one tensor
/// (`--tensor`), `.safetensors` for every tensor; anything else is refused before any work.
fn check_format(args: &Args) -> Result<(), CliError> {
    let out = args.out.display();
    match (ExportFormat::from_path(&args.out), &args.tensor) {
        (Some(ExportFormat::Npy), Some(_)) | (Some(ExportFormat::Safetensors), None) => Ok(()),
        (Some(ExportFormat::Npy), None) => Err(CliError::failed(format!(
            "{out}: a .npy file holds one tensor: name it with --tensor NAME, or write every tensor to a .safetensors file"
        ))),
        (Some(ExportFormat::Safetensors), Some(_)) => Err(CliError::failed(format!(
            "{out}: --tensor exports one tensor as .npy: name the output NAME.npy, or leave out --tensor to write every tensor to {out}"
        ))),
        (None, _) => Err(CliError::failed(format!(
            "{out}: the format is chosen by the extension: .npy (one tensor, with --tensor) or .safetensors (every tensor)"
        ))),
    }
}

/// A .npy export is float32: refuses another --dtype.
fn npy_dtype(args: &Args) -> Result<(), CliError> {
    if args.dtype == DtypeArg::F32 {
        Ok(())
    } else {
        Err(CliError::failed(
            "--dtype applies to .safetensors exports; a .npy export is float32",
        ))
    }
}

fn no_tensor(file: &Path, name: &str) -> CliError {
    CliError::failed(format!("{}: no tensor named '{name}'", file.display()))
}

/// An export error as one line: what is wrong with a tensor names the input `file`; everything
/// else is about the output, whose errors name it.
fn export_error(file: &Path, e: Error) -> CliError {
    match e {
        Error::TensorDataMissing { .. }
        | Error::TensorNotDequantizable { .. }
        | Error::UnsupportedTensorType { .. }
        | Error::TensorDataLength { .. }
        | Error::ExportTooLarge { .. } => CliError::from_lib(file, &e),
        other => CliError::failed(other.to_string()),
    }
}
