//! The writer: bit-exact round trips over the corpus, arbitrary models written and read back,
//! and write failures that never damage anything.

use std::io::{self, Write};

use ggufkit::write::{GgufBuilder, OwnedArray, OwnedValue};
use ggufkit::{Endian, GgmlType, Gguf, ReadOptions, Value, ValueType};
use ggufkit_testkit::shared;
use proptest::prelude::*;

#[test]
fn every_valid_corpus_file_round_trips_bit_for_bit() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let mut checked = 0;
    let mut skipped = Vec::new();
    for path in shared::gguf_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(g) = Gguf::from_bytes(&bytes) else {
            skipped.push(path);
            continue;
        };
        let written = GgufBuilder::from_gguf(&g).unwrap().to_vec().unwrap();
        assert!(
            written == bytes,
            "{}: {} bytes written, {} read; first difference at byte {:?}",
            path.display(),
            written.len(),
            bytes.len(),
            written.iter().zip(&bytes).position(|(a, b)| a != b)
        );
        checked += 1;
    }
    println!(
        "{checked} valid files reproduced; {} invalid ones not written: {:?}",
        skipped.len(),
        skipped
    );
    assert!(checked >= 50, "only {checked} corpus files were valid");
}

#[test]
fn files_opened_permissively_round_trip_too() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    // bool bytes of 2 and strings that are not UTF-8 are copied as they are
    for name in [
        "synthetic/edge/bool_value_2.gguf",
        "synthetic/kv_non_utf8_string.gguf",
    ] {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
        assert!(!g.report().valid(), "{name} was expected to be invalid");
        assert_eq!(
            GgufBuilder::from_gguf(&g).unwrap().to_vec().unwrap(),
            bytes,
            "{name}"
        );
    }
}

#[test]
fn tensorless_files_end_after_the_header_unless_asked() {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    let plain = b.to_vec().unwrap();
    assert_eq!(plain.len(), 24 + 8 + 20 + 4 + 8 + 5);
    b.tensorless_padding(true);
    let padded = b.to_vec().unwrap();
    assert_eq!(padded.len(), 96);
    assert_eq!(&padded[..plain.len()], &plain[..]);
    assert!(padded[plain.len()..].iter().all(|&x| x == 0));
    for bytes in [&plain, &padded] {
        let g = Gguf::from_bytes(bytes).unwrap();
        assert!(g.report().warnings.is_empty(), "{:?}", g.report());
    }
}

#[test]
fn alignment_comes_from_general_alignment() {
    let data = [7u8; 3];
    let mut b = GgufBuilder::new();
    b.set("general.alignment", 128u32).unwrap();
    b.add_tensor_with_data("a", GgmlType::I8, &[3], &data)
        .unwrap();
    b.add_tensor_with_data("b", GgmlType::I8, &[3], &data)
        .unwrap();
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(g.alignment(), 128);
    assert_eq!(g.data_offset() % 128, 0);
    assert_eq!(g.tensor("b").unwrap().offset(), 128);
    assert_eq!(bytes.len() as u64, g.data_offset() + 256);
    assert!(b.set("general.alignment", 3u32).is_err());
    assert!(b.set("general.alignment", 64u64).is_err());
}

#[test]
fn builder_refuses_what_the_spec_forbids() {
    let mut b = GgufBuilder::new();
    assert!(b.set("", 1u8).is_err());
    assert!(b.add_tensor(&"x".repeat(64), GgmlType::F32, &[1]).is_err());
    assert!(b.add_tensor("q", GgmlType::Q8_0, &[31]).is_err());
    assert!(b.add_tensor("r", GgmlType::Q4_2, &[32]).is_err());
    assert!(b.add_tensor("d", GgmlType::F32, &[1, 1, 1, 1, 1]).is_err());
    assert!(b.add_tensor("big", GgmlType::F32, &[1 << 62, 4]).is_err());
    b.add_tensor("t", GgmlType::F32, &[2]).unwrap();
    assert!(b.add_tensor("t", GgmlType::F32, &[2]).is_err());
    assert!(b.version(1).is_err());
    // data given with the wrong length
    let mut b = GgufBuilder::new();
    assert!(b
        .add_tensor_with_data("t", GgmlType::F32, &[2], &[0u8; 7])
        .is_err());
}

