//! `gguf info` (memory, KV cache, tokenizer) and `gguf dump --markdown`.

mod common;

use common::run;
use ggufkit_testkit::fixtures::tiny_model;
use ggufkit_testkit::{shared, Model, V};

#[test]
fn info_of_a_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model().write(dir.path(), "tiny.gguf");
    let (code, out, err) = run(dir.path(), &["info", &f]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("info_fixture", out);
    // 2 layers × 1 kv head × (4 + 4) × 2 bytes = 32 bytes per token = 32 KiB per 1,024 tokens
    assert!(out.contains("kv cache           32.00 KiB per 1,024 tokens of context, 8.00 KiB at the full context"), "{out}");
    assert!(out.contains(r#"special tokens     bos 1 "<s>", eos 2 "</s>", unk 0 "<unk>""#));
    assert!(out.contains("memory to load     864 B (864 bytes of tensor data"));
}

#[test]
fn info_kv_cache_from_key_lengths_and_per_layer_heads() {
    let dir = tempfile::tempdir().unwrap();
    let f = Model::new()
        .kv("general.architecture", V::str("x"))
        .kv("x.block_count", V::U32(3))
        .kv("x.embedding_length", V::U32(64))
        .kv("x.attention.head_count", V::U32(8))
        .kv("x.attention.head_count_kv", V::i32s(&[2, 0, 4]))
        .kv("x.attention.key_length", V::U32(16))
        .kv("x.attention.value_length", V::U32(32))
        .kv("tokenizer.ggml.model", V::str("gpt2"))
        .kv("tokenizer.ggml.tokens", V::strs(&["a"]))
        .kv("tokenizer.ggml.eos_token_id", V::U32(7))
        .write(dir.path(), "x.gguf");
    let (code, out, _) = run(dir.path(), &["info", &f]);
    assert_eq!(code, 0);
    // (2 + 0 + 4) heads × (16 + 32) × 2 bytes = 576 bytes per token
    assert!(
        out.contains("576.00 KiB per 1,024 tokens of context\n"),
        "{out}"
    );
    assert!(out.contains("6 kv heads summed over 3 layers × (key 16 + value 32) × 2 bytes (f16) = 576 bytes per token\n"), "{out}");
    assert!(out.contains("eos 7 (not in the vocabulary)"), "{out}");
    // no architecture keys: no estimate
    let g = Model::new()
        .kv("general.architecture", V::str("x"))
        .write(dir.path(), "bare.gguf");
    let (_, out, _) = run(dir.path(), &["info", &g]);
    assert!(!out.contains("kv cache"), "{out}");
}

#[test]
fn info_on_corpus() {
    let Some(c) = shared::corpus() else { return };
    let (code, out, _) = run(
        &c,
        &[
            "info",
            "models/llama-2-tiny-random.gguf",
            "vocab/ggml-vocab-bert-bge.gguf",
        ],
    );
    assert_eq!(code, 0);
    insta::assert_snapshot!("info_corpus", out);
}

#[test]
fn markdown_of_a_fixture() {
    let dir = tempfile::tempdir().unwrap();
    let f = tiny_model()
        .kv(
            "tokenizer.chat_template",
            V::str("{% for m in messages %}```{{ m }}|{% endfor %}"),
        )
        .write(dir.path(), "tiny.gguf");
    let (code, out, err) = run(dir.path(), &["dump", &f, "--markdown"]);
    assert_eq!(code, 0, "{err}");
    insta::assert_snapshot!("markdown_fixture", out);
    assert!(out.starts_with("# tiny\n"));
    // the template holds ``` so its fence is longer
    assert!(out.contains("````jinja\n{% for m in messages %}```{{ m }}|{% endfor %}\n````"));
    // every table row has the column count of its header
    let mut cols = 0;
    for l in out.lines() {
        if l.starts_with("|---") {
            continue;
        }
        if l.starts_with('|') {
            let n = l.replace("\\|", "").matches('|').count();
            if cols == 0 {
                cols = n;
            }
            assert_eq!(n, cols, "{l}");
        } else {
            cols = 0;
        }
    }
    let (code, _, _) = run(dir.path(), &["dump", &f, "--markdown", "--json"]);
    assert_eq!(code, 2);
}

#[test]
fn markdown_on_corpus() {
    let Some(c) = shared::corpus() else { return };
    let (code, out, _) = run(
        &c,
        &["dump", "models/llama-2-tiny-random.gguf", "--markdown"],
    );
    assert_eq!(code, 0);
    insta::assert_snapshot!("markdown_llama_tiny", out);
}
