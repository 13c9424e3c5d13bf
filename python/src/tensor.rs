//! `ggufkit.Tensor`: one tensor's description, its bytes as a read-only numpy view of the map
//! (`raw`), and its values (`numpy()`), dequantized on every core with the GIL released.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::sync::Arc;

use ggufkit::export::{dequantize_into, tensor_values, TensorValues};
use ggufkit::{tensor_bytes, TensorInfo};
use numpy::{PyArray1, PyArrayMethods};
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

    /// The ggml type's name ("f32", "q4_k", ...).
    #[getter]
    fn r#type(&self) -> &'static str {
        self.info().ggml_type().name()
    }

    /// The ggml type's id.
    #[getter]
    fn type_id(&self) -> u32 {
        self.info().ggml_type().id()
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
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = self.info();
        let shape: Vec<usize> = t.shape().iter().rev().map(|&d| d as usize).collect();
        let file = &self.held.name;
        if !t.ggml_type().is_integer() {
            // decoded straight into numpy's buffer: zeros() takes fresh pages from calloc, so no
            // fill pass comes before the decoding
            // the bytes first: a tensor without its data fails before anything is allocated,
            // and the allocation is then bounded by data the file really holds
            let bytes = self.with_bytes(py, |b| Ok(Cow::Borrowed(b)), |v| Ok(Cow::Owned(v)))?;
            let n = usize::try_from(t.n_elements())
                .map_err(|_| pyo3::exceptions::PyMemoryError::new_err("tensor too large"))?;
            // numpy.zeros raises MemoryError when it cannot allocate (PyArray::zeros would panic)
            let array = py
                .import("numpy")?
                .call_method1("zeros", (n, "float32"))?
                .cast_into::<PyArray1<f32>>()?;
            {
                let mut rw = array.readwrite();
                let out = rw.as_slice_mut()?;
                py.detach(|| dequantize_into(&t, &bytes, out))
                    .or_raise(py, file)?;
            }
            return Ok(array.reshape(shape)?.into_any());
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
            t.ggml_type().name(),
            t.shape()
        )
    }
}
