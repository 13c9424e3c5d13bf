//! `ggufkit.open` and the `File` it returns: the format facts, the metadata (values converted on
//! access), the tensors, the summary and the report. Opening reads the header only.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ggufkit::open::{open_with, OpenOptions};
use ggufkit::summary::{summary_json, Summary};
use ggufkit::{Gguf, Location, ReadOptions};
use pyo3::exceptions::{PyKeyError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::check::Report;
use crate::errors::OrRaise;
use crate::held::{Held, Source};
use crate::tensor::Tensor;
use crate::tokenizer::Tokenizer;
use crate::values::{str_to_py, value_to_py};

/// What `open` accepts: a location (a path or a URL) with the name its errors carry, or bytes.
enum Input {
    Location(Location, String),
    Bytes(Vec<u8>),
}

fn input(source: &Bound<'_, PyAny>) -> PyResult<Input> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return Ok(Input::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        return Ok(Input::Bytes(b.to_vec()));
    }
    if source.hasattr("tobytes")? && !source.hasattr("__fspath__")? {
        // memoryview (and numpy arrays): their bytes, copied once into the file's own buffer
        let b = source.call_method0("tobytes")?;
        return Ok(Input::Bytes(b.cast::<PyBytes>()?.as_bytes().to_vec()));
    }
    if let Ok(s) = source.extract::<String>() {
        return Ok(Input::Location(Location::parse(&s), s));
    }
    match source.extract::<PathBuf>() {
        Ok(p) => {
            let name = p.display().to_string();
            Ok(Input::Location(Location::Path(p), name))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "ggufkit.open takes a path, a URL, bytes, bytearray or memoryview, not {}",
            source.get_type().name()?
        ))),
    }
}

/// Opens a GGUF: a path (memory-mapped), bytes, or an http(s)/s3/gs/az URL (the header by range
/// requests). With `permissive`, files ggml would load open even when the spec rejects them;
/// `report()` says what is wrong.
#[pyfunction]
#[pyo3(signature = (source, *, permissive = false))]
pub fn open(py: Python<'_>, source: &Bound<'_, PyAny>, permissive: bool) -> PyResult<File> {
    let options = if permissive {
        ReadOptions::permissive()
    } else {
        ReadOptions::default()
    };
    let held = match input(source)? {
        Input::Location(location, name) => {
            let opened = py
                .detach(|| open_with(&location, &OpenOptions::permissive(permissive)))
                .map_err(|e| e.error)
                .or_raise(py, &name)?;
            Held {
                source: Source::Opened(opened),
                name,
            }
        }
        Input::Bytes(b) => {
            let g = py
                .detach(|| Gguf::from_vec_with(b, &options))
                .or_raise(py, "<bytes>")?;
            Held {
                source: Source::Bytes(g),
                name: "<bytes>".into(),
            }
        }
    };
    Ok(File {
        held: Mutex::new(Some(Arc::new(held))),
        tensors: Mutex::new(None),
        tokenizer: Mutex::new(None),
    })
}

/// The index of pair `key` (the last occurrence of a repeated key), or KeyError. A key that is
/// not UTF-8 (permissive files) is given as the `str` the mapping yields for it, with its bytes
/// in surrogate escapes.
fn find_kv(g: &Gguf<'static>, key: &Bound<'_, PyAny>) -> PyResult<usize> {
    let missing = || PyKeyError::new_err(key.clone().unbind());
    let s = key.cast::<PyString>().map_err(|_| missing())?;
    if let Ok(k) = s.to_cow() {
        return g.kv_index(&k).ok_or_else(missing);
    }
    let raw = s.call_method1("encode", ("utf-8", "surrogateescape"))?;
    let raw = raw.cast::<PyBytes>()?.as_bytes();
    let found = g
        .metadata()
        .enumerate()
        .filter(|(_, kv)| kv.key.as_bytes() == raw)
        .last();
    found.map(|(i, _)| i).ok_or_else(missing)
}

