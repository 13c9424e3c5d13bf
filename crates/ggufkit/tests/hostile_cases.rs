//! Every case class of llama.cpp's `tests/test-gguf.cpp`, and the shapes of the known CVEs of GGUF
//! readers, written with our own encoder. Each bad file is checked for its rule id AND the byte
//! offset of the offending field, through `from_bytes` (strict), `validate` (the first error),
//! permissive opening (where the rule leaves the file readable) and the stream reader (where the
//! rule is in the header).

use ggufkit::{Endian, GgmlType, Gguf, ReadOptions, Rule};
use ggufkit_testkit::cases::{self, Expect};
use ggufkit_testkit::checks::{check_stream, check_verdicts};
use ggufkit_testkit::compare::{assert_model_eq, assert_value_eq};
use ggufkit_testkit::fixtures::deep_nesting;
use ggufkit_testkit::walk::walk;
use ggufkit_testkit::{Chunked, Model, T, V};

/// Checks every entry point's verdict on `bytes`: rule `rule` at byte `offset`.
#[track_caller]
fn expect_err(bytes: &[u8], rule: Rule, offset: u64) {
    let id = rule.id();
    cases::record("hostile_cases", bytes, Expect::Fails { rule: id, offset });
    let e = Gguf::from_bytes(bytes).expect_err("strict reading must fail");
    let d = e
        .diagnostic()
        .unwrap_or_else(|| panic!("not a format error: {e}"));
    assert_eq!(
        (d.rule, d.offset),
        (rule, offset),
        "from_bytes: {}",
        d.message
    );
    let r = ggufkit::validate_bytes(bytes);
    assert!(!r.valid());
    let first = r.first_error().expect("an error");
    assert_eq!(
        (first.rule, first.offset),
        (rule, offset),
        "validate: {}",
        first.message
    );
    assert_eq!(r, ggufkit::validate_bytes(bytes), "same verdict twice");
    // permissive: either it opens and reports the same first error, or it fails with it
    match Gguf::from_bytes_with(bytes, &ReadOptions::permissive()) {
        Ok(g) => {
            let first = g.report().first_error().expect("permissive report");
            assert_eq!((first.rule, first.offset), (rule, offset));
            walk(&g);
        }
        // permissive reading goes past soft errors and stops at the one that ends the structure:
        // validate reports that one last
        Err(e) => assert_eq!(r.errors.last(), e.diagnostic(), "permissive"),
    }
    check_stream(bytes, vec![1, 3, 7]);
    check_stream(bytes, vec![4096]);
    check_verdicts(bytes);
}

#[track_caller]
fn expect_ok(bytes: &[u8]) -> Gguf<'_> {
    cases::record("hostile_cases", bytes, Expect::Opens);
    let g = Gguf::from_bytes(bytes).unwrap_or_else(|e| panic!("must open: {e}"));
    assert!(ggufkit::validate_bytes(bytes).valid());
    check_stream(bytes, vec![1, 2, 5]);
    check_verdicts(bytes);
    walk(&g);
    g
}

