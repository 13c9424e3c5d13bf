//! One test per rule of the CLI contract's rule table, on crafted bytes: the rule id and the byte
//! offset of the offending field, from both the validator and the strict opener.

use ggufkit::{validate_bytes, Gguf, ReadOptions, Rule};
use ggufkit_testkit::checks::check_paths;
use ggufkit_testkit::Encoder;

/// Asserts that the first error is `rule` at `offset`, and that strict opening fails the same way.
#[track_caller]
fn first_error(bytes: &[u8], rule: Rule, offset: u64) {
    let report = validate_bytes(bytes);
    let e = report
        .errors
        .first()
        .unwrap_or_else(|| panic!("expected {rule} at {offset}, the file was valid"));
    assert_eq!((e.rule, e.offset), (rule, offset), "first error: {e}");
    let err = Gguf::from_bytes(bytes).expect_err("strict opening must fail");
    assert_eq!(err.rule(), Some(rule), "{err}");
    assert_eq!(err.offset(), Some(offset), "{err}");
    check_paths(bytes);
}

#[track_caller]
fn valid(bytes: &[u8]) -> ggufkit::Report {
    let report = validate_bytes(bytes);
    assert!(report.valid(), "expected valid: {:?}", report.errors);
    Gguf::from_bytes(bytes).expect("strict opening of a valid file");
    check_paths(bytes);
    report
}

fn one_f32_tensor(dims: &[u64]) -> Encoder {
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", dims, 0, 0).pad(32);
    c
}

// ---- magic, version, truncated --------------------------------------------------------------

#[test]
fn magic() {
    first_error(b"GGUX\x03\0\0\0", Rule::Magic, 0);
    first_error(b"XY", Rule::Magic, 0);
    first_error(b"", Rule::Truncated, 0);
    first_error(b"GG", Rule::Truncated, 0);
}

#[test]
fn version() {
    for v in [0u32, 1, 4, 0x0001_0000] {
        let b = Encoder::header(v, 0, 0).build();
        first_error(&b, Rule::Version, 4);
    }
    let mut b = Encoder::header(1, 0, 0).build();
    b.truncate(6);
    first_error(&b, Rule::Truncated, 4);
    assert!(validate_bytes(&Encoder::header(2, 0, 0).build()).valid());
}

#[test]
fn big_endian_is_valid_but_not_ggml() {
    let mut c = Encoder::header_in(ggufkit::Endian::Big, 3, 1, 1);
    c.kv_str("general.architecture", "llama");
    c.tensor("w", &[4], 0, 0).pad(32).data(16).pad(32);
    let r = valid(&c.build());
    assert!(!r.ggml_compatible());
    assert_eq!(r.warnings[0].rule, Rule::GgmlEndian);
    assert_eq!(r.warnings[0].offset, 4);
    let g = Gguf::from_bytes(&c.bytes).unwrap();
    assert_eq!(g.endian(), ggufkit::Endian::Big);
    assert_eq!(g.architecture(), Some("llama"));
    assert_eq!(g.tensor("w").unwrap().shape(), &[4]);
}

#[test]
fn truncated_counts_at_their_own_field() {
    // 2^62 tensors in a tiny file: at the tensor count, nothing allocated
    first_error(&Encoder::header(3, 1 << 62, 0).build(), Rule::Truncated, 8);
    first_error(&Encoder::header(3, u64::MAX, 0).build(), Rule::Truncated, 8);
    first_error(&Encoder::header(3, 0, 1 << 62).build(), Rule::Truncated, 16);
    // exactly enough bytes for the smallest encodings is not truncated at the count
    let mut c = Encoder::header(3, 0, 1);
    c.str(b"").u32(0).u8(0);
    first_error(&c.build(), Rule::KeyEmpty, 24);
}

