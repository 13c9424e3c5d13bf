//! Metadata values as Python objects: scalars as `int`, `float`, `bool` and `str`; numeric arrays
//! as read-only numpy arrays over the header's bytes (in the file's byte order, so zero-copy for
//! both); string arrays as the lazy [`StringArray`]; arrays of arrays as lists.
#![forbid(unsafe_code)]

use std::sync::{Arc, OnceLock};

use ggufkit::value::ArrayIter;
use ggufkit::{ArrayView, Endian, Str, Value, ValueType};
use numpy::PyArray1;
use pyo3::exceptions::{PyIndexError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PySlice};
use pyo3::IntoPyObjectExt;

use crate::held::{borrow_bytes, read_only, Held};
use crate::text::StrMaker;

/// A string as `str`. Bytes that are not UTF-8 (only in files opened permissively) decode with
/// `surrogateescape`, so `s.encode("utf-8", "surrogateescape")` gives them back exactly.
pub fn str_to_py<'py>(py: Python<'py>, s: &Str<'_>) -> PyResult<Bound<'py, PyAny>> {
    match s.as_str() {
        Some(t) => StrMaker::default().make(py, t),
        None => PyBytes::new(py, s.as_bytes()).call_method1("decode", ("utf-8", "surrogateescape")),
    }
}

/// The strings of a string array as a list of `str`.
fn strings_to_list<'py>(py: Python<'py>, a: &ArrayView<'_>) -> PyResult<Bound<'py, PyList>> {
    let mut maker = StrMaker::default();
    let items = a
        .strings()
        .into_iter()
        .flatten()
        .map(|s| match s.as_str() {
            Some(t) => maker.make(py, t),
            None => str_to_py(py, &s),
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// The numpy dtype of a numeric array's elements in byte order `e` (`None` for bool, string and
/// array elements), from the library's one map ([`ValueType::dtype_code`]).
fn dtype(elem: ValueType, e: Endian) -> Option<String> {
    if elem == ValueType::Bool {
        return None;
    }
    let code = elem.dtype_code()?;
    let order = if e == Endian::Big { '>' } else { '<' };
    Some(format!("{order}{code}"))
}

/// The value `v` of pair `kv` of `held`'s file, as a Python object. A string array at the top
/// of a pair is the lazy [`StringArray`]; inside arrays of arrays, string arrays are lists.
pub fn value_to_py<'py>(
    py: Python<'py>,
    held: &Arc<Held>,
    kv: usize,
    v: &Value<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    match v {
        Value::Array(a) if a.element_type() == ValueType::String => {
            let len = usize::try_from(a.len())
                .map_err(|_| PyIndexError::new_err("array longer than this machine's memory"))?;
            Bound::new(
                py,
                StringArray {
                    held: held.clone(),
                    kv,
                    len,
                    spans: OnceLock::new(),
                },
            )
            .map(Bound::into_any)
        }
        Value::Array(a) if a.element_type() == ValueType::Array => nested_to_py(py, held, a),
        v => leaf_to_py(py, held, v),
    }
}

/// A scalar, or an array whose elements are not arrays (string arrays as lists).
fn leaf_to_py<'py>(
    py: Python<'py>,
    held: &Arc<Held>,
    v: &Value<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    match *v {
        Value::U8(x) => x.into_bound_py_any(py),
        Value::I8(x) => x.into_bound_py_any(py),
        Value::U16(x) => x.into_bound_py_any(py),
        Value::I16(x) => x.into_bound_py_any(py),
        Value::U32(x) => x.into_bound_py_any(py),
        Value::I32(x) => x.into_bound_py_any(py),
        Value::U64(x) => x.into_bound_py_any(py),
        Value::I64(x) => x.into_bound_py_any(py),
        Value::F32(x) => f64::from(x).into_bound_py_any(py),
        Value::F64(x) => x.into_bound_py_any(py),
        Value::Bool(b) => (b != 0).into_bound_py_any(py),
        Value::String(ref s) => str_to_py(py, s),
        Value::Array(a) => match a.element_type() {
            ValueType::String => Ok(strings_to_list(py, &a)?.into_any()),
            ValueType::Bool => {
                // copied: a bool byte other than 0 and 1 (permissive files) must read as True
                let v: Vec<bool> = a.raw_bytes().iter().map(|&b| b != 0).collect();
                let arr = PyArray1::from_vec(py, v).into_any();
                read_only(&arr)?;
                Ok(arr)
            }
            ValueType::Array => nested_to_py(py, held, &a),
            elem => {
                let dtype = dtype(elem, a.endian()).expect("numeric element type");
                borrow_bytes(py, held, a.raw_bytes())?.call_method1("view", (dtype,))
            }
        },
    }
}

/// An array of arrays as nested lists, built with a stack of its own: files may nest arrays
/// thousands deep, and the walk must not use the thread's stack per level.
fn nested_to_py<'py>(
    py: Python<'py>,
    held: &Arc<Held>,
    a: &ArrayView<'_>,
) -> PyResult<Bound<'py, PyAny>> {
    let root = PyList::empty(py);
    let mut stack: Vec<(Bound<'py, PyList>, ArrayIter<'_>)> = vec![(root.clone(), a.iter())];
    while let Some(top) = stack.len().checked_sub(1) {
        let next = stack[top].1.next();
        match next {
            None => {
                stack.pop();
            }
            Some(Value::Array(inner)) if inner.element_type() == ValueType::Array => {
                let child = PyList::empty(py);
                stack[top].0.append(&child)?;
                stack.push((child, inner.iter()));
            }
            Some(v) => stack[top].0.append(leaf_to_py(py, held, &v)?)?,
        }
    }
    Ok(root.into_any())
}

