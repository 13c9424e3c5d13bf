//! ggufkit for JavaScript: the library bound with wasm-bindgen, built for
//! `wasm32-unknown-unknown` by `scripts/build_wasm.sh` into an npm package (`js/index.js` is its
//! entry). Everything a result says comes from the library: the JSON texts are its renderers'
//! (`ggufkit::render`, the summary's `summary_json`), the same bytes as the `gguf` command's
//! `--json`; the header of a `Blob` or a URL is read in rounds by `ggufkit::open::HeaderRounds`,
//! the package's JavaScript fetching each range it names.
//!
//! - `file.rs`: `GgufFile`, an opened header: its JSON renderings, tensors, edits.
//! - `reader.rs`: `HeaderReader`, a header being read in rounds (bytes, `Blob`, URL).
//! - `tokenizer.rs`: `Tokenizer`, the file's own (llama.cpp's `llama_tokenize`; feature
//!   `tokenizer`, on by default, as `chat`, the chat templates' rendering).
//! - `error.rs`: every failure as a `GgufError` exception with the rule, offset and message.
//!
//! No input may trap: the library never panics on input, and every error is a `GgufError`.
#![forbid(unsafe_code)]

mod error;
mod file;
mod reader;
#[cfg(feature = "tokenizer")]
mod tokenizer;

pub use error::error_class;
pub use file::GgufFile;
pub use reader::{first_chunk, HeaderReader};
#[cfg(feature = "tokenizer")]
pub use tokenizer::Tokenizer;

use wasm_bindgen::prelude::*;

/// The optional parts this build has (`tokenizer`, `chat`): the npm package has both; a build
/// made with `scripts/build_wasm.sh --slim` neither, and its `tokenizer()` and
/// `applyChatTemplate` throw a `GgufError` that says so.
#[wasm_bindgen(js_name = buildFeatures)]
pub fn build_features() -> Vec<String> {
    let mut out = Vec::new();
    if cfg!(feature = "tokenizer") {
        out.push("tokenizer".to_string());
    }
    if cfg!(feature = "chat") {
        out.push("chat".to_string());
    }
    out
}
