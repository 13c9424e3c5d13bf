//! `model.oldest-release`: the audit notes the oldest llama.cpp release that can load a file (the
//! newest of its tensor types and its BPE pre-tokenizer, by `ggufkit::releases`), says
//! "approximately" where the tag is, says when a need is not dated, and names the fork whose
//! type no release reads.

use ggufkit::audit::{audit, Finding, Severity};
use ggufkit::{GgmlType, Gguf, GgufBuilder, OwnedValue, ReadOptions};
use ggufkit_testkit::encode::{Model, V};

/// A file of one tensor of each `types` (256 elements each), with a BPE vocabulary whose
/// pre-tokenizer is `pre`.
fn file(types: &[GgmlType], pre: &str) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", OwnedValue::from("llama"))
        .unwrap();
    b.set("tokenizer.ggml.model", OwnedValue::from("gpt2"))
        .unwrap();
    b.set("tokenizer.ggml.pre", OwnedValue::from(pre)).unwrap();
    let zeros = vec![0u8; 1024];
    for (i, &ty) in types.iter().enumerate() {
        let n = (256 * ty.type_size() / ty.block_size()) as usize;
        b.add_tensor_with_data(&format!("t{i}"), ty, &[256], &zeros[..n])
            .unwrap();
    }
    b.to_vec().unwrap()
}

fn note(bytes: &[u8]) -> Finding {
    let g = Gguf::from_bytes_with(bytes, &ReadOptions::permissive()).unwrap();
    let notes: Vec<Finding> = audit(&g)
        .into_iter()
        .filter(|f| f.rule == "model.oldest-release")
        .collect();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert_eq!(notes[0].severity, Severity::Note);
    notes[0].clone()
}

#[test]
fn a_k_quant_file_with_a_bpe_vocabulary_is_dated_by_its_pre_tokenizer() {
    // f32 and q4_k came with GGUF itself (about b1015), `default` with the pre-tokenizers
    // (about b2760): the pre-tokenizer is the newest need
    let n = note(&file(&[GgmlType::F32, GgmlType::Q4_K], "default"));
    assert_eq!(
        n.message,
        "needs llama.cpp b2760 or later (approximately): its pre-tokenizer is `default`, from PR #6920 (BPE pre-tokenizers, 2024-04-29)"
    );
    assert_eq!(n.subject, "tokenizer.ggml.pre");
}

#[test]
fn a_k_quant_file_without_a_bpe_vocabulary_is_dated_by_its_types() {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", OwnedValue::from("llama"))
        .unwrap();
    b.set("tokenizer.ggml.model", OwnedValue::from("llama"))
        .unwrap();
    b.set("tokenizer.ggml.pre", OwnedValue::from("frobnicate"))
        .unwrap(); // not read for a SentencePiece vocabulary
    b.add_tensor_with_data("w", GgmlType::Q4_K, &[256], &[0u8; 144])
        .unwrap();
    let n = note(&b.to_vec().unwrap());
    assert_eq!(
        n.message,
        "needs llama.cpp b1015 or later (approximately): tensor 'w' is q4_k, from PR #2398 (GGUF itself, 2023-08-21); the type predates GGUF"
    );
    assert_eq!(n.subject, "w");
}

#[test]
fn an_mxfp4_file_needs_b6096_approximately() {
    let n = note(&file(
        &[GgmlType::Q8_0, GgmlType::MXFP4, GgmlType::F32],
        "qwen2",
    ));
    assert!(
        n.message.starts_with(
            "needs llama.cpp b6096 or later (approximately): tensor 't1' is mxfp4, from PR #15091"
        ),
        "{}",
        n.message
    );
    assert_eq!(n.subject, "t1");
}

#[test]
fn the_newest_type_decides_and_the_offset_is_its_info() {
    let bytes = file(
        &[GgmlType::IQ2_XXS, GgmlType::BF16, GgmlType::TQ2_0],
        "llama-bpe",
    );
    let n = note(&bytes);
    assert!(
        n.message.contains("b3704 or later (approximately)"),
        "{}",
        n.message
    );
    assert!(n.message.contains("tq2_0, from PR #8151"), "{}", n.message);
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(n.offset, g.tensor("t2").unwrap().info_offset());
}