/// The strings of a metadata array, decoded one at a time as they are asked for: nothing is
/// built when the file is opened, and a 262k-token vocabulary costs nothing until it is read.
/// Indexing finds the strings' positions in one pass, the first time.
#[pyclass(frozen, sequence, module = "ggufkit")]
pub struct StringArray {
    held: Arc<Held>,
    /// The pair whose value this is.
    kv: usize,
    len: usize,
    /// Where each string lies within the array's bytes, found at the first index.
    spans: OnceLock<Spans>,
}

/// (start, length) of each string of an array: 8 bytes a string while the array's bytes are
/// under 4 GiB (every real vocabulary), 16 beyond.
enum Spans {
    Short(Vec<(u32, u32)>),
    Long(Vec<(u64, u64)>),
}

impl Spans {
    fn get(&self, i: usize) -> (usize, usize) {
        match self {
            Spans::Short(v) => (v[i].0 as usize, v[i].1 as usize),
            Spans::Long(v) => (v[i].0 as usize, v[i].1 as usize),
        }
    }
}

impl StringArray {
    fn view(&self) -> PyResult<ArrayView<'_>> {
        self.held
            .gguf()
            .kv_at(self.kv)
            .and_then(|kv| kv.value.as_array())
            .ok_or_else(|| PyTypeError::new_err("the array is gone from its file"))
    }

    fn spans(&self) -> PyResult<&Spans> {
        if let Some(s) = self.spans.get() {
            return Ok(s);
        }
        let a = self.view()?;
        let base = a.raw_bytes().as_ptr() as usize;
        let each = a
            .strings()
            .into_iter()
            .flatten()
            .map(|s| (s.as_bytes().as_ptr() as usize - base, s.len()));
        let spans = if u32::try_from(a.raw_bytes().len()).is_ok() {
            // every start and length lies within the array's bytes, so both fit
            Spans::Short(each.map(|(p, l)| (p as u32, l as u32)).collect())
        } else {
            Spans::Long(each.map(|(p, l)| (p as u64, l as u64)).collect())
        };
        Ok(self.spans.get_or_init(|| spans))
    }

    fn item<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let (start, len) = self.spans()?.get(i);
        let a = self.view()?;
        let bytes = &a.raw_bytes()[start..start + len];
        match std::str::from_utf8(bytes) {
            Ok(t) => StrMaker::default().make(py, t),
            Err(_) => PyBytes::new(py, bytes).call_method1("decode", ("utf-8", "surrogateescape")),
        }
    }

    /// Every string, in order, as a list.
    fn all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        strings_to_list(py, &self.view()?)
    }
}

#[pymethods]
impl StringArray {
    fn __len__(&self) -> usize {
        self.len
    }

    /// One string (negative indices count from the end), or a list for a slice.
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(slice) = index.cast::<PySlice>() {
            let ix = slice.indices(self.len as isize)?;
            let list = PyList::empty(py);
            let mut i = ix.start;
            for _ in 0..ix.slicelength {
                list.append(self.item(py, i as usize)?)?;
                i += ix.step;
            }
            return Ok(list.into_any());
        }
        let i: isize = index
            .extract()
            .map_err(|_| PyTypeError::new_err("StringArray indices must be integers or slices"))?;
        let n = self.len as isize;
        let j = if i < 0 { i + n } else { i };
        if j < 0 || j >= n {
            return Err(PyIndexError::new_err(format!(
                "index {i} out of range for {} strings",
                self.len
            )));
        }
        self.item(py, j as usize)
    }

    /// The strings one at a time: nothing but the positions (found once) is held, so a loop
    /// over a vocabulary keeps memory near the header's size.
    fn __iter__(slf: Py<Self>) -> StringArrayIter {
        StringArrayIter {
            array: slf,
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn __contains__(&self, py: Python<'_>, s: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.all(py)?.contains(s)
    }

    /// Every string as a `list[str]`.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.all(py)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        let Ok(items) = other.try_iter() else {
            return Ok(false);
        };
        let mine = self.all(py)?;
        let theirs = PyList::empty(py);
        for x in items {
            theirs.append(x?)?;
        }
        mine.eq(theirs)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let head: Vec<String> = (0..self.len.min(3))
            .map(|i| self.item(py, i)?.repr().map(|r| r.to_string()))
            .collect::<PyResult<_>>()?;
        let more = if self.len > 3 { ", ..." } else { "" };
        Ok(format!(
            "StringArray([{}{more}], len={})",
            head.join(", "),
            self.len
        ))
    }
}

/// The iterator of a [`StringArray`].
#[pyclass(frozen, module = "ggufkit")]
pub struct StringArrayIter {
    array: Py<StringArray>,
    next: std::sync::atomic::AtomicUsize,
}

#[pymethods]
impl StringArrayIter {
    fn __iter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let a = self.array.get();
        let i = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if i >= a.len {
            return Ok(None);
        }
        a.item(py, i).map(Some)
    }
}
