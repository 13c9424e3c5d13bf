//! `ggufkit.Writer` and `ggufkit.edit`: new files from Python values and numpy arrays, and
//! metadata edits of existing ones. Every file is written through a temporary file and a rename,
//! so an interrupted write leaves the target as it was.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;

use ggufkit::quant;
use ggufkit::write::{
    edit as edit_file, type_for_key, write_atomically, EditOutcome, EditTarget, MetaEdit,
};
use ggufkit::{Endian, GgmlType, Gguf, GgufBuilder, OwnedValue};
use numpy::PyReadonlyArrayDyn;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::codec::{contiguous, ggml_type, quantize_blocks};
use crate::errors::OrRaise;
use crate::pyvalue::{to_owned, type_spec};

/// A tensor waiting to be written: its bytes are already in the file's byte order.
struct PendingTensor {
    name: String,
    ty: GgmlType,
    /// Dimensions as stored (ne0 first).
    shape: Vec<u64>,
    data: Vec<u8>,
}

struct State {
    kvs: Vec<(String, OwnedValue)>,
    /// The keys of `kvs` and the names of `tensors`, for the "added twice" checks: a lookup each,
    /// not a scan of everything added before.
    keys: HashSet<String>,
    tensors: Vec<PendingTensor>,
    names: HashSet<String>,
    closed: bool,
}

/// Writes a new GGUF: `add` metadata, `add_tensor` tensors, then `close()` (or leave the `with`
/// block) writes the file atomically. Leaving the block with an exception writes nothing.
#[pyclass(module = "ggufkit")]
pub struct Writer {
    path: PathBuf,
    endian: Endian,
    state: Mutex<State>,
}

impl Writer {
    fn state(&self) -> PyResult<std::sync::MutexGuard<'_, State>> {
        let s = self
            .state
            .lock()
            .map_err(|_| PyValueError::new_err("the writer's lock was poisoned"))?;
        if s.closed {
            return Err(PyValueError::new_err("the writer is closed"));
        }
        Ok(s)
    }

    fn name(&self) -> String {
        self.path.display().to_string()
    }
}

/// The ggml type of a numpy dtype's tensors (ml_dtypes' bfloat16 included).
fn dtype_ggml_type(dtype: &Bound<'_, PyAny>) -> PyResult<Option<GgmlType>> {
    let name: String = dtype.getattr("name")?.extract()?;
    Ok(match name.as_str() {
        "float32" => Some(GgmlType::F32),
        "float16" => Some(GgmlType::F16),
        "bfloat16" => Some(GgmlType::BF16),
        "float64" => Some(GgmlType::F64),
        "int8" => Some(GgmlType::I8),
        "int16" => Some(GgmlType::I16),
        "int32" => Some(GgmlType::I32),
        "int64" => Some(GgmlType::I64),
        _ => None,
    })
}

/// The bytes of a contiguous numpy array, little-endian.
fn le_bytes(array: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let dtype = array
        .getattr("dtype")?
        .call_method1("newbyteorder", ("<",))?;
    let np = array.py().import("numpy")?;
    let a = np.call_method1("ascontiguousarray", (array, dtype))?;
    let flat = a
        .call_method1("view", ("uint8",))?
        .call_method1("reshape", (-1,))?;
    let flat: PyReadonlyArrayDyn<'_, u8> = flat.extract()?;
    Ok(flat.as_slice()?.to_vec())
}