fn put_u32(b: &mut [u8], at: u64, v: u32) {
    b[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(b: &mut [u8], at: u64, v: u64) {
    b[at as usize..at as usize + 8].copy_from_slice(&v.to_le_bytes());
}

/// A small valid model: two key-value pairs and two f32 tensors.
fn base() -> Model {
    Model {
        kvs: vec![
            (b"general.architecture".to_vec(), V::str("llama")),
            (b"llama.block_count".to_vec(), V::U32(2)),
        ],
        tensors: vec![
            T::new("a", &[8, 2], GgmlType::F32),
            T::new("b", &[3], GgmlType::F32),
        ],
        ..Model::default()
    }
}

fn one_tensor(dims: &[u64], ty: u32) -> Model {
    Model {
        tensors: vec![T {
            name: b"t".to_vec(),
            dims: dims.to_vec(),
            ty,
            data: Vec::new(),
            offset: Some(0),
        }],
        ..Model::default()
    }
}

// ---- magic, version, counts, empty header ----------------------------------------------------

#[test]
fn bad_magic() {
    let mut b = base().encode();
    b[3] = b'G';
    expect_err(&b, Rule::Magic, 0);
    expect_err(b"GGML\x03\0\0\0", Rule::Magic, 0);
    expect_err(b"X", Rule::Magic, 0);
    // a prefix of the magic is a truncated file, not a bad one
    expect_err(b"", Rule::Truncated, 0);
    expect_err(b"GG", Rule::Truncated, 0);
    expect_err(b"GGU", Rule::Truncated, 0);
}

#[test]
fn versions_0_1_4() {
    for v in [0u32, 1, 4, 0x7fff_0000, u32::MAX] {
        let mut b = base().encode();
        put_u32(&mut b, 4, v);
        expect_err(&b, Rule::Version, 4);
    }
    // a big-endian version 4 is still version 4
    let mut m = base();
    m.endian = Endian::Big;
    m.version = 4;
    expect_err(&m.encode(), Rule::Version, 4);
    for v in [2u32, 3] {
        let mut m = base();
        m.version = v;
        expect_ok(&m.encode());
    }
}

#[test]
fn counts_of_minus_one() {
    let mut b = base().encode();
    put_u64(&mut b, 8, u64::MAX);
    expect_err(&b, Rule::Truncated, 8);
    let mut b = base().encode();
    put_u64(&mut b, 16, u64::MAX);
    expect_err(&b, Rule::Truncated, 16);
    // CVE-2024-21836 / CVE-2024-23605: counts whose entry size wraps
    for n in [
        1u64 << 60,
        (u64::MAX / 24) + 1,
        (u64::MAX / 13) + 1,
        1 << 63,
    ] {
        let mut b = base().encode();
        put_u64(&mut b, 8, n);
        expect_err(&b, Rule::Truncated, 8);
        let mut b = base().encode();
        put_u64(&mut b, 16, n);
        expect_err(&b, Rule::Truncated, 16);
    }
}

#[test]
fn empty_header() {
    expect_err(b"GGUF", Rule::Truncated, 4);
    expect_err(b"GGUF\x03\0\0", Rule::Truncated, 4);
    expect_err(b"GGUF\x03\0\0\0", Rule::Truncated, 8);
    expect_err(b"GGUF\x03\0\0\0\0\0\0\0\0\0\0\0", Rule::Truncated, 16);
    // the smallest valid file: no tensors, no key-value pairs
    let b = Model::default().encode();
    let g = expect_ok(&b);
    assert_eq!(g.expected_len(), 24);
}

// ---- keys and values -------------------------------------------------------------------------

#[test]
fn bad_key_sizes() {
    let m = base();
    let (b0, lay) = m.encode_with_layout();
    for len in [u64::MAX, 1 << 63, b0.len() as u64] {
        let mut b = b0.clone();
        put_u64(&mut b, lay.kv[1], len);
        expect_err(&b, Rule::Truncated, lay.kv[1]);
    }
    // a key cut by the end of the file
    expect_err(&b0[..lay.kv[1] as usize + 10], Rule::Truncated, lay.kv[1]);
}

#[test]
fn empty_and_duplicate_keys() {
    let mut m = base();
    m.kvs[1].0.clear();
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::KeyEmpty, lay.kv[1]);
    let g = Gguf::from_bytes_with(&b, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.kv_count(), 2);

    let mut m = base();
    m.kvs
        .push((b"general.architecture".to_vec(), V::str("gemma")));
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::KeyDuplicate, lay.kv[2]);
    // permissive: the last one wins
    let g = Gguf::from_bytes_with(&b, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.architecture(), Some("gemma"));

    // a repeated general.alignment is a duplicate too
    let mut m = base();
    m.kvs.push((b"general.alignment".to_vec(), V::U32(32)));
    m.kvs.push((b"general.alignment".to_vec(), V::U32(32)));
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::KeyDuplicate, lay.kv[3]);
}

#[test]
fn bad_value_types() {
    for bad in [13u32, 14, 0xffff_ffff] {
        let m = base();
        let (mut b, lay) = m.encode_with_layout();
        put_u32(&mut b, lay.kv_value[1] - 4, bad);
        expect_err(&b, Rule::ValueType, lay.kv_value[1] - 4);
        // an array whose element type is bad
        let mut m = base();
        m.kvs[1].1 = V::Arr(0, vec![V::U8(1)]);
        let (mut b, lay) = m.encode_with_layout();
        put_u32(&mut b, lay.kv_value[1], bad);
        expect_err(&b, Rule::ValueType, lay.kv_value[1]);
    }
}

