//! `llama-quantize` as a library: a quantization [`Plan`] (each tensor's target type under a
//! preset and the options, and why) and its execution, streaming tensor by tensor on all threads
//! in bounded memory, into an output whose metadata is what llama-quantize writes.
//!
//! The rules are those of llama.cpp's `src/llama-quant.cpp` (b11312, commit 0c1e57098): which
//! tensors are quantized at all ([`names::quantizable`]), the preset mixtures ([`rules::Rules`]:
//! output and token-embedding types, `use_more_bits` layers, GQA and expert-count rules, Falcon,
//! 70B Llama and MXFP4 MoE special cases), the shape fallback ([`rules::fallback`]), `--pure`,
//! `--output-tensor-type`, `--token-embedding-type`, `--tensor-type`, `--leave-output-tensor`,
//! and the refusal to re-quantize without `allow_requantize`. The input is a file or a split
//! model ([`Input`]: every shard read, as llama.cpp's loader reads the shards of the first), and
//! `--keep-split` writes one output shard per input shard. A quantized file's [`Recipe`] restates
//! its type mix as `--tensor-type` options, with the presets that give it. A uniform conversion
//! (`gguf convert --type`) is a plan too ([`plan_uniform`]), carried out by the same executor
//! ([`convert_file`]).
//!
//! ```no_run
//! use ggufkit::quantize::{self, Preset, QuantizeOptions};
//!
//! let g = ggufkit::Gguf::open("model-f16.gguf")?;
//! let opts = QuantizeOptions::new(Preset::parse("Q4_K_M").unwrap());
//! let plan = quantize::plan(&g, &opts)?;
//! quantize::quantize_file(&g, "model-Q4_K_M.gguf".as_ref(), &plan, &opts, false, None)?;
//! # Ok::<(), ggufkit::Error>(())
//! ```
#![forbid(unsafe_code)]

mod declared;
pub mod encode;
mod execute;
pub mod imatrix;
mod input;
pub mod model;
pub mod names;
pub mod overrides;
mod plan;
pub mod preset;
pub mod prune;
pub mod recipe;
pub mod rules;
mod uniform;

pub use declared::{file_type_mismatch, FileTypeMismatch};
pub use execute::{
    check, convert_file, output_builder, output_builders, output_paths, quantize_file,
    QUANTIZATION_VERSION,
};
pub use imatrix::Imatrix;
pub use input::{Input, Produced, ProducedRows, ProducedTensor};
pub use model::ModelInfo;
pub use overrides::{KvOverride, TensorTypeOverride};
pub use plan::{
    plan, plan_tensors, Importance, Plan, PlanKind, PlannedTensor, QuantizeOptions, Reason,
    TensorDesc,
};
pub use preset::{Ftype, Preset};
pub use recipe::{exact_pattern, PresetMatch, Recipe, RecipeEntry};
pub use uniform::{plan_uniform, SkipReason, UniformOptions};
