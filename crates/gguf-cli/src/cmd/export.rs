//! `gguf export FILE --tensor NAME -o OUT.npy` and `gguf export FILE -o OUT.safetensors`:
//! tensors dequantized bit for bit as ggml's reference code does.

use std::io::Write;
use std::path::{Path, PathBuf};

use ggufkit::write::AtomicFile;
use ggufkit::{quant, Endian, GgmlType, Gguf, TensorInfo};

use super::{open, CliError, CmdResult, OK};
use crate::output::json::Json;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dtype {
    F32,
    F16,
    Bf16,
}

#[derive(clap::Args)]
#[command(after_long_help = "\
With --tensor, writes that tensor as a NumPy .npy file (format 1.0, C order, shape the reverse of
the stored shape): float32 values exactly as ggml's reference dequantization gives them, or the
tensor's own dtype for i8/i16/i32/i64. Without --tensor, writes every tensor to a .safetensors file
(float tensors as --dtype, integer tensors in their own dtype) with the GGUF metadata as strings in
__metadata__. f64 tensors are rounded to float32. The output is written to a temporary file next
to OUT and renamed over it at the end.")]
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
    dtype: Dtype,
    /// Overwrite OUT if it exists.
    #[arg(long)]
    force: bool,
}

pub fn run(args: Args) -> CmdResult {
    if crate::remote::is_remote(&args.file) {
        return run_remote(&args);
    }
    let g = open(&args.file, false)?;
    match &args.tensor {
        Some(name) => {
            if args.dtype != Dtype::F32 {
                return Err(CliError::failed(
                    "--dtype applies to .safetensors exports; a .npy export is float32",
                ));
            }
            let t = g.tensor(name).ok_or_else(|| {
                CliError::failed(format!("{}: no tensor named '{name}'", args.file.display()))
            })?;
            export_npy(&args.file, &t, &args.out, args.force)?;
        }
        None => export_safetensors(&args.file, &g, &args.out, args.dtype, args.force)?,
    }
    Ok(OK)
}

/// A remote FILE: the header with range requests, then the one tensor with one more.
fn run_remote(args: &Args) -> CmdResult {
    let Some(name) = &args.tensor else {
        return Err(CliError::failed(format!(
            "{}: exporting every tensor of a remote file is not supported; name one with --tensor",
            args.file.display()
        )));
    };
    if args.dtype != Dtype::F32 {
        return Err(CliError::failed(
            "--dtype applies to .safetensors exports; a .npy export is float32",
        ));
    }
    let r = crate::remote::open_remote(&args.file, false)?;
    let g = r.gguf();
    let t = g.tensor(name).ok_or_else(|| {
        CliError::failed(format!("{}: no tensor named '{name}'", args.file.display()))
    })?;
    let data = r.tensor_bytes(name).map_err(lib_err(&args.file))?;
    write_npy(&args.file, &t, &data, &args.out, args.force)?;
    Ok(OK)
}

fn lib_err(file: &Path) -> impl Fn(ggufkit::Error) -> CliError + '_ {
    move |e| CliError::from_lib(file, &e)
}

/// Integer tensors keep their dtype: element size and the NumPy / safetensors names.
fn int_dtype(ty: GgmlType) -> Option<(usize, &'static str, &'static str)> {
    Some(match ty {
        GgmlType::I8 => (1, "<i1", "I8"),
        GgmlType::I16 => (2, "<i2", "I16"),
        GgmlType::I32 => (4, "<i4", "I32"),
        GgmlType::I64 => (8, "<i8", "I64"),
        _ => return None,
    })
}

/// The tensor's bytes, or the contract's error when the file holds no data for it.
fn tensor_bytes<'a>(file: &Path, t: &TensorInfo<'a>) -> Result<&'a [u8], CliError> {
    t.data().ok_or_else(|| {
        CliError::failed(format!(
            "{}: at byte {}: tensor '{}' has no data in the file",
            file.display(),
            t.absolute_offset(),
            t.name()
        ))
    })
}

/// Streams a tensor's values to `w` as little-endian `dtype` (or its own integer dtype), a run
/// of blocks at a time so memory stays bounded.
fn write_values(
    out: &Path,
    t: &TensorInfo<'_>,
    dtype: Dtype,
    w: &mut dyn Write,
) -> Result<(), ggufkit::Error> {
    let data = t
        .data()
        .ok_or_else(|| ggufkit::Error::Invalid(format!("tensor '{}' has no data", t.name())))?;
    write_data(out, t, data, dtype, w)
}

