//! Chat templates from Python: `File.apply_chat_template`, `Tokenizer.apply_chat_template` and
//! the module-level `ggufkit.apply_chat_template(file, ...)` all render here, with the library's
//! `ggufkit::chat` (transformers' `apply_chat_template(..., tokenize=False)`, exactly).
//!
//! Python values become template values as transformers' `_plain_template_data` makes them:
//! JSON's types as they are (dicts keep their order), tuples as lists, pydantic models and
//! dataclasses as dicts, numpy scalars as Python numbers, anything else as the placeholder
//! `"<TypeName>"`. The render runs with the GIL released.
#![forbid(unsafe_code)]

use std::sync::{Arc, Mutex, Weak};

use ggufkit::chat::{self, ChatError, ChatTemplate, RenderRequest, TemplateValue};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple, PyType};

use crate::held::Held;

/// How deep Python values may nest (Python's own recursion limit would stop transformers).
const MAX_DEPTH: usize = 256;

static TEMPLATE_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// Templates compiled lately, by file and name: a conversation after another with the same
/// file compiles its template (and looks its special tokens up in the vocabulary) once. A file
/// no longer open drops out (its entry holds it weakly).
type Compiled = (Weak<Held>, Option<String>, Arc<ChatTemplate>);
static CACHE: Mutex<Vec<Compiled>> = Mutex::new(Vec::new());

/// How many compiled templates [`CACHE`] keeps.
const CACHE_SIZE: usize = 16;

/// The compiled template `name` of `held`'s file, from [`CACHE`] or compiled now.
fn compiled(held: &Arc<Held>, name: Option<&str>) -> Result<Arc<ChatTemplate>, ChatError> {
    let same =
        |(h, n, _): &Compiled| std::ptr::eq(h.as_ptr(), Arc::as_ptr(held)) && n.as_deref() == name;
    if let Ok(mut cache) = CACHE.lock() {
        cache.retain(|(h, _, _)| h.strong_count() > 0);
        if let Some(i) = cache.iter().position(same) {
            let hit = cache.remove(i);
            let t = Arc::clone(&hit.2);
            cache.push(hit);
            return Ok(t);
        }
    }
    let t = Arc::new(ChatTemplate::from_gguf(held.gguf(), name)?);
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= CACHE_SIZE {
            cache.remove(0);
        }
        cache.push((
            Arc::downgrade(held),
            name.map(str::to_string),
            Arc::clone(&t),
        ));
    }
    Ok(t)
}

/// Renders `messages` with the template `template` (default: transformers' pick) of `held`'s
/// file. `kwargs` are the template's further variables (`documents` among them is the
/// documents argument, as in transformers).
pub fn apply(
    py: Python<'_>,
    held: &Arc<Held>,
    messages: &Bound<'_, PyAny>,
    tools: Option<&Bound<'_, PyAny>>,
    add_generation_prompt: bool,
    template: Option<&str>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    if let Some(t) = tools {
        check_tools(t)?;
    }
    let mut req = RenderRequest {
        messages: value(messages, 0)?,
        tools: tools
            .filter(|t| !t.is_none())
            .map(|t| value(t, 0))
            .transpose()?,
        add_generation_prompt,
        ..RenderRequest::default()
    };
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            let k: String = k.extract()?;
            if k == "documents" {
                req.documents = if v.is_none() {
                    None
                } else {
                    Some(value(&v, 0)?)
                };
            } else {
                req.kwargs.push((k, value(&v, 0)?));
            }
        }
    }
    let name = held.name.clone();
    let held = Arc::clone(held);
    let template = template.map(str::to_string);
    let rendered = py.detach(move || {
        let name = template
            .as_deref()
            .or_else(|| chat::default_name(held.gguf(), req.tools.is_some()));
        compiled(&held, name).and_then(|t| t.render(&req))
    });
    rendered.map_err(|e| error(py, &name, e))
}

/// `tools` as transformers takes them: JSON schemas; it converts Python functions with
/// `get_json_schema`, which ggufkit does not (the schema comes from type hints and docstrings).
fn check_tools(tools: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Ok(items) = tools.try_iter() {
        for t in items {
            let t = t?;
            if t.is_callable() && !t.is_instance_of::<PyDict>() {
                return Err(PyTypeError::new_err(
                    "tools must be JSON schemas (dicts): ggufkit does not convert Python functions \
                     (transformers.utils.get_json_schema(f) gives the schema)",
                ));
            }
        }
    }
    Ok(())
}

