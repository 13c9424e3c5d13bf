//! `gguf info --json`: the model summary as one JSON object per file, one line each.

mod common;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::{shared, V};
use serde_json::{json, Value};

fn objects(out: &str) -> Vec<Value> {
    out.lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn info_json_of_a_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model()
        .kv("general.file_type", V::U32(15))
        .write(dir.path(), "tiny.gguf");
    let (code, out, err) = run(dir.path(), &["info", &f, &f, "--json"]);
    assert_eq!(code, 0, "{err}");
    let o = objects(&out);
    assert_eq!(o.len(), 2, "one line per file, nothing between: {out}");
    let s = &o[0];
    assert_eq!(s["file"], json!(f));
    assert_eq!(s["valid"], json!(true));
    assert_eq!(s["architecture"], json!("llama"));
    assert_eq!(s["file_type"], json!({"id": 15, "name": "Q4_K - Medium"}));
    assert_eq!(s["tensor_data_size"], json!(864));
    // the text form's numbers: 2 layers × 1 kv head × (4 + 4) × 2 bytes per token
    assert_eq!(s["kv_cache"]["bytes_per_token"], json!(32));
    assert_eq!(s["kv_cache"]["head_count_kv"], json!(1));
    assert_eq!(s["kv_cache"]["bytes_at_context_length"], json!(8192));
    assert_eq!(
        s["tokenizer"]["special"][0],
        json!({"role": "bos", "id": 1, "text": "<s>"})
    );
    let types = s["types"].as_array().unwrap();
    let sizes: u64 = types.iter().map(|t| t["size"].as_u64().unwrap()).sum();
    assert_eq!(sizes, 864);
    let percent: f64 = types.iter().map(|t| t["percent"].as_f64().unwrap()).sum();
    assert!((percent - 100.0).abs() < 1e-9, "{percent}");
    assert_eq!(s["chat_template"], Value::Null);
}

#[test]
fn info_json_on_corpus() {
    let Some(c) = shared::corpus() else { return };
    let (code, out, _) = run(
        &c,
        &[
            "info",
            "--json",
            "models/llama-2-tiny-random.gguf",
            "vocab/ggml-vocab-bert-bge.gguf",
        ],
    );
    assert_eq!(code, 0);
    let o = objects(&out);
    assert_eq!(o[0]["parameters"], json!(513_048));
    assert_eq!(
        o[0]["bits_per_weight"],
        json!(1_026_144.0 * 8.0 / 513_048.0)
    );
    assert_eq!(o[0]["kv_cache"]["bytes_at_context_length"], json!(131_072));
    assert_eq!(o[1]["types"], json!([]));
    assert_eq!(o[1]["bits_per_weight"], Value::Null);
    assert_eq!(o[1]["kv_cache"]["bytes_per_token"], json!(18_432));
    assert_eq!(o[1]["tokenizer"]["pre"], json!("bert-bge"));
}

#[test]
fn info_context_estimates_the_kv_cache_for_n_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    // 32 bytes per token (2 layers × 1 kv head × (4 + 4) × 2 bytes) × 5,000 tokens
    let (code, out, err) = run(dir.path(), &["info", &f, "--json", "--context", "5000"]);
    assert_eq!(code, 0, "{err}");
    let o = objects(&out);
    assert_eq!(
        o[0]["kv_cache_at"],
        json!({"tokens": 5000, "bytes": 160_000})
    );
    let (code, out, err) = run(dir.path(), &["info", &f, "--context", "5000"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("at 5,000 tokens (--context)"), "{out}");
}

#[test]
fn a_file_type_the_tensors_contradict_is_a_warning() {
    use ggufkit::{GgmlType, GgufBuilder};
    let dir = tempfile::tempdir().unwrap();
    // declared Q4_K_M (15), but the weights are f16: llama.cpp's plan gives them k-quants
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.file_type", 15u32).unwrap();
    b.set("llama.block_count", 1u32).unwrap();
    b.set("llama.embedding_length", 256u32).unwrap();
    b.set("llama.attention.head_count", 2u32).unwrap();
    let w = vec![0u8; 256 * 256 * 2];
    for name in [
        "blk.0.attn_q.weight",
        "blk.0.attn_k.weight",
        "blk.0.ffn_up.weight",
    ] {
        b.add_tensor_with_data(name, GgmlType::F16, &[256, 256], &w)
            .unwrap();
    }
    std::fs::write(dir.path().join("f.gguf"), b.to_vec().unwrap()).unwrap();
    let (code, out, err) = run(dir.path(), &["info", "--json", "f.gguf"]);
    assert_eq!(code, 0, "{err}");
    let s = &objects(&out)[0];
    let m = s["file_type_mismatch"].as_str().expect("a mismatch");
    assert!(
        m.contains("general.file_type is 15") && m.contains("f16"),
        "{m}"
    );
    let (_, text, _) = run(dir.path(), &["info", "f.gguf"]);
    assert!(text.contains("warning") && text.contains(m), "{text}");
    // a file whose tensors agree has none
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (_, out, _) = run(dir.path(), &["info", "--json", &f]);
    assert_eq!(objects(&out)[0]["file_type_mismatch"], Value::Null);
}
