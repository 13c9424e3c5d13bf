//! A Hugging Face checkpoint that cannot be read or converted: its folder, its safetensors files,
//! a config that the tensors contradict, an architecture the table does not hold. Every variant
//! names the file, and the tensor or key where there is one.
#![forbid(unsafe_code)]

use std::path::PathBuf;

/// Why a checkpoint's weights or config cannot be converted
/// ([`Error::Checkpoint`](super::Error::Checkpoint)).
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The input is not a folder holding a config.json.
    #[error("{}: {problem}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// What is missing.
        problem: String,
    },
    /// A JSON file (config.json, the safetensors index) that does not parse or lacks a key.
    #[error("{}: {problem}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong, naming the key.
        problem: String,
    },
    /// A safetensors header that breaks the format's rules.
    #[error("{}: {problem}", path.display())]
    Header {
        /// The safetensors file.
        path: PathBuf,
        /// What is wrong (lengths, the JSON).
        problem: String,
    },
    /// A tensor entry of a safetensors header that breaks the format's rules.
    #[error("{}: tensor '{tensor}': {problem}", path.display())]
    Tensor {
        /// The safetensors file.
        path: PathBuf,
        /// The tensor.
        tensor: String,
        /// What is wrong (dtype, shape, byte count, offsets, overlap).
        problem: String,
    },
    /// The index names a tensor no shard holds, a shard that is absent, or the shards hold a
    /// tensor it does not name.
    #[error("{}: {problem}", path.display())]
    Index {
        /// The index file.
        path: PathBuf,
        /// What does not match.
        problem: String,
    },
    /// An architecture the conversion table does not hold.
    #[error(
        "{}: architecture '{class}' is not supported; supported: {}",
        path.display(),
        supported.join(", ")
    )]
    UnsupportedArchitecture {
        /// The config.json.
        path: PathBuf,
        /// The class named by `architectures[0]`.
        class: String,
        /// The classes the table holds.
        supported: Vec<&'static str>,
    },
    /// config.json and the tensors disagree, or a tensor is absent or of an unexpected shape.
    #[error("{}: {problem}", path.display())]
    Mismatch {
        /// The folder (or config.json).
        path: PathBuf,
        /// What disagrees, naming the tensor or key.
        problem: String,
    },
    /// An option that cannot be honoured (an --outtype name, a split size).
    #[error("{0}")]
    Option(String),
}

impl CheckpointError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CheckpointError::Io {
            path: path.into(),
            source,
        }
    }
}