/// The exception for a failed render: `ValueError` for a request transformers refuses, else
/// `ggufkit.TemplateError` (with `.message`, the template's own for `raise_exception`, and
/// `.kind`).
fn error(py: Python<'_>, file: &str, e: ChatError) -> PyErr {
    let (kind, message) = match &e {
        ChatError::Input { message } => return PyValueError::new_err(message.clone()),
        ChatError::Raised { message } => ("raised", message.clone()),
        ChatError::Render { .. } => ("render", e.to_string()),
        ChatError::Syntax { .. } => ("syntax", e.to_string()),
        ChatError::Limit { .. } => ("limit", e.to_string()),
        ChatError::Refused { .. } => ("refused", e.to_string()),
        ChatError::NoTemplate { .. } | ChatError::NotText { .. } => ("missing", e.to_string()),
    };
    let line = if file.is_empty() {
        message.clone()
    } else {
        format!("{file}: {message}")
    };
    match TEMPLATE_ERROR.import(py, "ggufkit.errors", "TemplateError") {
        Ok(c) => PyErr::from_type(c.clone(), (line, message, kind)),
        Err(err) => err,
    }
}

/// A Python value as the template sees it.
fn value(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<TemplateValue> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(
            "the chat template's data nests too deeply",
        ));
    }
    if v.is_none() {
        return Ok(TemplateValue::from(()));
    }
    if v.is_instance_of::<PyBool>() {
        return Ok(TemplateValue::from(v.extract::<bool>()?));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(TemplateValue::from(i));
        }
        if let Ok(u) = v.extract::<u64>() {
            return Ok(TemplateValue::from(u));
        }
        return Ok(TemplateValue::from(v.extract::<i128>().map_err(|_| {
            PyValueError::new_err("an integer of more than 128 bits in the chat template's data")
        })?));
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(TemplateValue::from(v.extract::<f64>()?));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(TemplateValue::from(s.extract::<String>()?));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(d.len());
        for (k, item) in d.iter() {
            pairs.push((value(&k, depth + 1)?, value(&item, depth + 1)?));
        }
        return Ok(TemplateValue::from_pairs(pairs));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in v.try_iter()? {
            items.push(value(&item?, depth + 1)?);
        }
        return Ok(TemplateValue::from(items));
    }
    if let Ok(m) = v.cast::<PyMapping>() {
        let mut pairs = Vec::new();
        for kv in m.items()?.try_iter()? {
            let (k, item): (Bound<'_, PyAny>, Bound<'_, PyAny>) = kv?.extract()?;
            pairs.push((value(&k, depth + 1)?, value(&item, depth + 1)?));
        }
        return Ok(TemplateValue::from_pairs(pairs));
    }
    let py = v.py();
    // pydantic models (the OpenAI SDK's messages)
    if let Ok(dump) = v.getattr("model_dump") {
        if dump.is_callable() {
            return value(&dump.call0()?, depth + 1);
        }
    }
    let dataclasses = py.import("dataclasses")?;
    if dataclasses
        .call_method1("is_dataclass", (v,))?
        .is_truthy()?
        && !v.is_instance_of::<PyType>()
    {
        let mut pairs = Vec::new();
        for field in dataclasses.call_method1("fields", (v,))?.try_iter()? {
            let name = field?.getattr("name")?;
            let item = v.getattr(name.cast::<PyString>()?)?;
            pairs.push((value(&name, depth + 1)?, value(&item, depth + 1)?));
        }
        return Ok(TemplateValue::from_pairs(pairs));
    }
    // numpy scalars (np.bool_ would otherwise be a true placeholder)
    let module: String = v
        .get_type()
        .getattr("__module__")
        .and_then(|m| m.extract())
        .unwrap_or_default();
    if module == "numpy" {
        if let Ok(item) = v.call_method0("item") {
            return value(&item, depth + 1);
        }
    }
    Ok(TemplateValue::from(format!("<{}>", v.get_type().name()?)))
}
