//! `model.oldest-release`: the audit notes the oldest llama.cpp release that can load a file (the
//! newest of its tensor types, its BPE pre-tokenizer and its architecture, by
//! `ggufkit::releases`), says "approximately" where the tag is, and says why no release can (a
//! fork's type, naming the fork; a removed type or architecture; an unknown name). The table
//! covers every pre-tokenizer and architecture of the reference llama.cpp sources.

use ggufkit::audit::{audit, Finding, Severity};
use ggufkit::releases::{self, ArchSupport};
use ggufkit::{GgmlType, Gguf, GgufBuilder, OwnedValue, ReadOptions};
use ggufkit_testkit::encode::{Model, V};

/// A llama file of one tensor of each `types` (256 elements each), with a BPE vocabulary whose
/// pre-tokenizer is `pre`.
fn file(types: &[GgmlType], pre: &str) -> Vec<u8> {
    file_of("llama", types, pre)
}

/// [`file`] of the architecture `arch`.
fn file_of(arch: &str, types: &[GgmlType], pre: &str) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", OwnedValue::from(arch))
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
    // f32, q4_k and llama came with GGUF itself (about b1015), `default` with the
    // pre-tokenizers (about b2761): the pre-tokenizer is the newest need
    let n = note(&file(&[GgmlType::F32, GgmlType::Q4_K], "default"));
    assert_eq!(
        n.message,
        "needs llama.cpp b2761 or later (approximately): its pre-tokenizer is `default`, from PR #6920 (BPE pre-tokenizers, 2024-04-29)"
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
    // q4_k and llama tie (both came with GGUF): the first need, the tensor's, is named
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
        n.message.contains("b3818 or later (approximately)"),
        "{}",
        n.message
    );
    assert!(n.message.contains("tq2_0, from PR #8151"), "{}", n.message);
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(n.offset, g.tensor("t2").unwrap().info_offset());
}

#[test]
fn a_file_whose_architecture_is_newer_than_its_types_is_dated_by_the_architecture() {
    let bytes = file_of("qwen3next", &[GgmlType::Q8_0, GgmlType::BF16], "qwen2");
    let n = note(&bytes);
    let ArchSupport::Since(since) = releases::architecture("qwen3next") else {
        panic!("qwen3next is not dated")
    };
    assert_eq!(
        n.message,
        format!(
            "needs llama.cpp {} or later (approximately): architecture 'qwen3next', from {}",
            since.tag.to_string().trim_end_matches(" (approximately)"),
            since.source
        )
    );
    assert!(since.tag.number() > Some(7000), "{since:?}");
    assert_eq!(n.subject, "general.architecture");
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(n.offset, g.get_kv("general.architecture").unwrap().offset);
    // an exact tag says so by not saying "approximately"
    let n = note(&file_of("glm4moe", &[GgmlType::Q8_0], "glm4"));
    assert_eq!(
        n.message,
        "needs llama.cpp b6085 or later: architecture 'glm4moe', from oobabooga/textgen issue #7177 (GLM 4.5 added in b6085, 2025-08-05)"
    );
    // and a newer type still beats an older architecture
    let n = note(&file_of("gemma3", &[GgmlType::MXFP4], "default"));
    assert!(n.message.contains("tensor 't0' is mxfp4"), "{}", n.message);
    // a newer pre-tokenizer beats both
    let n = note(&file_of("llama", &[GgmlType::F16], "kimi-k2"));
    assert!(
        n.message.contains(
            "its pre-tokenizer is `kimi-k2`, from vendored llama.cpp: in llama-cpp-python 0.3.14"
        ),
        "{}",
        n.message
    );
    // the newest pre-tokenizers are dated too: none says undated
    for pre in ["qwen35", "gemma4", "laguna", "glm5", "grok-2"] {
        let n = note(&file(&[GgmlType::F16], pre));
        assert!(n.message.starts_with("needs llama.cpp b"), "{}", n.message);
    }
}