#[pymethods]
impl Writer {
    /// A writer of `path`. `alignment` other than 32 is stored as `general.alignment`; `endian`
    /// is "little" or "big" (numpy arrays are converted to it; `raw` bytes must already be in it).
    #[new]
    #[pyo3(signature = (path, alignment = 32, endian = "little"))]
    fn new(path: PathBuf, alignment: u32, endian: &str) -> PyResult<Self> {
        let endian = match endian {
            "little" => Endian::Little,
            "big" => Endian::Big,
            other => {
                return Err(PyValueError::new_err(format!(
                    "endian must be \"little\" or \"big\", not {other:?}"
                )))
            }
        };
        if alignment == 0 || !alignment.is_power_of_two() {
            return Err(PyValueError::new_err(format!(
                "alignment must be a power of two, not {alignment}"
            )));
        }
        let mut kvs = Vec::new();
        if alignment != 32 {
            kvs.push(("general.alignment".to_string(), OwnedValue::U32(alignment)));
        }
        Ok(Writer {
            path,
            endian,
            state: Mutex::new(State {
                keys: kvs.iter().map(|(k, _)| k.clone()).collect(),
                kvs,
                tensors: Vec::new(),
                names: HashSet::new(),
                closed: false,
            }),
        })
    }

    /// Adds a metadata pair; the type is inferred (see the module docs) unless `type` names one
    /// ("uint32", "float64", "array[string]", ...). A key added twice is an error.
    #[pyo3(signature = (key, value, r#type = None))]
    fn add(&self, key: &str, value: &Bound<'_, PyAny>, r#type: Option<&str>) -> PyResult<()> {
        let spec = r#type.map(type_spec).transpose()?;
        let v = to_owned(key, value, spec.as_ref())?;
        let mut s = self.state()?;
        if !s.keys.insert(key.to_string()) {
            return Err(PyValueError::new_err(format!("{key}: added twice")));
        }
        s.kvs.push((key.to_string(), v));
        Ok(())
    }

    /// Adds a tensor: a numpy `array` (float32/16/64, bfloat16, int8/16/32/64), stored in its own
    /// type or quantized to `type`; or `raw` bytes already encoded as `type`, with `shape` in
    /// numpy's order (outermost first). The stored shape is numpy's reversed (ne0 first).
    #[pyo3(signature = (name, array = None, *, raw = None, r#type = None, shape = None))]
    fn add_tensor(
        &self,
        py: Python<'_>,
        name: &str,
        array: Option<&Bound<'_, PyAny>>,
        raw: Option<&Bound<'_, PyAny>>,
        r#type: Option<&str>,
        shape: Option<Vec<u64>>,
    ) -> PyResult<()> {
        let want = r#type.map(ggml_type).transpose()?;
        let (ty, np_shape, mut data) = match (array, raw) {
            (Some(a), None) => {
                let a = py.import("numpy")?.call_method1("asarray", (a,))?;
                let np_shape: Vec<u64> = a.getattr("shape")?.extract()?;
                let own = dtype_ggml_type(&a.getattr("dtype")?)?;
                match (own, want) {
                    (Some(own), None) => (own, np_shape, le_bytes(&a)?),
                    (Some(own), Some(t)) if own == t => (own, np_shape, le_bytes(&a)?),
                    (_, Some(t)) => {
                        let x = contiguous(&a, "float32")?;
                        let x: PyReadonlyArrayDyn<'_, f32> = x.extract()?;
                        let src = x.as_slice()?;
                        let out = py.detach(|| quantize_blocks(t, src)).or_raise(py, name)?;
                        (t, np_shape, out)
                    }
                    (None, None) => {
                        return Err(PyTypeError::new_err(format!(
                            "{name}: a {} array has no ggml type (give type=...)",
                            a.getattr("dtype")?.str()?
                        )))
                    }
                }
            }
            (None, Some(r)) => {
                let (Some(t), Some(s)) = (want, shape.clone()) else {
                    return Err(PyTypeError::new_err(format!(
                        "{name}: raw data needs type= and shape="
                    )));
                };
                let b = contiguous(
                    &py.import("numpy")?
                        .call_method1("frombuffer", (r, "uint8"))?,
                    "uint8",
                )?;
                let b: PyReadonlyArrayDyn<'_, u8> = b.extract()?;
                (t, s, b.as_slice()?.to_vec())
            }
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "{name}: give either an array or raw=..."
                )))
            }
        };
        let shape: Vec<u64> = match (&shape, array) {
            (Some(s), Some(_)) if *s != np_shape => {
                return Err(PyValueError::new_err(format!(
                    "{name}: shape {s:?} is not the array's {np_shape:?}"
                )))
            }
            _ => np_shape.iter().rev().copied().collect(),
        };
        if self.endian == Endian::Big {
            quant::byteswap_blocks(ty, &mut data).or_raise(py, name)?;
        }
        let mut s = self.state()?;
        if !s.names.insert(name.to_string()) {
            return Err(PyValueError::new_err(format!("{name}: added twice")));
        }
        s.tensors.push(PendingTensor {
            name: name.to_string(),
            ty,
            shape,
            data,
        });
        Ok(())
    }

    /// Writes the file (atomically: a temporary file beside it, renamed over it once complete).
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let mut s = self
            .state
            .lock()
            .map_err(|_| PyValueError::new_err("the writer's lock was poisoned"))?;
        if s.closed {
            return Ok(());
        }
        s.closed = true;
        let name = self.name();
        let state = &*s;
        let endian = self.endian;
        let path = self.path.clone();
        py.detach(|| -> ggufkit::Result<()> {
            let mut b = GgufBuilder::new();
            b.endian(endian);
            for (k, v) in &state.kvs {
                b.set(k, v.clone())?;
            }
            for t in &state.tensors {
                b.add_tensor_with_data(&t.name, t.ty, &t.shape, &t.data)?;
            }
            write_atomically(&path, true, |w| b.write_to(w).map(|_| ()))
        })
        .or_raise(py, &name)
    }

    /// Drops everything added; nothing is written.
    fn discard(&self) -> PyResult<()> {
        if let Ok(mut s) = self.state.lock() {
            s.closed = true;
            s.kvs.clear();
            s.keys.clear();
            s.tensors.clear();
            s.names.clear();
        }
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*args))]
    fn __exit__(&self, py: Python<'_>, args: &Bound<'_, PyTuple>) -> PyResult<bool> {
        let failed = args.get_item(0).is_ok_and(|e| !e.is_none());
        if failed {
            self.discard()?;
        } else {
            self.close(py)?;
        }
        Ok(false)
    }
}

