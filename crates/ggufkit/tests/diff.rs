//! `ggufkit::diff`: every kind of difference between two files built for it, equal files,
//! a file cut short named as the side it is, and the corpus's big-endian copy of a model.

use std::path::Path;

use ggufkit::diff::{diff, HeaderChange, Side};
use ggufkit::progress::NoProgress;
use ggufkit::{Endian, Error, GgmlType, Gguf, GgufBuilder, OwnedValue, ReadOptions};

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn xxh64(b: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh64::xxh64(b, 0))
}

/// A file with the pairs `kvs` sets and these tensors.
fn build(
    kvs: impl FnOnce(&mut GgufBuilder),
    tensors: &[(&str, GgmlType, &[u64], Vec<u8>)],
) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    kvs(&mut b);
    for (name, ty, shape, data) in tensors {
        b.add_tensor_with_data(name, *ty, shape, data).unwrap();
    }
    b.to_vec().unwrap()
}

fn sample() -> Vec<u8> {
    std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf"))
        .unwrap()
}

#[test]
fn equal_files_have_no_differences() {
    let a = sample();
    let b = a.clone();
    let (ga, gb) = (Gguf::from_bytes(&a).unwrap(), Gguf::from_bytes(&b).unwrap());
    let d = diff(&ga, &gb, &NoProgress).unwrap();
    assert!(d.is_empty());
    assert_eq!(d.count(), 0);
}

#[test]
fn every_kind_of_difference_is_named_with_its_values() {
    let a = build(
        |a| {
            a.set("only.in.a", OwnedValue::I32(-5)).unwrap();
            a.set("arr", vec![1i32, 2, 3, 4]).unwrap();
            a.set("nan", OwnedValue::F32(f32::NAN)).unwrap();
            a.set("name", "a").unwrap();
        },
        &[
            (
                "same",
                GgmlType::F32,
                &[4],
                f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
            ),
            ("data", GgmlType::F32, &[2], f32_bytes(&[1.0, 2.0])),
            ("shape", GgmlType::F32, &[4], f32_bytes(&[0.0; 4])),
            ("type", GgmlType::F32, &[4], f32_bytes(&[0.0; 4])),
            ("gone", GgmlType::F32, &[1], f32_bytes(&[0.0])),
        ],
    );
    let b = build(
        |b| {
            b.set("general.alignment", OwnedValue::U32(64)).unwrap();
            b.set("arr", vec![1i32, 2, 9, 4, 5]).unwrap();
            b.set("nan", OwnedValue::F32(f32::NAN)).unwrap();
            b.set("name", "b").unwrap();
            b.set("only.in.b", true).unwrap();
        },
        &[
            (
                "same",
                GgmlType::F32,
                &[4],
                f32_bytes(&[1.0, 2.0, 3.0, 4.0]),
            ),
            ("data", GgmlType::F32, &[2], f32_bytes(&[1.0, 2.5])),
            ("shape", GgmlType::F32, &[2, 2], f32_bytes(&[0.0; 4])),
            ("type", GgmlType::F16, &[4], vec![0u8; 8]),
            ("new", GgmlType::F32, &[1], f32_bytes(&[0.0])),
        ],
    );
    let (ga, gb) = (Gguf::from_bytes(&a).unwrap(), Gguf::from_bytes(&b).unwrap());
    let d = diff(&ga, &gb, &NoProgress).unwrap();

    assert_eq!(d.header, [HeaderChange::Alignment(32, 64)]);
    assert_eq!(d.header[0].field(), "alignment");
    let keys =
        |kvs: &[ggufkit::Kv<'_>]| kvs.iter().map(|k| k.key().into_owned()).collect::<Vec<_>>();
    assert_eq!(keys(&d.metadata.removed), ["only.in.a"]);
    assert_eq!(keys(&d.metadata.added), ["general.alignment", "only.in.b"]);
    // a NaN equals the same NaN; the array and the string changed
    let changed: Vec<(&str, Option<u64>)> = d
        .metadata
        .changed
        .iter()
        .map(|c| (c.key.as_str(), c.first_difference))
        .collect();
    assert_eq!(changed, [("arr", Some(2)), ("name", None)]);
    assert_eq!(d.metadata.changed[0].a.as_array().map(|x| x.len()), Some(4));
    assert_eq!(d.metadata.changed[0].b.as_array().map(|x| x.len()), Some(5));
    assert_eq!(d.metadata.changed[1].a.as_str(), Some("a"));
    assert_eq!(d.metadata.changed[1].b.as_str(), Some("b"));

    let names = |ts: &[ggufkit::TensorInfo<'_>]| {
        ts.iter().map(|t| t.name().into_owned()).collect::<Vec<_>>()
    };
    assert_eq!(names(&d.tensors.removed), ["gone"]);
    assert_eq!(names(&d.tensors.added), ["new"]);
    let ch = &d.tensors.changed;
    let summary: Vec<(String, bool, bool, bool)> = ch
        .iter()
        .map(|c| {
            (
                c.a.name().into_owned(),
                c.type_changed,
                c.shape_changed,
                c.data_changed(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("data".to_string(), false, false, true),
            ("shape".to_string(), false, true, false),
            ("type".to_string(), true, false, false),
        ]
    );
    let (x, y) = ch[0].data.unwrap();
    assert_eq!(x.to_string(), xxh64(&f32_bytes(&[1.0, 2.0])));
    assert_eq!(y.to_string(), xxh64(&f32_bytes(&[1.0, 2.5])));
    assert!(ch[1].data.is_none() && ch[2].data.is_none());
    assert_eq!(d.count(), 1 + 2 + 1 + 2 + 1 + 1 + 3);
}

#[test]
fn a_file_cut_short_is_named_by_its_side() {
    let a = sample();
    let mut b = a.clone();
    b.truncate(b.len() - 100);
    let ga = Gguf::from_bytes(&a).unwrap();
    let gb = Gguf::from_bytes_with(&b, &ReadOptions::permissive()).unwrap();
    for (x, y, side) in [(&ga, &gb, Side::B), (&gb, &ga, Side::A)] {
        match diff(x, y, &NoProgress) {
            Err(Error::InComparison { side: s, source }) => {
                assert_eq!(s, side);
                match *source {
                    Error::DataCutShort { actual, needed } => {
                        assert_eq!((actual, needed), (b.len() as u64, a.len() as u64));
                    }
                    other => panic!("{other:?}"),
                }
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_big_endian_copy_differs_in_byte_order_and_raw_data_only() {
    let Some(corpus) = ggufkit_testkit::shared::find("corpus") else {
        return;
    };
    let ga = Gguf::open(corpus.join("models/llama-2-tiny-random.gguf")).unwrap();
    let gb = Gguf::open(corpus.join("big-endian/llama-2-tiny-random.BE.gguf")).unwrap();
    let d = diff(&ga, &gb, &NoProgress).unwrap();
    assert_eq!(
        d.header,
        [HeaderChange::Endian(Endian::Little, Endian::Big)]
    );
    assert!(d.metadata.added.is_empty() && d.metadata.removed.is_empty());
    assert!(d.metadata.changed.is_empty(), "{:?}", d.metadata.changed);
    assert!(d.tensors.added.is_empty() && d.tensors.removed.is_empty());
    assert_eq!(d.tensors.changed.len(), ga.tensor_count());
    for c in &d.tensors.changed {
        let (x, y) = c.data.unwrap();
        assert_eq!(x.to_string(), xxh64(c.a.data().unwrap()));
        assert_eq!(y.to_string(), xxh64(c.b.data().unwrap()));
    }
}
