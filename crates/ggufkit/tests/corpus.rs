//! Every file of `../shared/corpus` with its expected verdict, justified from the spec and the
//! contract. The big-endian files must give the same metadata and tensors as their little-endian
//! originals.

use ggufkit::{validate_file, Gguf, Rule, Value};
use ggufkit_testkit::shared;

/// A row: path under corpus/, valid, ggml_compatible, first error, warning rules joined by commas.
type Row = (&'static str, bool, bool, Option<(Rule, u64)>, &'static str);

/// (path under corpus/, valid, ggml_compatible, first error (rule, offset), warning rules).
///
/// Why, in short (the contract's rules table decides; offsets are those of the offending field):
/// - big-endian/*, synthetic/big_endian: the spec reads both byte orders, ggml does not (ggml.endian at
///   the version field).
/// - malformed/utf8-mangled-*: replacement characters made the real strings longer than their
///   lengths say, so a later length field reads text as a huge number: truncated at that field.
/// - edge/bool_value_2: the spec's gguf_bool allows max 1; ggml reads any byte as true.
/// - malformed/truncated_in_tensor_data, tensor_data_past_eof: the last tensor's data runs past the
///   end: truncated at that tensor's data. edge/trailing_padding_removed: the data is whole but the
///   padding after it (which ggml reads too) is missing: truncated at the padding.
/// - kv_nested_arrays: nested arrays are valid (gguf.md allows them), ggml rejects them.
/// - kv_non_utf8_string: the spec decodes strings as UTF-8; ggml does not check.
/// - alignment_*: general.alignment must be a uint32 power of two: alignment at the value.
/// - duplicate_key: key.duplicate at the second pair (Kaitai cannot see it; the contract adds it).
/// - truncated_in_kv: 12 tensor infos need 288 bytes but 44 remain: truncated at the tensor count.
/// - tensor_duplicate_name: the duplicate name comes before its wrong offset.
/// - tensor_ne_overflow: 2^62 x 2^62 elements: tensor.size at the dimensions.
/// - version_0: version 0 reads as big-endian by the spec's rule, and 0 is not 2 or 3.
/// - vocab-history/llama@2023-08-21 is GGUF v1: version.
const EXPECTED: &[Row] = &[
    (
        "big-endian/ggml-vocab-llama-spm.BE.gguf",
        true,
        false,
        None,
        "ggml.endian",
    ),
    (
        "big-endian/llama-2-tiny-random.BE.gguf",
        true,
        false,
        None,
        "ggml.endian",
    ),
    (
        "big-endian/superpoint.BE.gguf",
        true,
        false,
        None,
        "ggml.endian",
    ),
    (
        "malformed/utf8-mangled-vocab-baichuan.gguf",
        false,
        false,
        Some((Rule::Truncated, 387)),
        "",
    ),
    (
        "malformed/utf8-mangled-vocab-bert-bge.gguf",
        false,
        false,
        Some((Rule::Truncated, 212)),
        "",
    ),
    ("models/llama-2-tiny-random.gguf", true, true, None, ""),
    ("models/superpoint.gguf", true, true, None, ""),
    (
        "split/llama-2-tiny-random-00001-of-00003.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "split/llama-2-tiny-random-00002-of-00003.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "split/llama-2-tiny-random-00003-of-00003.gguf",
        true,
        true,
        None,
        "",
    ),
    ("synthetic/align_1.gguf", true, true, None, ""),
    ("synthetic/align_4096.gguf", true, true, None, ""),
    ("synthetic/align_64.gguf", true, true, None, ""),
    (
        "synthetic/bench_big_string_array.gguf",
        true,
        true,
        None,
        "",
    ),
    ("synthetic/bench_many_tensors.gguf", true, true, None, ""),
    (
        "synthetic/big_endian.gguf",
        true,
        false,
        None,
        "ggml.endian",
    ),
    (
        "synthetic/edge/bool_value_2.gguf",
        false,
        true,
        Some((Rule::ValueBool, 37)),
        "",
    ),
    (
        "synthetic/edge/tensor_name_empty.gguf",
        true,
        true,
        None,
        "",
    ),
    ("synthetic/edge/tensor_ne_zero.gguf", true, true, None, ""),
    (
        "synthetic/edge/tensor_ok_reference.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "synthetic/edge/trailing_padding_removed.gguf",
        false,
        false,
        Some((Rule::Truncated, 1604)),
        "",
    ),
    ("synthetic/header_only_no_kv.gguf", true, true, None, ""),
    (
        "synthetic/kv_all_scalar_and_array_types.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "synthetic/kv_nested_arrays.gguf",
        true,
        false,
        None,
        "ggml.nested_array",
    ),
    (
        "synthetic/kv_non_utf8_string.gguf",
        false,
        true,
        Some((Rule::ValueUtf8, 106)),
        "",
    ),
    (
        "synthetic/malformed/alignment_not_pow2.gguf",
        false,
        false,
        Some((Rule::Alignment, 53)),
        "",
    ),
    (
        "synthetic/malformed/alignment_wrong_type_u64.gguf",
        false,
        false,
        Some((Rule::Alignment, 53)),
        "",
    ),
    (
        "synthetic/malformed/alignment_zero.gguf",
        false,
        false,
        Some((Rule::Alignment, 53)),
        "",
    ),
    (
        "synthetic/malformed/bad_magic.gguf",
        false,
        false,
        Some((Rule::Magic, 0)),
        "",
    ),
    (
        "synthetic/malformed/duplicate_key.gguf",
        false,
        false,
        Some((Rule::KeyDuplicate, 67)),
        "",
    ),
    (
        "synthetic/malformed/empty_file.gguf",
        false,
        false,
        Some((Rule::Truncated, 0)),
        "",
    ),
    (
        "synthetic/malformed/empty_key.gguf",
        false,
        false,
        Some((Rule::KeyEmpty, 24)),
        "",
    ),
    (
        "synthetic/malformed/key_len_huge.gguf",
        false,
        false,
        Some((Rule::Truncated, 24)),
        "",
    ),
    (
        "synthetic/malformed/kv_count_huge.gguf",
        false,
        false,
        Some((Rule::Truncated, 16)),
        "",
    ),
    (
        "synthetic/malformed/kv_type_13_invalid.gguf",
        false,
        false,
        Some((Rule::ValueType, 33)),
        "",
    ),
    (
        "synthetic/malformed/tensor_count_huge.gguf",
        false,
        false,
        Some((Rule::Truncated, 8)),
        "",
    ),
    (
        "synthetic/malformed/tensor_data_past_eof.gguf",
        false,
        false,
        Some((Rule::Truncated, 64)),
        "",
    ),
    (
        "synthetic/malformed/tensor_duplicate_name.gguf",
        false,
        false,
        Some((Rule::TensorDuplicate, 57)),
        "",
    ),
    (
        "synthetic/malformed/tensor_n_dims_5.gguf",
        false,
        false,
        Some((Rule::TensorDims, 33)),
        "",
    ),
    (
        "synthetic/malformed/tensor_name_65_bytes.gguf",
        false,
        false,
        Some((Rule::TensorName, 24)),
        "",
    ),
    (
        "synthetic/malformed/tensor_ne_overflow.gguf",
        false,
        false,
        Some((Rule::TensorSize, 37)),
        "",
    ),
    (
        "synthetic/malformed/tensor_offset_misaligned.gguf",
        false,
        false,
        Some((Rule::TensorOffset, 49)),
        "",
    ),
    (
        "synthetic/malformed/tensor_overlapping_offsets.gguf",
        false,
        false,
        Some((Rule::TensorOffset, 82)),
        "",
    ),
    (
        "synthetic/malformed/tensor_q8_0_ne0_not_block_multiple.gguf",
        false,
        false,
        Some((Rule::TensorBlock, 45)),
        "",
    ),
    (
        "synthetic/malformed/tensor_type_4_removed_q4_2.gguf",
        false,
        false,
        Some((Rule::TensorType, 45)),
        "",
    ),
    (
        "synthetic/malformed/tensor_type_99_unknown.gguf",
        false,
        false,
        Some((Rule::TensorType, 45)),
        "",
    ),
    (
        "synthetic/malformed/truncated_in_header.gguf",
        false,
        false,
        Some((Rule::Truncated, 8)),
        "",
    ),
    (
        "synthetic/malformed/truncated_in_kv.gguf",
        false,
        false,
        Some((Rule::Truncated, 8)),
        "",
    ),
    (
        "synthetic/malformed/truncated_in_tensor_data.gguf",
        false,
        false,
        Some((Rule::Truncated, 1600)),
        "",
    ),
    (
        "synthetic/malformed/version_0.gguf",
        false,
        false,
        Some((Rule::Version, 4)),
        "",
    ),
    (
        "synthetic/malformed/version_1_legacy_header.gguf",
        false,
        false,
        Some((Rule::Version, 4)),
        "",
    ),
    (
        "synthetic/malformed/version_4_future.gguf",
        false,
        false,
        Some((Rule::Version, 4)),
        "",
    ),
    ("synthetic/split-00001-of-00003.gguf", true, true, None, ""),
    ("synthetic/split-00002-of-00003.gguf", true, true, None, ""),
    ("synthetic/split-00003-of-00003.gguf", true, true, None, ""),
    ("synthetic/tensors_all_types_raw.gguf", true, true, None, ""),
    ("synthetic/tensors_float_int.gguf", true, true, None, ""),
    (
        "synthetic/tensors_q8_1_q2_0_ggml_sizes.gguf",
        true,
        true,
        None,
        "",
    ),
    ("synthetic/tensors_quantized.gguf", true, true, None, ""),
    ("synthetic/zero_tensors.gguf", true, true, None, ""),
    (
        "vocab-history/ggml-vocab-falcon@2023-10-03_ff5a3f0c0.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-gpt2@2023-12-28_ea5497df5.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-llama@2023-08-21_6381d4e11.gguf",
        false,
        false,
        Some((Rule::Version, 4)),
        "",
    ),
    (
        "vocab-history/ggml-vocab-llama@2023-11-02_2756c4fbf.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-mpt@2023-10-22_9e70cc032.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-phi-3@2024-04-29_f4ab2a414.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-phi-3@2024-05-04_92139b90a.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-refact@2023-10-24_daab3d7f4.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-stablelm@2024-04-29_f4ab2a414.gguf",
        true,
        true,
        None,
        "",
    ),
    (
        "vocab-history/ggml-vocab-starcoder@2023-10-24_daab3d7f4.gguf",
        true,
        true,
        None,
        "",
    ),
    ("vocab/ggml-vocab-aquila.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-baichuan.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-bert-bge.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-command-r.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-deepseek-coder.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-deepseek-llm.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-falcon.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-gemma-4.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-gpt-2.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-gpt-neox.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-llama-bpe.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-llama-spm.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-mpt.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-nomic-bert-moe.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-phi-3.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-qwen2.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-qwen35.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-refact.gguf", true, true, None, ""),
    ("vocab/ggml-vocab-starcoder.gguf", true, true, None, ""),
];

