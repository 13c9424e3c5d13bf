//! `ggufkit.Tensor`: one tensor's description, its bytes as a read-only numpy view of the map
//! (`raw`), and its values (`numpy()`), dequantized on every core with the GIL released.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::sync::Arc;

use ggufkit::export::{dequantize_into, tensor_values, TensorValues};
use ggufkit::{tensor_bytes, Endian, GgmlType, TensorInfo};
use numpy::{
    PyArray1, PyArrayDescr, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::OrRaise;
use crate::held::{borrow_bytes, read_only, Held};

/// One tensor of an opened file; it keeps the file alive.
#[pyclass(frozen, module = "ggufkit")]
pub struct Tensor {
    held: Arc<Held>,
    index: usize,
}

impl Tensor {
    pub fn new(held: Arc<Held>, index: usize) -> Self {
        Tensor { held, index }
    }

    fn info(&self) -> TensorInfo<'_> {
        self.held
            .gguf()
            .tensor_at(self.index)
            .expect("an index the file gave")
    }

    /// The stored bytes seen as the values, when they are: f32 and integer tensors of a local
    /// file in the machine's byte order, as a read-only view of the map.
    fn view<'py>(&self, py: Python<'py>, shape: &[usize]) -> PyResult<Option<Bound<'py, PyAny>>> {
        let t = self.info();
        let dtype = match t.tensor_type().ggml() {
            Some(GgmlType::F32) => "float32",
            Some(GgmlType::I8) => "int8",
            Some(GgmlType::I16) => "int16",
            Some(GgmlType::I32) => "int32",
            Some(GgmlType::I64) => "int64",
            _ => return Ok(None),
        };
        if self.held.remote().is_some() || self.held.gguf().endian() != Endian::NATIVE {
            return Ok(None);
        }
        let bytes = tensor_bytes(&t).or_raise(py, &self.held.name)?;
        let raw = borrow_bytes(py, &self.held, bytes)?;
        Ok(Some(
            raw.call_method1("view", (dtype,))?
                .call_method1("reshape", (shape.to_vec(),))?,
        ))
    }

    /// Decodes into the caller's `out`, which must be C-contiguous, writeable and of the result's
    /// dtype and shape; returns `out`.
    fn numpy_into<'py>(
        &self,
        py: Python<'py>,
        out: Bound<'py, PyAny>,
        shape: &[usize],
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.info();
        let file = &self.held.name;
        // a type this build cannot decode is refused before `out` is looked at
        let ty = t.ggml_type().or_raise(py, file)?;
        let dtype = match ty {
            GgmlType::I8 => "int8",
            GgmlType::I16 => "int16",
            GgmlType::I32 => "int32",
            GgmlType::I64 => "int64",
            _ => "float32",
        };
        let np = py.import("numpy")?;
        let want = PyArrayDescr::new(py, dtype)?;
        let checked = out
            .cast::<PyUntypedArray>()
            .ok()
            .filter(|a| a.dtype().is_equiv_to(&want))
            .filter(|a| a.shape() == shape && a.is_c_contiguous())
            .is_some();
        if !checked {
            return Err(PyValueError::new_err(format!(
                "out must be a C-contiguous numpy array of dtype {dtype} and shape {shape:?}"
            )));
        }
        if !out
            .getattr("flags")?
            .getattr("writeable")?
            .extract::<bool>()?
        {
            return Err(PyValueError::new_err("out is read-only"));
        }
        if ty.is_integer() {
            // the stored integers in the file's byte order, copied (and swapped) by numpy
            let values = self.numpy(py, None, Some(true))?;
            np.call_method1("copyto", (&out, values))?;
            return Ok(out);
        }
        let bytes = self.with_bytes(py, |b| Ok(Cow::Borrowed(b)), |v| Ok(Cow::Owned(v)))?;
        {
            let array = out.cast::<PyArrayDyn<f32>>()?;
            let mut rw = array.try_readwrite()?;
            let dst = rw.as_slice_mut()?;
            py.detach(|| dequantize_into(&t, &bytes, dst))
                .or_raise(py, file)?;
        }
        Ok(out)
    }

    /// The tensor's bytes: borrowed from a local file, fetched from a remote one.
    fn with_bytes<'s, R>(
        &'s self,
        py: Python<'_>,
        local: impl FnOnce(&'s [u8]) -> PyResult<R>,
        fetched: impl FnOnce(Vec<u8>) -> PyResult<R>,
    ) -> PyResult<R> {
        let t = self.info();
        match self.held.remote() {
            None => local(tensor_bytes(&t).or_raise(py, &self.held.name)?),
            Some(r) => {
                let bytes = py
                    .detach(|| r.tensor_data(&t))
                    .or_raise(py, &self.held.name)?;
                fetched(bytes)
            }
        }
    }
}

#[pymethods]
impl Tensor {
    /// The tensor's name.
    #[getter]
    fn name(&self) -> String {
        self.info().name().into_owned()
    }