/// One metadata pair: its key, type names (as the CLI contract spells them), where it starts in
/// the file, and its value.
#[pyclass(frozen, get_all, module = "ggufkit")]
pub struct Field {
    key: Py<PyAny>,
    /// The value's type: "uint32", "string", "array", ...
    r#type: String,
    /// For arrays, the elements' type; else None.
    element_type: Option<String>,
    /// Byte offset of the pair (its key length field) from the start of the file.
    offset: u64,
    value: Py<PyAny>,
}

#[pymethods]
impl Field {
    fn __repr__(&self) -> String {
        format!(
            "Field(key={:?}, type={:?}, offset={})",
            self.key, self.r#type, self.offset
        )
    }
}

/// An opened GGUF. A context manager; `close()` releases the map once nothing borrows it.
#[pyclass(frozen, module = "ggufkit")]
pub struct File {
    held: Mutex<Option<Arc<Held>>>,
    tensors: Mutex<Option<Py<PyTuple>>>,
    tokenizer: Mutex<Option<Py<Tokenizer>>>,
}

impl File {
    /// What the file holds, or ValueError once it is closed.
    pub(crate) fn held(&self) -> PyResult<Arc<Held>> {
        self.held
            .lock()
            .map_err(|_| PyValueError::new_err("the file's lock was poisoned"))?
            .clone()
            .ok_or_else(|| PyValueError::new_err("I/O operation on closed GGUF file"))
    }
}

#[pymethods]
impl File {
    /// The format version (2 or 3).
    #[getter]
    fn version(&self) -> PyResult<u32> {
        Ok(self.held()?.gguf().version())
    }