#[test]
fn truncated_strings_and_arrays() {
    // key length 2^64-1
    let mut c = Encoder::header(3, 0, 1);
    c.u64(u64::MAX).raw(&[0; 5]);
    first_error(&c.build(), Rule::Truncated, 24);
    // string value longer than the file
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 8).u64(100).raw(b"abc");
    first_error(&c.build(), Rule::Truncated, 24 + 8 + 1 + 4);
    // 2^63-element u8 array in a 49-byte file (gguf-py hangs on this)
    let mut c = Encoder::header(3, 0, 1);
    c.key("a", 9).u32(0).u64(1 << 63);
    assert_eq!(c.bytes.len(), 49);
    first_error(&c.build(), Rule::Truncated, 24 + 8 + 1 + 4 + 4);
    // array of strings: 8 bytes at least per element
    let mut c = Encoder::header(3, 0, 1);
    c.key("a", 9).u32(8).u64(3).str(b"x").str(b"y");
    first_error(&c.build(), Rule::Truncated, 41);
    // array of arrays: 12 bytes at least per element
    let mut c = Encoder::header(3, 0, 1);
    c.key("a", 9).u32(9).u64(2).u32(0).u64(0);
    first_error(&c.build(), Rule::Truncated, 41);
    // a u32 value cut short
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 4).raw(&[1, 2]);
    first_error(&c.build(), Rule::Truncated, 37);
}

#[test]
fn truncated_tensor_data_and_padding() {
    // data one byte short (padding included)
    let mut c = one_f32_tensor(&[8]);
    c.data(32);
    let mut b = c.build();
    valid(&b);
    let data_start = b.len() as u64 - 32;
    b.pop();
    first_error(&b, Rule::Truncated, data_start);
    // data whole, padding cut: at the padding
    let mut c = one_f32_tensor(&[3]);
    let data_start = c.pos();
    c.data(12).raw(&[0; 19]);
    first_error(&c.build(), Rule::Truncated, data_start + 12);
    // file ends inside the padding before the data
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", &[8], 0, 0);
    let at = c.pos();
    c.raw(&[0; 3]);
    first_error(&c.build(), Rule::Truncated, at);
}

// ---- keys and values --------------------------------------------------------------------------

#[test]
fn key_empty_and_duplicate() {
    let mut c = Encoder::header(3, 0, 1);
    c.key("", 0).u8(1);
    first_error(&c.build(), Rule::KeyEmpty, 24);

    let mut c = Encoder::header(3, 0, 2);
    c.kv_u32("a.b", 1);
    let second = c.pos();
    c.kv_u32("a.b", 2);
    first_error(&c.build(), Rule::KeyDuplicate, second);
    // permissive: the last one wins
    let g = Gguf::from_bytes_with(&c.bytes, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.get_u32("a.b"), Some(2));
    assert_eq!(g.report().errors[0].rule, Rule::KeyDuplicate);
}

#[test]
fn value_type() {
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 13).u8(0);
    first_error(&c.build(), Rule::ValueType, 33);
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 9).u32(13).u64(0);
    first_error(&c.build(), Rule::ValueType, 37);
    // inside a nested array
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 9).u32(9).u64(1).u32(200).u64(0);
    first_error(&c.build(), Rule::ValueType, 49);
}

#[test]
fn value_bool() {
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 7).u8(2);
    first_error(&c.build(), Rule::ValueBool, 37);
    let r = validate_bytes(&c.bytes);
    assert!(r.ggml_compatible(), "ggml reads any bool byte");
    let g = Gguf::from_bytes_with(&c.bytes, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.get_bool("k"), Some(true));
    // in an array: the offending byte
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 9).u32(7).u64(3).raw(&[0, 1, 5]);
    first_error(&c.build(), Rule::ValueBool, 49 + 2);
}

#[test]
fn value_utf8() {
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 8).str(b"ok\xff");
    first_error(&c.build(), Rule::ValueUtf8, 45);
    assert!(validate_bytes(&c.bytes).ggml_compatible());
    // in a key
    let mut c = Encoder::header(3, 0, 1);
    c.str(b"\xc0k").u32(0).u8(0);
    first_error(&c.build(), Rule::ValueUtf8, 32);
    // in a string array element
    let mut c = Encoder::header(3, 0, 1);
    c.key("k", 9).u32(8).u64(2).str(b"a").str(b"\xed\xa0\x80");
    first_error(&c.build(), Rule::ValueUtf8, 49 + 9 + 8);
    // in a tensor name
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t\u{e9}", &[1], 0, 0).pad(32).data(4).pad(32);
    c.bytes[24 + 8 + 1] = 0xff;
    first_error(&c.build(), Rule::ValueUtf8, 32);
}

