//! ggufkit for JavaScript: the library bound with wasm-bindgen, built for
//! `wasm32-unknown-unknown` by `scripts/build_wasm.sh` into an npm package (`js/index.js` is its
//! entry). Everything a result says comes from the library: the JSON texts are its renderers'
//! (`ggufkit::render`, the summary's `summary_json`), the same bytes as the `gguf` command's
//! `--json`; the header of a `Blob` or a URL is read in rounds by `ggufkit::open::HeaderRounds`,
//! the package's JavaScript fetching each range it names.
//!
//! - `file.rs`: `GgufFile`, an opened header: its JSON renderings, tensors, edits.
//! - `reader.rs`: `HeaderReader`, a header being read in rounds (bytes, `Blob`, URL).
//! - `tokenizer.rs`: `Tokenizer`, the file's own (llama.cpp's `llama_tokenize`).
//! - `error.rs`: every failure as a `GgufError` exception with the rule, offset and message.
//!
//! No input may trap: the library never panics on input, and every error is a `GgufError`.
#![forbid(unsafe_code)]

mod error;
mod file;
mod reader;
mod tokenizer;

pub use error::error_class;
pub use file::GgufFile;
pub use reader::{first_chunk, HeaderReader};
pub use tokenizer::Tokenizer;