    /// "little" or "big".
    #[getter]
    fn endian(&self) -> PyResult<&'static str> {
        Ok(self.held()?.gguf().endian().name())
    }

    /// The alignment of tensor data (`general.alignment`, 32 when absent).
    #[getter]
    fn alignment(&self) -> PyResult<u32> {
        Ok(self.held()?.gguf().alignment())
    }

    /// Absolute offset of the tensor data section.
    #[getter]
    fn tensor_data_offset(&self) -> PyResult<u64> {
        Ok(self.held()?.gguf().data_offset())
    }

    /// The length the header implies (the spec's `len_file`).
    #[getter]
    fn file_size(&self) -> PyResult<u64> {
        Ok(self.held()?.gguf().expected_len())
    }

    /// What reading a remote file cost so far, as `gguf --json` reports it: `{"bytes": N,
    /// "requests": M}` (body bytes received, HTTP requests sent with retries), the header and
    /// every tensor fetched since. None for a local file (mapped, not fetched) and for bytes.
    #[getter]
    fn cost<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(c) = self.held()?.cost() else {
            return Ok(None);
        };
        let d = PyDict::new(py);
        d.set_item("bytes", c.bytes)?;
        d.set_item("requests", c.requests)?;
        Ok(Some(d))
    }

    /// `general.architecture`, or None.
    #[getter]
    fn architecture(&self) -> PyResult<Option<String>> {
        Ok(self.held()?.gguf().architecture().map(str::to_string))
    }

    /// The path, URL or `<bytes>` the file was opened from.
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(self.held()?.name.clone())
    }

    /// The keys, in file order (a repeated key, in permissive files, once: where it last occurs).
    fn _keys<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let held = self.held()?;
        let g = held.gguf();
        let mut last = std::collections::HashMap::with_capacity(g.kv_count());
        for (i, kv) in g.metadata().enumerate() {
            last.insert(kv.key.as_bytes(), i);
        }
        let list = PyList::empty(py);
        for (i, kv) in g.metadata().enumerate() {
            if last.get(kv.key.as_bytes()) == Some(&i) {
                list.append(str_to_py(py, &kv.key)?)?;
            }
        }
        Ok(list)
    }

    /// The number of distinct keys.
    fn _len(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self._keys(py)?.len())
    }

    /// The value of `key`; KeyError when absent.
    fn _get<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let held = self.held()?;
        let i = find_kv(held.gguf(), key)?;
        let kv = held.gguf().kv_at(i).expect("an index the file gave");
        value_to_py(py, &held, i, &kv.value)
    }

    /// Whether `key` is present.
    fn _contains(&self, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(find_kv(self.held()?.gguf(), key).is_ok())
    }

    /// The pair `key` with its types and offset; KeyError when absent.
    fn field(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<Field> {
        let held = self.held()?;
        let g = held.gguf();
        let i = find_kv(g, key)?;
        let kv = g.kv_at(i).expect("an index the file gave");
        let value = value_to_py(py, &held, i, &kv.value)?.unbind();
        Ok(Field {
            key: key.clone().unbind(),
            r#type: kv.value_type().name().to_string(),
            element_type: kv
                .value
                .as_array()
                .map(|a| a.element_type().name().to_string()),
            offset: kv.offset,
            value,
        })
    }

    /// Every tensor, in file order.
    #[getter]
    fn tensors<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let held = self.held()?;
        let mut cache = self
            .tensors
            .lock()
            .map_err(|_| PyValueError::new_err("the file's lock was poisoned"))?;
        if let Some(t) = cache.as_ref() {
            return Ok(t.bind(py).clone());
        }
        let n = held.gguf().tensor_count();
        let items: Vec<Tensor> = (0..n)
            .map(|index| Tensor::new(held.clone(), index))
            .collect();
        let tuple = PyTuple::new(py, items)?;
        *cache = Some(tuple.clone().unbind());
        Ok(tuple)
    }

    /// The file's tokenizer (`ggufkit.Tokenizer`), built on first use; it keeps the file's
    /// bytes alive, even past `close()`.
    #[getter]
    fn tokenizer(&self, py: Python<'_>) -> PyResult<Py<Tokenizer>> {
        let lock = || {
            self.tokenizer
                .lock()
                .map_err(|_| PyValueError::new_err("the file's lock was poisoned"))
        };
        if let Some(t) = lock()?.as_ref() {
            return Ok(t.clone_ref(py));
        }
        // built without the lock held: building releases the GIL
        let built = Py::new(py, Tokenizer::of(py, self.held()?)?)?;
        Ok(lock()?.get_or_insert(built).clone_ref(py))
    }

    /// The conversation rendered with the file's chat template, exactly as transformers'
    /// `apply_chat_template(messages, tools=..., add_generation_prompt=..., tokenize=False,
    /// **kwargs)` renders it: `template` names `tokenizer.chat_template.NAME` (default: `tool_use`
    /// when tools are given and the file has it, else `tokenizer.chat_template`); `kwargs` are
    /// further template variables (`enable_thinking=False`, `documents=[...]`). The template's
    /// `raise_exception(...)` raises `ggufkit.TemplateError` with its message.
    #[pyo3(signature = (messages, tools = None, add_generation_prompt = false, template = None, **kwargs))]
    fn apply_chat_template(
        &self,
        py: Python<'_>,
        messages: &Bound<'_, PyAny>,
        tools: Option<&Bound<'_, PyAny>>,
        add_generation_prompt: bool,
        template: Option<&str>,
        kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
    ) -> PyResult<String> {
        crate::chat::apply(
            py,
            &self.held()?,
            messages,
            tools,
            add_generation_prompt,
            template,
            kwargs,
        )
    }

    /// Every tensor's dimensions for the compat reader: one table of native-order uint64s, a
    /// row per tensor (zero-padded to the widest), its width and each tensor's dimension count.
    fn _tensor_shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let held = self.held()?;
        let g = held.gguf();
        let width = g
            .tensors()
            .map(|t| t.shape().len())
            .max()
            .unwrap_or(0)
            .max(1);
        let mut dims = Vec::with_capacity(g.tensor_count());
        let mut table = Vec::with_capacity(g.tensor_count() * width * 8);
        for t in g.tensors() {
            dims.push(t.shape().len());
            for d in 0..width {
                let v = t.shape().get(d).copied().unwrap_or(0);
                table.extend_from_slice(&v.to_ne_bytes());
            }
        }
        let columns: [Bound<'py, PyAny>; 3] = [
            PyBytes::new(py, &table).into_any(),
            width.into_pyobject(py)?.into_any(),
            PyList::new(py, dims)?.into_any(),
        ];
        PyTuple::new(py, columns)
    }

    /// The compat reader's `ReaderTensor`s and their info offsets (see `compat.rs`).
    fn _reader_tensors<'py>(
        &self,
        py: Python<'py>,
        reader: &Bound<'py, PyAny>,
        types: &Bound<'py, PyList>,
        make_type: &Bound<'py, PyAny>,
        shapes: &Bound<'py, PyList>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
        let held = self.held()?;
        crate::compat::reader_tensors(py, held.gguf(), reader, types, make_type, shapes)
    }

    /// The tensor named `name`; KeyError when absent.
    fn tensor(&self, name: &str) -> PyResult<Tensor> {
        let held = self.held()?;
        let g = held.gguf();
        match g.tensor_index(name) {
            Some(index) => Ok(Tensor::new(held.clone(), index)),
            None => Err(PyKeyError::new_err(name.to_string())),
        }
    }

    /// What `gguf info --json` prints for this file, as a dict: for the first shard of a split
    /// model opened from a path, the whole model (a `UserWarning` when its other shards cannot
    /// be read, and this shard alone).
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let held = self.held()?;
        let g = held.gguf();
        let (summary, alone) = Summary::of_file(g);
        if let Some(e) = alone {
            let msg = format!("{e}; describing this shard alone");
            let msg = std::ffi::CString::new(msg.replace('\0', " ")).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 1)?;
        }
        let text = summary_json(&held.name, g.report(), &summary);
        py.import("json")?.call_method1("loads", (text,))
    }

    /// What is wrong with the file (nothing for a file opened strictly, which is valid).
    fn report(&self) -> PyResult<Report> {
        let held = self.held()?;
        Ok(Report::of(held.gguf().report()))
    }

    /// Releases the file; the map goes once no tensor, array or view borrows it.
    fn close(&self) -> PyResult<()> {
        if let Ok(mut h) = self.held.lock() {
            *h = None;
        }
        if let Ok(mut t) = self.tensors.lock() {
            *t = None;
        }
        Ok(())
    }

    /// Whether `close()` was called.
    #[getter]
    fn closed(&self) -> bool {
        self.held.lock().map(|h| h.is_none()).unwrap_or(true)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, PyTuple>) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        match self.held() {
            Ok(h) => {
                let g = h.gguf();
                format!(
                    "<ggufkit.File {:?} v{} {} kv={} tensors={}>",
                    h.name,
                    g.version(),
                    g.endian().name(),
                    g.kv_count(),
                    g.tensor_count()
                )
            }
            Err(_) => "<ggufkit.File closed>".into(),
        }
    }
}

/// `ggufkit.apply_chat_template(source, messages, ...)`: `File.apply_chat_template` of a `File`,
/// a `Tokenizer`'s file, or a GGUF opened from a path or URL (its header only).
#[pyfunction]
#[pyo3(signature = (source, messages, tools = None, add_generation_prompt = false, template = None, **kwargs))]
pub fn apply_chat_template(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    messages: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    add_generation_prompt: bool,
    template: Option<&str>,
    kwargs: Option<&Bound<'_, pyo3::types::PyDict>>,
) -> PyResult<String> {
    let held = if let Ok(f) = source.cast::<File>() {
        f.get().held()?
    } else if let Ok(t) = source.cast::<Tokenizer>() {
        t.get().held()
    } else {
        open(py, source, false)?.held()?
    };
    crate::chat::apply(
        py,
        &held,
        messages,
        tools,
        add_generation_prompt,
        template,
        kwargs,
    )
}
