//! Files with tensor types this build does not know (ids of forks of ggml, and ids no table has):
//! refused when opened strictly, opened permissively with complete metadata, each such tensor
//! sized from the next tensor's offset (the last one to the end of the file), one `tensor.type`
//! error each and no cascade; whatever decodes or writes refuses them by name and id.

use ggufkit::export::tensor_values;
use ggufkit::validate::check_fast_paths;
use ggufkit::{Error, Gguf, GgufBuilder, ReadOptions, Rule, TensorType};
use ggufkit_testkit::encode::{Model, V};

/// f32 `a`, then iq4_k (ik_llama.cpp, 139) with 144 bytes, f32 `b`, iq2_tn or pq2_0 (142) with
/// 40 bytes, unsloth's iq1_xxxs (66) with 8 bytes, and id 1000 (in no table) last with 50 bytes,
/// unpadded.
fn model() -> Model {
    let m = Model {
        pad_last: false,
        ..Model::new()
    };
    m.kv("general.architecture", V::str("llama"))
        .kv("general.name", V::str("forks"))
        .f32("a", &[8], &[1.0; 8])
        .raw("ik", &[256], 139, vec![7; 144])
        .f32("b", &[4], &[1.0, 2.0, 3.0, 4.0])
        .raw("prism", &[128], 142, vec![8; 40])
        .raw("unsloth", &[32], 66, vec![9; 8])
        .raw("nobody", &[16], 1000, vec![5; 50])
}

fn permissive(bytes: &[u8]) -> Gguf<'_> {
    Gguf::from_bytes_with(bytes, &ReadOptions::permissive()).expect("opens permissively")
}

#[test]
fn strict_opening_names_the_first_unknown_type() {
    let (bytes, lay) = model().encode_with_layout();
    let m = model();
    let Err(Error::Format(d)) = Gguf::from_bytes(&bytes) else {
        panic!("a file with a fork's type opened strictly");
    };
    assert_eq!(d.rule, Rule::TensorType);
    assert_eq!(d.offset, lay.ty(&m, 1));
    assert!(
        d.message.contains("type 139 (iq4_k of ik_llama.cpp)"),
        "{d}"
    );
}

#[test]
fn permissive_opening_keeps_the_metadata_and_every_tensor() {
    let bytes = model().encode();
    let g = permissive(&bytes);
    assert_eq!(g.kv_count(), 2);
    assert_eq!(g.model_name(), Some("forks"));
    assert_eq!(g.tensor_count(), 6);
    let types: Vec<String> = g.tensors().map(|t| t.tensor_type().to_string()).collect();
    assert_eq!(
        types,
        [
            "f32",
            "iq4_k (ik_llama.cpp, id 139)",
            "f32",
            "iq2_tn or pq2_0 (ik_llama.cpp, withdrawn, or Prism, id 142)",
            "iq1_xxxs (unsloth's experiments, id 66)",
            "unknown (id 1000)",
        ]
    );
    let ids: Vec<u32> = g.tensors().map(|t| t.type_id()).collect();
    assert_eq!(ids, [0, 139, 0, 142, 66, 1000]);
    assert_eq!(
        g.tensor("ik").map(|t| t.tensor_type()),
        Some(TensorType::Other(139))
    );
    assert_eq!(
        g.tensor("ik").map(|t| t.tensor_type().name()),
        Some("iq4_k")
    );
}

