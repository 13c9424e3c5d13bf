//! `ggufkit._native`: the Python binding of the ggufkit library. Every function here parses
//! Python arguments, calls the library and converts what it returns; the rules of GGUF live in
//! the library, so Python and the `gguf` CLI give the same answers. The Python package
//! (`python/ggufkit/`) adds the Mapping of metadata, the exceptions and the gguf-py
//! compatibility reader on top.
#![deny(unsafe_code)]

mod audit;
mod chat;
mod check;
mod codec;
mod compat;
mod convert;
mod errors;
mod file;
#[allow(unsafe_code)] // one block: numpy arrays over the map (see its SAFETY comment)
mod held;
mod pyvalue;
mod scan;
mod tensor;
#[allow(unsafe_code)] // one block: str objects from checked text (see its SAFETY comment)
mod text;
mod tokenizer;
mod values;
mod writer;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<file::File>()?;
    m.add_class::<file::Field>()?;
    m.add_class::<tensor::Tensor>()?;
    m.add_class::<values::StringArray>()?;
    m.add_class::<values::StringArrayIter>()?;
    m.add_class::<check::Report>()?;
    m.add_class::<check::Finding>()?;
    m.add_class::<audit::AuditFinding>()?;
    m.add_class::<writer::Writer>()?;
    m.add_class::<held::Keep>()?;
    m.add_class::<tokenizer::Tokenizer>()?;
    m.add_class::<compat::ReaderTensor>()?;
    m.add_function(wrap_pyfunction!(file::open, m)?)?;
    m.add_function(wrap_pyfunction!(file::apply_chat_template, m)?)?;
    m.add_function(wrap_pyfunction!(check::validate, m)?)?;
    m.add_function(wrap_pyfunction!(audit::audit, m)?)?;
    m.add_function(wrap_pyfunction!(codec::quantize_py, m)?)?;
    m.add_function(wrap_pyfunction!(codec::dequantize_py, m)?)?;
    m.add_function(wrap_pyfunction!(writer::edit, m)?)?;
    m.add_function(wrap_pyfunction!(convert::convert, m)?)?;
    m.add_function(wrap_pyfunction!(compat::value_dtypes, m)?)?;
    m.add_function(wrap_pyfunction!(compat::kv_parts, m)?)?;
    m.add_function(wrap_pyfunction!(compat::array_head, m)?)?;
    m.add_function(wrap_pyfunction!(compat::string_parts, m)?)?;
    m.add_function(wrap_pyfunction!(compat::info_parts, m)?)?;
    m.add_function(wrap_pyfunction!(compat::header_parts, m)?)?;
    m.add_function(wrap_pyfunction!(scan::scan, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
