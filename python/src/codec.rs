//! `ggufkit.quantize` and `ggufkit.dequantize`: the library's codecs, bit-exact with ggml, on
//! numpy arrays, on every core with the GIL released.
#![forbid(unsafe_code)]

use ggufkit::{quant, Endian, GgmlType};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::OrRaise;

/// The ggml type named `name` ("q4_k", "f16", ...; a removed id refused with the reason).
pub fn ggml_type(name: &str) -> PyResult<GgmlType> {
    GgmlType::parse(name).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `x` as a C-contiguous numpy array of `dtype` (a copy only when it is not one already).
pub fn contiguous<'py>(x: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    x.py()
        .import("numpy")?
        .call_method1("ascontiguousarray", (x, dtype))
}

/// `src` quantized to blocks of `ty` on every core (the writer's `add_tensor(type=...)` too).
pub fn quantize_blocks(ty: GgmlType, src: &[f32]) -> ggufkit::Result<Vec<u8>> {
    // a count that is not whole blocks is refused by quantize_par, with the counts
    let len = ty
        .bytes_for(src.len() as u64)
        .and_then(|b| usize::try_from(b).ok())
        .unwrap_or(0);
    let mut out = vec![0u8; len];
    quant::quantize_par(ty, src, &mut out).map(|_| out)
}

/// Quantizes `x` (any shape; its element count a multiple of the type's block size) to blocks of
/// `type`, returned as a flat `uint8` array.
#[pyfunction]
#[pyo3(name = "quantize", signature = (x, r#type))]
pub fn quantize_py<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    r#type: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let ty = ggml_type(r#type)?;
    let arr = contiguous(x, "float32")?;
    let arr: PyReadonlyArrayDyn<'py, f32> = arr.extract()?;
    let src = arr.as_slice()?;
    let out = py
        .detach(|| quantize_blocks(ty, src))
        .or_raise(py, "quantize")?;
    Ok(PyArray1::from_vec(py, out).into_any())
}

/// Dequantizes `raw` (bytes or a `uint8` array of whole blocks of `type`, little-endian) to
/// float32, shaped `shape` when given (numpy's order), else flat.
#[pyfunction]
#[pyo3(name = "dequantize", signature = (raw, r#type, shape = None))]
pub fn dequantize_py<'py>(
    py: Python<'py>,
    raw: &Bound<'py, PyAny>,
    r#type: &str,
    shape: Option<Vec<usize>>,
) -> PyResult<Bound<'py, PyAny>> {
    let ty = ggml_type(r#type)?;
    let arr = py
        .import("numpy")?
        .call_method1("frombuffer", (raw, "uint8"))
        .or_else(|_| contiguous(raw, "uint8"))?;
    let arr = contiguous(&arr, "uint8")?;
    let arr: PyReadonlyArrayDyn<'py, u8> = arr.extract()?;
    let data = arr.as_slice()?;
    let n = quant::element_count(ty, data.len()).or_raise(py, "dequantize")?;
    if let Some(s) = &shape {
        let want = s.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        if want != Some(n) {
            return Err(PyValueError::new_err(format!(
                "shape {s:?} does not hold the {n} values of {} bytes of {}",
                data.len(),
                ty.name()
            )));
        }
    }
    let values = py
        .detach(|| {
            let mut out = vec![0f32; n];
            quant::dequantize_par(ty, data, Endian::Little, &mut out).map(|_| out)
        })
        .or_raise(py, "dequantize")?;
    let flat = PyArray1::from_vec(py, values);
    match shape {
        Some(s) => Ok(flat.reshape(s)?.into_any()),
        None => Ok(flat.into_any()),
    }
}
