//! Files from TurboQuant's forks, which give their own types ids 41-47: 41 and 42 are ggml's
//! `q1_0` and `q2_0`. A tensor under such an id whose size contradicts the file (a first
//! dimension that is no multiple of the block, an offset the id's size does not reach, data that
//! would run past the end) is refused strictly by the rule it breaks, and opened permissively as
//! a fork's type sized from the offsets, with one error each and no cascade; the same ids used
//! honestly are plain q1_0 and q2_0.

use ggufkit::validate::check_fast_paths;
use ggufkit::{Error, GgmlType, Gguf, ReadOptions, Rule, TensorType};
use ggufkit_testkit::encode::{Model, V};

/// f32 `a`; `blocky` as id 41 with 32 elements (q1_0's block is 128) and 20 bytes; f32 `b`;
/// `sized` as id 42 with 256 elements (72 bytes as q2_0) and 112 bytes; `turbo` as id 45, 14
/// bytes; `tail` as id 41 with 256 elements (36 bytes as q1_0) and 20 bytes, the file's end.
fn model() -> Model {
    let m = Model {
        pad_last: false,
        ..Model::new()
    };
    let mut m = m
        .kv("general.architecture", V::str("llama"))
        .kv("general.name", V::str("turbo"))
        .f32("a", &[8], &[1.0; 8])
        .raw("blocky", &[32], 41, vec![7; 20])
        .f32("b", &[4], &[1.0, 2.0, 3.0, 4.0])
        .raw("sized", &[256], 42, vec![8; 112])
        .raw("turbo", &[32], 45, vec![9; 14])
        .raw("tail", &[256], 41, vec![5; 20]);
    // laid out by the bytes each really has, as the fork's writer does
    let mut next = 0;
    for t in &mut m.tensors {
        t.offset = Some(next);
        next = (next + t.data.len() as u64).div_ceil(32) * 32;
    }
    m
}

fn permissive(bytes: &[u8]) -> Gguf<'_> {
    Gguf::from_bytes_with(bytes, &ReadOptions::permissive()).expect("opens permissively")
}

#[test]
fn strict_opening_stops_at_the_rule_the_spec_breaks() {
    let (bytes, lay) = model().encode_with_layout();
    let m = model();
    let Err(Error::Format(d)) = Gguf::from_bytes(&bytes) else {
        panic!("a fork's type under ggml's id 41 opened strictly");
    };
    assert_eq!((d.rule, d.offset), (Rule::TensorBlock, lay.ty(&m, 1)));
    assert!(
        d.message.contains("TurboQuant forks reuse ids 41-47"),
        "{d}"
    );
}