#[test]
fn alignment() {
    for v in [0u32, 48, 3] {
        let mut c = Encoder::header(3, 0, 1);
        c.kv_u32("general.alignment", v);
        first_error(&c.build(), Rule::Alignment, 24 + 8 + 17 + 4);
    }
    let mut c = Encoder::header(3, 0, 1);
    c.key("general.alignment", 10).u64(32);
    first_error(&c.build(), Rule::Alignment, 53);
    // a repeated alignment key is a duplicate like any other; permissive: the last one wins
    let mut c = Encoder::header(3, 1, 2);
    c.kv_u32("general.alignment", 64);
    let second = c.pos();
    c.kv_u32("general.alignment", 16);
    c.tensor("t", &[4], 0, 0).pad(16).data(16);
    first_error(&c.build(), Rule::KeyDuplicate, second);
    let g = Gguf::from_bytes_with(&c.bytes, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.alignment(), 16);
}

#[test]
fn custom_alignment_sets_padding() {
    let mut c = Encoder::header(3, 2, 1);
    c.kv_u32("general.alignment", 64);
    c.tensor("a", &[3], 0, 0).tensor("b", &[2], 0, 64).pad(64);
    let data = c.pos();
    c.data(12).pad(64).data(8).pad(64);
    valid(&c.bytes);
    let g = Gguf::from_bytes(&c.bytes).unwrap();
    assert_eq!(g.alignment(), 64);
    assert_eq!(g.data_offset(), data);
    assert_eq!(g.expected_len(), data + 128);
    assert_eq!(g.tensor("b").unwrap().data().unwrap().len(), 8);
}

// ---- tensors ----------------------------------------------------------------------------------

#[test]
fn tensor_name() {
    let long = "x".repeat(64);
    let mut c = Encoder::header(3, 1, 0);
    c.tensor(&long, &[1], 0, 0).pad(32).data(4).pad(32);
    first_error(&c.build(), Rule::TensorName, 24);
    let ok = "x".repeat(63);
    let mut c = Encoder::header(3, 1, 0);
    c.tensor(&ok, &[1], 0, 0).pad(32).data(4).pad(32);
    valid(&c.bytes);
    // judged from the length alone: a 2^63-byte name is too long, not truncated
    let mut c = Encoder::header(3, 1, 0);
    c.u64(1 << 63).raw(&[0; 16]);
    first_error(&c.build(), Rule::TensorName, 24);
}

#[test]
fn tensor_duplicate() {
    let mut c = Encoder::header(3, 2, 0);
    c.tensor("t", &[8], 0, 0);
    let second = c.pos();
    c.tensor("t", &[8], 0, 32).pad(32).data(64);
    first_error(&c.build(), Rule::TensorDuplicate, second);
}

#[test]
fn tensor_dims_and_dim() {
    let mut c = Encoder::header(3, 1, 0);
    c.str(b"t").u32(5).raw(&[0; 12]);
    first_error(&c.build(), Rule::TensorDims, 33);
    // judged from the count alone, before any dimension is read
    let mut c = Encoder::header(3, 1, 0);
    c.str(b"t").u32(u32::MAX).raw(&[0; 12]);
    first_error(&c.build(), Rule::TensorDims, 33);
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", &[4, u64::MAX], 0, 0).pad(32);
    first_error(&c.build(), Rule::TensorDim, 45);
    // zero dimensions (a scalar) and zero-sized dimensions are fine
    let mut c = Encoder::header(3, 2, 0);
    c.tensor("s", &[], 0, 0)
        .tensor("z", &[0, 5], 0, 32)
        .pad(32)
        .data(4)
        .pad(32);
    valid(&c.bytes);
    let g = Gguf::from_bytes(&c.bytes).unwrap();
    assert_eq!(g.tensor("s").unwrap().n_elements(), 1);
    assert_eq!(g.tensor("z").unwrap().size(), 0);
}

