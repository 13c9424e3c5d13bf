//! `ggufkit.convert`: a Hugging Face checkpoint folder to the GGUF convert_hf_to_gguf.py writes,
//! or, with a preset, straight to llama-quantize's output in one pass (the library's conversion
//! handed to its quantizer, no intermediate file), with the GIL released.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use ggufkit::convert::execute::{execute, plan_folder};
use ggufkit::convert::{quantize_folder, ConvertOptions, HfFolder, OutType};
use ggufkit::quantize::{Preset, QuantizeOptions, TensorTypeOverride};
use ggufkit::GgmlType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::OrRaise;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Converts the checkpoint folder `hf_dir` (config.json, safetensors, tokenizer files) to
/// `output` as convert_hf_to_gguf.py does (`outtype`: "f32", "f16", "bf16", "q8_0", "tq1_0",
/// "tq2_0" or "auto"), byte for byte. With `preset` ("Q4_K_M", ...) the converted model is
/// quantized as llama-quantize does, in the same pass without an intermediate file, with the
/// importance matrix `imatrix` and llama-quantize's options. Returns the path written.
#[pyfunction]
#[pyo3(signature = (
    hf_dir,
    output,
    outtype = "auto",
    preset = None,
    imatrix = None,
    *,
    model_name = None,
    metadata = None,
    vocab_only = false,
    pure = false,
    leave_output_tensor = false,
    output_tensor_type = None,
    token_embedding_type = None,
    tensor_types = None,
    include_weights = None,
    exclude_weights = None,
    threads = None,
    overwrite = true,
))]
#[allow(clippy::too_many_arguments)]
pub fn convert(
    py: Python<'_>,
    hf_dir: PathBuf,
    output: PathBuf,
    outtype: &str,
    preset: Option<&str>,
    imatrix: Option<PathBuf>,
    model_name: Option<String>,
    metadata: Option<PathBuf>,
    vocab_only: bool,
    pure: bool,
    leave_output_tensor: bool,
    output_tensor_type: Option<&str>,
    token_embedding_type: Option<&str>,
    tensor_types: Option<Vec<String>>,
    include_weights: Option<Vec<String>>,
    exclude_weights: Option<Vec<String>>,
    threads: Option<usize>,
    overwrite: bool,
) -> PyResult<String> {
    let name = hf_dir.display().to_string();
    let outtype: OutType = outtype.parse().map_err(value_error)?;
    let convert = ConvertOptions {
        outtype,
        vocab_only,
        model_name,
        metadata,
        ..ConvertOptions::default()
    };
    let Some(preset) = preset else {
        let quantizing = imatrix.is_some()
            || pure
            || leave_output_tensor
            || output_tensor_type.is_some()
            || token_embedding_type.is_some()
            || tensor_types.is_some()
            || include_weights.is_some()
            || exclude_weights.is_some()
            || threads.is_some();
        if quantizing {
            return Err(PyValueError::new_err(
                "imatrix and the quantization options need a preset",
            ));
        }
        py.detach(|| -> ggufkit::Result<()> {
            let folder = HfFolder::open(&hf_dir)?;
            let (plan, kvs) = plan_folder(&folder, &convert)?;
            execute(&folder, &plan, &kvs, &output, overwrite, None)
        })
        .or_raise(py, &name)?;
        return Ok(output.display().to_string());
    };
    if vocab_only {
        return Err(PyValueError::new_err(
            "vocab_only writes no tensors: there is nothing to quantize",
        ));
    }
    let preset = Preset::parse(preset)
        .ok_or_else(|| value_error(format!("'{preset}' is not a llama-quantize preset")))?;
    let ty = |s: Option<&str>| s.map(GgmlType::parse).transpose().map_err(value_error);
    let mut q = QuantizeOptions::new(preset);
    q.pure = pure;
    q.leave_output = leave_output_tensor;
    q.output_type = ty(output_tensor_type)?;
    q.token_embedding_type = ty(token_embedding_type)?;
    for t in tensor_types.unwrap_or_default() {
        q.tensor_types
            .push(TensorTypeOverride::parse(&t).map_err(value_error)?);
    }
    q.threads = threads.filter(|&n| n > 0);
    if let Some(path) = &imatrix {
        let given = path.to_string_lossy().into_owned();
        let (include, exclude) = (
            include_weights.unwrap_or_default(),
            exclude_weights.unwrap_or_default(),
        );
        py.detach(|| q.use_imatrix(path, &given, &include, &exclude))
            .or_raise(py, &given)?;
    } else if include_weights.is_some() || exclude_weights.is_some() {
        return Err(PyValueError::new_err(
            "include_weights and exclude_weights filter an imatrix",
        ));
    }
    py.detach(|| {
        quantize_folder(
            &hf_dir,
            &output,
            &convert,
            &q,
            imatrix.as_deref(),
            overwrite,
            None,
        )
    })
    .or_raise(py, &name)?;
    Ok(output.display().to_string())
}