#[test]
fn bool_bytes_and_utf8() {
    let mut m = base();
    m.kvs.push((b"x.flag".to_vec(), V::Bool(2)));
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::ValueBool, lay.kv_value[2]);
    assert!(ggufkit::validate_bytes(&b).ggml_compatible());

    let mut m = base();
    m.kvs.push((b"x.s".to_vec(), V::Str(b"ok\xffno".to_vec())));
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::ValueUtf8, lay.kv_value[2] + 8);

    let mut m = base();
    m.kvs.push((b"x\xc3".to_vec(), V::U8(0)));
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::ValueUtf8, lay.kv[2] + 8);
}

#[test]
fn bad_alignments() {
    for (v, at_value) in [
        (V::U32(13), true),
        (V::U32(0), true),
        (V::U32(48), true),
        (V::U64(32), true),
        (V::I32(32), true),
        (V::str("32"), true),
    ] {
        let mut m = base();
        m.kvs.push((b"general.alignment".to_vec(), v));
        let (b, lay) = m.encode_with_layout();
        assert!(at_value);
        expect_err(&b, Rule::Alignment, lay.kv_value[2]);
    }
    // a power of two as large as 2^31 is valid (without tensors, so without padding)
    let mut m = Model::default();
    m.kvs.push((b"general.alignment".to_vec(), V::U32(1 << 31)));
    let b = m.encode();
    assert_eq!(expect_ok(&b).alignment(), 1 << 31);
    // every power of two lays out data
    for shift in [0u32, 1, 3, 5, 6, 12, 16] {
        let mut m = base();
        m.alignment = 1 << shift;
        m.kvs
            .push((b"general.alignment".to_vec(), V::U32(1 << shift)));
        let b = m.encode();
        let g = expect_ok(&b);
        assert_eq!(g.alignment(), 1 << shift);
        assert_model_eq(&m, &g, &b);
    }
}

#[test]
fn inconsistent_alignment() {
    // data laid out for 64 but the file says 32 (the default): the second offset is wrong
    let mut m = base();
    m.alignment = 64;
    m.tensors[0] = T::new("a", &[8], GgmlType::F32);
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::TensorOffset, lay.offset(&m, 1));
}

// ---- tensor infos ----------------------------------------------------------------------------

#[test]
fn over_long_names() {
    for len in [64usize, 65, 1000] {
        let mut m = base();
        m.tensors[1].name = vec![b'n'; len];
        let (b, lay) = m.encode_with_layout();
        expect_err(&b, Rule::TensorName, lay.tensor[1]);
    }
    // judged from the length field alone, before the bytes are there
    let m = base();
    let (mut b, lay) = m.encode_with_layout();
    put_u64(&mut b, lay.tensor[1], u64::MAX);
    expect_err(&b, Rule::TensorName, lay.tensor[1]);
    let mut m = base();
    m.tensors[1].name = vec![b'n'; 63];
    expect_ok(&m.encode());
}

#[test]
fn too_many_dims() {
    for n in [5u32, 8, u32::MAX] {
        let mut m = base();
        m.tensors[1].dims = vec![1, 1, 1, 1, 3];
        let (mut b, lay) = m.encode_with_layout();
        put_u32(&mut b, lay.n_dims(&m, 1), n);
        expect_err(&b, Rule::TensorDims, lay.n_dims(&m, 1));
    }
    // 0 dimensions: a scalar
    let mut m = base();
    m.tensors.push(T::new("scalar", &[], GgmlType::F32));
    let b = m.encode();
    let g = expect_ok(&b);
    assert_eq!(g.tensor("scalar").unwrap().n_elements(), 1);
}

#[test]
fn negative_and_zero_dims() {
    for d in 0..2 {
        let m = base();
        let (mut b, lay) = m.encode_with_layout();
        put_u64(&mut b, lay.dim(&m, 0, d), u64::MAX);
        expect_err(&b, Rule::TensorDim, lay.dim(&m, 0, d));
        put_u64(&mut b, lay.dim(&m, 0, d), 1 << 63);
        expect_err(&b, Rule::TensorDim, lay.dim(&m, 0, d));
    }
    let mut m = base();
    m.tensors.push(T::new("zero", &[0, 5], GgmlType::F32));
    let b = m.encode();
    let g = expect_ok(&b);
    assert_eq!(g.tensor("zero").unwrap().size(), 0);
}