    /// The ggml type's name ("f32", "q4_k", ...); a fork's type by the fork's name ("iq2_kt"),
    /// "unknown" for an id no table has (in a file opened permissively).
    #[getter]
    fn r#type(&self) -> &'static str {
        self.info().tensor_type().name()
    }

    /// The type id as stored.
    #[getter]
    fn type_id(&self) -> u32 {
        self.info().type_id()
    }

    /// Dimensions as stored (ne0 first).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.info().shape())
    }

    /// Elements over all dimensions.
    #[getter]
    fn n_elements(&self) -> u64 {
        self.info().n_elements()
    }

    /// Bytes of data, without padding.
    #[getter]
    fn nbytes(&self) -> u64 {
        self.info().size()
    }

    /// Offset of the data from the start of the data section.
    #[getter]
    fn offset(&self) -> u64 {
        self.info().offset()
    }

    /// Offset of the data from the start of the file.
    #[getter]
    fn data_offset(&self) -> u64 {
        self.info().absolute_offset()
    }

    /// The data as a read-only `uint8` array: a view of the map, not a copy (fetched for a remote
    /// file).
    #[getter]
    fn raw<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.with_bytes(
            py,
            |b| borrow_bytes(py, &self.held, b),
            |v| {
                let a = PyArray1::from_vec(py, v).into_any();
                read_only(&a)?;
                Ok(a)
            },
        )
    }

    /// The values: float32 (integer tensors keep their dtype), shaped like `gguf export` (the
    /// stored dimensions reversed), bit-exact with ggml. Runs on every core without the GIL.
    ///
    /// `out`: an array to decode into (C-contiguous, writeable, of the result's dtype and shape),
    /// returned; a caller decoding many tensors reuses one buffer. `copy` follows numpy's
    /// convention: `True` always gives a new array; `None` a read-only view of the map where the
    /// stored bytes already are the values (f32 and integer tensors in the machine's byte order),
    /// else a new array; `False` the view or `ValueError`.
    #[pyo3(signature = (*, out = None, copy = Some(true)))]
    fn numpy<'py>(
        &self,
        py: Python<'py>,
        out: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let t = self.info();
        let shape: Vec<usize> = t.shape().iter().rev().map(|&d| d as usize).collect();
        let file = &self.held.name;
        let ty = t.ggml_type().or_raise(py, file)?;
        if let Some(out) = out {
            if copy == Some(false) {
                return Err(PyValueError::new_err(
                    "out= writes a copy; copy=False asks for none",
                ));
            }
            return self.numpy_into(py, out, &shape);
        }
        if copy != Some(true) {
            if let Some(view) = self.view(py, &shape)? {
                return Ok(view);
            }
            if copy == Some(false) {
                return Err(PyValueError::new_err(format!(
                    "{file}: tensor {:?} is stored as {} and cannot be returned without a copy",
                    t.name(),
                    ty.name()
                )));
            }
        }
        if !ty.is_integer() {
            // the bytes first: a tensor without its data fails before anything is allocated,
            // and the allocation is then bounded by data the file really holds
            let bytes = self.with_bytes(py, |b| Ok(Cow::Borrowed(b)), |v| Ok(Cow::Owned(v)))?;
            let array = new_array(py, &shape, "float32")?;
            {
                let mut rw = array.readwrite();
                let dst = rw.as_slice_mut()?;
                py.detach(|| dequantize_into(&t, &bytes, dst))
                    .or_raise(py, file)?;
            }
            return Ok(array.into_any());
        }
        let values = self.with_bytes(
            py,
            |b| py.detach(|| tensor_values(&t, b)).or_raise(py, file),
            |v| py.detach(|| tensor_values(&t, &v)).or_raise(py, file),
        )?;
        let flat = match values {
            TensorValues::F32(v) => PyArray1::from_vec(py, v).reshape(shape)?.into_any(),
            TensorValues::I8(v) => PyArray1::from_vec(py, v).reshape(shape)?.into_any(),
            TensorValues::I16(v) => PyArray1::from_vec(py, v).reshape(shape)?.into_any(),
            TensorValues::I32(v) => PyArray1::from_vec(py, v).reshape(shape)?.into_any(),
            TensorValues::I64(v) => PyArray1::from_vec(py, v).reshape(shape)?.into_any(),
        };
        Ok(flat)
    }

    fn __repr__(&self) -> String {
        let t = self.info();
        format!(
            "<ggufkit.Tensor {:?} {} {:?}>",
            t.name(),
            t.tensor_type(),
            t.shape()
        )
    }
}

/// A new C-contiguous array of `shape` and `dtype` from `numpy.empty`, which raises MemoryError
/// when it cannot allocate (numpy's Rust constructors would panic). Its values are written by
/// the caller before anyone sees it.
fn new_array<'py>(
    py: Python<'py>,
    shape: &[usize],
    dtype: &str,
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    Ok(py
        .import("numpy")?
        .call_method1("empty", (shape.to_vec(), dtype))?
        .cast_into::<PyArrayDyn<f32>>()?)
}
