//! `gguf validate`, `dump` and `info` as the contract fixes them: exit codes, JSON shapes, error
//! lines.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn gguf() -> Command {
    let mut c = Command::cargo_bin("gguf").unwrap();
    c.env("NO_COLOR", "1");
    c
}

/// A little-endian GGUF: one string key, one f32 tensor of 4 elements.
fn small_file() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend(3u32.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.extend(2u64.to_le_bytes());
    let key = |b: &mut Vec<u8>, k: &str, ty: u32| {
        b.extend((k.len() as u64).to_le_bytes());
        b.extend(k.as_bytes());
        b.extend(ty.to_le_bytes());
    };
    key(&mut b, "general.architecture", 8);
    b.extend(5u64.to_le_bytes());
    b.extend(b"llama");
    key(&mut b, "x.scores", 9);
    b.extend(6u32.to_le_bytes());
    b.extend(3u64.to_le_bytes());
    for v in [0.1f32, -1.5, f32::NAN] {
        b.extend(v.to_le_bytes());
    }
    b.extend(1u64.to_le_bytes());
    b.extend(b"w");
    b.extend(1u32.to_le_bytes());
    b.extend(4u64.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    while b.len() % 32 != 0 {
        b.push(0);
    }
    b.extend([0u8; 16]);
    b.extend([0u8; 16]);
    b
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn validate_json_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.gguf", &small_file());
    let mut bad_bytes = small_file();
    bad_bytes[4] = 4; // version 4
    let bad = write(dir.path(), "bad.gguf", &bad_bytes);

    let out = gguf()
        .args(["validate", "--json"])
        .arg(&good)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["valid"], true);
    assert_eq!(v["ggml_compatible"], true);
    assert_eq!(v["errors"], serde_json::json!([]));

    let out = gguf()
        .args(["validate", "--json"])
        .arg(&good)
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "one object per file, one per line");
    assert_eq!(lines[1]["valid"], false);
    assert_eq!(lines[1]["errors"][0]["rule"], "version");
    assert_eq!(lines[1]["errors"][0]["offset"], 4);

    // a missing file is an I/O error: exit 2, one line naming the file
    let out = gguf()
        .args(["validate"])
        .arg(dir.path().join("missing.gguf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("missing.gguf") && err.lines().count() == 1,
        "{err}"
    );
    // bad usage: exit 2
    assert_eq!(
        gguf().args(["validate"]).output().unwrap().status.code(),
        Some(2)
    );
}

#[test]
fn dump_json_shape_and_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.gguf", &small_file());
    let out = gguf().args(["dump", "--json"]).arg(&good).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    // float32 written as the shortest decimal for float32, NaN as a string
    assert!(text.contains("[0.1,-1.5,\"nan\"]"), "{text}");
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["version"], 3);
    assert_eq!(v["endian"], "little");
    assert_eq!(v["alignment"], 32);
    assert_eq!(v["metadata"][0]["key"], "general.architecture");
    assert_eq!(v["metadata"][0]["type"], "string");
    assert_eq!(v["metadata"][1]["element_type"], "float32");
    assert_eq!(v["tensors"][0]["name"], "w");
    assert_eq!(v["tensors"][0]["type"], "f32");
    assert_eq!(v["tensors"][0]["shape"], serde_json::json!([4]));
    assert_eq!(v["tensors"][0]["size"], 16);
    let data_offset = v["tensor_data_offset"].as_u64().unwrap();
    assert_eq!(v["file_size"].as_u64().unwrap(), data_offset + 32);

    // a file cut in its tensor data: the header is dumped whole, the problem said on stderr,
    // exit 1 (docs/exit-codes.md); --permissive is still accepted and changes nothing
    let mut b = small_file();
    b.truncate(b.len() - 1);
    let cut = write(dir.path(), "cut.gguf", &b);
    for extra in [&[][..], &["--permissive"][..]] {
        let out = gguf()
            .args(["dump", "--json"])
            .args(extra)
            .arg(&cut)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("cut.gguf: at byte "), "{err}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["tensors"][0]["name"], "w");
    }
}

#[test]
fn info_summarises() {
    let dir = tempfile::tempdir().unwrap();
    let good = write(dir.path(), "good.gguf", &small_file());
    let out = gguf().arg("info").arg(&good).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("architecture") && text.contains("llama"),
        "{text}"
    );
    assert!(
        text.contains("GGUF v3, little-endian, alignment 32"),
        "{text}"
    );
    assert!(text.contains("1 tensor, 4 parameters"), "{text}");
}

#[test]
fn corpus_json_matches_expectations() {
    let Some(shared) = ggufkit_testkit::shared::corpus() else {
        return;
    };
    let out = gguf()
        .args(["validate", "--json"])
        .arg(shared.join("synthetic/kv_nested_arrays.gguf"))
        .arg(shared.join("synthetic/edge/bool_value_2.gguf"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        (&lines[0]["valid"], &lines[0]["ggml_compatible"]),
        (&Value::Bool(true), &Value::Bool(false))
    );
    assert_eq!(lines[0]["warnings"][0]["rule"], "ggml.nested_array");
    assert_eq!(
        (&lines[1]["valid"], &lines[1]["ggml_compatible"]),
        (&Value::Bool(false), &Value::Bool(true))
    );
    assert_eq!(lines[1]["errors"][0]["rule"], "value.bool");
}