/// [`write_values`] for the tensor's bytes `data` (fetched from a remote file).
fn write_data(
    out: &Path,
    t: &TensorInfo<'_>,
    data: &[u8],
    dtype: Dtype,
    w: &mut dyn Write,
) -> Result<(), ggufkit::Error> {
    let ty = t.ggml_type();
    let io = |e| ggufkit::Error::Io {
        context: format!("writing {}", out.display()),
        source: e,
    };
    if let Some((size, _, _)) = int_dtype(ty) {
        if t.endian() == Endian::Little {
            return w.write_all(data).map_err(io);
        }
        let mut buf = data.to_vec();
        for v in buf.chunks_exact_mut(size) {
            v.reverse();
        }
        return w.write_all(&buf).map_err(io);
    }
    // Raw copy when the stored type already is the requested one (keeps NaN payloads).
    let same = matches!(
        (ty, dtype),
        (GgmlType::F32, Dtype::F32) | (GgmlType::F16, Dtype::F16) | (GgmlType::BF16, Dtype::Bf16)
    );
    if same && t.endian() == Endian::Little {
        return w.write_all(data).map_err(io);
    }
    let block_bytes = ty.type_size() as usize;
    let block_elems = ty.block_size() as usize;
    let blocks_per_run = (1 << 20) / block_elems.max(1);
    let mut vals = vec![0f32; blocks_per_run * block_elems];
    let mut bytes = Vec::with_capacity(vals.len() * 4);
    for run in data.chunks(blocks_per_run * block_bytes) {
        let n = run.len() / block_bytes * block_elems;
        let out = &mut vals[..n];
        quant::dequantize_par(ty, run, t.endian(), out)?;
        bytes.clear();
        match dtype {
            Dtype::F32 => bytes.extend(out.iter().flat_map(|v| v.to_le_bytes())),
            Dtype::F16 => {
                bytes.extend(out.iter().flat_map(|&v| quant::f32_to_f16(v).to_le_bytes()))
            }
            Dtype::Bf16 => bytes.extend(
                out.iter()
                    .flat_map(|&v| quant::f32_to_bf16(v).to_le_bytes()),
            ),
        }
        w.write_all(&bytes).map_err(io)?;
    }
    Ok(())
}

/// The NumPy shape: the stored shape reversed (C order), as `(a, b)` / `(a,)` / `()`.
fn npy_shape(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().rev().map(|d| d.to_string()).collect();
    match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    }
}

/// The .npy format 1.0 header: magic, version, length, and the dict padded with spaces and a
/// newline to a multiple of 64 bytes.
fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let dict = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': {}, }}",
        npy_shape(shape)
    );
    let unpadded = 10 + dict.len() + 1;
    let total = unpadded.div_ceil(64) * 64;
    let mut h = b"\x93NUMPY\x01\x00".to_vec();
    h.extend(((total - 10) as u16).to_le_bytes());
    h.extend(dict.as_bytes());
    h.resize(total - 1, b' ');
    h.push(b'\n');
    h
}

fn export_npy(file: &Path, t: &TensorInfo<'_>, out: &Path, force: bool) -> Result<(), CliError> {
    let data = tensor_bytes(file, t)?;
    write_npy(file, t, data, out, force)
}

/// Writes the .npy of tensor `t` whose bytes are `data`.
fn write_npy(
    file: &Path,
    t: &TensorInfo<'_>,
    data: &[u8],
    out: &Path,
    force: bool,
) -> Result<(), CliError> {
    let ty = t.ggml_type();
    let descr = int_dtype(ty).map_or("<f4", |d| d.1);
    let header = npy_header(descr, t.shape());
    if header.len() > usize::from(u16::MAX) {
        return Err(CliError::failed(format!(
            "{}: tensor '{}' has a shape too long for a .npy 1.0 header",
            file.display(),
            t.name()
        )));
    }
    write_output(file, out, force, |w| {
        w.write_all(&header).map_err(|e| ggufkit::Error::Io {
            context: format!("writing {}", out.display()),
            source: e,
        })?;
        write_data(out, t, data, Dtype::F32, w)
    })
}