#[test]
fn tensor_type_and_block() {
    for ty in [43u32, 4, 5, 31, 32, 33, 36, 37, 38, u32::MAX] {
        let mut c = Encoder::header(3, 1, 0);
        c.tensor("t", &[32], ty, 0).pad(32);
        first_error(&c.build(), Rule::TensorType, 45);
    }
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", &[31], 8, 0).pad(32);
    first_error(&c.build(), Rule::TensorBlock, 45);
    // no dimensions: ne0 counts as 1, not a multiple of 32
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", &[], 8, 0).pad(32);
    first_error(&c.build(), Rule::TensorBlock, 37);
    let err = Gguf::from_bytes(&Encoder::header(3, 1, 0).tensor("t", &[32], 31, 0).build())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("q4_0_4_4") && err.contains("December 2024"),
        "{err}"
    );
}

#[test]
fn tensor_size_exact_arithmetic() {
    // element count 2^64: wraps to 0 in ggml, which accepts it
    first_error(
        &one_f32_tensor(&[1 << 32, 1 << 32]).build(),
        Rule::TensorSize,
        37,
    );
    // 2^62 * 2 elements: beyond i64
    first_error(&one_f32_tensor(&[1 << 62, 2]).build(), Rule::TensorSize, 37);
    // 2^61 f32 elements = 2^63 bytes: beyond i64
    first_error(&one_f32_tensor(&[1 << 61]).build(), Rule::TensorSize, 37);
    // 2^62-1 f32: 2^64-4 bytes, which ggml's padding wraps to 0
    first_error(
        &one_f32_tensor(&[(1 << 62) - 1]).build(),
        Rule::TensorSize,
        37,
    );
    // a zero dimension makes the count exactly 0, however large the others
    let b = one_f32_tensor(&[0, 1 << 62, 1 << 62]).build();
    valid(&b);
    // padded end beyond u64: three tensors of (2^63 - 32) bytes of i8
    let big = (1u64 << 63) - 32;
    let mut c = Encoder::header(3, 3, 0);
    c.tensor("a", &[big], 24, 0).tensor("b", &[big], 24, big);
    let third_offset_field = c.pos() + 8 + 1 + 4 + 8 + 4;
    c.tensor("c", &[64], 24, 2 * big).pad(32);
    first_error(&c.build(), Rule::TensorSize, third_offset_field);
}

#[test]
fn tensor_offset() {
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", &[8], 0, 4).pad(32);
    first_error(&c.build(), Rule::TensorOffset, 49);
    let mut c = Encoder::header(3, 2, 0);
    c.tensor("a", &[8], 0, 0);
    let at = c.pos() + 8 + 1 + 4 + 8 + 4;
    c.tensor("b", &[8], 0, 0).pad(32);
    first_error(&c.build(), Rule::TensorOffset, at);
    // u64::MAX (ggml's test uses -1)
    let mut c = Encoder::header(3, 1, 0);
    c.tensor("t", &[8], 0, u64::MAX).pad(32);
    first_error(&c.build(), Rule::TensorOffset, 49);
}

// ---- warnings ---------------------------------------------------------------------------------

#[test]
fn nested_arrays_are_valid_but_not_ggml() {
    let mut c = Encoder::header(3, 0, 1);
    c.key("n", 9).u32(9).u64(2);
    c.u32(5).u64(2).u32(1).u32(2);
    c.u32(8).u64(1).str(b"x");
    let r = valid(&c.build());
    assert!(!r.ggml_compatible());
    assert_eq!(
        (r.warnings[0].rule, r.warnings[0].offset),
        (Rule::GgmlNestedArray, 37)
    );
    let g = Gguf::from_bytes(&c.bytes).unwrap();
    let outer = g.get_array("n").unwrap();
    let inner: Vec<_> = outer.iter().collect();
    assert_eq!(inner.len(), 2);
    let first = inner[0].as_array().unwrap();
    assert_eq!(first.typed::<i32>().unwrap().to_vec(), vec![1, 2]);
    let second = inner[1].as_array().unwrap();
    assert_eq!(
        second.strings().unwrap().next().unwrap().as_str(),
        Some("x")
    );
    // an empty array of arrays is still a nested array
    let mut c = Encoder::header(3, 0, 1);
    c.key("n", 9).u32(9).u64(0);
    assert!(!valid(&c.build()).ggml_compatible());
}