#[test]
fn dimension_products_past_int64() {
    let i32max = i32::MAX as u64;
    for dims in [
        vec![4 * i32max; 4],
        vec![1 << 32, 1 << 32],
        vec![1 << 62, 2],
        vec![3, 1 << 62],
        vec![i64::MAX as u64, 2],
    ] {
        let m = one_tensor(&dims, 0);
        let (b, lay) = m.encode_with_layout();
        expect_err(&b, Rule::TensorSize, lay.dim(&m, 0, 0));
    }
    // elements fit, bytes do not (sizes just over SIZE_MAX / INT64_MAX)
    for (dims, ty) in [
        (vec![1u64 << 61], GgmlType::F32),
        (vec![1u64 << 62], GgmlType::F32),
        (vec![i64::MAX as u64], GgmlType::F16),
        (vec![(1u64 << 63) - 32], GgmlType::Q8_0),
    ] {
        let m = one_tensor(&dims, ty.id());
        let (b, lay) = m.encode_with_layout();
        expect_err(&b, Rule::TensorSize, lay.dim(&m, 0, 0));
    }
    // a huge tensor that fits the arithmetic is only short of data
    let m = one_tensor(&[1 << 40], GgmlType::F32.id());
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::Truncated, lay.data_offset);
}

#[test]
fn bad_types_and_blocks() {
    for ty in [4u32, 5, 31, 32, 33, 36, 37, 38, 43, 99, u32::MAX] {
        let m = one_tensor(&[32], ty);
        let (b, lay) = m.encode_with_layout();
        expect_err(&b, Rule::TensorType, lay.ty(&m, 0));
    }
    let m = one_tensor(&[31, 2], GgmlType::Q8_0.id());
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::TensorBlock, lay.ty(&m, 0));
    let m = one_tensor(&[], GgmlType::Q4_K.id());
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::TensorBlock, lay.ty(&m, 0));
}

#[test]
fn bad_offsets() {
    for (i, off) in [
        (0usize, u64::MAX),
        (0, 4),
        (0, 32),
        (1, 0),
        (1, 96),
        (1, 1 << 62),
    ] {
        let m = base();
        let (mut b, lay) = m.encode_with_layout();
        put_u64(&mut b, lay.offset(&m, i), off);
        expect_err(&b, Rule::TensorOffset, lay.offset(&m, i));
    }
}

#[test]
fn duplicate_names() {
    let mut m = base();
    m.tensors[1].name = b"a".to_vec();
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::TensorDuplicate, lay.tensor[1]);
    // permissive: the first one is found by name
    let g = Gguf::from_bytes_with(&b, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.tensor("a").unwrap().shape(), &[8, 2]);
    // names equal up to a NUL byte are duplicates for ggml only
    let mut m = base();
    m.tensors[0].name = b"a\0x".to_vec();
    m.tensors[1].name = b"a\0y".to_vec();
    let b = m.encode();
    let r = ggufkit::validate_bytes(&b);
    assert!(r.valid() && !r.ggml_compatible());
}

#[test]
fn data_one_byte_short() {
    let m = base();
    let (b, lay) = m.encode_with_layout();
    // the last tensor's padding counts: a file cut inside it is truncated at that padding
    // (tensor b is 3 f32, 12 bytes)
    expect_err(&b[..b.len() - 1], Rule::Truncated, lay.tensor_data[1] + 12);
    // a file cut inside the data is truncated at the data
    expect_err(&b[..b.len() - 21], Rule::Truncated, lay.tensor_data[1]);
    let mut m2 = base();
    m2.tensors[1].dims = vec![8];
    m2.tensors[1].data = vec![1; 32];
    let (b, lay) = m2.encode_with_layout();
    expect_err(&b[..b.len() - 1], Rule::Truncated, lay.tensor_data[1]);
    // cut inside the first tensor's data
    expect_err(
        &b[..lay.tensor_data[0] as usize + 5],
        Rule::Truncated,
        lay.tensor_data[0],
    );
    // cut inside the padding after the tensor infos
    let cut = lay.data_offset as usize - 1;
    let m = base();
    let (_, l) = m.encode_with_layout();
    assert_eq!(l.data_offset, lay.data_offset);
    let at = lay.offset(&m, 1) + 8;
    assert!(at < lay.data_offset, "padding exists");
    expect_err(&b[..cut], Rule::Truncated, at);
    // permissive opening keeps the header and says which data is missing
    let g = Gguf::from_bytes_with(&b[..b.len() - 1], &ReadOptions::permissive()).unwrap();
    assert!(g.tensor("b").unwrap().data().is_none());
    assert!(g.tensor("a").unwrap().data().is_some());
}

