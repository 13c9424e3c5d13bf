//! Skips that cannot hide. A test that needs something from outside the repository (`../shared`,
//! the Gemma 3 model, a reference tool) and does not find it calls [`skip`] (directly, or through
//! a finder of [`shared`](crate::shared) or [`reference`](mod@crate::reference) that returns `None`)
//! and returns. [`skip`]:
//!
//! - prints `SKIPPED <test>: [<need>] <why>` on the test's output;
//! - appends the line `<need>\t<test>\t<why>` to the file named by `$GGUFKIT_SKIP_LOG`, when set
//!   (`scripts/test.sh` sets it, and prints every skip of the run and one summary line at the end);
//! - **panics** instead when `$GGUFKIT_REQUIRE` names the [`Need`] (or is `all`): CI lists there
//!   what it set up (`.ci/run`), so a test that skips what CI provided fails.
//!
//! `GGUFKIT_REQUIRE` is a list of [`Need::name`]s separated by commas or spaces, e.g.
//! `GGUFKIT_REQUIRE=shared,gemma,llama-quantize`. The Python tests read the same two variables
//! (`python/tests/conftest.py`: `need(...)`), with the same names.
//!
//! ```no_run
//! use ggufkit_testkit::{reference, shared, skip::{skip, Need}};
//! let Some(corpus) = shared::corpus() else { return };          // ../shared/corpus
//! let Some(src) = reference::llama_cpp_src() else { return };   // llama.cpp's sources
//! if std::process::Command::new("node").arg("--version").output().is_err() {
//!     return skip(Need::NodeLlamaCpp, "node is not installed");
//! }
//! ```
#![forbid(unsafe_code)]

use std::fmt::Display;
use std::io::Write;

/// What a test needs from outside the repository: the names `GGUFKIT_REQUIRE` lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// `../shared` beside the repository: the corpus, the vectors, the spec.
    Shared,
    /// Gemma 3 270M Q4_K_M (`$GGUF_GEMMA`; `../shared/corpus/get-gemma3-270m.sh` assembles it).
    Gemma,
    /// Gemma 3 270M in F16, llama-quantize's source in `../shared/vectors/quantize` (ggufkit's
    /// `quantize_vectors` test makes it from [`Need::Gemma`]). The tests that quantize all of it
    /// take minutes in a debug build; CI does not list it.
    GemmaF16,
    /// llama.cpp's sources (`$GGUFKIT_LLAMA_CPP_SRC`; `reference-env.sh --sdist`).
    LlamaCppSrc,
    /// The pinned Python references (`$GGUFKIT_REF_PYTHON`; `reference-env.sh --python`).
    RefPython,
    /// node-llama-cpp (`$GGUFKIT_NODE_MODULES`; `reference-env.sh --node`).
    NodeLlamaCpp,
    /// llama.cpp's `llama-quantize` (`$GGUFKIT_LLAMA_QUANTIZE`; `../shared/tools/llama-quantize.sh`).
    LlamaQuantize,
    /// ggml's `quantize_chunk` harness (`$GGUFKIT_GGML_HARNESS`; `scripts/ggml-harness.sh`).
    GgmlHarness,
    /// gguf-py, llama.cpp's Python reader (`$GGUFPY_PYTHON`; `scripts/setup-ggufpy.sh`).
    GgufPy,
    /// The Kaitai Struct reference parser (`$GGUF_KSC_DIR`; `../shared/spec/kaitai/setup.sh`).
    Kaitai,
    /// moto's S3-compatible server (`scripts/setup-moto.sh`).
    Moto,
    /// A headless Chromium (`$CHROMIUM`).
    Chromium,
    /// The fuzz targets' corpora (`fuzz/corpus`, filled by `fuzz/run.sh`).
    FuzzCorpus,
    /// What this machine or moment may not offer and no setup can promise: sparse files,
    /// signals landing in time. Never required.
    Platform,
}

