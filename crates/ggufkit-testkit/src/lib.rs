//! The test kit of the ggufkit workspace: what the library's and the CLI's tests, the fuzz
//! targets, the benches and the examples share, so that each is written once.
//!
//! - [`encode`]: a byte-level GGUF encoder, independent of the library's writer, that writes
//!   valid files and every defect the tests need, and records where each field lands.
//! - [`fixtures`]: small ready-made files built with it.
//! - [`compare`]: asserts that what the library read is what was written.
//! - [`walk`]: touches everything a parsed file exposes, checking the library's invariants.
//! - [`header_walk`]: the lighter walk the benchmarks time.
//! - [`cases`]: the hostile suites' files written out for the Python tests.
//! - [`checks`]: the agreement of the library's entry points on any bytes.
//! - [`chunked`]: a reader that hands out its bytes in small chunks.
//! - [`growth`]: whether work grows linearly with its input (timed beside a quarter of it).
//! - [`skip`]: how a test skips for want of something outside the repository: a `SKIPPED` line,
//!   a line in `$GGUFKIT_SKIP_LOG`, or a failure when `$GGUFKIT_REQUIRE` names it (CI).
//! - [`shared`]: the corpus and reference files of `../shared`, or a skip.
//! - [`reference`](mod@reference): the reference tools (llama.cpp's sources, the pinned Python and
//!   node-llama-cpp, llama-quantize, gguf-py, Kaitai) and the Gemma 3 model, or a skip.
//! - [`tokref`]: llama.cpp's tokenizer answers for the differential tests (cached), or a skip.
//! - [`heap`]: a counting global allocator, for peak-heap bounds and figures.
//! - [`sparse`]: sparse files for headers that declare more than a test can hold.
//! - [`sample`]: the committed sample model, as the library's writer makes it.
//! - `server` (feature `server`): an HTTP/1.1 test server that injects faults.
// Only `heap` (a `GlobalAlloc`, an unsafe trait) opts out, with its `SAFETY` comments.
#![deny(unsafe_code)]

pub mod cases;
pub mod checkpoint;
pub mod checks;
pub mod chunked;
pub mod compare;
pub mod encode;
pub mod fixtures;
pub mod growth;
pub mod header_walk;
pub mod heap;
pub mod llama_load;
pub mod models;
pub mod reference;
pub mod sample;
#[cfg(feature = "server")]
pub mod server;
pub mod shared;
pub mod skip;
pub mod sparse;
pub mod tokref;
pub mod walk;

pub use chunked::Chunked;
pub use encode::{Encoder, Layout, Model, T, V};
