//! The reference tools and the large model the differential tests compare ggufkit against, found
//! in one way: each finder reads the environment variable `.ci/run` exports, else asks the script
//! of `../shared/tools` that makes the tool (only where that script has already made it on this
//! machine, so that a test never starts a download or a build), and otherwise [`skip`]s for the
//! tool's [`Need`] and returns `None`.
//!
//! | finder | variable | made by | need |
//! |---|---|---|---|
//! | [`llama_cpp_src`] | `GGUFKIT_LLAMA_CPP_SRC` | `reference-env.sh --sdist` | `llama-cpp-src` |
//! | [`python`] | `GGUFKIT_REF_PYTHON` | `reference-env.sh --python` | `ref-python` |
//! | [`node_modules`] | `GGUFKIT_NODE_MODULES` | `reference-env.sh --node` | `node-llama-cpp` |
//! | [`llama_quantize`] | `GGUFKIT_LLAMA_QUANTIZE` | `llama-quantize.sh` | `llama-quantize` |
//! | [`gemma`] | `GGUF_GEMMA` | `corpus/get-gemma3-270m.sh` | `gemma` |
//! | [`gguf_py`] | `GGUFPY_PYTHON` | `scripts/setup-ggufpy.sh` | `gguf-py` |
//! | [`kaitai`] | `GGUF_KSC_DIR` | `spec/kaitai/setup.sh` | `kaitai` |
//! | [`ggml_harness`] | `GGUFKIT_GGML_HARNESS` | `scripts/ggml-harness.sh` | `ggml-harness` |
//!
//! `reference-env.sh` keeps its parts in `${XDG_CACHE_HOME:-~/.cache}/ggufkit-reference`;
//! without the variable, a finder asks it only when that folder exists.
//!
//! ```no_run
//! let Some(src) = ggufkit_testkit::reference::llama_cpp_src() else { return };
//! let vocab_tests = src.join("models/ggml-vocab-llama-bpe.gguf.inp");
//! ```
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::shared;
use crate::skip::{skip, Need};

/// `${XDG_CACHE_HOME:-$HOME/.cache}`.
fn cache_home() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
}

/// The path in `$var`, when set and present. `Err` says why not.
fn from_var(var: &str) -> Result<Option<PathBuf>, String> {
    match std::env::var_os(var) {
        Some(v) if !v.is_empty() => {
            let p = PathBuf::from(v);
            if p.exists() {
                Ok(Some(p))
            } else {
                Err(format!("${var} is {}, which does not exist", p.display()))
            }
        }
        _ => Ok(None),
    }
}

