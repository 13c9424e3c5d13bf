//! Why a quantization plan cannot be made or carried out.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use crate::types::GgmlType;

/// Why `quantize::plan` or `quantize::quantize_file` refused ([`Error::Quantize`](super::Error::Quantize)).
/// Every variant is found before the output file is created, except a failing codec.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuantizeError {
    /// A preset argument that is no llama-quantize preset name or number.
    #[error(
        "'{name}' is not a llama-quantize preset (Q4_K_M, Q8_0, IQ4_XS, ... or its ftype number)"
    )]
    UnknownPreset {
        /// The argument.
        name: String,
    },
    /// A `--tensor-type` argument that is not `PATTERN=TYPE`, or whose pattern is no regex.
    #[error("--tensor-type '{spec}': {problem}")]
    BadTensorType {
        /// The argument.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
    /// An `--override-kv` argument that is not `KEY=TYPE:VALUE`.
    #[error("--override-kv '{spec}': {problem}")]
    BadOverride {
        /// The argument.
        spec: String,
        /// What is wrong with it.
        problem: String,
    },
    /// One shard of a model split in several, asked for its recipe: it would be the recipe of
    /// that shard's tensors only.
    #[error("this is shard {} of {count} of a split model, and a recipe reads a whole model: merge the shards first (`gguf merge FIRST-SHARD -o whole.gguf`)", no + 1)]
    SplitShard {
        /// The shard's `split.no` (0 for the first).
        no: u32,
        /// The model's `split.count`.
        count: u32,
    },
    /// A mixture-of-experts tensor whose layer the name does not give, or gives out of range.
    #[error("tensor '{tensor}': {}", match layer { Some(l) => format!("layer {l} is not in [0, {n_layer})"), None => "no layer number (blk.N.) in the name".to_string() })]
    BadLayer {
        /// The tensor.
        tensor: String,
        /// The layer the name gives.
        layer: Option<i32>,
        /// The model's layer count.
        n_layer: u32,
    },
    /// A row width the type's blocks do not fit, and the type has no smaller relative.
    #[error("tensor '{tensor}': rows of {ne0} values are not whole {ty} blocks and {ty} has no fallback type")]
    NoFallback {
        /// The tensor.
        tensor: String,
        /// The type.
        ty: GgmlType,
        /// The row width.
        ne0: u64,
    },
    /// A tensor chosen for a type whose blocks do not fit its rows (an explicit type).
    #[error("tensor '{tensor}': rows of {ne0} values are not whole {ty} blocks of {}", ty.block_size())]
    RowsDoNotFit {
        /// The tensor.
        tensor: String,
        /// The type asked for.
        ty: GgmlType,
        /// The row width.
        ne0: u64,
    },
    /// A quantized source tensor to be re-quantized, without `allow_requantize`.
    #[error(
        "tensor '{tensor}' is already quantized ({ty}): re-quantizing it needs --allow-requantize"
    )]
    RequantizeRefused {
        /// The tensor.
        tensor: String,
        /// Its type.
        ty: GgmlType,
    },
    /// A source tensor whose type cannot be converted to floats for quantization (integers, f64).
    #[error("tensor '{tensor}' has type {ty}, which cannot be converted to another type")]
    CannotConvert {
        /// The tensor.
        tensor: String,
        /// Its type.
        ty: GgmlType,
    },
    /// A tensor whose target type needs an importance matrix, and none was given.
    #[error("tensor '{tensor}': type {ty} needs an importance matrix (--imatrix)")]
    NeedsImatrix {
        /// The tensor.
        tensor: String,
        /// The type.
        ty: GgmlType,
    },
    /// A target type this library cannot produce yet (on its own, or with importance weights).
    #[error("tensor '{tensor}': no quantizer for type {ty}{}", if *weighted { " with an importance matrix" } else { "" })]
    NoQuantizer {
        /// The tensor.
        tensor: String,
        /// The type.
        ty: GgmlType,
        /// Whether importance weights were to be used.
        weighted: bool,
    },
    /// Importance weights whose length is not the tensor's row width.
    #[error("tensor '{tensor}': {len} importance values for rows of {ne0}")]
    ImportanceLength {
        /// The tensor.
        tensor: String,
        /// The values given.
        len: usize,
        /// The row width.
        ne0: u64,
    },
    /// An importance matrix that cannot be read or does not fit the model.
    #[error("{}: {problem}", path.display())]
    BadImatrix {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// `--keep-split` with an input shard left without tensors (all its layers pruned), which
    /// llama-quantize cannot write either.
    #[error("--keep-split: output shard {shard} of {count} would hold no tensors")]
    EmptyOutputShard {
        /// The shard, from 1.
        shard: usize,
        /// Output shards.
        count: usize,
    },
    /// A big-endian input, which llama.cpp does not read.
    #[error("big-endian input: convert it with `gguf convert --endian little` first")]
    BigEndian,
}