#[test]
fn streamed_data_is_checked_and_padded() {
    let mut b = GgufBuilder::new();
    b.add_tensor("a", GgmlType::F16, &[3]).unwrap();
    b.add_tensor("b", GgmlType::F32, &[2]).unwrap();
    let mut dw = b.write_header(Vec::new()).unwrap();
    assert_eq!(dw.next_tensor().unwrap().1, 6);
    assert!(dw.write_tensor(&[1; 5]).is_err(), "wrong size refused");
    dw.copy_tensor(&[1u8; 6][..]).unwrap();
    assert_eq!(dw.next_tensor().unwrap().0, "b");
    // a reader that ends too soon
    let mut short = b.write_header(Vec::new()).unwrap();
    short.copy_tensor(&[1u8; 6][..]).unwrap();
    assert!(short.copy_tensor(&[2u8; 5][..]).is_err());
    // finishing early is an error
    assert!(b.write_header(Vec::new()).unwrap().finish().is_err());
    dw.write_part(&[2; 3]).unwrap();
    dw.write_part(&[2; 5]).unwrap();
    let bytes = dw.finish().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(g.tensor("a").unwrap().data().unwrap(), &[1; 6]);
    assert_eq!(g.tensor("b").unwrap().offset(), 32);
    assert_eq!(g.tensor("b").unwrap().data().unwrap(), &[2; 8]);
    assert_eq!(bytes.len() as u64, g.data_offset() + 64);
}

/// A writer that fails after `limit` bytes.
#[derive(Debug)]
struct FailAfter {
    written: Vec<u8>,
    limit: usize,
}

impl Write for FailAfter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.written.len();
        if room == 0 {
            return Err(io::Error::other("injected write failure"));
        }
        let n = buf.len().min(room);
        self.written.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_surface_as_io_errors_at_every_byte() {
    let data = vec![9u8; 100];
    let mut b = GgufBuilder::new();
    b.set("general.name", "x").unwrap();
    b.add_tensor_with_data("t", GgmlType::I8, &[100], &data)
        .unwrap();
    let full = b.to_vec().unwrap();
    for limit in 0..full.len() {
        let e = b
            .write_to(FailAfter {
                written: Vec::new(),
                limit,
            })
            .unwrap_err();
        assert!(matches!(e, ggufkit::Error::Io { .. }), "{e}");
        assert!(e.to_string().contains("injected"), "{e}");
    }
}

#[test]
fn version_2_and_big_endian_on_request() {
    let mut b = GgufBuilder::new();
    b.version(2).unwrap().endian(Endian::Big);
    b.set("k", vec![1u32, 2, 3]).unwrap();
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!((g.version(), g.endian()), (2, Endian::Big));
    assert_eq!(
        g.get_array("k").unwrap().typed::<u32>().unwrap().to_vec(),
        vec![1, 2, 3]
    );
}

// ---- arbitrary models ----------------------------------------------------------------------

fn scalar() -> impl Strategy<Value = OwnedValue> {
    prop_oneof![
        any::<u8>().prop_map(OwnedValue::U8),
        any::<i8>().prop_map(OwnedValue::I8),
        any::<u16>().prop_map(OwnedValue::U16),
        any::<i16>().prop_map(OwnedValue::I16),
        any::<u32>().prop_map(OwnedValue::U32),
        any::<i32>().prop_map(OwnedValue::I32),
        any::<u32>().prop_map(|b| OwnedValue::F32(f32::from_bits(b))),
        any::<bool>().prop_map(OwnedValue::Bool),
        ".{0,12}".prop_map(OwnedValue::String),
        any::<u64>().prop_map(OwnedValue::U64),
        any::<i64>().prop_map(OwnedValue::I64),
        any::<u64>().prop_map(|b| OwnedValue::F64(f64::from_bits(b))),
    ]
}

fn array_of(elem: ValueType) -> BoxedStrategy<OwnedValue> {
    let item: BoxedStrategy<OwnedValue> = match elem {
        ValueType::Array => scalar()
            .prop_map(|v| OwnedValue::Array(OwnedArray::new(v.value_type(), vec![v]).unwrap()))
            .boxed(),
        t => scalar()
            .prop_filter("element type", move |v| v.value_type() == t)
            .boxed(),
    };
    prop::collection::vec(item, 0..5)
        .prop_map(move |items| OwnedValue::Array(OwnedArray::new(elem, items).unwrap()))
        .boxed()
}

fn value() -> impl Strategy<Value = OwnedValue> {
    prop_oneof![
        3 => scalar(),
        1 => prop::sample::select(ValueType::ALL.to_vec()).prop_flat_map(array_of),
    ]
}

#[derive(Debug, Clone)]
struct Model {
    kvs: Vec<(String, OwnedValue)>,
    tensors: Vec<(String, GgmlType, Vec<u64>, Vec<u8>)>,
    alignment: Option<u32>,
    endian: Endian,
    version: u32,
}

