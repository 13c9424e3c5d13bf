//! `../shared` beside the repository: the real GGUF files (`corpus/`), ggml's reference vectors
//! (`vectors/`), the spec and the reference tools' scripts (`tools/`). Nothing from it is
//! committed. A test that needs a part of it that is absent [`skip`]s for [`Need::Shared`]:
//! one `SKIPPED` line saying what and where, and a failure when `GGUFKIT_REQUIRE` names `shared`.
//!
//! ```no_run
//! let Some(corpus) = ggufkit_testkit::shared::corpus() else { return };
//! let Some(vectors) = ggufkit_testkit::shared::find("vectors/quant") else { return };
//! ```
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use crate::skip::{skip, Need};

/// Where `../shared` is expected: beside the repository's root (so beside a worktree too).
pub fn root() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    p.canonicalize().unwrap_or(p)
}

/// `../shared/<part>` (a file or a folder; `""` for `../shared` itself) when it exists;
/// otherwise [`skip`]s for [`Need::Shared`] and returns `None`.
pub fn find(part: &str) -> Option<PathBuf> {
    let p = if part.is_empty() {
        root()
    } else {
        root().join(part)
    };
    if p.exists() {
        return Some(p);
    }
    let name = if part.is_empty() {
        "../shared".to_string()
    } else {
        format!("../shared/{part}")
    };
    skip(
        Need::Shared,
        format!(
            "{name} is absent (looked in {}; it lives beside the repository)",
            p.display()
        ),
    );
    None
}

/// `../shared/corpus`, the real files, when present (else a skip, as [`find`]).
pub fn corpus() -> Option<PathBuf> {
    find("corpus")
}

/// Every `*.gguf` below `dir`, sorted.
pub fn gguf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "gguf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Cases of `../shared/vectors/quant` (type, case) where ggml itself changed since the vectors
/// (ggml d99724f) were made: ggufkit follows the llama.cpp of `../shared/tools/llama-quantize.sh`
/// (0c1e57098), whose iq1_m split search sums per-half prefix sums and rounds differently on
/// case2's extreme magnitudes. `crates/ggufkit/tests/quant_ggml.rs` checks these inputs against
/// that ggml when its harness is built.
pub const GGML_CHANGED_SINCE_VECTORS: &[(&str, usize)] = &[("iq1_m", 2)];

/// llama.cpp's sources as vendored in the llama-cpp-python sdist (`src/unicode.cpp`,
/// `src/llama-vocab.cpp`, ...): [`crate::reference::llama_cpp_src`], which finds them
/// (`$GGUFKIT_LLAMA_CPP_SRC`, else `reference-env.sh --sdist`) or skips for
/// [`Need::LlamaCppSrc`].
pub fn llama_cpp_src() -> Option<PathBuf> {
    crate::reference::llama_cpp_src()
}