#[test]
fn every_corpus_file_has_its_verdict() {
    let Some(shared) = shared::find("") else {
        return;
    };
    let corpus = shared.join("corpus");
    let mut seen = 0;
    for (path, valid, ggml, first, warnings) in EXPECTED {
        let file = corpus.join(path);
        let r = validate_file(&file).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(r.valid(), *valid, "{path}: {:?}", r.errors);
        assert_eq!(
            r.ggml_compatible(),
            *ggml,
            "{path}: {:?} {:?}",
            r.errors,
            r.warnings
        );
        let got = r.errors.first().map(|d| (d.rule, d.offset));
        assert_eq!(got, *first, "{path}: {:?}", r.errors.first());
        let mut w: Vec<_> = r.warnings.iter().map(|d| d.rule.id()).collect();
        w.sort();
        w.dedup();
        assert_eq!(w.join(","), *warnings, "{path}");
        // strict opening agrees with the verdict
        assert_eq!(Gguf::open(&file).is_ok(), *valid, "{path}");
        seen += 1;
    }
    // every file in the corpus is in the table
    let mut on_disk = 0;
    let mut stack = vec![corpus.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "gguf") {
                on_disk += 1;
            }
        }
    }
    assert_eq!(seen, on_disk, "a corpus file is missing from the table");
}

