//! `ggufkit.convert`: a Hugging Face checkpoint folder to the GGUF convert_hf_to_gguf.py writes,
//! or, with a preset, straight to llama-quantize's output in one pass (the library's conversion
//! handed to its quantizer, no intermediate file), with the GIL released.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use ggufkit::convert::execute::{execute, plan_folder};
use ggufkit::convert::split::parse_split_size;
use ggufkit::convert::{
    output_shards, quantize_folder, ConvertOptions, HfFolder, OutType, SplitLimits,
};
use ggufkit::quantize::{Preset, QuantizeOptions, TensorTypeOverride};
use ggufkit::GgmlType;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::OrRaise;

fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// `split_max_size`: bytes, or the script's text ("2G", "500M").
#[derive(FromPyObject)]
pub enum SplitSize {
    /// A number of bytes.
    Bytes(u64),
    /// As `--split-max-size` takes it.
    Text(String),
}

/// Converts the checkpoint folder `hf_dir` (config.json, safetensors, tokenizer files) to
/// `output` as convert_hf_to_gguf.py does (`outtype`: "f32", "f16", "bf16", "q8_0", "tq1_0",
/// "tq2_0" or "auto"), byte for byte. With `preset` ("Q4_K_M", ...) the converted model is
/// quantized as llama-quantize does, in the same pass without an intermediate file, with the
/// importance matrix `imatrix` and llama-quantize's options. `split_max_size` (bytes, or the
/// script's "500M", "2G"), `split_max_tensors` and `no_tensor_first_split` write the conversion
/// in shards as the script's options of those names do (`output` `model.gguf` becomes
/// `model-00001-of-0000N.gguf`, ... beside it). Returns the path written (a split output's first
/// shard, the one llama.cpp and `ggufkit.open` take).
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
    split_max_size = None,
    split_max_tensors = 0,
    no_tensor_first_split = false,
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
    split_max_size: Option<SplitSize>,
    split_max_tensors: usize,
    no_tensor_first_split: bool,
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
    let split_max_size = match split_max_size {
        None => 0,
        Some(SplitSize::Bytes(n)) => n,
        Some(SplitSize::Text(t)) => parse_split_size(&t).map_err(value_error)?,
    };
    let convert = ConvertOptions {
        outtype,
        vocab_only,
        model_name,
        metadata,
        split_max_size,
        split_max_tensors,
        no_tensor_first_split,
    };
    let limits = SplitLimits::of(&convert);
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
        let first = py
            .detach(|| -> ggufkit::Result<PathBuf> {
                let folder = HfFolder::open(&hf_dir)?;
                let (plan, kvs) = plan_folder(&folder, &convert)?;
                let files = output_shards(&plan, &output, &limits)?;
                execute(&folder, &plan, &kvs, &files, overwrite, None)?;
                Ok(files[0].path.clone())
            })
            .or_raise(py, &name)?;
        return Ok(first.display().to_string());
    };
    if limits.splits() {
        return Err(PyValueError::new_err(
            "split_max_size, split_max_tensors and no_tensor_first_split split a conversion; with a preset, quantize first, then split",
        ));
    }
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
