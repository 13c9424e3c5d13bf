//! `ggufkit.Tokenizer`: a file's own tokenizer, as llama.cpp's `llama_tokenize` and
//! `llama_detokenize` (the library's `ggufkit::tokenizer`). It borrows the vocabulary from the
//! file's bytes and holds the file (`Arc<Held>`), so the map lives as long as the tokenizer,
//! whether it came from `File.tokenizer` or `Tokenizer.from_file`.
//!
//! `apply_chat_template` renders the file's chat template (`crate::chat`).
#![forbid(unsafe_code)]

use std::sync::Arc;

use ggufkit::tokenizer::{Tokenizer as Lib, TokenizerError};
use numpy::PyArray1;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString};

use crate::errors::gguf_error;
use crate::held::Held;

self_cell::self_cell!(
    /// The file and the tokenizer that borrows from it.
    struct Owned {
        owner: Arc<Held>,
        #[not_covariant]
        dependent: Lib,
    }
);

/// A GGUF's tokenizer: `encode` and `decode` give llama.cpp's ids and text.
#[pyclass(frozen, module = "ggufkit")]
pub struct Tokenizer {
    inner: Owned,
}

impl Tokenizer {
    /// The tokenizer of `held`'s file, or `GGUFError` naming the file and the key at fault.
    pub fn of(py: Python<'_>, held: Arc<Held>) -> PyResult<Self> {
        let name = held.name.clone();
        let inner = py
            .detach(|| Owned::try_new(held, |h| Lib::from_gguf(h.gguf())))
            .map_err(|e| gguf_error(py, format!("{name}: {e}")))?;
        Ok(Tokenizer { inner })
    }

    /// Runs `f` with the library's tokenizer (the borrow cannot leave: the tokenizer's lazy
    /// indexes make its lifetime invariant).
    fn with<R>(&self, f: impl for<'a> FnOnce(&Lib<'a>) -> R) -> R {
        self.inner.with_dependent(|_, t| f(t))
    }

    /// The file the tokenizer borrows from.
    pub(crate) fn held(&self) -> Arc<Held> {
        Arc::clone(self.inner.borrow_owner())
    }

    fn name(&self) -> &str {
        &self.inner.borrow_owner().name
    }

    fn error(&self, py: Python<'_>, e: TokenizerError) -> PyErr {
        match e {
            TokenizerError::IdOutOfRange { .. } => PyValueError::new_err(e.to_string()),
            other => gguf_error(py, format!("{}: {other}", self.name())),
        }
    }
}

/// A text argument: `str`, or `bytes` that must be UTF-8 (the error names the byte offset).
fn text_of(text: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(b) = text.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        return match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => Err(PyValueError::new_err(format!(
                "the text is not UTF-8: invalid byte 0x{:02x} at byte offset {}",
                bytes[e.valid_up_to()],
                e.valid_up_to()
            ))),
        };
    }
    let s = text.cast::<PyString>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "the text must be str or bytes, not {}",
            text.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    Ok(s.to_cow()?.into_owned())
}

/// Ids as int32 numpy array (llama.cpp's `llama_token`; the library refuses vocabularies past it).
fn ids_array<'py>(py: Python<'py>, ids: Vec<u32>) -> Bound<'py, PyArray1<i32>> {
    PyArray1::from_vec(py, ids.into_iter().map(|i| i as i32).collect())
}

#[pymethods]
impl Tokenizer {
    /// The tokenizer of a GGUF at a path or URL (http(s), s3, gs, az): only the header is read.
    #[staticmethod]
    fn from_file(py: Python<'_>, source: &Bound<'_, PyAny>) -> PyResult<Self> {
        let f = crate::file::open(py, source, false)?;
        Tokenizer::of(py, f.held()?)
    }