#[test]
fn trailing_data() {
    let mut c = one_f32_tensor(&[8]);
    c.data(32);
    let end = c.pos();
    c.raw(b"junk");
    let r = valid(&c.build());
    assert_eq!(
        (r.warnings[0].rule, r.warnings[0].offset),
        (Rule::TrailingData, end)
    );
    assert!(r.ggml_compatible());
    // tensor-less file: zeros to the alignment are ggml's padding, not trailing data
    let mut c = Encoder::header(3, 0, 1);
    c.kv_str("general.architecture", "x");
    c.pad(32);
    assert!(valid(&c.build()).warnings.is_empty());
    c.u8(1);
    let r = valid(&c.build());
    assert_eq!(r.warnings[0].rule, Rule::TrailingData);
}

#[test]
fn ggml_compares_names_up_to_nul() {
    let mut c = Encoder::header(3, 2, 0);
    c.tensor("a\0x", &[8], 0, 0)
        .tensor("a\0y", &[8], 0, 32)
        .pad(32)
        .data(64);
    let r = valid(&c.build());
    assert!(!r.ggml_compatible());
    assert_eq!(r.warnings[0].rule, Rule::TensorDuplicate);
}

// ---- sources ----------------------------------------------------------------------------------

fn sample() -> Vec<u8> {
    let mut c = Encoder::header(3, 2, 3);
    c.kv_str("general.architecture", "llama");
    c.kv_u32("llama.context_length", 4096);
    c.key("tokenizer.ggml.tokens", 9)
        .u32(8)
        .u64(3)
        .str(b"<s>")
        .str(b"</s>")
        .str(b"hi");
    c.tensor("tok.weight", &[4, 2], 1, 0)
        .tensor("norm", &[4], 0, 32)
        .pad(32)
        .data(16)
        .pad(32)
        .data(16)
        .pad(32);
    c.build()
}

#[test]
fn slice_map_and_stream_agree() {
    let bytes = sample();
    let a = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(a.get_u32("llama.context_length"), Some(4096));
    assert_eq!(a.context_length(), Some(4096));
    let toks: Vec<_> = a
        .get_array("tokenizer.ggml.tokens")
        .unwrap()
        .strings()
        .unwrap()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(toks, ["<s>", "</s>", "hi"]);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.gguf");
    std::fs::write(&path, &bytes).unwrap();
    let m = Gguf::open(&path).unwrap();

    // a stream that hands out 3 bytes at a time
    struct Chunks<'a>(&'a [u8]);
    impl std::io::Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(3).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let (s, rest) = Gguf::read_header_with(Chunks(&bytes), &ReadOptions::default()).unwrap();
    assert_eq!(
        rest.0.len() as u64,
        bytes.len() as u64 - a.data_offset(),
        "reads exactly the header"
    );
    assert_eq!(s.header_bytes(), a.header_bytes());

    for g in [&a, &m, &s] {
        assert_eq!(g.data_offset(), a.data_offset());
        assert_eq!(g.expected_len(), bytes.len() as u64);
        let names: Vec<_> = g.tensors().map(|t| t.name().into_owned()).collect();
        assert_eq!(names, ["tok.weight", "norm"]);
        assert_eq!(g.tensor("norm").unwrap().offset(), 32);
        assert_eq!(g.tensor("tok.weight").unwrap().size(), 16);
    }
    assert_eq!(
        m.tensor("norm").unwrap().data(),
        a.tensor("norm").unwrap().data()
    );
    assert!(
        s.tensor("norm").unwrap().data().is_none(),
        "a stream header has no data"
    );
}

