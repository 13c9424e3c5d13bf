//! llama.cpp's own tokenizer vectors: `models/ggml-vocab-*.gguf.inp/.out` of the llama.cpp
//! sources vendored in the llama-cpp-python 0.3.36 sdist (test-tokenizer-0's inputs and the ids
//! llama.cpp gives them, add_special and parse_special false), checked case by case against
//! the vocabularies of `../shared/corpus/vocab` (the sdist's own copies when those are absent).
//!
//! The sources are found through `GGUFKIT_LLAMA_CPP_SRC`, else through what
//! `../shared/tools/reference-env.sh --sdist` prints; the test says SKIPPED when neither has them.

use std::path::{Path, PathBuf};
use std::process::Command;

use ggufkit::tokenizer::TokenizerError;
use ggufkit::{Gguf, Tokenizer};
use ggufkit_testkit::shared;

/// llama.cpp's source folder, or `None` after saying why the test skips.
fn llama_cpp_src() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("GGUFKIT_LLAMA_CPP_SRC") {
        let p = PathBuf::from(p);
        if p.join("models").is_dir() {
            return Some(p);
        }
        println!(
            "SKIPPED: GGUFKIT_LLAMA_CPP_SRC={} has no models/ folder",
            p.display()
        );
        return None;
    }
    let script = shared::root().join("tools/reference-env.sh");
    if !script.is_file() {
        println!(
            "SKIPPED: GGUFKIT_LLAMA_CPP_SRC is unset and {} is absent",
            script.display()
        );
        return None;
    }
    let out = Command::new("bash").arg(&script).arg("--sdist").output();
    let found = out.ok().and_then(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("llama_cpp_src=").map(PathBuf::from))
    });
    match found {
        Some(p) if p.join("models").is_dir() => Some(p),
        _ => {
            println!(
                "SKIPPED: GGUFKIT_LLAMA_CPP_SRC is unset and {} --sdist gave no llama.cpp sources",
                script.display()
            );
            None
        }
    }
}

/// test-tokenizer-0's reading of a vector pair: inputs separated by
/// `\n__ggml_vocab_test__\n`, one line of ids per input.
fn read_cases(inp: &Path, out: &Path) -> Vec<(String, Vec<u32>)> {
    let raw = std::fs::read_to_string(inp).expect("read .inp");
    let ids = std::fs::read_to_string(out).expect("read .out");
    let sep = "\n__ggml_vocab_test__\n";
    let mut inputs = Vec::new();
    let mut pos = 0;
    while pos < raw.len() {
        match raw[pos..].find(sep) {
            Some(i) => {
                inputs.push(raw[pos..pos + i].to_string());
                pos += i + sep.len();
            }
            None => {
                inputs.push(raw[pos..].to_string());
                break;
            }
        }
    }
    let lines: Vec<&str> = ids.lines().collect();
    assert_eq!(
        inputs.len(),
        lines.len(),
        "{}: inputs and outputs differ in number",
        inp.display()
    );
    inputs
        .into_iter()
        .zip(lines)
        .map(|(s, l)| {
            let ids = l
                .split_whitespace()
                .map(|t| t.parse().expect("an id"))
                .collect();
            (s, ids)
        })
        .collect()
}

#[test]
fn llama_cpp_vectors() {
    let Some(src) = llama_cpp_src() else {
        return;
    };
    let corpus = shared::root().join("corpus/vocab");
    let mut names: Vec<String> = std::fs::read_dir(src.join("models"))
        .expect("models/")
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".gguf.inp").map(str::to_string)
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no vectors in {}", src.display());

    let mut failures = Vec::new();
    let mut unsupported = Vec::new();
    let (mut total, mut passed) = (0, 0);
    for name in &names {
        let vocab = match corpus.join(format!("{name}.gguf")) {
            p if p.is_file() => p,
            _ => src.join(format!("models/{name}.gguf")),
        };
        let gguf = Gguf::open(&vocab).expect("open vocabulary");
        let tok = Tokenizer::from_gguf(&gguf)
            .unwrap_or_else(|e| panic!("{name}: vocabulary refused: {e}"));
        let cases = read_cases(
            &src.join(format!("models/{name}.gguf.inp")),
            &src.join(format!("models/{name}.gguf.out")),
        );
        let mut ok = 0;
        let mut skipped = None;
        for (text, want) in &cases {
            match tok.encode(text, false, false) {
                Ok(got) if &got == want => ok += 1,
                Ok(got) => failures.push(format!(
                    "{name}: {text:?}\n   want {want:?}\n    got {got:?}"
                )),
                Err(e @ TokenizerError::Unsupported { .. }) => {
                    skipped = Some(e.to_string());
                    break;
                }
                Err(e) => failures.push(format!("{name}: {text:?}: {e}")),
            }
        }
        match skipped {
            Some(why) => {
                println!("{name}: not checked ({why})");
                unsupported.push(name.clone());
            }
            None => {
                println!("{name}: {ok}/{} cases pass", cases.len());
                total += cases.len();
                passed += ok;
            }
        }
    }
    println!(
        "{passed}/{total} cases pass over {} vocabularies; not checked: {unsupported:?}",
        names.len() - unsupported.len()
    );
    for f in failures.iter().take(30) {
        println!("{f}");
    }
    assert!(
        failures.is_empty(),
        "{} cases differ from llama.cpp",
        failures.len()
    );
}

/// Every real vocabulary of `../shared/corpus/vocab` loads (llama.cpp loads them all), and
/// every token's piece renders.
#[test]
fn corpus_vocabularies_load() {
    let Some(dir) = shared::find("corpus/vocab") else {
        return;
    };
    for path in shared::gguf_files(&dir) {
        let gguf = Gguf::open(&path).expect("open");
        let tok = Tokenizer::from_gguf(&gguf)
            .unwrap_or_else(|e| panic!("{}: refused: {e}", path.display()));
        assert!(tok.vocab_size() > 0, "{}", path.display());
        let mut unsupported = 0;
        for id in 0..tok.vocab_size() {
            match tok.piece(id, true) {
                Ok(_) => {}
                Err(TokenizerError::Unsupported { .. }) => unsupported += 1,
                Err(e) => panic!("{}: token {id}: {e}", path.display()),
            }
        }
        println!(
            "{}: {} {} '{}', {} tokens, {unsupported} pieces not rendered by this build",
            path.file_name().unwrap().to_string_lossy(),
            tok.model(),
            tok.model_type().type_name(),
            tok.pre(),
            tok.vocab_size()
        );
    }
}
