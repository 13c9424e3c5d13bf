//! The tensors of `ggufkit.compat.GGUFReader`: gguf-py's `ReaderTensor` (its fields, its tuple
//! order, its `data` and `field`), made here from the library's tensor table in one call, since
//! building thousands of them in Python was most of the time of opening a file.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use ggufkit::wire::{Cut, Piece, ValueWalk};

use crate::file::File;
use crate::text::StrMaker;

/// One tensor as gguf-py's `ReaderTensor`. `data` (a zero-copy view of the file) and `field`
/// (the tensor's info as a `ReaderField`) are made by the reader on first use and kept.
#[pyclass(frozen, module = "ggufkit.compat")]
pub struct ReaderTensor {
    /// The tensor's name.
    #[pyo3(get)]
    name: Py<PyAny>,
    /// Its `GGMLQuantizationType`.
    #[pyo3(get)]
    tensor_type: Py<PyAny>,
    /// Its dimensions as stored (ne0 first), a uint64 array in the file's byte order.
    #[pyo3(get)]
    shape: Py<PyAny>,
    #[pyo3(get)]
    n_elements: u64,
    #[pyo3(get)]
    n_bytes: u64,
    /// The data's offset from the start of the file.
    #[pyo3(get)]
    data_offset: u64,
    reader: Py<PyAny>,
    index: usize,
    data: OnceLock<Py<PyAny>>,
}

#[pymethods]
impl ReaderTensor {
    /// gguf-py's field names, in its tuple order.
    #[classattr]
    fn _fields() -> (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        &'static str,
    ) {
        (
            "name",
            "tensor_type",
            "shape",
            "n_elements",
            "n_bytes",
            "data_offset",
            "data",
            "field",
        )
    }

    /// The data as gguf-py shapes it, a view of the file; made once.
    #[getter]
    fn data(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if let Some(d) = self.data.get() {
            return Ok(d.clone_ref(py));
        }
        let d = self.reader.call_method1(
            py,
            "_tensor_data",
            (
                self.index,
                self.n_elements,
                self.n_bytes,
                self.data_offset,
                &self.tensor_type,
                &self.shape,
            ),
        )?;
        // another thread may have set it meanwhile; either value is the same view
        let _ = self.data.set(d.clone_ref(py));
        Ok(d)
    }

    /// The tensor's info as a `ReaderField`.
    #[getter]
    fn field(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let fields = self.reader.call_method0(py, "_tensor_fields")?;
        Ok(fields.bind(py).get_item(self.index)?.unbind())
    }

    fn __iter__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let t = slf.get();
        let values: [Py<PyAny>; 8] = [
            t.name.clone_ref(py),
            t.tensor_type.clone_ref(py),
            t.shape.clone_ref(py),
            t.n_elements.into_pyobject(py)?.into_any().unbind(),
            t.n_bytes.into_pyobject(py)?.into_any().unbind(),
            t.data_offset.into_pyobject(py)?.into_any().unbind(),
            t.data(py)?,
            t.field(py)?,
        ];
        Ok(PyTuple::new(py, values)?.into_any().try_iter()?.into_any())
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "ReaderTensor(name={}, tensor_type={}, shape={})",
            self.name.bind(py).repr()?,
            self.tensor_type.bind(py).repr()?,
            self.shape.bind(py).repr()?
        ))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        // the reader holds its tensors and each tensor its reader: the collector must see it
        visit.call(&self.reader)?;
        if let Some(d) = self.data.get() {
            visit.call(d)?;
        }
        Ok(())
    }
}

/// The file's tensors for `reader`: `types` maps a type id to its `GGMLQuantizationType`
/// (`None` where the enum has no member; `make_type` is then called with the id and raises as
/// gguf-py does), and `shapes` holds each tensor's dimensions. Also returns each tensor's
/// info offset.
pub fn reader_tensors<'py>(
    py: Python<'py>,
    gguf: &ggufkit::Gguf<'_>,
    reader: &Bound<'py, PyAny>,
    types: &Bound<'py, PyList>,
    make_type: &Bound<'py, PyAny>,
    shapes: &Bound<'py, PyList>,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
    if shapes.len() != gguf.tensor_count() {
        return Err(PyValueError::new_err("one shape per tensor"));
    }
    let tensors = PyList::empty(py);
    let mut info_offsets = Vec::with_capacity(gguf.tensor_count());
    let mut maker = StrMaker::default();
    for (index, (t, shape)) in gguf.tensors().zip(shapes.iter()).enumerate() {
        let id = t.type_id();
        let known = usize::try_from(id)
            .ok()
            .and_then(|i| types.get_item(i).ok())
            .filter(|m| !m.is_none());
        let tensor_type = match known {
            Some(m) => m,
            None => make_type.call1((id,))?,
        };
        let tensor = ReaderTensor {
            name: maker.make(py, &t.name())?.unbind(),
            tensor_type: tensor_type.unbind(),
            shape: shape.unbind(),
            n_elements: t.n_elements(),
            n_bytes: t.size(),
            data_offset: t.absolute_offset(),
            reader: reader.clone().unbind(),
            index,
            data: OnceLock::new(),
        };
        tensors.append(Bound::new(py, tensor)?)?;
        info_offsets.push(t.info_offset());
    }
    Ok((tensors, PyList::new(py, info_offsets)?))
}

/// The numpy type code of every fixed-size value type, by type id (`{0: "u1", ..., 7: "b1"}`):
/// the library's one map, which `compat.py` turns into gguf-py's dtypes.
#[pyfunction]
pub fn value_dtypes() -> Vec<(u32, &'static str)> {
    ggufkit::ValueType::ALL
        .into_iter()
        .filter_map(|t| Some((t.id(), t.dtype_code()?)))
        .collect()
}

/// The encoding of the value of the key-value pair at byte `offset` of `file`, piece by piece as
/// the library's wire format walks it (nested arrays without recursion): `(0, at, type id,
/// count)` for a run of `count` numbers or bools, `(1, at, 8, len)` for a string (its length
/// field at `at`, its bytes after it), `(2, at, element type id, count)` for an array's header.
/// Offsets are from the start of the file. `compat.py` builds gguf-py's field parts from them.
#[pyfunction]
pub fn value_pieces(file: PyRef<'_, File>, offset: u64) -> PyResult<Vec<(u8, u64, u32, u64)>> {
    let held = file.held()?;
    let g = held.gguf();
    // the pairs lie in file order
    let (mut lo, mut hi) = (0, g.kv_count());
    let mut found = None;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let Some(kv) = g.kv_at(mid) else { break };
        match kv.offset.cmp(&offset) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => {
                found = Some(kv);
                break;
            }
        }
    }
    let kv = found
        .ok_or_else(|| PyValueError::new_err(format!("no key-value pair at byte {offset}")))?;
    let start = kv.spans().value.whole().offset;
    let bytes = usize::try_from(start - kv.offset)
        .ok()
        .and_then(|rel| kv.raw.get(rel..))
        .unwrap_or_default();
    let mut walk = ValueWalk::value(kv.value.value_type(), 0, g.endian());
    let mut pieces = Vec::new();
    let cut = |e: Cut| PyValueError::new_err(format!("the value at byte {start}: {e}"));
    while let Some(p) = walk.next(bytes).map_err(cut)? {
        pieces.push(match p {
            Piece::Scalars { ty, at, count } => (0, start + at as u64, ty.id(), count),
            Piece::String { at, len } => (1, start + at as u64, 8, len),
            Piece::ArrayHead { at, elem, count } => (2, start + at as u64, elem.id(), count),
        });
    }
    Ok(pieces)
}
