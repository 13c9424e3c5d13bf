//! The model summary (`ggufkit::summary`) on the committed sample, on files written for each
//! rule of the KV-cache estimate and the tokenizer, and on real files of the shared corpus
//! (skipped, with a note, when `../shared/corpus` is absent).

use std::path::Path;

use ggufkit::summary::{
    ChatTemplate, FileType, Hyperparameters, KvCache, Summary, TokenRole, Tokenizer,
};
use ggufkit::write::{GgufBuilder, OwnedValue};
use ggufkit::{Endian, GgmlType, Gguf, ValueType};
use ggufkit_testkit::shared;

fn sample() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    std::fs::read(path).expect("samples/tiny-llama.gguf is committed")
}

/// A file with these keys and no tensors.
fn file_with(keys: &[(&str, OwnedValue)]) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    for (k, v) in keys {
        b.set(k, v.clone()).unwrap();
    }
    b.header().unwrap().0
}

#[test]
fn the_sample() {
    let bytes = sample();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let s = Summary::of(&g);
    assert_eq!(s.format.version, 3);
    assert_eq!(s.format.endian, Endian::Little);
    assert_eq!(s.format.alignment, 32);
    assert_eq!(s.format.header_bytes, 8416);
    assert_eq!((s.format.kv_count, s.format.tensor_count), (19, 20));
    assert_eq!(s.format.file_size, 107_616);
    assert_eq!(s.format.bytes_present, Some(107_616));
    assert_eq!(s.architecture.as_deref(), Some("llama"));
    assert_eq!(
        s.name.as_deref(),
        Some("tiny-llama sample (made by ggufkit)")
    );
    assert_eq!(s.file_type, Some(FileType(7)));
    assert_eq!(s.file_type.unwrap().to_string(), "Q8_0");
    assert_eq!(s.parameters, 92_480);
    assert_eq!(s.tensor_data_bytes, 99_200);
    assert_eq!(s.bits_per_weight(), Some(99_200.0 * 8.0 / 92_480.0));

    // q8_0 first (the larger share), then f32
    let types: Vec<_> = s
        .types
        .iter()
        .map(|t| (t.ggml_type.ggml().unwrap(), t.tensors, t.elements, t.bytes))
        .collect();
    assert_eq!(
        types,
        [
            (GgmlType::Q8_0, 15, 92_160, 97_920),
            (GgmlType::F32, 5, 320, 1_280)
        ]
    );
    let shares: f64 = s.types.iter().map(|t| t.percent).sum();
    assert!((shares - 100.0).abs() < 1e-9);
    assert_eq!(s.types[1].percent, 1_280.0 * 100.0 / 99_200.0);

    assert_eq!(
        s.hyperparameters,
        Hyperparameters {
            context_length: Some(2048),
            embedding_length: Some(64),
            block_count: Some(2),
            head_count: Some(4),
            head_count_kv: Some(2),
        }
    );

    // 2 layers × 2 kv heads × (16 + 16) × 2 bytes
    let kv = s.kv_cache.unwrap();
    assert_eq!(
        kv,
        KvCache {
            n_layer: 2,
            kv_heads_total: 4,
            head_count_kv: Some(2),
            key_length: 16,
            value_length: 16,
            lengths_from_keys: false,
            element_bytes: 2,
            bytes_per_token: 256,
            context_length: Some(2048),
            sliding_window: None,
        }
    );
    assert_eq!(kv.bytes_for(1024), 262_144);
    assert_eq!(kv.at_full_context(), Some(524_288));
    assert_eq!(s.memory_to_load(1024), 99_200 + 262_144);

    let t = s.tokenizer.as_ref().unwrap();
    assert_eq!(t.model.as_deref(), Some("llama"));
    assert_eq!(
        (t.pre.as_deref(), t.vocab_size, t.merges),
        (None, Some(288), None)
    );
    let special: Vec<_> = t
        .special
        .iter()
        .map(|x| (x.role.name(), x.id, x.text.as_deref()))
        .collect();
    assert_eq!(
        special,
        [
            ("bos", 1, Some("<s>")),
            ("eos", 2, Some("</s>")),
            ("unk", 0, Some("<unk>"))
        ]
    );
    assert_eq!(s.chat_template, Some(ChatTemplate::Text { bytes: 77 }));

    // two blocks of two f32 norms and seven q8_0 matrices each (attention: q, k, v, output;
    // feed-forward: gate, down, up); the embedding and the output norm outside them
    assert_eq!(s.layers.len(), 2);
    for (i, l) in s.layers.iter().enumerate() {
        assert_eq!(l.layer, i as u64);
        let by_type: Vec<_> = l
            .by_type
            .iter()
            .map(|(t, b)| (t.ggml().unwrap(), *b))
            .collect();
        assert_eq!(
            by_type,
            [
                (GgmlType::F32, 256 * 2),
                (GgmlType::Q8_0, 4352 * 2 + 2176 * 2 + 8704 * 3)
            ]
        );
        assert_eq!(l.bytes(), 39_680);
    }
    let outside: Vec<_> = s
        .outside_layers
        .iter()
        .map(|p| (p.prefix.as_str(), p.bytes))
        .collect();
    assert_eq!(outside, [("token_embd", 19_584), ("output_norm", 256)]);
}