#[test]
fn memory_size_overflow() {
    // two i8 tensors of i64::MAX bytes each: each size fits, their padded sum does not
    let max = i64::MAX as u64;
    let mut m = Model::default();
    for name in ["x", "y"] {
        m.tensors.push(T {
            name: name.as_bytes().to_vec(),
            dims: vec![max],
            ty: GgmlType::I8.id(),
            data: Vec::new(),
            offset: None,
        });
    }
    m.tensors[1].offset = Some(1 << 63);
    let (b, lay) = m.encode_with_layout();
    expect_err(&b, Rule::TensorSize, lay.offset(&m, 1));
    // the padded end fits in u64 but the data start plus it does not: no file is that long
    let mut m2 = m.clone();
    m2.tensors[1].dims = vec![max - 63];
    let (b, lay) = m2.encode_with_layout();
    expect_err(&b, Rule::Truncated, lay.data_offset);
    // GHSA-vgg9-87g3-85w8: a running sum of padded sizes that would wrap
    let mut m3 = Model::default();
    for (i, n) in [(1u64 << 62) - 1, 1 << 62, 1 << 62, 1 << 62]
        .iter()
        .enumerate()
    {
        m3.tensors.push(T {
            name: format!("t{i}").into_bytes(),
            dims: vec![*n],
            ty: GgmlType::I8.id(),
            data: Vec::new(),
            offset: None,
        });
    }
    let (b, lay) = m3.encode_with_layout();
    expect_err(&b, Rule::TensorSize, lay.offset(&m3, 3));
}

// ---- CVE shapes on values --------------------------------------------------------------------