#[test]
fn an_architecture_no_release_loads_says_why() {
    let n = note(&file_of("frobnicator", &[GgmlType::F16], "default"));
    assert!(
        n.message.starts_with(
            "no llama.cpp release can load it: general.architecture is 'frobnicator', an architecture no release knows (to llama-cpp-python 0.3.36's llama.cpp"
        ),
        "{}",
        n.message
    );
    assert_eq!(n.subject, "general.architecture");
    let n = note(&file_of("gptj", &[GgmlType::F16], "default"));
    assert!(
        n.message.contains("general.architecture is 'gptj', a name llama.cpp has had since GGUF but never a loader for"),
        "{}",
        n.message
    );
    let n = note(&file_of("persimmon", &[GgmlType::F16], "default"));
    assert!(
        n.message
            .contains("'persimmon', which only the releases from b1438 (approximately)")
            && n.message.contains("until b2960 (approximately)"),
        "{}",
        n.message
    );
    // a multimodal projector's `clip` dates nothing: its types do
    let n = note(&file_of(
        "clip",
        &[GgmlType::F16, GgmlType::BF16],
        "default",
    ));
    assert!(n.message.contains("tensor 't1' is bf16"), "{}", n.message);
}

/// The string literals compared with `what` in `src`: `tokenizer_pre == "NAME"`, or the
/// `{ LLM_ARCH_X, "NAME" }` entries.
fn literals_after(src: &str, what: &str) -> Vec<String> {
    src.match_indices(what)
        .filter_map(|(at, _)| {
            let rest = src[at + what.len()..].trim_start();
            let rest = rest.strip_prefix('"')?;
            Some(rest.split('"').next()?.to_string())
        })
        .collect()
}

#[test]
fn every_name_of_the_reference_llama_cpp_is_in_the_table() {
    let Some(src) = ggufkit_testkit::reference::llama_cpp_src() else {
        return;
    };
    let vocab = std::fs::read_to_string(src.join("src/llama-vocab.cpp")).unwrap();
    let pre = literals_after(&vocab, "tokenizer_pre ==");
    assert!(pre.len() > 80, "{}", pre.len());
    for name in &pre {
        let i = releases::pre_tokenizer(name)
            .unwrap_or_else(|| panic!("pre-tokenizer {name} is not in the table"));
        assert!(i.tag.number().is_some(), "{name}: {i:?}");
    }
    let arch = std::fs::read_to_string(src.join("src/llama-arch.cpp")).unwrap();
    let table = &arch[arch.find("LLM_ARCH_NAMES").unwrap()..];
    let table = &table[..table.find("};").unwrap()];
    let names: Vec<String> = table
        .split("LLM_ARCH_")
        .skip(1)
        .filter_map(|e| Some(e.split_once('"')?.1.split('"').next()?.to_string()))
        .filter(|n| n != "(unknown)")
        .collect();
    assert!(names.len() > 140, "{}", names.len());
    let mut kinds = std::collections::BTreeMap::new();
    for name in &names {
        let s = releases::architecture(name);
        assert_ne!(
            s,
            ArchSupport::Unknown,
            "architecture {name} is not in the table"
        );
        let kind = match s {
            ArchSupport::Since(i) => {
                assert!(i.tag.number().is_some(), "{name}");
                "dated"
            }
            ArchSupport::Never(_) => "never",
            ArchSupport::Companion(_) => "companion",
            _ => panic!("{name}: {s:?}"),
        };
        *kinds.entry(kind).or_insert(0) += 1;
    }
    println!(
        "reference llama.cpp: {} pre-tokenizers, architectures {kinds:?}",
        pre.len()
    );
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
            .contains("is q4_0_4_4 (id 31), which only the releases from b3441 (approximately)")
            && n.message.contains("until b4264 (approximately)"),
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
        n.message.contains("a pre-tokenizer no release knows (to llama-cpp-python 0.3.36's llama.cpp (uploaded 2026-10-01); those before b2761 (approximately)"),
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
            "needs llama.cpp b3441 or later (approximately): its pre-tokenizer is `tekken`"
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