/// The `key=value` lines a `../shared/tools` script prints, as pairs.
fn key_values(stdout: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// A part `reference-env.sh` was asked for, and its `key=value` lines or why it failed.
type EnvRun = (&'static str, Result<Vec<(String, String)>, String>);

/// `reference-env.sh --<part>`'s `key=value` (run once per test process and part), when the
/// reference folder exists. `Err` says why not.
fn reference_env(part: &'static str, key: &str) -> Result<PathBuf, String> {
    static RUNS: Mutex<Vec<EnvRun>> = Mutex::new(Vec::new());
    let script = shared::root().join("tools/reference-env.sh");
    let dir = cache_home().map(|c| c.join("ggufkit-reference"));
    let mut runs = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    if !runs.iter().any(|(p, _)| *p == part) {
        let result =
            match &dir {
                _ if !script.is_file() => Err(format!("{} is absent", script.display())),
                Some(d) if d.is_dir() => Command::new("bash")
                    .arg(&script)
                    .arg(d)
                    .arg(format!("--{part}"))
                    .output()
                    .map_err(|e| format!("bash {} could not run: {e}", script.display()))
                    .and_then(|o| {
                        if o.status.success() {
                            Ok(key_values(&o.stdout))
                        } else {
                            let err = String::from_utf8_lossy(&o.stderr);
                            Err(format!(
                                "{} --{part} failed: {}",
                                script.display(),
                                err.lines().last().unwrap_or("")
                            ))
                        }
                    }),
                _ => Err(format!(
                "no reference folder {} (bash ../shared/tools/reference-env.sh --{part} makes it)",
                dir.as_deref().unwrap_or(Path::new("~/.cache/ggufkit-reference")).display()
            )),
            };
        runs.push((part, result));
    }
    let (_, result) = runs.iter().find(|(p, _)| *p == part).expect("just run");
    let pairs = result.as_ref().map_err(Clone::clone)?;
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| PathBuf::from(v))
        .filter(|p| p.exists())
        .ok_or_else(|| format!("reference-env.sh --{part} printed no existing {key}"))
}

/// A reference found by `$var`, else by `reference-env.sh --<part>`'s `key`; else a skip.
fn reference(var: &str, part: &'static str, key: &str, need: Need) -> Option<PathBuf> {
    match from_var(var) {
        Ok(Some(p)) => return Some(p),
        Ok(None) => {}
        Err(why) => {
            skip(need, why);
            return None;
        }
    }
    match reference_env(part, key) {
        Ok(p) => Some(p),
        Err(why) => {
            skip(need, format!("${var} is not set and {why}"));
            None
        }
    }
}

/// llama.cpp's sources, as vendored in the llama-cpp-python sdist (`src/llama-vocab.cpp`,
/// `convert_hf_to_gguf.py`, `models/ggml-vocab-*.gguf.inp/.out`, `models/templates/*.jinja`):
/// `$GGUFKIT_LLAMA_CPP_SRC`, else `reference-env.sh --sdist`.
pub fn llama_cpp_src() -> Option<PathBuf> {
    reference(
        "GGUFKIT_LLAMA_CPP_SRC",
        "sdist",
        "llama_cpp_src",
        Need::LlamaCppSrc,
    )
}

/// The pinned Python references' interpreter (torch, transformers, tokenizers, sentencepiece,
/// jinja2...): `$GGUFKIT_REF_PYTHON`, else `reference-env.sh --python`.
pub fn python() -> Option<PathBuf> {
    reference("GGUFKIT_REF_PYTHON", "python", "python", Need::RefPython)
}

/// The `node_modules` folder holding node-llama-cpp: `$GGUFKIT_NODE_MODULES`, else
/// `reference-env.sh --node`.
pub fn node_modules() -> Option<PathBuf> {
    reference(
        "GGUFKIT_NODE_MODULES",
        "node",
        "node_modules",
        Need::NodeLlamaCpp,
    )
}

/// llama.cpp's `llama-quantize`: `$GGUFKIT_LLAMA_QUANTIZE`, else what `llama-quantize.sh`
/// recorded in the build folder `.ci/run` uses (`${XDG_CACHE_HOME:-~/.cache}/ggufkit/
/// llama-quantize`) or in its own default (`$TMPDIR/llama-quantize`), when it finished a build
/// there.
pub fn llama_quantize() -> Option<PathBuf> {
    match from_var("GGUFKIT_LLAMA_QUANTIZE") {
        Ok(Some(p)) => return Some(p),
        Ok(None) => {}
        Err(why) => {
            skip(Need::LlamaQuantize, why);
            return None;
        }
    }
    let dirs = [
        cache_home().map(|c| c.join("ggufkit/llama-quantize")),
        Some(std::env::temp_dir().join("llama-quantize")),
    ];
    for dir in dirs.iter().flatten() {
        // llama-quantize.sh writes build-info.txt (its key=value lines) when a build finished
        let Ok(info) = std::fs::read(dir.join("build-info.txt")) else {
            continue;
        };
        let found = key_values(&info)
            .into_iter()
            .find(|(k, _)| k == "llama-quantize")
            .map(|(_, v)| PathBuf::from(v))
            .filter(|p| p.is_file());
        if found.is_some() {
            return found;
        }
    }
    skip(
        Need::LlamaQuantize,
        "$GGUFKIT_LLAMA_QUANTIZE is not set and no finished build in ~/.cache/ggufkit/llama-quantize \
         or $TMPDIR/llama-quantize (bash ../shared/tools/llama-quantize.sh DIR builds it)",
    );
    None
}

/// The file name `get-gemma3-270m.sh` gives the model.
pub const GEMMA_FILE: &str = "gemma-3-270m-q4_k_m.gguf";

/// Gemma 3 270M in Q4_K_M (253 MB, 236 tensors): `$GGUF_GEMMA`, else
/// `/tmp/gemma/gemma-3-270m-q4_k_m.gguf`, else the same name in
/// `${XDG_CACHE_HOME:-~/.cache}/ggufkit/gemma` (where `.ci/run` assembles it).
pub fn gemma() -> Option<PathBuf> {
    match from_var("GGUF_GEMMA") {
        Ok(Some(p)) => return Some(p),
        Ok(None) => {}
        Err(why) => {
            skip(Need::Gemma, why);
            return None;
        }
    }
    let places = [
        Some(PathBuf::from("/tmp/gemma").join(GEMMA_FILE)),
        cache_home().map(|c| c.join("ggufkit/gemma").join(GEMMA_FILE)),
    ];
    if let Some(p) = places.into_iter().flatten().find(|p| p.is_file()) {
        return Some(p);
    }
    skip(
        Need::Gemma,
        "Gemma 3 270M is absent: $GGUF_GEMMA is not set and neither /tmp/gemma nor \
         ~/.cache/ggufkit/gemma holds it (bash ../shared/corpus/get-gemma3-270m.sh DIR assembles it)",
    );
    None
}

/// A Python interpreter with gguf-py (llama.cpp's reader) and numpy: `$GGUFPY_PYTHON`, else
/// `$TMPDIR/ggufpy/bin/python` (where `scripts/setup-ggufpy.sh` puts it).
pub fn gguf_py() -> Option<PathBuf> {
    let p = std::env::var_os("GGUFPY_PYTHON")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("ggufpy/bin/python"));
    let ok = Command::new(&p)
        .args(["-c", "import gguf, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(p);
    }
    skip(
        Need::GgufPy,
        format!(
            "no gguf-py at {} (bash scripts/setup-ggufpy.sh prints the interpreter to set as $GGUFPY_PYTHON)",
            p.display()
        ),
    );
    None
}

/// The Kaitai Struct reference parser set up by `../shared/spec/kaitai/setup.sh DIR`: DIR is
/// `$GGUF_KSC_DIR`, else `$TMPDIR/gguf-ksc`. Returns (DIR's Python, DIR).
pub fn kaitai() -> Option<(PathBuf, PathBuf)> {
    let dir = std::env::var_os("GGUF_KSC_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("gguf-ksc"));
    let python = dir.join("venv/bin/python");
    if python.exists() && dir.join("generated/gguf.py").exists() {
        return Some((python, dir));
    }
    skip(
        Need::Kaitai,
        format!(
            "no Kaitai setup in {} (bash ../shared/spec/kaitai/setup.sh DIR, and set $GGUF_KSC_DIR)",
            dir.display()
        ),
    );
    None
}

/// ggml's `quantize_chunk` harness that `scripts/ggml-harness.sh DIR` builds:
/// `$GGUFKIT_GGML_HARNESS`, else `DIR/harness/quantize_chunk` in llama-quantize.sh's folders
/// (`${XDG_CACHE_HOME:-~/.cache}/ggufkit/llama-quantize`, as `.ci/run` uses, or
/// `$TMPDIR/llama-quantize`, the script's default).
pub fn ggml_harness() -> Option<PathBuf> {
    match from_var("GGUFKIT_GGML_HARNESS") {
        Ok(Some(p)) => return Some(p),
        Ok(None) => {}
        Err(why) => {
            skip(Need::GgmlHarness, why);
            return None;
        }
    }
    let places = [
        cache_home().map(|c| c.join("ggufkit/llama-quantize/harness/quantize_chunk")),
        Some(std::env::temp_dir().join("llama-quantize/harness/quantize_chunk")),
    ];
    if let Some(p) = places.into_iter().flatten().find(|p| p.is_file()) {
        return Some(p);
    }
    skip(
        Need::GgmlHarness,
        "ggml's quantize_chunk is not built: $GGUFKIT_GGML_HARNESS is not set and neither \
         ~/.cache/ggufkit/llama-quantize/harness nor $TMPDIR/llama-quantize/harness holds it \
         (bash scripts/ggml-harness.sh DIR builds it)",
    );
    None
}

/// The tiny Hugging Face checkpoints and `convert_hf_to_gguf.py`'s outputs of them:
/// `$GGUFKIT_HF_REFERENCE`, else what `scripts/hf_reference/make_checkpoints.sh` makes (cached
/// by the generators' hash; it needs the pinned Python and llama.cpp's sources), or a skip.
pub fn hf_checkpoints() -> Option<PathBuf> {
    cached_reference("GGUFKIT_HF_REFERENCE", "make_checkpoints.sh")
}

/// The tiny quantized (FP8) and fused-expert checkpoints and `convert_hf_to_gguf.py`'s outputs
/// of them: `$GGUFKIT_HF_FP8_REFERENCE`, else what `scripts/hf_reference/make_fp8_checkpoints.sh`
/// makes (its own cache, keyed by its generator's hash), or a skip.
pub fn hf_fp8_checkpoints() -> Option<PathBuf> {
    cached_reference("GGUFKIT_HF_FP8_REFERENCE", "make_fp8_checkpoints.sh")
}

/// `convert_hf_to_gguf.py`'s split outputs (`--split-max-size`, `--split-max-tensors`) of a few
/// of [`hf_checkpoints`]' checkpoints: `$GGUFKIT_HF_SPLIT_REFERENCE`, else what
/// `scripts/hf_reference/split_reference.sh` makes (its own cache, keyed by its own hash and the
/// checkpoints'), or a skip.
pub fn hf_split_reference() -> Option<PathBuf> {
    cached_reference("GGUFKIT_HF_SPLIT_REFERENCE", "split_reference.sh")
}

/// The folders [`cached_reference`] found, by script: its generator runs once per process, and
/// concurrent tests wait for it instead of running it beside each other.
static MADE: Mutex<Vec<(&'static str, Option<PathBuf>)>> = Mutex::new(Vec::new());

/// `$var`, else the folder `scripts/hf_reference/SCRIPT` makes with the reference python and
/// prints as `dir=...`, or a skip naming why.
fn cached_reference(var: &str, script: &'static str) -> Option<PathBuf> {
    if let Some(d) = std::env::var_os(var).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    let mut made = MADE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, dir)) = made.iter().find(|(s, _)| *s == script) {
        return dir.clone();
    }
    let dir = run_generator(script);
    made.push((script, dir.clone()));
    dir
}

/// Runs `scripts/hf_reference/SCRIPT`: the folder it prints as `dir=...`, or a skip naming why.
fn run_generator(script: &str) -> Option<PathBuf> {
    python()?;
    llama_cpp_src()?;
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scripts/hf_reference")
        .join(script);
    let out = Command::new("bash").arg(&path).output().ok()?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        skip(
            Need::RefPython,
            format!("{script} failed: {}", why.lines().last().unwrap_or("")),
        );
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("dir="))
        .map(PathBuf::from)
}