impl Need {
    /// Every need, in the order of the documentation.
    pub const ALL: [Need; 14] = [
        Need::Shared,
        Need::Gemma,
        Need::GemmaF16,
        Need::LlamaCppSrc,
        Need::RefPython,
        Need::NodeLlamaCpp,
        Need::LlamaQuantize,
        Need::GgmlHarness,
        Need::GgufPy,
        Need::Kaitai,
        Need::Moto,
        Need::Chromium,
        Need::FuzzCorpus,
        Need::Platform,
    ];

    /// The need's name in `GGUFKIT_REQUIRE` and in the skip log.
    pub fn name(self) -> &'static str {
        match self {
            Need::Shared => "shared",
            Need::Gemma => "gemma",
            Need::GemmaF16 => "gemma-f16",
            Need::LlamaCppSrc => "llama-cpp-src",
            Need::RefPython => "ref-python",
            Need::NodeLlamaCpp => "node-llama-cpp",
            Need::LlamaQuantize => "llama-quantize",
            Need::GgmlHarness => "ggml-harness",
            Need::GgufPy => "gguf-py",
            Need::Kaitai => "kaitai",
            Need::Moto => "moto",
            Need::Chromium => "chromium",
            Need::FuzzCorpus => "fuzz-corpus",
            Need::Platform => "platform",
        }
    }

    /// Whether `$GGUFKIT_REQUIRE` names this need (or says `all`): then its absence is a failure.
    /// [`Need::Platform`] is never required.
    pub fn is_required(self) -> bool {
        self != Need::Platform
            && std::env::var("GGUFKIT_REQUIRE").is_ok_and(|list| required_by(&list, self))
    }
}

impl Display for Need {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Whether a `GGUFKIT_REQUIRE` list names `need` (or `all`).
fn required_by(list: &str, need: Need) -> bool {
    list.split([',', ' '])
        .map(str::trim)
        .any(|n| n == need.name() || n == "all")
}

/// The calling test's name: libtest runs each test on a thread named after it.
fn test_name() -> String {
    match std::thread::current().name() {
        Some(n) if n != "main" => n.to_string(),
        _ => std::env::args()
            .next()
            .map(|a| {
                let p = std::path::Path::new(&a);
                p.file_name()
                    .map_or(a.clone(), |f| f.to_string_lossy().into())
            })
            .unwrap_or_default(),
    }
}

/// The calling test (or the part of it the caller names in `why`) skips for want of `need`:
/// prints `SKIPPED`, logs it to `$GGUFKIT_SKIP_LOG`, or panics when `$GGUFKIT_REQUIRE` names
/// `need`. The caller returns (or leaves out that part) afterwards.
///
/// `why` says what is missing, where it was looked for and how to get it, on one line.
pub fn skip(need: Need, why: impl Display) {
    let test = test_name();
    let why = why.to_string().replace(['\n', '\t'], " ");
    if need.is_required() {
        panic!(
            "{test} needs {need}, which GGUFKIT_REQUIRE says was set up, but it is unavailable: {why}"
        );
    }
    println!("SKIPPED {test}: [{need}] {why}");
    if let Some(log) = std::env::var_os("GGUFKIT_SKIP_LOG") {
        // one write of one short line to a file opened for appending: the lines of the test
        // processes running at once do not interleave
        let line = format!("{need}\t{test}\t{why}\n");
        let written = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&log)
            .and_then(|mut f| f.write_all(line.as_bytes()));
        if let Err(e) = written {
            println!(
                "(the skip could not be logged to {}: {e})",
                log.to_string_lossy()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_require_list_names_needs_by_name_or_all() {
        assert!(required_by("shared,gemma", Need::Gemma));
        assert!(required_by("shared gemma", Need::Shared));
        assert!(required_by(" all ", Need::Moto));
        assert!(!required_by("shared,gemma", Need::Moto));
        assert!(!required_by("", Need::Shared));
        // a name is matched whole, not as a prefix
        assert!(!required_by("llama-cpp", Need::LlamaCppSrc));
    }

    #[test]
    fn every_need_has_its_own_name() {
        let mut names: Vec<_> = Need::ALL.iter().map(|n| n.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Need::ALL.len());
    }
}
