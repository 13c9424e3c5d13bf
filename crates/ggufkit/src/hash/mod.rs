//! Hashes of tensor data and the manifest `gguf hash` writes: the algorithms (XXH64 and
//! SHA-256), each tensor's digest and the whole data section's in one sequential pass spread over
//! two cores, a remote file's hashes streamed in one request, and a manifest written, read back and
//! checked against a file.
//!
//! ```
//! use ggufkit::hash::{self, HashAlgo, Manifest};
//! use ggufkit::progress::NoProgress;
//!
//! let g = ggufkit::Gguf::open(concat!(env!("CARGO_MANIFEST_DIR"), "/../../samples/tiny-llama.gguf"))?;
//! let hashes = hash::hash_gguf(&g, HashAlgo::Xxh64, &NoProgress)?;
//! let text = hash::manifest_section("tiny-llama.gguf", &hashes);
//! let manifest = Manifest::parse(&text)?;
//! let check = manifest.sections[0].check(&hashes);
//! assert!(check.passed());
//! # Ok::<(), ggufkit::Error>(())
//! ```
#![forbid(unsafe_code)]

mod check;
mod digest;
mod file;
mod manifest;
#[cfg(feature = "remote")]
mod remote;

pub use check::{Check, Problem};
pub use digest::{digest, digest_many, Digest, HashAlgo, Hasher};
pub use file::{data_section, hash_gguf, FileHashes, TensorHash};
pub use manifest::{manifest_section, Manifest, Section};
#[cfg(feature = "remote")]
pub use remote::hash_remote;

/// [`hash_gguf`] of a file opened from a location: a mapped file hashed in place, a remote one
/// streamed with one request for its data section (`hash_remote`, feature `remote`).
pub fn hash_opened(
    opened: &crate::Opened,
    algo: HashAlgo,
    progress: &dyn crate::progress::Progress,
) -> crate::Result<FileHashes> {
    #[cfg(feature = "remote")]
    if let Some(r) = opened.remote() {
        return hash_remote(r, algo, progress);
    }
    hash_gguf(opened.gguf(), algo, progress)
}