    /// The conversation rendered with the file's chat template, as transformers'
    /// `apply_chat_template(..., tokenize=False)`: `File.apply_chat_template` of this
    /// tokenizer's file.
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
            &self.held(),
            messages,
            tools,
            add_generation_prompt,
            template,
            kwargs,
        )
    }

    /// Token ids of `text`, as `llama_tokenize(text, add_special, parse_special)`: a numpy int32
    /// array. `add_special` adds the BOS/EOS the file asks for; `parse_special` reads special
    /// tokens' text (`<|eot_id|>`) as those tokens.
    #[pyo3(signature = (text, add_special = true, parse_special = false))]
    fn encode<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyAny>,
        add_special: bool,
        parse_special: bool,
    ) -> PyResult<Bound<'py, PyArray1<i32>>> {
        let text = text_of(text)?;
        let ids = py
            .detach(|| self.with(|t| t.encode(&text, add_special, parse_special)))
            .map_err(|e| self.error(py, e))?;
        Ok(ids_array(py, ids))
    }

    /// `encode` of each text, in parallel on every core with the GIL released: a list of arrays.
    #[pyo3(signature = (texts, add_special = true, parse_special = false))]
    fn encode_batch<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        add_special: bool,
        parse_special: bool,
    ) -> PyResult<Bound<'py, PyList>> {
        let texts: Vec<String> = texts
            .try_iter()?
            .map(|t| text_of(&t?))
            .collect::<PyResult<_>>()?;
        let all: Vec<Vec<u32>> = py
            .detach(|| self.with(|t| t.encode_batch(&texts, add_special, parse_special)))
            .map_err(|e| self.error(py, e))?;
        PyList::new(py, all.into_iter().map(|ids| ids_array(py, ids)))
    }

    /// The number of tokens `encode` would give.
    #[pyo3(signature = (text, add_special = true, parse_special = false))]
    fn count(
        &self,
        py: Python<'_>,
        text: &Bound<'_, PyAny>,
        add_special: bool,
        parse_special: bool,
    ) -> PyResult<usize> {
        let text = text_of(text)?;
        py.detach(|| self.with(|t| t.encode(&text, add_special, parse_special)))
            .map(|ids| ids.len())
            .map_err(|e| self.error(py, e))
    }

    /// The text of `ids`, as `llama_detokenize(ids, remove_special, unparse_special)`. Bytes that
    /// do not form UTF-8 (a piece can end inside a character) become U+FFFD; `decode_bytes`
    /// gives the bytes. An id outside the vocabulary raises ValueError naming it.
    #[pyo3(signature = (ids, remove_special = false, unparse_special = false))]
    fn decode(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        remove_special: bool,
        unparse_special: bool,
    ) -> PyResult<String> {
        let bytes = self.decode_ids(py, ids, remove_special, unparse_special)?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// `decode`'s bytes exactly, as llama.cpp writes them.
    #[pyo3(signature = (ids, remove_special = false, unparse_special = false))]
    fn decode_bytes<'py>(
        &self,
        py: Python<'py>,
        ids: &Bound<'py, PyAny>,
        remove_special: bool,
        unparse_special: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = self.decode_ids(py, ids, remove_special, unparse_special)?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The number of tokens in the vocabulary.
    #[getter]
    fn vocab_size(&self) -> u64 {
        self.with(|t| t.vocab_size() as u64)
    }

    /// The beginning-of-sequence token id, or None.
    #[getter]
    fn bos_id(&self) -> Option<u32> {
        self.with(|t| t.bos_id())
    }

    /// The end-of-sequence token id, or None.
    #[getter]
    fn eos_id(&self) -> Option<u32> {
        self.with(|t| t.eos_id())
    }

    /// `tokenizer.ggml.model`: `llama` (SentencePiece), `gpt2` (BPE), `bert`, `t5`, ...
    #[getter]
    fn model(&self) -> String {
        self.with(|t| t.model().to_string())
    }

    /// `tokenizer.ggml.pre`, the pre-tokenizer (`llama-bpe`, `qwen2`, ...; `default` when absent).
    #[getter]
    fn pre(&self) -> String {
        self.with(|t| t.pre().to_string())
    }

    fn __repr__(&self) -> String {
        self.with(|t| {
            format!(
                "<ggufkit.Tokenizer of {:?}: {} {}, {} tokens>",
                self.name(),
                t.model(),
                t.pre(),
                t.vocab_size()
            )
        })
    }
}

impl Tokenizer {
    fn decode_ids(
        &self,
        py: Python<'_>,
        ids: &Bound<'_, PyAny>,
        remove_special: bool,
        unparse_special: bool,
    ) -> PyResult<Vec<u8>> {
        let ids = token_ids(ids)?;
        py.detach(|| self.with(|t| t.decode(&ids, remove_special, unparse_special)))
            .map_err(|e| self.error(py, e))
    }
}

/// Ids from any iterable of integers (a list, a numpy array); a negative id or one past u32 is a
/// ValueError naming it.
fn token_ids(ids: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let mut out = Vec::with_capacity(ids.len().unwrap_or(0));
    for v in ids.try_iter()? {
        let v: i64 = v?.extract()?;
        let id = u32::try_from(v).map_err(|_| {
            PyValueError::new_err(format!("token id {v} is out of range: ids are 0 or more"))
        })?;
        out.push(id);
    }
    Ok(out)
}