fn same_model(le: &Gguf<'_>, be: &Gguf<'_>) {
    assert_eq!(le.kv_count(), be.kv_count());
    for (a, b) in le.metadata().zip(be.metadata()) {
        assert_eq!(a.key, b.key);
        assert_eq!(a.value_type(), b.value_type());
        match (a.value, b.value) {
            (Value::Array(x), Value::Array(y)) => {
                assert_eq!(x.element_type(), y.element_type());
                assert!(x.iter().eq(y.iter()), "{}", a.key);
            }
            (x, y) => assert_eq!(x, y, "{}", a.key),
        }
    }
    assert_eq!(le.tensor_count(), be.tensor_count());
    for (a, b) in le.tensors().zip(be.tensors()) {
        assert_eq!(a.name(), b.name());
        assert_eq!(a.ggml_type().unwrap(), b.ggml_type().unwrap());
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.offset(), b.offset());
        assert_eq!(a.size(), b.size());
    }
    assert_eq!(le.data_offset(), be.data_offset());
    assert_eq!(le.expected_len(), be.expected_len());
}

#[test]
fn big_endian_files_dump_like_their_originals() {
    let Some(shared) = shared::find("") else {
        return;
    };
    let c = shared.join("corpus");
    for (be, le) in [
        (
            "big-endian/llama-2-tiny-random.BE.gguf",
            "models/llama-2-tiny-random.gguf",
        ),
        ("big-endian/superpoint.BE.gguf", "models/superpoint.gguf"),
        (
            "big-endian/ggml-vocab-llama-spm.BE.gguf",
            "vocab/ggml-vocab-llama-spm.gguf",
        ),
    ] {
        let a = Gguf::open(c.join(le)).unwrap();
        let b = Gguf::open(c.join(be)).unwrap();
        assert_eq!(b.endian(), ggufkit::Endian::Big);
        same_model(&a, &b);
        // f32 tensor data decodes to the same numbers
        for (ta, tb) in a.tensors().zip(b.tensors()) {
            if ta.ggml_type().unwrap() == ggufkit::GgmlType::F32 {
                let da = ta.data().unwrap();
                let db = tb.data().unwrap();
                for (x, y) in da.chunks_exact(4).zip(db.chunks_exact(4)) {
                    assert_eq!(
                        u32::from_le_bytes(x.try_into().unwrap()),
                        u32::from_be_bytes(y.try_into().unwrap())
                    );
                }
            }
        }
    }
}

#[test]
fn vocabularies_iterate_as_borrowed_strings() {
    let Some(shared) = shared::find("") else {
        return;
    };
    let g = Gguf::open(shared.join("corpus/vocab/ggml-vocab-gemma-4.gguf")).unwrap();
    let tokens = g.get_array("tokenizer.ggml.tokens").unwrap();
    let n = tokens
        .strings()
        .unwrap()
        .filter(|s| s.as_str().is_some())
        .count() as u64;
    assert_eq!(n, tokens.len());
    assert!(n > 200_000);
    assert_eq!(g.architecture(), Some("gemma4"));
    let spm = Gguf::open(shared.join("corpus/vocab/ggml-vocab-llama-spm.gguf")).unwrap();
    let scores = spm
        .get_array("tokenizer.ggml.scores")
        .unwrap()
        .typed::<f32>()
        .unwrap();
    assert_eq!(
        scores.len() as u64,
        spm.get_array("tokenizer.ggml.tokens").unwrap().len()
    );
}