/// Writes `out` through a temporary file in its directory, renamed over it at the end. Every
/// error here is about the output and names it, once.
fn write_output(
    file: &Path,
    out: &Path,
    force: bool,
    body: impl FnOnce(&mut dyn Write) -> Result<(), ggufkit::Error>,
) -> Result<(), CliError> {
    let mut af = AtomicFile::create(out, force).map_err(|e| CliError::failed(e.to_string()))?;
    {
        let mut w = af.writer();
        body(&mut w).map_err(|e| match e {
            ggufkit::Error::Io { .. } => CliError::failed(e.to_string()),
            other => CliError::from_lib(file, &other),
        })?;
        w.flush()
            .map_err(|e| CliError::failed(format!("writing {}: {e}", out.display())))?;
    }
    af.commit().map_err(|e| CliError::failed(e.to_string()))
}

/// The metadata value as a string: strings as they are, everything else as its JSON text.
fn meta_string(v: &ggufkit::Value<'_>) -> String {
    if let ggufkit::Value::String(s) = v {
        return s.to_string_lossy().into_owned();
    }
    let mut j = Json::new();
    j.value(v);
    j.out
}

fn export_safetensors(
    file: &Path,
    g: &Gguf<'_>,
    out: &Path,
    dtype: Dtype,
    force: bool,
) -> Result<(), CliError> {
    let (float_size, float_name) = match dtype {
        Dtype::F32 => (4u64, "F32"),
        Dtype::F16 => (2, "F16"),
        Dtype::Bf16 => (2, "BF16"),
    };
    let mut j = Json::new();
    j.raw("{").key("__metadata__").raw("{");
    for (i, kv) in g.metadata().enumerate() {
        if i > 0 {
            j.raw(",");
        }
        j.key(&kv.key()).str(&meta_string(&kv.value));
    }
    j.raw("}");
    let mut offset = 0u64;
    let tensors: Vec<TensorInfo<'_>> = g.tensors().collect();
    for t in &tensors {
        let ty = t.ggml_type();
        tensor_bytes(file, t)?;
        if !quant::can_dequantize(ty) {
            return Err(CliError::failed(format!(
                "{}: tensor '{}' has type {ty}, which has no float form",
                file.display(),
                t.name()
            )));
        }
        let (size, name) = int_dtype(ty).map_or((float_size, float_name), |d| (d.0 as u64, d.2));
        let too_large = || {
            CliError::failed(format!(
                "{}: tensor '{}' is too large to export: its data would end beyond 2^64 bytes",
                file.display(),
                t.name()
            ))
        };
        let len = t.n_elements().checked_mul(size).ok_or_else(too_large)?;
        let end = offset.checked_add(len).ok_or_else(too_large)?;
        j.raw(",").key(&t.name()).raw("{").key("dtype").str(name);
        j.raw(",").key("shape").raw("[");
        for (k, d) in t.shape().iter().rev().enumerate() {
            if k > 0 {
                j.raw(",");
            }
            j.u64(*d);
        }
        j.raw("],").key("data_offsets").raw("[");
        j.u64(offset).raw(",").u64(end).raw("]}");
        offset = end;
    }
    j.raw("}");
    // Pad the header with spaces to a multiple of 8 bytes, as the safetensors writer does.
    let mut header = j.out.into_bytes();
    while header.len() % 8 != 0 {
        header.push(b' ');
    }
    write_output(file, out, force, |w| {
        let io = |e| ggufkit::Error::Io {
            context: format!("writing {}", out.display()),
            source: e,
        };
        w.write_all(&(header.len() as u64).to_le_bytes())
            .map_err(io)?;
        w.write_all(&header).map_err(io)?;
        for t in &tensors {
            write_values(out, t, dtype, w)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npy_headers_are_aligned_and_shaped() {
        let h = npy_header("<f4", &[512, 4]);
        assert_eq!(h.len() % 64, 0);
        assert_eq!(&h[..8], b"\x93NUMPY\x01\x00");
        let text = std::str::from_utf8(&h[10..]).unwrap();
        assert!(text.starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (4, 512), }"));
        assert!(text.ends_with('\n'));
        assert_eq!(npy_shape(&[7]), "(7,)");
        assert_eq!(npy_shape(&[]), "()");
    }
}
