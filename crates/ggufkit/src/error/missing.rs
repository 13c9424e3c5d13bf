//! Things asked for that do not exist: a key, a tensor, a shard, a GGUF inside a larger file.
#![forbid(unsafe_code)]

use std::path::PathBuf;

use super::Error;

/// What was asked for and not found ([`Error::NotFound`]).
#[derive(Debug, thiserror::Error)]
pub enum Missing {
    /// No metadata key of this name (removing a key that is absent).
    #[error("no key '{key}' in the metadata")]
    Key {
        /// The key asked for.
        key: String,
    },
    /// No tensor of this name.
    #[error("no tensor named '{name}'")]
    Tensor {
        /// The name asked for.
        name: String,
    },
    /// No tensor at this position.
    #[error("no tensor {index}")]
    TensorIndex {
        /// The position asked for, from 0.
        index: usize,
    },
    /// A shard of a split model whose file does not exist.
    #[error("shard {shard} of {count} is missing: {} does not exist", path.display())]
    Shard {
        /// The shard's number, from 1 (as in its file name).
        shard: u32,
        /// How many shards the model has.
        count: u32,
        /// The file the shard should be.
        path: PathBuf,
    },
    /// No `GGUF` magic followed by a plausible version anywhere in the bytes searched.
    #[error("no GGUF found: no \"GGUF\" magic followed by version 2 or 3 in either byte order")]
    Gguf,
    /// Candidates were found, but none is a complete, valid GGUF.
    #[error(
        "no valid GGUF found among {candidates} candidates; the first, at byte {first_offset}, fails: {first_error}"
    )]
    ValidGguf {
        /// How many candidates were parsed.
        candidates: u64,
        /// Where the first candidate starts.
        first_offset: u64,
        /// Why the first candidate is not a GGUF.
        first_error: Box<Error>,
    },
}
