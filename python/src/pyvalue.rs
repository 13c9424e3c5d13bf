//! Python objects as metadata values for the writer and `edit`: a type name (as the CLI contract
//! spells them, `array[uint32]` included) picks the type; without one it is inferred as gguf-py
//! does (`bool`, `int` as int32 or wider when it does not fit, `float` as float32, `str`,
//! sequences and numpy arrays as arrays of their elements' type). The integer types, their
//! widening order and the dtype map are the library's (`ggufkit::write::{integer_type, widened}`,
//! `ValueType::from_dtype`).
#![forbid(unsafe_code)]

use ggufkit::write::value::MAX_NESTING;
use ggufkit::write::{integer_type, widened, TypeSpec};
use ggufkit::{OwnedArray, OwnedValue, ValueType};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

/// The type named `name`.
pub fn type_spec(name: &str) -> PyResult<TypeSpec> {
    TypeSpec::parse(name).map_err(|e| PyValueError::new_err(e.to_string()))
}

fn bad(key: &str, e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{key}: {e}"))
}

/// A scalar of type `t` from `obj`.
fn scalar(key: &str, obj: &Bound<'_, PyAny>, t: ValueType) -> PyResult<OwnedValue> {
    let int_err = |e: PyErr| bad(key, format!("{e} (for a {t})"));
    Ok(match t {
        ValueType::U8 => OwnedValue::U8(obj.extract().map_err(int_err)?),
        ValueType::I8 => OwnedValue::I8(obj.extract().map_err(int_err)?),
        ValueType::U16 => OwnedValue::U16(obj.extract().map_err(int_err)?),
        ValueType::I16 => OwnedValue::I16(obj.extract().map_err(int_err)?),
        ValueType::U32 => OwnedValue::U32(obj.extract().map_err(int_err)?),
        ValueType::I32 => OwnedValue::I32(obj.extract().map_err(int_err)?),
        ValueType::U64 => OwnedValue::U64(obj.extract().map_err(int_err)?),
        ValueType::I64 => OwnedValue::I64(obj.extract().map_err(int_err)?),
        ValueType::F32 => OwnedValue::F32(obj.extract::<f64>().map_err(int_err)? as f32),
        ValueType::F64 => OwnedValue::F64(obj.extract().map_err(int_err)?),
        ValueType::Bool => OwnedValue::Bool(obj.extract().map_err(int_err)?),
        ValueType::String => OwnedValue::String(obj.extract().map_err(int_err)?),
        ValueType::Array => return Err(bad(key, "an array needs elements")),
    })
}

/// The value type of a numpy dtype (`None` for kinds metadata has no type for), from the
/// library's one map ([`ValueType::from_dtype`]).
fn numpy_type(dtype: &Bound<'_, PyAny>) -> PyResult<Option<ValueType>> {
    let kind: String = dtype.getattr("kind")?.extract()?;
    let size: usize = dtype.getattr("itemsize")?.extract()?;
    Ok(kind
        .chars()
        .next()
        .and_then(|k| ValueType::from_dtype(k, size)))
}

/// The type gguf-py would give `obj`, when it is a scalar.
fn inferred_scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<ValueType>> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Some(ValueType::Bool));
    }
    if obj.is_instance_of::<PyInt>() {
        // past uint64 it is still an integer: extracting it as one then says it does not fit
        let t = obj.extract::<i128>().ok().and_then(integer_type);
        return Ok(Some(t.unwrap_or(ValueType::U64)));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Some(ValueType::F32));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Some(ValueType::String));
    }
    // numpy scalars (np.float32(1), np.uint64(3)...) keep their dtype
    if obj.hasattr("dtype")? && obj.getattr("ndim")?.extract::<usize>()? == 0 {
        return numpy_type(&obj.getattr("dtype")?);
    }
    Ok(None)
}

/// `obj` as a value of the type `spec` says, or inferred when `spec` is `None`.
pub fn to_owned(
    key: &str,
    obj: &Bound<'_, PyAny>,
    spec: Option<&TypeSpec>,
) -> PyResult<OwnedValue> {
    owned_at(key, obj, spec, 0)
}

/// [`to_owned`] of a value `depth` arrays deep: deeper than the writer's limit is refused before
/// it is walked, so a hostile nest of lists cannot exhaust the stack.
fn owned_at(
    key: &str,
    obj: &Bound<'_, PyAny>,
    spec: Option<&TypeSpec>,
    depth: usize,
) -> PyResult<OwnedValue> {
    match spec {
        Some(TypeSpec::Scalar(t)) => scalar(key, obj, *t),
        Some(TypeSpec::Array(inner)) => array(key, obj, inner.as_deref(), depth),
        None => match inferred_scalar(obj)? {
            Some(t) => scalar(key, obj, t),
            None => array(key, obj, None, depth),
        },
    }
}

/// An array from a sequence, a numpy array or any iterable.
fn array(
    key: &str,
    obj: &Bound<'_, PyAny>,
    inner: Option<&TypeSpec>,
    depth: usize,
) -> PyResult<OwnedValue> {
    if depth >= MAX_NESTING {
        return Err(bad(
            key,
            format!("arrays nested deeper than {MAX_NESTING} levels"),
        ));
    }
    if obj.is_instance_of::<PyString>() || obj.hasattr("keys")? {
        return Err(PyTypeError::new_err(format!(
            "{key}: a {} is not an array",
            obj.get_type().name()?
        )));
    }
    // a numpy array: its dtype is the element type, unless one was asked for
    let mut inner_owned = None;
    let items_obj = if obj.hasattr("dtype")? && obj.hasattr("tolist")? {
        if inner.is_none() {
            inner_owned = numpy_type(&obj.getattr("dtype")?)?.map(TypeSpec::Scalar);
        }
        obj.call_method0("tolist")?
    } else {
        obj.clone()
    };
    let inner = inner.or(inner_owned.as_ref());
    let iter = items_obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{key}: a {} has no GGUF type (give type=...)",
            obj.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let objs: Vec<Bound<'_, PyAny>> = iter.collect::<PyResult<_>>()?;
    let spec = match inner {
        Some(s) => s.clone(),
        None => element_spec(key, &objs)?,
    };
    let items = objs
        .iter()
        .enumerate()
        .map(|(i, o)| owned_at(&format!("{key}[{i}]"), o, Some(&spec), depth + 1))
        .collect::<PyResult<Vec<_>>>()?;
    let elem = match &spec {
        TypeSpec::Scalar(t) => *t,
        TypeSpec::Array(_) => ValueType::Array,
    };
    OwnedArray::new(elem, items)
        .map(OwnedValue::Array)
        .map_err(|e| bad(key, e))
}

/// The element type of an array given without one: the elements' common type, ints widened to
/// the widest one needed, ints with floats as float32.
fn element_spec(key: &str, objs: &[Bound<'_, PyAny>]) -> PyResult<TypeSpec> {
    let Some(first) = objs.first() else {
        return Err(bad(
            key,
            "the element type of an empty array cannot be inferred (give type=\"array[...]\")",
        ));
    };
    let mut common = inferred_scalar(first)?;
    if common.is_none() {
        return Ok(TypeSpec::Array(None));
    }
    for o in &objs[1..] {
        let t = inferred_scalar(o)?;
        common = match (common, t) {
            (Some(a), Some(b)) => widened(a, b),
            _ => None,
        };
        if common.is_none() {
            return Err(bad(key, "the array mixes element kinds (give type=...)"));
        }
    }
    Ok(TypeSpec::Scalar(common.expect("set above")))
}
