//! llama.cpp's own tokenizer vectors: `models/ggml-vocab-*.gguf.inp/.out` of the llama.cpp
//! sources vendored in the llama-cpp-python 0.3.36 sdist (test-tokenizer-0's inputs and the ids
//! llama.cpp gives them, add_special and parse_special false), checked case by case against
//! the vocabularies of `../shared/corpus/vocab` (the sdist's own copies when those are absent).
//!
//! The sources are found through `GGUFKIT_LLAMA_CPP_SRC`, else through what
//! `../shared/tools/reference-env.sh --sdist` prints (the testkit's `reference::llama_cpp_src`,
//! which says SKIPPED when neither has them).

use std::path::Path;

use ggufkit::{Gguf, Tokenizer};
use ggufkit_testkit::{reference, shared};

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
    let Some(src) = reference::llama_cpp_src() else {
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
        for (text, want) in &cases {
            match tok.encode(text, false, false) {
                Ok(got) if &got == want => {
                    ok += 1;
                    // what test-tokenizer-0 prints: the ids decoded; they must decode
                    tok.decode(&got, false, false)
                        .unwrap_or_else(|e| panic!("{name}: {text:?}: decode: {e}"));
                }
                Ok(got) => failures.push(format!(
                    "{name}: {text:?}\n   want {want:?}\n    got {got:?}"
                )),
                Err(e) => failures.push(format!("{name}: {text:?}: {e}")),
            }
        }
        println!("{name}: {ok}/{} cases pass", cases.len());
        total += cases.len();
        passed += ok;
    }
    println!(
        "{passed}/{total} cases pass over {} vocabularies",
        names.len()
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
        for id in 0..tok.vocab_size() {
            if let Err(e) = tok.piece(id, true) {
                panic!("{}: token {id}: {e}", path.display());
            }
        }
        println!(
            "{}: {} {} '{}', {} tokens",
            path.file_name().unwrap().to_string_lossy(),
            tok.model(),
            tok.model_type().type_name(),
            tok.pre(),
            tok.vocab_size()
        );
    }
}