#[test]
fn embedded_in_a_larger_buffer() {
    let g = sample();
    let mut buf = b"PREFIX-".to_vec();
    buf.extend(&g);
    buf.extend(b"SUFFIX");
    let inner = &buf[7..];
    let parsed = Gguf::from_bytes(inner).unwrap();
    assert_eq!(
        parsed.tensor("norm").unwrap().data().unwrap(),
        &g[parsed.data_offset() as usize + 32..][..16]
    );
    assert_eq!(parsed.report().warnings[0].rule, Rule::TrailingData);
}

#[test]
fn stream_memory_follows_bytes_not_counts() {
    // a stream that claims a 2^63-element array but ends: truncated, and no huge allocation
    let mut c = Encoder::header(3, 0, 1);
    c.key("a", 9).u32(0).u64(1 << 63);
    let err = Gguf::read_header(&c.bytes[..]).unwrap_err();
    assert_eq!(err.rule(), Some(Rule::Truncated));
    assert_eq!(err.offset(), Some(41));
}

/// Strings are handed out as text without a second check only when the parser checked every
/// one: a permissive open that let bad strings through must still report each exactly (bad ones
/// as bytes, good ones as text), wherever they are: keys, values, small and large string arrays,
/// nested arrays, tensor names; a strict open of the same strings without the bad ones agrees.
#[test]
fn strings_read_back_exactly_with_and_without_bad_text() {
    fn file(bad: bool) -> (Vec<u8>, Vec<Vec<u8>>) {
        let pick = |good: &[u8], wrong: &[u8]| if bad { wrong.to_vec() } else { good.to_vec() };
        let tokens: Vec<Vec<u8>> = (0..300)
            .map(|i| match i % 50 {
                7 => pick(b"seven", b"sev\xffen"),
                8 => "\u{1F600}x".repeat(40).into_bytes(),
                _ => format!("tok{i}\u{00e9}").into_bytes(),
            })
            .collect();
        let mut c = Encoder::header(3, 1, 5);
        c.kv_str("general.architecture", "llama");
        c.key("bad.value", 8).str(pick(b"fine", b"\xc3("));
        c.key(if bad { "k\u{e9}y" } else { "key" }, 8).str(b"v");
        c.key("tokenizer.ggml.tokens", 9)
            .u32(8)
            .u64(tokens.len() as u64);
        for t in &tokens {
            c.str(t);
        }
        // an array of two small string arrays
        c.key("nested", 9).u32(9).u64(2);
        c.u32(8).u64(2).str(b"a").str(pick(b"b", b"\x80"));
        c.u32(8).u64(1).str(b"c");
        c.tensor("t\u{e9}", &[4], 0, 0);
        c.pad(32).data(16).pad(32);
        (c.build(), tokens)
    }
    for bad in [false, true] {
        let (bytes, tokens) = file(bad);
        if bad {
            assert!(Gguf::from_bytes(&bytes).is_err(), "strict refuses bad text");
        }
        let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
        assert_eq!(
            g.report().errors.len(),
            if bad { 8 } else { 0 },
            "{:?}",
            g.report().errors
        );
        let got: Vec<Option<&str>> = g
            .get("tokenizer.ggml.tokens")
            .and_then(|v| v.as_array())
            .unwrap()
            .strings()
            .unwrap()
            .map(|s| s.as_str())
            .collect();
        let want: Vec<Option<&str>> = tokens.iter().map(|t| std::str::from_utf8(t).ok()).collect();
        assert_eq!(got, want, "bad = {bad}");
        assert_eq!(
            got.iter().filter(|s| s.is_none()).count(),
            if bad { 6 } else { 0 }
        );
        let value = g.get("bad.value").unwrap();
        assert_eq!(value.as_str(), if bad { None } else { Some("fine") });
        let keys: Vec<String> = g.metadata().map(|kv| kv.key.to_string()).collect();
        assert_eq!(keys[2], if bad { "k\u{e9}y" } else { "key" });
        let nested = g.get("nested").and_then(|v| v.as_array()).unwrap();
        let inner: Vec<Option<String>> = nested
            .iter()
            .flat_map(|v| {
                let a = v.as_array().unwrap();
                a.strings()
                    .unwrap()
                    .map(|s| s.as_str().map(str::to_owned))
                    .collect::<Vec<_>>()
            })
            .collect();
        let b = if bad { None } else { Some("b".to_owned()) };
        assert_eq!(inner, vec![Some("a".to_owned()), b, Some("c".to_owned())]);
        assert_eq!(g.tensor_at(0).unwrap().name(), "t\u{e9}");
    }
}

