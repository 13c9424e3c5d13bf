//! A Hugging Face checkpoint folder to GGUF, as llama.cpp's `convert_hf_to_gguf.py` writes it
//! (feature `convert`): the folder read ([`folder`], [`safetensors`], FP8 scales [`fp8`]), the config's
//! hyperparameters ([`hparams`]), the architecture table ([`arch`]) with the tensor-name map
//! ([`tensor_names`]), the type rules and element conversions ([`outtype`]), the vocabulary
//! builders ([`vocab`]) and the general metadata ([`metadata`]), which give the script's
//! key-value pairs in its order, the [`plan`](mod@plan) and its execution ([`execute`]) into one file or the
//! shards [`split`] cuts, or the conversion handed to
//! the quantizer as its input ([`one_step`]: a checkpoint to a llama-quantize preset in one pass);
//! both make each tensor a run of rows at a time by one rule ([`rows`]).
#![forbid(unsafe_code)]

pub mod arch;
pub mod execute;
pub mod folder;
pub mod fp8;
pub mod hparams;
pub mod metadata;
pub mod one_step;
pub mod outtype;
pub mod plan;
pub mod rows;
pub mod safetensors;
pub mod split;
pub mod tensor_names;
pub mod vocab;

pub use folder::HfFolder;
pub use one_step::{quantize_folder, Conversion, QuantizedFolder};
pub use outtype::OutType;
pub use plan::{plan, ConvertOptions, KvList, Plan};
pub use split::{output_shards, OutputShard, SplitLimits};

/// One metadata pair as a builder returns it: the key and its owned value.
pub type Kv = (String, crate::write::OwnedValue);
