//! The tensors of `ggufkit.compat.GGUFReader`: gguf-py's `ReaderTensor` (its fields, its tuple
//! order, its `data` and `field`), made here from the library's tensor table in one call, since
//! building thousands of them in Python was most of the time of opening a file.
#![forbid(unsafe_code)]

use std::sync::OnceLock;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use pyo3::{PyTraverseError, PyVisit};

use ggufkit::wire::{self, Cut, KvSpans, Piece, Span, ValueSpans, ValueWalk};
use ggufkit::ValueType;
use numpy::{PyArray1, PyArray2, PyArrayMethods};

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

/// One part of a field as gguf-py splits it: its offset from the start of the file, the value
/// type whose numpy dtype it is read as (by id), its element count, and whether it is one of the
/// field's data parts (`ReaderField.data`). `compat.py` makes each a view of the file's map.
type Part = (u64, u32, u64, bool);

/// The part over `span`, read as `ty`'s (fixed-size) elements.
fn part(span: Span, ty: ValueType, data: bool) -> Part {
    let size = ty.fixed_size().unwrap_or(1) as u64;
    (span.offset, ty.id(), span.len / size, data)
}

/// The parts of a value's field spans: a scalar's one, a string's length and bytes, an array's
/// element type and count (its elements are parts of their own).
fn value_parts(v: ValueSpans, scalar: ValueType, out: &mut Vec<Part>) {
    match v {
        ValueSpans::Scalar(s) => out.push(part(s, scalar, true)),
        ValueSpans::String { len, bytes } => {
            out.push(part(len, ValueType::U64, false));
            out.push(part(bytes, ValueType::U8, true));
        }
        ValueSpans::Array {
            elem_type, count, ..
        } => {
            out.push(part(elem_type, ValueType::U32, false));
            out.push(part(count, ValueType::U64, false));
        }
    }
}

/// The key-value pair of `g` that starts at byte `offset` (the pairs lie in file order).
fn kv_at_offset<'g>(g: &'g ggufkit::Gguf<'static>, offset: u64) -> PyResult<ggufkit::Kv<'g>> {
    let (mut lo, mut hi) = (0, g.kv_count());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let Some(kv) = g.kv_at(mid) else { break };
        match kv.offset.cmp(&offset) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(kv),
        }
    }
    Err(PyValueError::new_err(format!(
        "no key-value pair at byte {offset}"
    )))
}

/// The head of a pair's parts, from the library's spans of its fields: the key's length and
/// bytes, the value type, then the value's own fields (an array's element type and count).
fn head_parts(kv: &ggufkit::Kv<'_>) -> Vec<Part> {
    let s = kv.spans();
    let mut parts = key_parts(&s);
    value_parts(s.value, kv.value_type(), &mut parts);
    parts
}

/// The parts before a pair's value: the key's length and bytes, the value type.
fn key_parts(s: &KvSpans) -> Vec<Part> {
    vec![
        part(s.key_len, ValueType::U64, false),
        part(s.key, ValueType::U8, false),
        part(s.value_type, ValueType::U32, false),
    ]
}

/// The encoded bytes of `span`, which lies inside the pair `kv`.
fn bytes_of<'a>(kv: &ggufkit::Kv<'a>, span: Span) -> &'a [u8] {
    usize::try_from(span.offset.saturating_sub(kv.offset))
        .ok()
        .and_then(|rel| kv.raw.get(rel..))
        .unwrap_or_default()
}

/// Every part of the key-value pair at byte `offset` of `file`, as gguf-py splits a field: the
/// spans of its fields, then its value piece by piece as the library's wire format walks it
/// (nested arrays without recursion; a number or bool array's elements one part each). With
/// them, the field's types (gguf-py's `ReaderField.types`): the value's type, then each first
/// element's down the nesting (none past an empty array), by id.
#[pyfunction]
pub fn kv_parts(file: PyRef<'_, File>, offset: u64) -> PyResult<(Vec<Part>, Vec<u32>)> {
    let held = file.held()?;
    let g = held.gguf();
    let kv = kv_at_offset(g, offset)?;
    let s = kv.spans();
    let mut parts = key_parts(&s);
    let start = s.value.whole().offset;
    let mut walk = ValueWalk::value(kv.value_type(), 0, g.endian());
    let bytes = bytes_of(&kv, s.value.whole());
    let cut = |e: Cut| PyValueError::new_err(format!("the value at byte {start}: {e}"));
    let mut types = vec![kv.value_type().id()];
    // the types go down the nesting while the pieces are array heads with elements
    let mut heads = true;
    while let Some(p) = walk.next(bytes).map_err(cut)? {
        match p {
            Piece::ArrayHead { elem, count, .. } if heads && count > 0 => {
                types.push(elem.id());
                heads = elem == ValueType::Array;
            }
            _ => heads = false,
        }
        match p {
            Piece::Scalars { ty, at, count } => {
                let size = ty.fixed_size().unwrap_or(1) as u64;
                let at = start + at as u64;
                parts.extend((0..count).map(|k| part(Span::new(at + k * size, size), ty, true)));
            }
            Piece::String { at, len } => value_parts(
                ValueSpans::string_at(start + at as u64, len),
                ValueType::String,
                &mut parts,
            ),
            Piece::ArrayHead { at, .. } => value_parts(
                ValueSpans::array_at(start + at as u64, 0),
                ValueType::Array,
                &mut parts,
            ),
        }
    }
    Ok((parts, types))
}