#[test]
fn kv_cache_from_key_lengths_per_layer_heads_and_a_sliding_window() {
    let bytes = file_with(&[
        ("general.architecture", "x".into()),
        ("x.block_count", OwnedValue::U32(3)),
        ("x.embedding_length", OwnedValue::U32(64)),
        ("x.attention.head_count", OwnedValue::U32(8)),
        ("x.attention.head_count_kv", vec![2i32, 0, 4].into()),
        ("x.attention.key_length", OwnedValue::U32(16)),
        ("x.attention.value_length", OwnedValue::U32(32)),
        ("x.attention.sliding_window", OwnedValue::U32(512)),
    ]);
    let g = Gguf::from_bytes(&bytes).unwrap();
    let kv = KvCache::of(&g).unwrap();
    // (2 + 0 + 4) heads × (16 + 32) × 2 bytes
    assert_eq!(kv.kv_heads_total, 6);
    assert_eq!(kv.head_count_kv, None);
    assert!(kv.lengths_from_keys);
    assert_eq!(kv.bytes_per_token, 576);
    assert_eq!(kv.sliding_window, Some(512));
    assert_eq!(kv.at_full_context(), None);
    // the first entry of the per-layer array is the summary's kv head count
    assert_eq!(Summary::of(&g).hyperparameters.head_count_kv, Some(2));
}

#[test]
fn no_kv_cache_without_the_keys_it_needs() {
    let cases: [&[(&str, OwnedValue)]; 4] = [
        &[("general.architecture", "x".into())],
        // no architecture: its keys cannot be found
        &[
            ("x.block_count", OwnedValue::U32(2)),
            ("x.attention.head_count", OwnedValue::U32(2)),
            ("x.embedding_length", OwnedValue::U32(8)),
        ],
        // a per-layer array of the wrong length
        &[
            ("general.architecture", "x".into()),
            ("x.block_count", OwnedValue::U32(2)),
            ("x.attention.head_count", vec![2u32].into()),
            ("x.embedding_length", OwnedValue::U32(8)),
        ],
        // zero kv heads in every layer
        &[
            ("general.architecture", "x".into()),
            ("x.block_count", OwnedValue::U32(2)),
            ("x.attention.head_count", OwnedValue::U32(2)),
            ("x.attention.head_count_kv", OwnedValue::U32(0)),
            ("x.embedding_length", OwnedValue::U32(8)),
        ],
    ];
    for keys in cases {
        let bytes = file_with(keys);
        let g = Gguf::from_bytes(&bytes).unwrap();
        assert_eq!(KvCache::of(&g), None, "{keys:?}");
    }
}