#[test]
fn an_undated_need_is_said_to_be_undated() {
    let n = note(&file(&[GgmlType::NVFP4, GgmlType::MXFP4], "default"));
    assert!(
        n.message.starts_with("needs a llama.cpp release this audit does not date (the release tag is unknown): tensor 't0' is nvfp4, from PR #19769"),
        "{}",
        n.message
    );
    assert!(
        n.message.ends_with(
            "the rest needs llama.cpp b6096 or later (approximately) (tensor 't1' is mxfp4)"
        ),
        "{}",
        n.message
    );
    let n = note(&file(&[GgmlType::F16], "kimi-k2"));
    assert!(
        n.message.contains("its pre-tokenizer is `kimi-k2`"),
        "{}",
        n.message
    );
    assert!(n.message.contains("not dated"), "{}", n.message);
}

#[test]
fn a_fork_type_names_the_fork() {
    let bytes = Model::new()
        .kv("general.architecture", V::str("llama"))
        .f32("a", &[8], &[1.0; 8])
        .raw("ik", &[256], 153, vec![7; 66])
        .encode();
    let n = note(&bytes);
    assert_eq!(
        n.message,
        "no llama.cpp release can load it: tensor 'ik' has type iq2_kt (id 153), a type of ik_llama.cpp, which no llama.cpp release reads"
    );
    assert_eq!(n.subject, "ik");
    // and the spec finding beside it names the fork too
    let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    let spec = ggufkit::audit::spec_findings(&g);
    assert!(
        spec.iter()
            .any(|f| f.message.contains("iq2_kt of ik_llama.cpp")),
        "{spec:?}"
    );
}

#[test]
fn unknown_removed_and_turboquant_ids_say_why() {
    let bytes = Model::new()
        .kv("general.architecture", V::str("llama"))
        .raw("tq", &[256], 45, vec![1; 60])
        .raw("nobody", &[16], 1000, vec![5; 50])
        .encode();
    let n = note(&bytes);
    assert!(
        n.message.contains("TurboQuant forks") && n.message.ends_with("(and 1 more such need)"),
        "{}",
        n.message
    );
    let bytes = Model::new()
        .kv("general.architecture", V::str("llama"))
        .raw("old", &[256], 31, vec![1; 144])
        .encode();
    let n = note(&bytes);
    assert!(
        n.message
            .contains("is q4_0_4_4 (id 31), which only the releases from b3360 (approximately)")
            && n.message.contains("until b4258 (approximately)"),
        "{}",
        n.message
    );
    let bytes = Model::new()
        .kv("general.architecture", V::str("llama"))
        .raw("nobody", &[16], 1000, vec![5; 50])
        .encode();
    assert!(note(&bytes)
        .message
        .contains("type id 1000, which neither ggml nor a fork"));
}

#[test]
fn an_unknown_pre_tokenizer_is_no_release_since_the_key_counts() {
    let n = note(&file(&[GgmlType::F32], "frobnicate"));
    assert!(
        n.message
            .starts_with("no llama.cpp release can load it: tokenizer.ggml.pre is `frobnicate`"),
        "{}",
        n.message
    );
    assert!(
        n.message.contains("before b2760 (approximately)"),
        "{}",
        n.message
    );
}

#[test]
fn a_vocabulary_without_tensors_is_dated_by_its_pre_tokenizer_only() {
    let mut b = GgufBuilder::new();
    b.set("tokenizer.ggml.model", OwnedValue::from("gpt2"))
        .unwrap();
    b.set("tokenizer.ggml.pre", OwnedValue::from("tekken"))
        .unwrap();
    let n = note(&b.to_vec().unwrap());
    assert!(
        n.message.starts_with(
            "needs llama.cpp b3425 or later (approximately): its pre-tokenizer is `tekken`"
        ),
        "{}",
        n.message
    );
    // nothing needed: no note
    let b = GgufBuilder::new();
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert!(audit(&g).iter().all(|f| f.rule != "model.oldest-release"));
}