/// The head parts of the array pair at byte `offset` of `file` (key length, key, value type,
/// element type, count) and the offset of its first element: `compat.py` makes an element's
/// parts only when it is asked for.
#[pyfunction]
pub fn array_head(file: PyRef<'_, File>, offset: u64) -> PyResult<(Vec<Part>, u64)> {
    let held = file.held()?;
    let kv = kv_at_offset(held.gguf(), offset)?;
    match kv.spans().value {
        ValueSpans::Array { elems, .. } => Ok((head_parts(&kv), elems.offset)),
        _ => Err(PyValueError::new_err(format!(
            "the pair at byte {offset} is not an array"
        ))),
    }
}

/// The strings of the string-array pair at byte `offset` of `file`, walked by the library: a
/// `uint64` array of one row per string, `[length field offset, bytes offset, byte count]`.
#[pyfunction]
pub fn string_parts<'py>(
    py: Python<'py>,
    file: PyRef<'_, File>,
    offset: u64,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let held = file.held()?;
    let g = held.gguf();
    let kv = kv_at_offset(g, offset)?;
    let (elems, count) = match (kv.spans().value, kv.value.as_array()) {
        (ValueSpans::Array { elems, .. }, Some(a)) if a.element_type() == ValueType::String => {
            (elems, a.len())
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "the pair at byte {offset} is not an array of strings"
            )))
        }
    };
    let bytes = bytes_of(&kv, elems);
    let rows = py.detach(|| -> Result<Vec<u64>, Cut> {
        let mut walk = ValueWalk::elements(ValueType::String, count, 0, g.endian());
        let mut rows =
            Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(bytes.len() / 8) * 3);
        while let Some(p) = walk.next(bytes)? {
            if let Piece::String { at, len } = p {
                if let ValueSpans::String { len: l, bytes: b } =
                    ValueSpans::string_at(elems.offset + at as u64, len)
                {
                    rows.extend([l.offset, b.offset, b.len]);
                }
            }
        }
        Ok(rows)
    });
    let rows = rows
        .map_err(|e| PyValueError::new_err(format!("the array at byte {}: {e}", elems.offset)))?;
    let n = rows.len() / 3;
    PyArray1::from_vec(py, rows).reshape([n, 3])
}

/// Every part of tensor info `index` of `file`, from the library's spans of its fields: the
/// name's length and bytes, the dimension count, the dimensions (one part), the type, the offset.
#[pyfunction]
pub fn info_parts(file: PyRef<'_, File>, index: usize) -> PyResult<Vec<Part>> {
    let held = file.held()?;
    let t = held
        .gguf()
        .tensor_at(index)
        .ok_or_else(|| PyValueError::new_err(format!("no tensor info {index}")))?;
    let s = t.spans();
    let dims = Span::new(s.n_dims.end(), s.dims().iter().map(|d| d.len).sum());
    Ok(vec![
        part(s.name_len, ValueType::U64, false),
        part(s.name, ValueType::U8, true),
        part(s.n_dims, ValueType::U32, false),
        part(dims, ValueType::U64, true),
        part(s.ggml_type, ValueType::U32, true),
        part(s.offset, ValueType::U64, true),
    ])
}

/// The header's fixed fields gguf-py gives as fields: the version, the tensor count and the
/// key-value count, as parts.
#[pyfunction]
pub fn header_parts() -> Vec<Part> {
    vec![
        part(wire::VERSION_SPAN, ValueType::U32, true),
        part(wire::TENSOR_COUNT_SPAN, ValueType::U64, true),
        part(wire::KV_COUNT_SPAN, ValueType::U64, true),
    ]
}