#[test]
fn permissive_opening_takes_them_as_a_forks_types() {
    let bytes = model().encode();
    let g = permissive(&bytes);
    assert_eq!(g.model_name(), Some("turbo"));
    let types: Vec<String> = g.tensors().map(|t| t.tensor_type().to_string()).collect();
    let reused = |ty: &str, id: u32| {
        format!("unknown (not {ty}, whose size does not fit: TurboQuant forks reuse ids 41-47; id {id})")
    };
    assert_eq!(
        types,
        [
            "f32".to_string(),
            reused("q1_0", 41),
            "f32".to_string(),
            reused("q2_0", 42),
            "turboquant (TurboQuant forks, each numbering its types differently, id 45)".into(),
            reused("q1_0", 41),
        ]
    );
    let ids: Vec<u32> = g.tensors().map(|t| t.type_id()).collect();
    assert_eq!(ids, [0, 41, 0, 42, 45, 41]);
    assert_eq!(
        g.tensor("sized").map(|t| t.tensor_type()),
        Some(TensorType::Other(42))
    );
    // sizes from the offsets: padded to 32 up to the next tensor, the last to the end of the file
    let size = |n: &str| g.tensor(n).map(|t| t.size());
    assert_eq!(size("blocky"), Some(32));
    assert_eq!(size("sized"), Some(128));
    assert_eq!(size("turbo"), Some(32));
    assert_eq!(size("tail"), Some(20));
    assert_eq!(g.expected_len(), bytes.len() as u64);
    let b = g.tensor("b").expect("b");
    assert_eq!(b.data().map(<[u8]>::len), Some(16));
    assert_eq!(
        b.data().map(|d| d[4..8].to_vec()),
        Some(2f32.to_le_bytes().to_vec())
    );
    // decoding refuses them, by name and id
    match g.tensor("sized").expect("sized").ggml_type() {
        Err(Error::UnsupportedTensorType { tensor, ty }) => {
            assert_eq!((tensor.as_str(), ty.id()), ("sized", 42));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn one_error_each_by_the_rule_it_breaks() {
    let (bytes, lay) = model().encode_with_layout();
    let m = model();
    let g = permissive(&bytes);
    let r = g.report();
    let tail_data = g.tensor("tail").expect("tail").absolute_offset();
    let errors: Vec<(Rule, u64)> = r.errors.iter().map(|d| (d.rule, d.offset)).collect();
    assert_eq!(
        errors,
        [
            (Rule::TensorBlock, lay.ty(&m, 1)),
            (Rule::TensorType, lay.ty(&m, 4)),
            // the offset of `turbo`, which q2_0's 72 bytes of `sized` do not reach
            (Rule::TensorOffset, lay.offset(&m, 4)),
            (Rule::Truncated, tail_data),
        ],
        "{:#?}",
        r.errors
    );
    assert!(
        r.errors[2].message.contains("'sized' as q2_0 (id 42)"),
        "{}",
        r.errors[2]
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert!(!r.valid());
    assert_eq!(ggufkit::validate_bytes(&bytes).errors, r.errors);
}

#[test]
fn the_same_ids_used_honestly_are_ggmls_types() {
    let m = Model::new()
        .raw("one", &[256], 41, vec![1; 36])
        .raw("two", &[128], 42, vec![2; 36])
        .f32("x", &[1], &[2.0]);
    let bytes = m.encode();
    let g = Gguf::from_bytes(&bytes).expect("q1_0 and q2_0 open strictly");
    let types: Vec<TensorType> = g.tensors().map(|t| t.tensor_type()).collect();
    assert_eq!(
        types,
        [
            TensorType::Ggml(GgmlType::Q1_0),
            TensorType::Ggml(GgmlType::Q2_0),
            TensorType::Ggml(GgmlType::F32)
        ]
    );
    assert!(permissive(&bytes).report().errors.is_empty());
}

#[test]
fn an_offset_that_goes_back_is_still_refused() {
    let mut m = model();
    // `turbo` claims to start before `sized` does
    m.tensors[4].offset = Some(0);
    let (bytes, lay) = m.encode_with_layout();
    let Err(Error::Format(d)) = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()) else {
        panic!("an offset before the reused tensor's opened");
    };
    assert_eq!((d.rule, d.offset), (Rule::TensorOffset, lay.offset(&m, 4)));
}

#[test]
fn a_stream_header_and_the_fast_paths_agree() {
    let bytes = model().encode();
    check_fast_paths(&bytes).expect("the two paths agree");
    for n in 0..bytes.len() {
        check_fast_paths(&bytes[..n]).unwrap_or_else(|e| panic!("first {n} bytes: {e}"));
    }
    let (g, _) = Gguf::read_header_with(&bytes[..], &ReadOptions::permissive()).expect("stream");
    let slice = permissive(&bytes);
    for (a, b) in g.tensors().zip(slice.tensors()).take(5) {
        assert_eq!(
            (a.tensor_type(), a.size(), a.offset()),
            (b.tensor_type(), b.size(), b.offset())
        );
    }
    // a stream's length is unknown: its last tensor is taken at the id's word
    let tail = g.tensor("tail").expect("tail");
    assert_eq!(tail.tensor_type(), TensorType::Ggml(GgmlType::Q1_0));
    assert_eq!(
        g.expected_len(),
        (tail.absolute_offset() + tail.size()).next_multiple_of(32)
    );
    // and the testkit's stream check says so, strictly and permissively, in any chunking
    ggufkit_testkit::checks::check_stream(&bytes, vec![1, 7, 64]);
}

/// A strict reading stops with the very error a permissive one records first, in the same words,
/// for each way a reused id's size can contradict the file: a first dimension that is no multiple
/// of the block, a next offset it does not reach, data past the end.
#[test]
fn strict_stops_with_the_permissive_first_error() {
    let honest_before = |t: &str| {
        Model::new()
            .f32("a", &[8], &[1.0; 8])
            .raw(t, &[256], 41, vec![5; 20])
    };
    // `blocky`'s 32 elements are no q1_0 block
    let block = model();
    // `short` as q1_0 is 36 bytes, but `next` starts 32 bytes after it
    let mut offset = honest_before("short").f32("next", &[4], &[1.0; 4]);
    offset.tensors[0].offset = Some(0);
    offset.tensors[1].offset = Some(32);
    offset.tensors[2].offset = Some(64);
    // `tail` as q1_0 is 36 bytes, but the file ends 20 bytes after its start
    let end = Model {
        pad_last: false,
        ..honest_before("tail")
    };
    for (case, m, rule) in [
        ("block", block, Rule::TensorBlock),
        ("offset", offset, Rule::TensorOffset),
        ("end", end, Rule::Truncated),
    ] {
        let bytes = m.encode();
        let Err(Error::Format(strict)) = Gguf::from_bytes(&bytes) else {
            panic!("{case}: opened strictly");
        };
        let report = ggufkit::validate_bytes(&bytes);
        assert_eq!(Some(&strict), report.first_error(), "{case}");
        assert_eq!(strict.rule, rule, "{case}: {strict}");
        assert!(
            strict.message.contains("read permissively"),
            "{case}: {strict}"
        );
    }
}
