//! Every tensor of a file as one `.safetensors` file, the GGUF metadata kept as strings.
#![forbid(unsafe_code)]

use std::io::{self, Write};
use std::path::Path;

use crate::error::{Error, Result};
use crate::json::Json;
use crate::progress::{NoProgress, Progress};
use crate::read::{Gguf, TensorInfo};
use crate::tensor_data::tensor_bytes;
use crate::value::Value;

use super::values::{check, int_dtype, write_values};
use super::{io_error, save, Dtype};

/// A metadata value as a string: strings as they are, everything else as its JSON text.
fn meta_string(v: &Value<'_>) -> String {
    if let Value::String(s) = v {
        return s.to_string_lossy().into_owned();
    }
    let mut j = Json::new();
    j.value(v);
    j.out
}

/// What a safetensors export writes: the header (length prefix included) and each tensor with
/// its bytes, every tensor checked before anything is written.
struct Plan<'g> {
    header: Vec<u8>,
    tensors: Vec<(TensorInfo<'g>, &'g [u8])>,
}

fn plan<'g>(g: &'g Gguf<'_>, dtype: Dtype) -> Result<Plan<'g>> {
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
    let mut tensors = Vec::with_capacity(g.tensor_count());
    for t in g.tensors() {
        let data = tensor_bytes(&t)?;
        check(&t, data)?;
        let (size, name) = int_dtype(t.ggml_type()?)
            .map_or((dtype.size(), dtype.safetensors_name()), |d| {
                (d.size as u64, d.safetensors)
            });
        let end = t
            .n_elements()
            .checked_mul(size)
            .and_then(|len| offset.checked_add(len))
            .ok_or_else(|| Error::ExportTooLarge {
                tensor: t.name().into_owned(),
            })?;
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
        tensors.push((t, data));
    }
    j.raw("}");
    // the header padded with spaces to a multiple of 8 bytes, as the safetensors writer does
    let mut json = j.out.into_bytes();
    while json.len() % 8 != 0 {
        json.push(b' ');
    }
    let mut header = (json.len() as u64).to_le_bytes().to_vec();
    header.extend(json);
    Ok(Plan { header, tensors })
}

fn encode(
    w: &mut dyn Write,
    p: &Plan<'_>,
    dtype: Dtype,
    io: &dyn Fn(io::Error) -> Error,
    progress: &dyn Progress,
) -> Result<()> {
    w.write_all(&p.header).map_err(io)?;
    progress.total(p.tensors.iter().map(|(_, d)| d.len() as u64).sum());
    for (t, data) in &p.tensors {
        write_values(w, t, data, dtype, io, progress)?;
    }
    Ok(())
}

/// Writes every tensor of `g` as .safetensors to `w`: float tensors as `dtype`, integer tensors
/// in their own dtype, f64 tensors rounded to float32 first, the metadata as strings in
/// `__metadata__`. Every tensor is checked (its data there, a float form) before a byte is
/// written.
pub fn write_safetensors(w: &mut dyn Write, g: &Gguf<'_>, dtype: Dtype) -> Result<()> {
    encode(w, &plan(g, dtype)?, dtype, &io_error, &NoProgress)
}

/// [`write_safetensors`] to the file `target`, atomically; an existing target is replaced only
/// with `overwrite`. Nothing is created when a tensor cannot be exported.
pub fn save_safetensors(g: &Gguf<'_>, dtype: Dtype, target: &Path, overwrite: bool) -> Result<()> {
    save_safetensors_with(g, dtype, target, overwrite, &NoProgress)
}

/// [`save_safetensors`], telling `progress` the bytes of tensor data as they are converted (the
/// total of every tensor's first).
pub fn save_safetensors_with(
    g: &Gguf<'_>,
    dtype: Dtype,
    target: &Path,
    overwrite: bool,
    progress: &dyn Progress,
) -> Result<()> {
    let p = plan(g, dtype)?;
    let inputs: Vec<&Path> = g.path().into_iter().collect();
    save(target, overwrite, &inputs, |w, io| {
        encode(w, &p, dtype, io, progress)
    })
}
