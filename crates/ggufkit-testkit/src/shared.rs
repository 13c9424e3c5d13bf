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

/// Cases of `../shared/vectors/quant` where the ggml of the vectors (d99724f) and the ggml ggufkit
/// follows (llama.cpp 0c1e57098, the one `../shared/tools/llama-quantize.sh` builds and the
/// llama-quantize vectors come from) write different bytes: (type, case, sha256 of 0c1e57098's
/// `ggml_quantize_chunk` output). iq1_m case2: 0c1e57098's split search adds per-half prefix sums
/// where d99724f summed every element of each split, which rounds differently on case2's extreme
/// magnitudes; on f16-rounded inputs the two forms break ties differently too
/// (`../shared/vectors/quantize/iq1_m-tie`), so one codec cannot give both. The digest is of
/// `scripts/ggml-harness.sh`'s `quantize_chunk 29 4 512` on case2's input (built with GCC 12.2,
/// glibc 2.36, no FMA, as the vectors were); `crates/ggufkit/tests/quant_ggml.rs` compares every
/// byte with that program whenever it is built. Tests check these cases against the digest, not
/// against `caseN.expected`: no case goes unchecked.
pub const GGML_CHANGED_SINCE_VECTORS: &[(&str, usize, &str)] = &[(
    "iq1_m",
    2,
    "835f93fa5dee14c22a35501162497293cbc5db5de65bcccc6280ff646773fdc5",
)];

/// What case `case` of the quantization vectors of type `name` must give: `Ok(expected)` the
/// tensor's bytes, or `Err(sha256)` the digest of today's ggml where it changed since the vectors
/// ([`GGML_CHANGED_SINCE_VECTORS`]).
pub fn ggml_quant_expectation<'a>(
    name: &str,
    case: usize,
    expected: &'a [u8],
) -> Result<&'a [u8], &'static str> {
    match GGML_CHANGED_SINCE_VECTORS
        .iter()
        .find(|(n, c, _)| *n == name && *c == case)
    {
        Some((_, _, sha)) => Err(sha),
        None => Ok(expected),
    }
}

/// llama.cpp's sources as vendored in the llama-cpp-python sdist (`src/unicode.cpp`,
/// `src/llama-vocab.cpp`, ...): [`crate::reference::llama_cpp_src`], which finds them
/// (`$GGUFKIT_LLAMA_CPP_SRC`, else `reference-env.sh --sdist`) or skips for
/// [`Need::LlamaCppSrc`].
pub fn llama_cpp_src() -> Option<PathBuf> {
    crate::reference::llama_cpp_src()
}
