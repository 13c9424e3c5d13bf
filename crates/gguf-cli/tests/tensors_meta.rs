//! `gguf tensors` and `gguf meta get`.

mod common;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::shared;

#[test]
fn tensors_table_of_a_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, err) = run(dir.path(), &["tensors", &f]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("tensors_fixture", out);
}

#[test]
fn tensors_filter_and_sort() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, _) = run(
        dir.path(),
        &["tensors", &f, "--filter", "blk.*", "--sort", "name"],
    );
    assert_eq!(code, 0);
    let names: Vec<&str> = out
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with('-'))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "blk.0.attn_norm.weight",
            "blk.0.attn_q.weight",
            "blk.1.attn_norm.weight",
            "blk.1.attn_q.weight"
        ]
    );
    assert!(out.contains("4 tensors"), "{out}");
    let (_, out, _) = run(dir.path(), &["tensors", &f, "--sort", "size", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let sizes: Vec<u64> = v["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["size"].as_u64().unwrap())
        .collect();
    let mut sorted = sizes.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(sizes, sorted);
    assert_eq!(v["total"]["count"], 7);
    assert_eq!(v["total"]["size"], sizes.iter().sum::<u64>());
}

#[test]
fn tensors_json_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, _) = run(dir.path(), &["tensors", &f, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["file"], "tiny.gguf");
    let t = &v["tensors"][1];
    assert_eq!(t["name"], "blk.0.attn_q.weight");
    assert_eq!(t["type"], "f32");
    assert_eq!(t["shape"], serde_json::json!([8, 8]));
    assert_eq!(t["n_elements"], 64);
    assert_eq!(t["size"], 256);
    assert_eq!(t["offset"], 128);
}

#[test]
fn tensors_several_files_and_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, err) = run(dir.path(), &["tensors", &f, "missing.gguf", &f, "--json"]);
    assert_eq!(code, 2);
    assert_eq!(out.lines().count(), 2);
    assert!(err.starts_with("gguf: missing.gguf: "), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn tensors_of_a_garbage_file_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = tiny_model().encode();
    bytes.truncate(40);
    std::fs::write(dir.path().join("cut.gguf"), bytes).unwrap();
    let (code, out, err) = run(dir.path(), &["tensors", "cut.gguf"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.starts_with("gguf: cut.gguf: at byte 8: "), "{err}");
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn tensors_on_corpus_models() {
    let Some(c) = shared::corpus() else { return };
    let (code, out, err) = run(&c, &["tensors", "models/llama-2-tiny-random.gguf"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("tensors_llama_tiny", out);
    let (code, out, _) = run(
        &c,
        &[
            "tensors",
            "models/superpoint.gguf",
            "--sort",
            "type",
            "--filter",
            "l1*",
        ],
    );
    assert_eq!(code, 0);
    insta::assert_snapshot!("tensors_superpoint_l1_by_type", out);
}

#[test]
fn meta_get_scalars_strings_and_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let get = |k: &str, json: bool| {
        let mut a = vec!["meta", "get", &f, k];
        if json {
            a.push("--json");
        }
        run(dir.path(), &a)
    };
    assert_eq!(
        get("general.architecture", false),
        (0, "llama\n".into(), String::new())
    );
    assert_eq!(get("llama.block_count", false).1, "2\n");
    assert_eq!(
        get("tokenizer.ggml.tokens", false).1,
        "<unk>\n<s>\n</s>\na|b\n"
    );
    assert_eq!(
        get("tokenizer.ggml.scores", false).1,
        "0.0\n0.0\n0.0\n-1.5\n"
    );
    assert_eq!(
        get("tokenizer.ggml.scores", true).1,
        "{\"key\":\"tokenizer.ggml.scores\",\"type\":\"array\",\"element_type\":\"float32\",\"value\":[0.0,0.0,0.0,-1.5]}\n"
    );
    assert_eq!(
        get("llama.block_count", true).1,
        "{\"key\":\"llama.block_count\",\"type\":\"uint32\",\"value\":2}\n"
    );
    let (code, out, err) = get("no.such.key", false);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(
        err,
        "gguf: tiny.gguf: no key 'no.such.key' among its 13 key-value pairs\n"
    );
    let (code, _, err) = run(dir.path(), &["meta", "get", "absent.gguf", "x"]);
    assert_eq!(code, 2);
    assert!(err.starts_with("gguf: absent.gguf: "), "{err}");
}

#[test]
fn meta_get_whole_array_on_corpus() {
    let Some(c) = shared::corpus() else { return };
    let f = "vocab/ggml-vocab-llama-spm.gguf";
    let (code, out, _) = run(&c, &["meta", "get", f, "tokenizer.ggml.tokens"]);
    assert_eq!(code, 0);
    let (_, json, _) = run(&c, &["meta", "get", f, "tokenizer.ggml.tokens", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let n = v["value"].as_array().unwrap().len();
    assert_eq!(n, 32000);
    assert_eq!(out.lines().count(), n);
}
