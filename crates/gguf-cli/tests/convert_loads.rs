//! llama.cpp loads what `gguf convert` writes: every tiny checkpoint of the convert reference
//! (scripts/hf_reference/make_checkpoints.py: Llama with SentencePiece and with BPE, Mistral,
//! Mixtral, Qwen2, Qwen3, Qwen3-MoE, Gemma 2, Gemma 3, Phi-3, Phi-4 mini) converted by the `gguf`
//! binary at --outtype auto, one of them in shards (--split-max-tensors, opened from its first
//! shard) and one quantized to Q4_K_M in one step (`gguf quantize HF_DIR`), each loaded fully by
//! node-llama-cpp's prebuilt llama.cpp (the testkit's `llama_load`, on the CPU) and asked for a
//! few tokens, greedily. The table says what each did; a failure names the file and llama.cpp's
//! message. Skips (SKIPPED, and why) without the reference or node-llama-cpp.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use ggufkit_testkit::{llama_load, reference};

/// Runs `gguf ARGS...`; its stderr when it fails.
fn gguf(args: &[&str]) -> Result<(), String> {
    let o = Command::cargo_bin("gguf")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    if o.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).trim().to_string())
    }
}

/// `general.architecture` of a file.
fn arch(file: &Path) -> String {
    ggufkit::Gguf::open(file)
        .ok()
        .and_then(|g| {
            g.get("general.architecture")
                .and_then(|v| v.as_str().map(String::from))
        })
        .unwrap_or_else(|| "?".into())
}

#[test]
fn llama_cpp_loads_and_generates_from_every_conversion() {
    let Some(dir) = reference::hf_checkpoints() else {
        return;
    };
    // node-llama-cpp first: without it nothing is converted for nothing
    if reference::node_modules().is_none() {
        return;
    }
    let cases: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).expect("cases.json"))
            .expect("cases.json parses");
    let tmp = tempfile::tempdir().unwrap();
    let path = |p: &Path| p.to_str().unwrap().to_string();
    // (case, what was done, the file llama.cpp is given)
    let mut files: Vec<(String, String, PathBuf)> = Vec::new();
    let mut failures = Vec::new();
    for case in cases["cases"].as_array().unwrap() {
        let case = case.as_str().unwrap();
        let folder = dir.join("models").join(case);
        if !folder.is_dir() {
            continue;
        }
        let out = tmp.path().join(format!("{case}.gguf"));
        match gguf(&["convert", &path(&folder), "-o", &path(&out)]) {
            Ok(()) => files.push((case.into(), "convert".into(), out)),
            Err(e) => failures.push(format!("{case}: gguf convert failed: {e}")),
        }
    }
    let smallest = "llama2-spm-f16";
    let folder = dir.join("models").join(smallest);
    if folder.is_dir() {
        let split_dir = tmp.path().join("split");
        std::fs::create_dir(&split_dir).unwrap();
        let out = split_dir.join(format!("{smallest}.gguf"));
        let args = ["convert", &path(&folder), "-o", &path(&out)];
        match gguf(&[&args[..], &["--split-max-tensors", "8"]].concat()) {
            Ok(()) => files.push((
                smallest.into(),
                "convert --split-max-tensors 8".into(),
                split_dir.join(format!("{smallest}-00001-of-00003.gguf")),
            )),
            Err(e) => failures.push(format!(
                "{smallest}: gguf convert --split-max-tensors failed: {e}"
            )),
        }
        let out = tmp.path().join(format!("{smallest}.Q4_K_M.gguf"));
        match gguf(&["quantize", &path(&folder), &path(&out), "Q4_K_M"]) {
            Ok(()) => files.push((smallest.into(), "quantize Q4_K_M (one step)".into(), out)),
            Err(e) => failures.push(format!(
                "{smallest}: gguf quantize HF_DIR Q4_K_M failed: {e}"
            )),
        }
    }
    let paths: Vec<PathBuf> = files.iter().map(|(_, _, p)| p.clone()).collect();
    let Some(loaded) = llama_load::load_all(&paths, true) else {
        return;
    };
    println!(
        "{:<24} {:<10} {:<30} {:<7} generated",
        "checkpoint", "arch", "made by", "loaded"
    );
    for ((case, how, file), l) in files.iter().zip(&loaded) {
        let tokens = l.generated.as_deref().unwrap_or("");
        let n = tokens.split(',').filter(|t| !t.is_empty()).count();
        println!(
            "{case:<24} {:<10} {how:<30} {:<7} {n} ({tokens})",
            arch(file),
            if l.ok { "yes" } else { "NO" }
        );
        if !l.ok {
            failures.push(format!(
                "{}: llama.cpp refuses it: {}",
                file.file_name().unwrap().to_string_lossy(),
                l.reason().unwrap_or_default()
            ));
        } else if n != 4 {
            failures.push(format!(
                "{}: loaded, but generated {n} tokens of 4 ({:?})",
                file.file_name().unwrap().to_string_lossy(),
                l.error
            ));
        }
    }
    // the shards hold the unsplit file's tensors: llama.cpp must answer the same
    let answer = |how: &str| {
        files
            .iter()
            .zip(&loaded)
            .find(|((c, h, _), _)| c == smallest && h == how)
            .and_then(|(_, l)| l.generated.clone())
    };
    if let (Some(whole), Some(split)) = (answer("convert"), answer("convert --split-max-tensors 8"))
    {
        if whole != split {
            failures.push(format!(
                "{smallest}: the shards generate {split}, the single file {whole}"
            ));
        }
    }
    assert!(!files.is_empty(), "no checkpoint was converted");
    assert!(
        failures.is_empty(),
        "{} of {} fail:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