/// Edits the metadata of the GGUF at `path`: `set` maps keys to values (an existing key keeps its
/// type unless `types` names another; a new key's type is inferred or named in `types`), `remove`
/// lists keys to delete. With `output=None` the file is changed in place when the new header
/// fits, else rewritten atomically; with `output`, a new file is written and `path` only read.
/// Returns "in_place", "rewritten" or "written".
#[pyfunction]
#[pyo3(signature = (path, set = None, remove = None, output = None, *, types = None, overwrite = true))]
pub fn edit(
    py: Python<'_>,
    path: PathBuf,
    set: Option<&Bound<'_, PyDict>>,
    remove: Option<Vec<String>>,
    output: Option<PathBuf>,
    types: Option<&Bound<'_, PyDict>>,
    overwrite: bool,
) -> PyResult<&'static str> {
    let name = path.display().to_string();
    let g = py.detach(|| Gguf::open(&path)).or_raise(py, &name)?;
    let mut edits = Vec::new();
    if let Some(set) = set {
        for (k, v) in set.iter() {
            let key: String = k.extract()?;
            let named = match types.map(|t| t.get_item(&key)).transpose()?.flatten() {
                Some(t) => Some(type_spec(&t.extract::<String>()?)?),
                None => type_for_key(&g, &key),
            };
            edits.push(MetaEdit::Set(
                key.clone(),
                to_owned(&key, &v, named.as_ref())?,
            ));
        }
    }
    for key in remove.unwrap_or_default() {
        edits.push(MetaEdit::Remove(key));
    }
    let target = match &output {
        Some(p) => EditTarget::Output { path: p, overwrite },
        None => EditTarget::InPlace,
    };
    let outcome = py
        .detach(|| edit_file(g, &edits, target, None))
        .or_raise(py, &name)?;
    Ok(match outcome {
        EditOutcome::InPlace { .. } => "in_place",
        EditOutcome::Rewritten => "rewritten",
        EditOutcome::Written => "written",
    })
}