/// Names are entered in the index a batch at a time: a repeat is still the first error when a
/// later info breaks another rule, a repeat across batches names the right tensors, and every
/// repeat is reported in order when reading permissively.
#[test]
fn repeated_names_reported_in_order_across_batches() {
    let n = 300u64;
    let name = |i: u64| match i {
        130 => "t3".to_string(),
        290 => "t200".to_string(),
        _ => format!("t{i}"),
    };
    let build = |bad_type_at: Option<u64>| {
        let mut c = Encoder::header(3, n, 0);
        let mut starts = Vec::new();
        for i in 0..n {
            starts.push(c.pos());
            let ty = if Some(i) == bad_type_at { 4 } else { 0 };
            c.tensor(name(i), &[8], ty, 32 * i);
        }
        c.pad(32).data(32 * n as usize);
        (c.build(), starts)
    };
    // a removed type id (4) on a later tensor: the repeat at 130 comes first
    let (bytes, starts) = build(Some(140));
    first_error(&bytes, Rule::TensorDuplicate, starts[130]);
    let (bytes, starts) = build(None);
    first_error(&bytes, Rule::TensorDuplicate, starts[130]);
    let report = validate_bytes(&bytes);
    let dups: Vec<(u64, &str)> = report
        .errors
        .iter()
        .map(|e| (e.offset, e.message.as_str()))
        .collect();
    assert_eq!(dups.len(), 2, "{dups:?}");
    assert_eq!(dups[0].0, starts[130]);
    assert!(
        dups[0].1.contains("tensor 130 is named 't3' like tensor 3"),
        "{}",
        dups[0].1
    );
    assert_eq!(dups[1].0, starts[290]);
    assert!(
        dups[1]
            .1
            .contains("tensor 290 is named 't200' like tensor 200"),
        "{}",
        dups[1].1
    );
    let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    assert_eq!(g.tensor("t3").unwrap().offset(), 32 * 3);
    assert_eq!(g.tensor("t200").unwrap().offset(), 32 * 200);
    assert_eq!(g.tensor("t299").unwrap().offset(), 32 * 299);
    assert!(g.tensor("t130").is_none());
}

/// A header declaring more key-value pairs than the reader indexes (2^32; the bytes are there in
/// a sparse file of 52 GiB) is neither valid nor invalid as far as the reader can tell: `validate`
/// says the check is incomplete, `validate_file` and `open` fail, nothing says "valid".
#[test]
fn counts_beyond_the_readers_index_are_not_judged_valid() {
    let mut c = Encoder::header(3, 0, 1 << 32);
    c.raw(&[0; 16]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.gguf");
    if !ggufkit_testkit::sparse::sparse_file(&path, &c.bytes, (1u64 << 32) * 13 + 64) {
        return;
    }
    let err = ggufkit::validate_file(&path).unwrap_err();
    assert!(matches!(&err, ggufkit::Error::NotValidated { path: p, .. } if *p == path));
    assert!(err.to_string().contains("cannot be validated"), "{err}");
    assert!(
        err.to_string().contains("4294967296 key-value pairs"),
        "{err}"
    );
    assert!(Gguf::open(&path).is_err());
    let report = ggufkit::outline(ggufkit::MappedFile::open(&path).unwrap().bytes()).report;
    assert!(report.incomplete.is_some());
    assert!(report.errors.is_empty());
    assert!(!report.valid() && !report.ggml_compatible());
}