#[test]
fn sizes_come_from_the_next_offset_and_the_end_of_the_file() {
    let bytes = model().encode();
    let g = permissive(&bytes);
    let size = |n: &str| g.tensor(n).map(|t| t.size());
    // 144 bytes padded to 32: the bytes up to the next tensor's data
    assert_eq!(size("ik"), Some(160));
    assert_eq!(size("prism"), Some(64));
    assert_eq!(size("unsloth"), Some(32));
    // the last one runs to the end of the file
    assert_eq!(size("nobody"), Some(50));
    let last = g.tensor("nobody").expect("last");
    assert_eq!(last.absolute_offset() + 50, bytes.len() as u64);
    assert_eq!(g.expected_len(), bytes.len() as u64);
    // the data of a known tensor after them is where it is
    let b = g.tensor("b").expect("b");
    let floats: Vec<f32> = b
        .data()
        .expect("data")
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4")))
        .collect();
    assert_eq!(floats, [1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        g.tensor("ik").and_then(|t| t.data()),
        Some(&bytes[g.tensor("ik").unwrap().absolute_offset() as usize..][..160])
    );
}

#[test]
fn one_type_error_per_unknown_tensor_and_no_cascade() {
    let (bytes, lay) = model().encode_with_layout();
    let m = model();
    let g = permissive(&bytes);
    let r = g.report();
    let errors: Vec<(Rule, u64)> = r.errors.iter().map(|d| (d.rule, d.offset)).collect();
    let at = |i| (Rule::TensorType, lay.ty(&m, i));
    assert_eq!(errors, [at(1), at(3), at(4), at(5)]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(!r.valid());
    assert!(!r.ggml_compatible());
    // the same through validation
    let v = ggufkit::validate_bytes(&bytes);
    assert_eq!(v.errors, r.errors);
}

#[test]
fn decoding_and_writing_refuse_them_by_name_and_id() {
    let bytes = model().encode();
    let g = permissive(&bytes);
    let t = g.tensor("ik").expect("ik");
    match t.ggml_type() {
        Err(Error::UnsupportedTensorType { tensor, ty }) => {
            assert_eq!(tensor, "ik");
            assert_eq!(ty.id(), 139);
        }
        other => panic!("{other:?}"),
    }
    let e = tensor_values(&t, t.data().expect("its bytes")).expect_err("an unknown type's values");
    assert!(
        matches!(e, Error::UnsupportedTensorType { ref tensor, .. } if tensor == "ik"),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "tensor 'ik' has type iq4_k (ik_llama.cpp, id 139), which this build cannot decode or write"
    );
    let Err(e) = GgufBuilder::from_gguf(&g) else {
        panic!("a builder of a file with an unknown type");
    };
    assert!(
        matches!(e, Error::UnsupportedTensorType { ref tensor, .. } if tensor == "ik"),
        "{e}"
    );
    // the known tensors still decode
    let a = g.tensor("a").expect("a");
    assert!(tensor_values(&a, a.data().expect("its bytes")).is_ok());
}

#[test]
fn an_offset_before_the_unknown_tensor_ends_is_a_tensor_offset_error() {
    let mut m = model();
    // `b` claims to start before `ik` (at 32) ends
    m.tensors[2].offset = Some(0);
    let (bytes, lay) = m.encode_with_layout();
    let e = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).expect_err("overlap");
    let Error::Format(d) = e else {
        panic!("{e}");
    };
    assert_eq!((d.rule, d.offset), (Rule::TensorOffset, lay.offset(&m, 2)));
    assert!(d.message.contains("from 32"), "{d}");
    // not aligned
    let mut m = model();
    m.tensors[2].offset = Some(200);
    let bytes = m.encode();
    let Err(Error::Format(d)) = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()) else {
        panic!("an unaligned offset after an unknown type opened");
    };
    assert_eq!(d.rule, Rule::TensorOffset);
}

#[test]
fn a_stream_header_and_the_fast_paths_agree() {
    let bytes = model().encode();
    check_fast_paths(&bytes).expect("the two paths agree");
    // the stream reader agrees with the slice, the last tensor's end aside (hostile_props found it)
    ggufkit_testkit::checks::check_stream(&bytes, vec![7, 13, 64]);
    let (g, _) = Gguf::read_header_with(&bytes[..], &ReadOptions::permissive()).expect("stream");
    assert_eq!(g.tensor_count(), 6);
    assert_eq!(g.tensor("ik").map(|t| t.size()), Some(160));
    // the stream's length is unknown: the last one has no size
    assert_eq!(g.tensor("nobody").map(|t| t.size()), Some(0));
    assert!(g.tensor("nobody").and_then(|t| t.data()).is_none());
    // every prefix of the file, and a removed type, still agree
    for n in 0..bytes.len() {
        check_fast_paths(&bytes[..n]).unwrap_or_else(|e| panic!("first {n} bytes: {e}"));
    }
    let removed = Model::new()
        .raw("old", &[32], 4, vec![1; 20])
        .f32("x", &[1], &[2.0]);
    let b = removed.encode();
    check_fast_paths(&b).expect("removed type");
    let g = permissive(&b);
    assert_eq!(
        g.tensor("old")
            .map(|t| t.tensor_type().to_string())
            .as_deref(),
        Some("q4_2 (removed from ggml, id 4)")
    );
    assert_eq!(g.tensor("old").map(|t| t.size()), Some(32));
}