#[test]
fn tokenizer_roles_spellings_and_ids_outside_the_vocabulary() {
    let bytes = file_with(&[
        ("tokenizer.ggml.tokens", vec!["a", "b", "c"].into()),
        ("tokenizer.ggml.separator_token_id", OwnedValue::U32(2)),
        ("tokenizer.ggml.eos_token_id", OwnedValue::U32(7)),
        ("tokenizer.ggml.merges", vec!["a b"].into()),
        ("tokenizer.chat_template", OwnedValue::U32(1)),
    ]);
    let g = Gguf::from_bytes(&bytes).unwrap();
    let t = Tokenizer::of(&g).unwrap();
    assert_eq!(t.model, None);
    assert_eq!((t.vocab_size, t.merges), (Some(3), Some(1)));
    let special: Vec<_> = t
        .special
        .iter()
        .map(|x| (x.role, x.id, x.text.as_deref()))
        .collect();
    assert_eq!(
        special,
        [
            (TokenRole::Eos, 7, None),
            (TokenRole::Separator, 2, Some("c"))
        ]
    );
    let s = Summary::of(&g);
    assert_eq!(
        s.chat_template,
        Some(ChatTemplate::NotText {
            value_type: ValueType::U32
        })
    );
    // no tokenizer keys: no tokenizer
    let bytes = file_with(&[("general.architecture", "x".into())]);
    assert_eq!(Tokenizer::of(&Gguf::from_bytes(&bytes).unwrap()), None);
}

#[test]
fn corpus_models() {
    let Some(c) = shared::corpus() else { return };
    let g = Gguf::open(c.join("models/llama-2-tiny-random.gguf")).unwrap();
    let s = Summary::of(&g);
    assert_eq!(s.parameters, 513_048);
    assert_eq!(s.tensor_data_bytes, 1_026_144);
    assert_eq!(
        s.types
            .iter()
            .map(|t| (t.ggml_type.ggml().unwrap(), t.tensors))
            .collect::<Vec<_>>(),
        [(GgmlType::F16, 9), (GgmlType::F32, 3)]
    );
    let kv = s.kv_cache.unwrap();
    assert_eq!(
        (kv.n_layer, kv.head_count_kv, kv.bytes_per_token),
        (1, Some(2), 32)
    );
    assert_eq!(kv.at_full_context(), Some(4096 * 32));
    assert_eq!(s.tokenizer.unwrap().vocab_size, Some(32_000));

    let g = Gguf::open(c.join("vocab/ggml-vocab-bert-bge.gguf")).unwrap();
    let s = Summary::of(&g);
    assert_eq!((s.parameters, s.tensor_data_bytes), (0, 0));
    assert!(s.types.is_empty() && s.layers.is_empty());
    assert_eq!(s.bits_per_weight(), None);
    // 12 layers × 12 heads × (32 + 32) × 2 bytes
    assert_eq!(s.kv_cache.unwrap().bytes_per_token, 18_432);
    let t = s.tokenizer.unwrap();
    assert_eq!(t.pre.as_deref(), Some("bert-bge"));
    let special: Vec<_> = t.special.iter().map(|x| (x.role.name(), x.id)).collect();
    assert_eq!(
        special,
        [("unk", 100), ("pad", 0), ("sep", 102), ("mask", 103)]
    );
    assert_eq!(t.special[2].text.as_deref(), Some("[SEP]"));
}

#[test]
fn every_corpus_file_summarises() {
    let Some(c) = shared::corpus() else { return };
    let mut n = 0;
    for p in shared::gguf_files(&c) {
        let Ok(g) = Gguf::open_with(&p, &ggufkit::ReadOptions::permissive()) else {
            continue;
        };
        let s = Summary::of(&g);
        n += 1;
        // the shares add up to the data, the layers and the rest to it as well
        let by_type: u64 = s.types.iter().map(|t| t.bytes).sum();
        let by_place: u64 = s.layers.iter().map(|l| l.bytes()).sum::<u64>()
            + s.outside_layers.iter().map(|p| p.bytes).sum::<u64>();
        assert_eq!(by_type, s.tensor_data_bytes, "{}", p.display());
        assert_eq!(by_place, s.tensor_data_bytes, "{}", p.display());
        let tensors: u64 = s.types.iter().map(|t| t.tensors).sum();
        assert_eq!(tensors, s.format.tensor_count, "{}", p.display());
        assert!(s.types.windows(2).all(|w| w[0].bytes >= w[1].bytes));
    }
    assert!(n > 50, "only {n} corpus files opened");
}