fn tensor() -> impl Strategy<Value = (GgmlType, Vec<u64>)> {
    let types: Vec<GgmlType> = GgmlType::supported().collect();
    (
        prop::sample::select(types),
        prop::collection::vec(1u64..4, 0..4),
    )
        .prop_map(|(ty, mut shape)| {
            match shape.first_mut() {
                Some(first) => *first *= ty.block_size(),
                None if ty.block_size() > 1 => shape.push(ty.block_size()),
                None => {}
            }
            (ty, shape)
        })
}

fn model() -> impl Strategy<Value = Model> {
    (
        prop::collection::vec(("[a-z.]{1,10}", value()), 0..8),
        prop::collection::vec(tensor(), 0..5),
        prop::option::of(prop::sample::select(vec![1u32, 8, 32, 64, 4096])),
        any::<bool>(),
        any::<bool>(),
        any::<u8>(),
    )
        .prop_map(|(kvs, tensors, alignment, big, v2, seed)| {
            let mut seen = std::collections::HashSet::new();
            let kvs = kvs
                .into_iter()
                .filter(|(k, _)| k != "general.alignment" && seen.insert(k.clone()))
                .collect();
            let tensors = tensors
                .into_iter()
                .enumerate()
                .map(|(i, (ty, shape))| {
                    let n: u64 = shape.iter().product();
                    let size = ty.bytes_for(n).unwrap() as usize;
                    let data = (0..size).map(|j| (j as u8) ^ seed ^ (i as u8)).collect();
                    (format!("t{i}"), ty, shape, data)
                })
                .collect();
            Model {
                kvs,
                tensors,
                alignment,
                endian: if big { Endian::Big } else { Endian::Little },
                version: if v2 { 2 } else { 3 },
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_models_read_back_equal(m in model()) {
        let mut b = GgufBuilder::new();
        b.endian(m.endian);
        b.version(m.version).unwrap();
        if let Some(a) = m.alignment {
            b.set("general.alignment", a).unwrap();
        }
        for (k, v) in &m.kvs {
            b.set(k, v.clone()).unwrap();
        }
        for (name, ty, shape, data) in &m.tensors {
            b.add_tensor_with_data(name, *ty, shape, data).unwrap();
        }
        let bytes = b.to_vec().unwrap();
        let g = Gguf::from_bytes(&bytes).unwrap();
        prop_assert!(g.report().warnings.iter().all(|w| w.rule != ggufkit::Rule::TrailingData));
        prop_assert_eq!(g.version(), m.version);
        prop_assert_eq!(g.endian(), m.endian);
        prop_assert_eq!(g.alignment(), m.alignment.unwrap_or(32));
        prop_assert_eq!(g.expected_len(), bytes.len() as u64);
        let expected_kvs = m.alignment.is_some() as usize + m.kvs.len();
        prop_assert_eq!(g.kv_count(), expected_kvs);
        for (k, v) in &m.kvs {
            let got = OwnedValue::from_value(&g.get(k).unwrap()).unwrap();
            prop_assert_eq!(&got, v);
        }
        prop_assert_eq!(g.tensor_count(), m.tensors.len());
        for (t, (name, ty, shape, data)) in g.tensors().zip(&m.tensors) {
            prop_assert_eq!(t.name(), name.as_str());
            prop_assert_eq!(t.ggml_type().unwrap(), *ty);
            prop_assert_eq!(t.shape(), &shape[..]);
            prop_assert_eq!(t.data().unwrap(), &data[..]);
        }
        // and writing it again gives the same bytes
        prop_assert_eq!(GgufBuilder::from_gguf(&g).unwrap().to_vec().unwrap(), bytes);
    }
}

#[test]
fn owned_values_come_from_borrowed_ones() {
    let mut b = GgufBuilder::new();
    b.set("b", true).unwrap();
    b.set("s", "text").unwrap();
    b.set(
        "nested",
        OwnedValue::Array(
            OwnedArray::new(
                ValueType::Array,
                vec![
                    OwnedValue::from(vec![1i8, 2]),
                    OwnedValue::from(vec!["a".to_string()]),
                ],
            )
            .unwrap(),
        ),
    )
    .unwrap();
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert_eq!(g.get("b"), Some(Value::Bool(1)));
    let nested = OwnedValue::from_value(&g.get("nested").unwrap()).unwrap();
    assert_eq!(nested.to_string(), "[array; [int8; 1, 2], [string; \"a\"]]");
}

#[test]
fn an_empty_key_read_permissively_is_refused_as_set_refuses_it() {
    let bytes = ggufkit_testkit::Encoder::header(3, 0, 1)
        .kv_u32("", 7)
        .build();
    let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    let kv = g.kv_at(0).unwrap();
    let mut b = GgufBuilder::new();
    let copied = b.copy_kv(&kv, g.endian()).unwrap_err();
    let set = b.set("", 7u32).unwrap_err();
    assert_eq!(copied.to_string(), set.to_string());
    assert_eq!(
        copied.to_string(),
        "a metadata key cannot be empty (the spec requires at least one byte)"
    );
}

/// `strings().nth(k)` (which skips by the lengths the parser kept) gives what stepping gives, for
/// every k, with strings of 254, 255 and more bytes among short ones, opened strictly and
/// permissively, in both byte orders.
#[test]
fn string_arrays_skip_to_the_nth_as_they_step() {
    let words: Vec<String> = (0..600)
        .map(|i| match i % 97 {
            3 => "x".repeat(254),
            7 => "y".repeat(255),
            11 => "z".repeat(300 + i),
            _ => format!("w{i}"),
        })
        .collect();
    for endian in [Endian::Little, Endian::Big] {
        let mut b = GgufBuilder::new();
        b.endian(endian);
        b.set("tokenizer.ggml.tokens", OwnedValue::from(words.clone()))
            .unwrap();
        let bytes = b.to_vec().unwrap();
        for opts in [ReadOptions::default(), ReadOptions::permissive()] {
            let g = Gguf::from_bytes_with(&bytes, &opts).unwrap();
            let a = g.get_array("tokenizer.ggml.tokens").unwrap();
            let mut stepped = Vec::new();
            for s in a.strings().unwrap() {
                stepped.push(s.to_string_lossy().into_owned());
            }
            assert_eq!(stepped, words);
            for k in 0..=words.len() {
                let got = a
                    .strings()
                    .unwrap()
                    .nth(k)
                    .map(|s| s.to_string_lossy().into_owned());
                assert_eq!(got.as_ref(), words.get(k), "nth({k})");
            }
            // skipping twice from the middle
            let mut it = a.strings().unwrap();
            let first = it.nth(100).map(|s| s.to_string_lossy().into_owned());
            let second = it.nth(5).map(|s| s.to_string_lossy().into_owned());
            assert_eq!(
                (first.as_ref(), second.as_ref()),
                (words.get(100), words.get(106))
            );
        }
    }
}

/// Keys keep their place when set again and go last when new, a removed or filtered-out key can be
/// set again (last), and a tensor name is free again once the tensors are cleared: the builder's
/// lookups follow every change to its lists.
#[test]
fn key_and_name_lookups_follow_every_change() {
    let mut b = GgufBuilder::new();
    for k in ["a", "b", "c", "d"] {
        b.set(k, 1u32).unwrap();
    }
    b.set("b", 2u32).unwrap();
    assert_eq!(b.keys().collect::<Vec<_>>(), ["a", "b", "c", "d"]);
    assert!(b.remove("a"));
    assert!(!b.remove("a"));
    assert_eq!(b.value_type("b"), Some(ValueType::U32));
    b.set("a", "again").unwrap();
    assert_eq!(b.keys().collect::<Vec<_>>(), ["b", "c", "d", "a"]);
    assert_eq!(b.value_type("a"), Some(ValueType::String));
    b.retain_keys(|k| k != b"c");
    assert!(!b.contains_key("c") && b.contains_key("d"));
    b.set("d", 5u8).unwrap();
    b.set("c", 3u8).unwrap();
    assert_eq!(b.keys().collect::<Vec<_>>(), ["b", "d", "a", "c"]);
    b.add_tensor("w", GgmlType::F32, &[4]).unwrap();
    assert!(b.add_tensor("w", GgmlType::F32, &[4]).is_err());
    b.clear_tensors();
    b.add_tensor("w", GgmlType::F32, &[4]).unwrap();
    assert_eq!(b.tensors().len(), 1);
}

/// Setting n keys and adding n tensors one by one is linear in n (each was once a scan of all
/// before it: 40,000 keys through Python took 5 s).
#[test]
fn building_many_keys_and_tensors_is_linear() {
    let build = |n: usize| {
        ggufkit_testkit::growth::time(|| {
            let mut b = GgufBuilder::new();
            for i in 0..n {
                b.set(&format!("key.{i}"), i as u32).unwrap();
                b.add_tensor(&format!("t.{i}"), GgmlType::F32, &[1])
                    .unwrap();
            }
            assert_eq!(b.kv_count(), n);
        })
    };
    // the "inputs" are only their lengths
    let [t] = ggufkit_testkit::growth::measure(&[0; 20_000], &[0; 5_000], |b| [build(b.len())]);
    assert!(t.is_linear(), "{t:?}, {:.1}x", t.ratio());
}
