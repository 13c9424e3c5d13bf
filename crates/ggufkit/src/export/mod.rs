//! Tensors exported for numpy and safetensors, dequantized bit for bit as ggml's reference code
//! does: one tensor to a NumPy `.npy` file, every tensor to a `.safetensors` file with the GGUF
//! metadata kept as strings. Float tensors are written as float32 (`.npy`) or the [`Dtype`]
//! asked for (`.safetensors`); integer tensors keep their own dtype; shapes are the stored shape
//! reversed (C order).
//!
//! Values are streamed a run of blocks at a time, so memory stays bounded however large the
//! tensor. `write_*` encode to any [`Write`] (a buffer, a socket); `save_*` write
//! a file atomically (a temporary file beside the target, renamed over it once complete).
#![forbid(unsafe_code)]

mod npy;
mod safetensors;
mod values;

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::write::AtomicFile;

pub use npy::{save_npy, save_npy_with, write_npy};
pub use safetensors::{save_safetensors, save_safetensors_with, write_safetensors};
pub use values::{dequantize_into, tensor_values, TensorValues};

/// The float dtype of the float tensors of a safetensors export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Dtype {
    /// IEEE float32.
    #[default]
    F32,
    /// IEEE float16, rounded to nearest even.
    F16,
    /// bfloat16, rounded to nearest even.
    Bf16,
}

impl Dtype {
    /// Bytes per value.
    pub fn size(self) -> u64 {
        match self {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::Bf16 => 2,
        }
    }

    /// The safetensors name: `F32`, `F16`, `BF16`.
    pub fn safetensors_name(self) -> &'static str {
        match self {
            Dtype::F32 => "F32",
            Dtype::F16 => "F16",
            Dtype::Bf16 => "BF16",
        }
    }
}

/// The file format of an export, which its file name's extension names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExportFormat {
    /// NumPy `.npy`: one tensor.
    Npy,
    /// `.safetensors`: every tensor, with the metadata.
    Safetensors,
}

impl ExportFormat {
    /// The format `path`'s extension names (`.npy`, `.safetensors`, any case), if any.
    pub fn from_path(path: &Path) -> Option<ExportFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "npy" => Some(ExportFormat::Npy),
            "safetensors" => Some(ExportFormat::Safetensors),
            _ => None,
        }
    }
}

/// The I/O error of writing an export to an unnamed writer.
fn io_error(e: io::Error) -> Error {
    Error::io("writing the export", e)
}

/// Writes `target` through an [`AtomicFile`] with `body`, whose I/O errors (and the flush's) name
/// the target; when anything fails nothing is renamed and the target stays as it was.
fn save(
    target: &Path,
    overwrite: bool,
    inputs: &[&Path],
    body: impl FnOnce(&mut BufWriter<&mut File>, &dyn Fn(io::Error) -> Error) -> Result<()>,
) -> Result<()> {
    let mut af = AtomicFile::create_from(target, overwrite, inputs)?;
    let io = |e| Error::io_at(format!("writing {}", target.display()), target, e);
    {
        let mut w = af.writer();
        body(&mut w, &io)?;
        w.flush().map_err(io)?;
    }
    af.commit()
}
