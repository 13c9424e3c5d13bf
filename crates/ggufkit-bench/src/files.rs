//! Where the benchmark files are: the shared corpus, the Gemma 3 model, the generated files.
//! Everything is optional: what is absent is skipped, and said so.

use std::path::{Path, PathBuf};

use crate::gen::Generated;

/// The shared corpus: `$GGUF_CORPUS`, else `shared/corpus` beside the repository.
pub fn corpus_dir() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GGUF_CORPUS") {
        let p = PathBuf::from(p);
        return p.is_dir().then_some(p);
    }
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    p.is_dir().then_some(p)
}

/// Gemma 3 270M Q4_K_M: `$GGUF_GEMMA`, else where `get-gemma3-270m.sh /tmp/gemma` puts it.
pub fn gemma_path() -> Option<PathBuf> {
    let p = std::env::var_os("GGUF_GEMMA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/tmp/gemma/gemma-3-270m-q4_k_m.gguf"));
    p.is_file().then_some(p)
}

/// Where generated files go by default: `$GGUF_BENCH_DIR`, else `target/ggufkit-bench` of the
/// workspace.
pub fn generated_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("GGUF_BENCH_DIR") {
        return PathBuf::from(p);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/ggufkit-bench")
}

/// The `*.gguf` files directly inside `dir`, sorted by name.
pub fn gguf_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "gguf"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The corpus files of the comparison: every vocabulary file and the two synthetic bench files.
pub fn corpus_files() -> Vec<PathBuf> {
    let Some(c) = corpus_dir() else {
        return Vec::new();
    };
    let mut v = gguf_files_in(&c.join("vocab"));
    v.extend(gguf_files_in(&c.join("synthetic")).into_iter().filter(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("bench_"))
    }));
    v
}

/// The full set of the comparison: corpus files, the Gemma model when present, and the stress
/// files (generated into `stress_dir` when absent).
pub fn standard_set(stress_dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<String>)> {
    let mut files = corpus_files();
    let mut skipped = Vec::new();
    if files.is_empty() {
        skipped.push("the shared corpus (set GGUF_CORPUS)".to_string());
    }
    match gemma_path() {
        Some(p) => files.push(p),
        None => skipped.push(
            "Gemma 3 270M (run `bash ../shared/corpus/get-gemma3-270m.sh /tmp/gemma` or set GGUF_GEMMA)"
                .to_string(),
        ),
    }
    for g in Generated::STRESS {
        files.push(g.ensure(stress_dir)?);
    }
    Ok((files, skipped))
}
