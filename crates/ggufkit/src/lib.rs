//! # ggufkit
//!
//! A zero-copy, fully validated reader of GGUF, the model file format of ggml and llama.cpp.
//!
//! One parser serves three sources: a memory-mapped file ([`Gguf::open`]), a borrowed slice
//! ([`Gguf::from_bytes`]) and a stream ([`Gguf::read_header`]). Every rule of the spec is checked
//! with exact arithmetic before anything is used; metadata and tensor data are borrowed, never
//! copied.
//!
//! ```
//! use ggufkit::{Gguf, GgmlType};
//!
//! // A minimal GGUF v3 file: one key-value pair, no tensors.
//! let mut bytes = b"GGUF".to_vec();
//! bytes.extend(3u32.to_le_bytes()); // version
//! bytes.extend(0u64.to_le_bytes()); // tensors
//! bytes.extend(1u64.to_le_bytes()); // key-value pairs
//! bytes.extend(20u64.to_le_bytes());
//! bytes.extend(b"general.architecture");
//! bytes.extend(8u32.to_le_bytes()); // string
//! bytes.extend(5u64.to_le_bytes());
//! bytes.extend(b"llama");
//!
//! let gguf = Gguf::from_bytes(&bytes)?;
//! assert_eq!(gguf.version(), 3);
//! assert_eq!(gguf.architecture(), Some("llama"));
//! assert_eq!(gguf.tensor_count(), 0);
//! assert_eq!(GgmlType::Q4_K.block_size(), 256);
//! # Ok::<(), ggufkit::Error>(())
//! ```
#![deny(unsafe_code)]

pub mod audit;
pub mod chat;
#[cfg(feature = "convert")]
pub mod convert;
pub mod diff;
pub mod endian;
pub mod error;
pub mod escape;
pub mod export;
pub mod file_type;
pub mod forks;
pub mod hash;
pub mod json;
pub mod layout;
pub mod location;
mod map;
pub mod open;
pub mod progress;
pub mod quant;
pub mod quantize;
pub mod read;
pub mod releases;
#[cfg(feature = "remote")]
pub mod remote;
pub mod render;
mod rules;
pub mod scan;
pub mod select;
pub mod shard;
pub mod stats;
pub mod summary;
mod tensor_data;
pub mod tensor_type;
pub mod tokenizer;
pub mod types;
pub mod validate;
pub mod wire;
pub mod write;

pub use endian::Endian;
pub use error::{Diagnostic, Error, Result, Rule};
pub use location::{Location, ReadCost};
pub use open::{open, open_model, OpenError, Opened, OpenedModel};
pub use read::outline_sized;
pub use read::value;
pub use read::{outline, Gguf, Kv, MappedFile, Outline, ReadOptions, TensorInfo};
pub use shard::ShardedModel;
pub use tensor_data::tensor_bytes;
pub use tensor_type::TensorType;
pub use tokenizer::Tokenizer;
pub use types::GgmlType;
pub use validate::{validate_bytes, validate_file, Report};
pub use value::{ArrayView, Str, Value, ValueType};
pub use write::{GgufBuilder, OwnedArray, OwnedValue};
