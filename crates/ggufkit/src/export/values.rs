//! A tensor's values streamed as little-endian bytes of the export's dtype.
#![forbid(unsafe_code)]

use std::io::{self, Write};

use crate::endian::Endian;
use crate::error::{Error, Result};
use crate::progress::Progress;
use crate::quant;
use crate::read::TensorInfo;
use crate::tensor_data::check_dequantizable;
use crate::types::GgmlType;

use super::Dtype;

/// Values decoded per run (rounded to whole blocks).
const RUN_VALUES: usize = 1 << 20;

/// An integer dtype a tensor keeps: element size, NumPy and safetensors names.
pub(super) struct IntDtype {
    pub size: usize,
    pub numpy: &'static str,
    pub safetensors: &'static str,
}

/// The dtype an integer tensor keeps; `None` for the float and quantized types.
pub(super) fn int_dtype(ty: GgmlType) -> Option<IntDtype> {
    let (size, numpy, safetensors) = match ty {
        GgmlType::I8 => (1, "<i1", "I8"),
        GgmlType::I16 => (2, "<i2", "I16"),
        GgmlType::I32 => (4, "<i4", "I32"),
        GgmlType::I64 => (8, "<i8", "I64"),
        _ => return None,
    };
    Some(IntDtype {
        size,
        numpy,
        safetensors,
    })
}

/// Checks what a tensor's export needs before anything is written: a float form, and `data`
/// being the tensor's bytes.
pub(super) fn check(t: &TensorInfo<'_>, data: &[u8]) -> Result<()> {
    check_dequantizable(t)?;
    if data.len() as u64 != t.size() {
        return Err(Error::TensorDataLength {
            tensor: t.name().into_owned(),
            expected: t.size(),
            found: data.len() as u64,
        });
    }
    Ok(())
}

/// A tensor's values in memory, as an export holds them: `f32` for the float and quantized
/// types, integer tensors in their own type, in the machine's byte order. The stored shape
/// reversed (C order) is the array's shape.
#[derive(Clone, Debug, PartialEq)]
pub enum TensorValues {
    /// Every float and quantized type, dequantized as ggml does.
    F32(Vec<f32>),
    /// `i8` tensors.
    I8(Vec<i8>),
    /// `i16` tensors.
    I16(Vec<i16>),
    /// `i32` tensors.
    I32(Vec<i32>),
    /// `i64` tensors.
    I64(Vec<i64>),
}

/// The values of tensor `t`, whose bytes are `data` (checked to be the tensor's size): what
/// [`write_npy`](super::write_npy) writes, held in memory. Dequantizes on every core.
pub fn tensor_values(t: &TensorInfo<'_>, data: &[u8]) -> Result<TensorValues> {
    check(t, data)?;
    let e = t.endian();
    // one element from its stored bytes in the file's byte order
    fn ints<const N: usize, T>(data: &[u8], e: Endian, from: fn([u8; N]) -> T) -> Vec<T> {
        data.chunks_exact(N)
            .map(|c| {
                let mut b = [0u8; N];
                b.copy_from_slice(c);
                if e == Endian::Big {
                    b.reverse();
                }
                from(b)
            })
            .collect()
    }
    Ok(match t.ggml_type()? {
        GgmlType::I8 => TensorValues::I8(data.iter().map(|&b| b as i8).collect()),
        GgmlType::I16 => TensorValues::I16(ints(data, e, i16::from_le_bytes)),
        GgmlType::I32 => TensorValues::I32(ints(data, e, i32::from_le_bytes)),
        GgmlType::I64 => TensorValues::I64(ints(data, e, i64::from_le_bytes)),
        _ => {
            let n = usize::try_from(t.n_elements()).map_err(|_| Error::ExportTooLarge {
                tensor: t.name().into_owned(),
            })?;
            let mut out = vec![0f32; n];
            dequantize_into(t, data, &mut out)?;
            TensorValues::F32(out)
        }
    })
}

/// The values of a float or quantized tensor `t` (bytes `data`) written into `out`, which holds
/// exactly its elements: [`tensor_values`] into a buffer the caller owns (a numpy array, say), on
/// every core. Integer tensors are refused: they keep their own dtype.
pub fn dequantize_into(t: &TensorInfo<'_>, data: &[u8], out: &mut [f32]) -> Result<()> {
    check(t, data)?;
    let ty = t.ggml_type()?;
    if int_dtype(ty).is_some() {
        return Err(Error::TensorNotDequantizable {
            tensor: t.name().into_owned(),
            ty,
        });
    }
    quant::dequantize_par(ty, data, t.endian(), out)
}

/// Streams the values of tensor `t`, whose bytes are `data`, to `w` as little-endian `dtype` (an
/// integer tensor in its own dtype), a run of blocks at a time. The bytes are copied as they are
/// when they already are what is asked for (keeping NaN payloads).
pub(super) fn write_values(
    w: &mut dyn Write,
    t: &TensorInfo<'_>,
    data: &[u8],
    dtype: Dtype,
    io: &dyn Fn(io::Error) -> Error,
    progress: &dyn Progress,
) -> Result<()> {
    let ty = t.ggml_type()?;
    if let Some(int) = int_dtype(ty) {
        if t.endian() == Endian::Little {
            w.write_all(data).map_err(io)?;
            progress.advance(data.len() as u64);
            return Ok(());
        }
        let mut buf = data.to_vec();
        for v in buf.chunks_exact_mut(int.size) {
            v.reverse();
        }
        w.write_all(&buf).map_err(io)?;
        progress.advance(data.len() as u64);
        return Ok(());
    }
    let same = matches!(
        (ty, dtype),
        (GgmlType::F32, Dtype::F32) | (GgmlType::F16, Dtype::F16) | (GgmlType::BF16, Dtype::Bf16)
    );
    if same && t.endian() == Endian::Little {
        w.write_all(data).map_err(io)?;
        progress.advance(data.len() as u64);
        return Ok(());
    }
    let block_bytes = ty.type_size().max(1) as usize;
    let block_elems = ty.block_size().max(1) as usize;
    let blocks_per_run = (RUN_VALUES / block_elems).max(1);
    let mut vals = vec![0f32; blocks_per_run * block_elems];
    let mut bytes = Vec::with_capacity(vals.len() * dtype.size() as usize);
    // each run holds at most `blocks_per_run` blocks, so its values fit the buffer
    for run in data.chunks(blocks_per_run * block_bytes) {
        let out = &mut vals[..run.len() / block_bytes * block_elems];
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
        progress.advance(run.len() as u64);
    }
    Ok(())
}