#[test]
fn string_and_array_lengths_that_wrap() {
    // CVE-2024-23496: a string length of 2^64-1 (length + 1 wraps to 0)
    let mut m = base();
    m.kvs.push((b"s".to_vec(), V::str("x")));
    let (mut b, lay) = m.encode_with_layout();
    put_u64(&mut b, lay.kv_value[2], u64::MAX);
    expect_err(&b, Rule::Truncated, lay.kv_value[2]);
    // CVE-2024-21825: an array of strings whose count times 8 wraps
    for (elem, count) in [
        (8u32, 1u64 << 61),
        (8, u64::MAX),
        (10, 1 << 61),
        (0, u64::MAX),
        (9, u64::MAX / 12 + 1),
        (6, 1 << 62),
    ] {
        let mut m = base();
        m.kvs.push((b"arr".to_vec(), V::Arr(elem, vec![])));
        let (mut b, lay) = m.encode_with_layout();
        put_u64(&mut b, lay.kv_value[2] + 4, count);
        expect_err(&b, Rule::Truncated, lay.kv_value[2] + 4);
    }
    // gguf-py hangs on a 49-byte file declaring a 2^63-element u8 array
    let mut b = b"GGUF\x03\0\0\0".to_vec();
    b.extend(0u64.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.extend(1u64.to_le_bytes());
    b.push(b'k');
    b.extend(9u32.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend((1u64 << 63).to_le_bytes());
    b.push(0);
    assert_eq!(b.len(), 50);
    expect_err(&b, Rule::Truncated, 41);
    // a string element cut short inside a string array
    let mut m = base();
    m.kvs.push((
        b"toks".to_vec(),
        V::Arr(8, vec![V::str("ab"), V::str("cd")]),
    ));
    let (mut b, lay) = m.encode_with_layout();
    let second = lay.kv_value[2] + 12 + 10;
    put_u64(&mut b, second, 1 << 40);
    expect_err(&b, Rule::Truncated, second);
}

#[test]
fn nested_arrays_deep_and_wide() {
    // 20,000 levels: parsed without recursion, walked without recursion (the bytes are
    // written directly: the test encoder's own values would recurse)
    let b = deep_nesting(20_000);
    let g = expect_ok(&b);
    let r = ggufkit::validate_bytes(&b);
    assert_eq!(r.warnings[0].rule, Rule::GgmlNestedArray);
    assert_eq!(r.warnings.len(), 1, "one warning for the whole key");
    drop(g);
    // a nested array cut short at depth
    let cut = b.len() - 3;
    let e = Gguf::from_bytes(&b[..cut]).unwrap_err();
    assert_eq!(e.rule(), Some(Rule::Truncated));
    // an empty array of arrays is a nested array
    let m = Model {
        kvs: vec![(b"e".to_vec(), V::Arr(9, vec![]))],
        ..Model::default()
    };
    let r = ggufkit::validate_bytes(&m.encode());
    assert!(r.valid() && !r.ggml_compatible());
}

#[test]
fn nested_arrays_read_back_exactly_at_every_depth() {
    // Arrays of arrays that are not the last element of their parent, at every depth: the ones
    // whose ends the parser records for the walk. Next to them: last elements (which end with
    // their parent), empty arrays of arrays, string and number arrays (measured as walked).
    let leaf = |i: u8| V::Arr(0, vec![V::U8(i); i as usize]);
    let strings = V::Arr(8, vec![V::str("a"), V::str(""), V::str("bcd")]);
    let mut v = V::Arr(9, vec![leaf(1), strings.clone(), leaf(0)]);
    for d in 0..6u8 {
        v = V::Arr(
            9,
            vec![
                v.clone(),
                V::Arr(9, vec![]),
                V::Arr(9, vec![strings.clone(), leaf(d)]),
                v,
            ],
        );
    }
    for endian in [Endian::Little, Endian::Big] {
        let m = Model {
            endian,
            kvs: vec![
                (b"before".to_vec(), V::U32(7)),
                (b"tree".to_vec(), v.clone()),
                (b"after".to_vec(), V::Arr(9, vec![v.clone(), leaf(3)])),
            ],
            tensors: vec![T::new("w", &[32], GgmlType::F32)],
            ..Model::default()
        };
        let b = m.encode();
        let g = Gguf::from_bytes(&b).expect("valid");
        assert_model_eq(&m, &g, &b);
        // element by element from the middle, too: `get` steps over the elements before it
        let tree = g.get_array("tree").expect("an array");
        for i in 0..tree.len() {
            let ggufkit::Value::Array(got) = tree.get(i).expect("element") else {
                panic!("element {i} is not an array")
            };
            let V::Arr(_, want) = &v else { unreachable!() };
            assert_value_eq(&want[i as usize], &ggufkit::Value::Array(got), "tree");
        }
        walk(&g);
    }
}

#[test]
fn long_string_arrays_read_back_exactly() {
    // arrays large enough for the parser to keep their lengths (a byte each, 255 meaning "read
    // it from the header"), with lengths on both sides of 255 and of 128 (a length field that is
    // not ASCII), multi-byte text, nested inside an array of arrays too
    let strings: Vec<V> = (0..1500usize)
        .map(|i| {
            let n = [0, 1, 127, 128, 254, 255, 256, 300, 4096][i % 9] + i % 3;
            V::str(
                &"é"
                    .repeat(n / 2)
                    .chars()
                    .chain("x".chars())
                    .take(n)
                    .collect::<String>(),
            )
        })
        .collect();
    for endian in [Endian::Little, Endian::Big] {
        let m = Model {
            endian,
            kvs: vec![
                (b"tokens".to_vec(), V::Arr(8, strings.clone())),
                (
                    b"nested".to_vec(),
                    V::Arr(
                        9,
                        vec![
                            V::Arr(8, strings[..700].to_vec()),
                            V::Arr(8, strings[700..].to_vec()),
                        ],
                    ),
                ),
            ],
            ..Model::default()
        };
        let b = m.encode();
        let g = Gguf::from_bytes(&b).expect("valid");
        assert_model_eq(&m, &g, &b);
        let tokens = g
            .get_array("tokens")
            .and_then(|a| a.strings())
            .expect("strings");
        let mut n = 0;
        for (t, want) in tokens.zip(&strings) {
            let V::Str(want) = want else { unreachable!() };
            assert_eq!(t.as_str().map(str::as_bytes), Some(&want[..]));
            n += 1;
        }
        assert_eq!(n, 1500);
        walk(&g);
    }
}

// ---- round trips through a file, a prefixed file, a buffer, a stream ---------------------------

/// A deterministic generator (xorshift), as test-gguf.cpp's random files.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_value(r: &mut Rng, ty: u32, depth: u32) -> V {
    match ty {
        0 => V::U8(r.next() as u8),
        1 => V::I8(r.next() as i8),
        2 => V::U16(r.next() as u16),
        3 => V::I16(r.next() as i16),
        4 => V::U32(r.next() as u32),
        5 => V::I32(r.next() as i32),
        6 => V::F32(f32::from_bits(r.next() as u32)),
        7 => V::Bool((r.next() & 1) as u8),
        8 => V::Str((0..r.below(20)).map(|_| b'a' + r.below(26) as u8).collect()),
        10 => V::U64(r.next()),
        11 => V::I64(r.next() as i64),
        12 => V::F64(f64::from_bits(r.next())),
        _ => {
            let et = if depth < 2 {
                r.below(13) as u32
            } else {
                r.below(9) as u32
            };
            let n = r.below(6);
            V::Arr(et, (0..n).map(|_| random_value(r, et, depth + 1)).collect())
        }
    }
}

fn random_model(seed: u64, with_data: bool) -> Model {
    let mut r = Rng(seed);
    let endian = if r.below(4) == 0 {
        Endian::Big
    } else {
        Endian::Little
    };
    let alignment = 1u64 << r.below(8);
    let mut kvs = vec![(b"general.alignment".to_vec(), V::U32(alignment as u32))];
    for i in 0..256 {
        let ty = r.below(13) as u32;
        kvs.push((format!("key.{i}").into_bytes(), random_value(&mut r, ty, 0)));
    }
    let types: Vec<GgmlType> = GgmlType::supported().collect();
    let mut tensors = Vec::new();
    for i in 0..(if with_data { 64 } else { 256 }) {
        let ty = types[r.below(types.len() as u64) as usize];
        let n_dims = r.below(5) as usize;
        let mut dims: Vec<u64> = (0..n_dims).map(|_| 1 + r.below(3)).collect();
        if n_dims > 0 {
            dims[0] *= ty.block_size();
        } else if ty.block_size() != 1 {
            dims = vec![ty.block_size()];
        }
        tensors.push(T::new(&format!("blk.{i}.w"), &dims, ty));
    }
    Model {
        version: 3,
        endian,
        kvs,
        tensors,
        alignment,
        pad_last: true,
    }
}

#[test]
fn random_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    for seed in 1..=24u64 {
        let m = random_model(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15), seed % 2 == 0);
        let b = m.encode();
        // a buffer
        let g = Gguf::from_bytes(&b).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_model_eq(&m, &g, &b);
        walk(&g);
        // a file (memory-mapped)
        let path = dir.path().join(format!("r{seed}.gguf"));
        std::fs::write(&path, &b).unwrap();
        let g = Gguf::open(&path).unwrap();
        assert_model_eq(&m, &g, &b);
        assert!(ggufkit::validate_file(&path).unwrap().valid());
        // a file with a 7-byte prefix: the GGUF starts after it, offsets are relative to it
        let mut pre = b"PREFIX!".to_vec();
        pre.extend_from_slice(&b);
        let path = dir.path().join(format!("p{seed}.gguf"));
        std::fs::write(&path, &pre).unwrap();
        let all = std::fs::read(&path).unwrap();
        let e = Gguf::from_bytes(&all).unwrap_err();
        assert_eq!((e.rule(), e.offset()), (Some(Rule::Magic), Some(0)));
        let g = Gguf::from_bytes(&all[7..]).unwrap();
        assert_model_eq(&m, &g, &b);
        // a stream read in small chunks, with the reader left at the data
        let (h, mut rest) =
            Gguf::read_header_with(Chunked::new(&b, vec![1, 4096, 3]), &ReadOptions::default())
                .unwrap();
        assert_eq!(h.header_bytes(), &b[..h.data_offset() as usize]);
        assert_eq!(rest.position() as u64, h.data_offset());
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut rest, &mut data).unwrap();
        assert_eq!(&b[h.data_offset() as usize..], &data[..]);
        for (t, ti) in m.tensors.iter().zip(h.tensors()) {
            assert_eq!(ti.name_bytes(), t.name.as_slice());
            assert!(ti.data().is_none());
        }
        check_stream(&b, vec![1]);
    }
}
