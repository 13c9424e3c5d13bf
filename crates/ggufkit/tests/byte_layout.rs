//! The byte layout (`ggufkit::layout`): every field of the committed sample in place, a file cut
//! short mapped up to the field it breaks in, and on every valid corpus file (skipped, with a
//! note, when `../shared/corpus` is absent) fields that tile the file from its first byte to its
//! last.

use std::path::Path;

use ggufkit::layout::{ByteLayout, FieldPath, FieldValue, KvPart, Severity, TensorInfoPart};
use ggufkit::{GgmlType, Gguf, Rule, ValueType};
use ggufkit_testkit::shared;

fn sample() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf");
    std::fs::read(path).expect("samples/tiny-llama.gguf is committed")
}

/// The fields follow each other without a gap or an overlap, from byte 0 to the end.
fn assert_tiles(layout: &ByteLayout<'_>, len: u64, what: &str) {
    let mut at = 0;
    for f in &layout.fields {
        assert_eq!(f.offset, at, "{what}: {} starts at {}", f.path, f.offset);
        at += f.length;
    }
    assert_eq!(at, len, "{what}: the fields end at {at}");
}

#[test]
fn the_sample_field_by_field() {
    let bytes = sample();
    let layout = ByteLayout::of(&bytes);
    let f = &layout.fields;
    assert_eq!(
        (f[0].path, f[0].offset, f[0].length),
        (FieldPath::Magic, 0, 4)
    );
    assert_eq!(f[0].value, FieldValue::Text(b"GGUF"));
    assert_eq!(f[1].value, FieldValue::Int(3));
    assert_eq!(f[2].value, FieldValue::Int(20));
    assert_eq!(f[3].value, FieldValue::Int(19));
    // kv_pairs[0]: general.architecture = "llama"
    let kv0: Vec<_> = f[4..9]
        .iter()
        .map(|x| (x.path.to_string(), x.offset, x.length, x.value))
        .collect();
    assert_eq!(
        kv0,
        [
            (
                "kv_pairs[0].key.len_value".into(),
                24,
                8,
                FieldValue::Int(20)
            ),
            (
                "kv_pairs[0].key.value".into(),
                32,
                20,
                FieldValue::Text(b"general.architecture")
            ),
            (
                "kv_pairs[0].type".into(),
                52,
                4,
                FieldValue::ValueType(ValueType::String)
            ),
            (
                "kv_pairs[0].value.len_value".into(),
                56,
                8,
                FieldValue::Int(5)
            ),
            (
                "kv_pairs[0].value.value".into(),
                64,
                5,
                FieldValue::Text(b"llama")
            ),
        ]
    );
    // an array's three fields
    let tokens = f
        .iter()
        .position(|x| x.value == FieldValue::Text(b"tokenizer.ggml.tokens"))
        .unwrap();
    let FieldPath::Kv { index, .. } = f[tokens].path else {
        panic!("{:?}", f[tokens].path)
    };
    assert_eq!(index, 12);
    assert_eq!(
        f[tokens + 2].path,
        FieldPath::Kv {
            index,
            part: KvPart::ElementType
        }
    );
    assert_eq!(f[tokens + 3].value, FieldValue::Int(288));
    assert_eq!(f[tokens + 4].value, FieldValue::Elements(288));
    assert_eq!(f[tokens + 4].path.to_string(), "kv_pairs[12].value.elems");

    // tensor_infos[0]: token_embd.weight, q8_0 [64, 288] at 0
    let info0 = f
        .iter()
        .position(|x| {
            x.path
                == FieldPath::TensorInfo {
                    index: 0,
                    part: TensorInfoPart::NameLength,
                }
        })
        .unwrap();
    assert_eq!(f[info0].offset, 7237);
    let parts: Vec<_> = f[info0..info0 + 7]
        .iter()
        .map(|x| (x.path.to_string(), x.value))
        .collect();
    assert_eq!(
        parts,
        [
            ("tensor_infos[0].name.len_value".into(), FieldValue::Int(17)),
            (
                "tensor_infos[0].name.value".into(),
                FieldValue::Text(b"token_embd.weight")
            ),
            ("tensor_infos[0].num_dims".into(), FieldValue::Int(2)),
            ("tensor_infos[0].dims[0]".into(), FieldValue::Int(64)),
            ("tensor_infos[0].dims[1]".into(), FieldValue::Int(288)),
            (
                "tensor_infos[0].type".into(),
                FieldValue::TensorType(ggufkit::TensorType::Ggml(GgmlType::Q8_0))
            ),
            ("tensor_infos[0].offset".into(), FieldValue::Int(0)),
        ]
    );
    let padding = f.iter().find(|x| x.path == FieldPath::Padding).unwrap();
    assert_eq!((padding.offset, padding.length), (8402, 14));
    let data0 = f
        .iter()
        .find(|x| x.path == FieldPath::TensorData { index: 0 })
        .unwrap();
    assert_eq!((data0.offset, data0.length), (8416, 19_584));

    assert_eq!(layout.fixed_end(), 24);
    assert_eq!(layout.metadata_end(), 7237);
    assert_eq!(layout.tensor_infos_end(), 8402);
    assert!(f.iter().all(|x| x.findings.is_empty()));
    assert_tiles(&layout, bytes.len() as u64, "sample");
}

#[test]
fn a_file_cut_short_is_mapped_up_to_the_break() {
    let bytes = sample();
    let cut = &bytes[..7632];
    let layout = ByteLayout::of(cut);
    assert!(layout.outline.stopped);
    let last = layout.fields.last().unwrap();
    // the structure being read, to the end of the bytes, carries the stop
    assert_eq!(
        last.path,
        FieldPath::TensorInfo {
            index: 6,
            part: TensorInfoPart::Whole
        }
    );
    assert_eq!((last.offset, last.length), (7589, 43));
    assert_eq!(last.findings.len(), 1);
    assert_eq!(last.findings[0].severity, Severity::Error);
    assert_eq!(last.findings[0].diagnostic.rule, Rule::Truncated);
    assert_eq!(last.findings[0].diagnostic.offset, 7630);
    assert_eq!(
        layout
            .fields
            .iter()
            .filter(|x| !x.findings.is_empty())
            .count(),
        1
    );
    assert_tiles(&layout, 7632, "cut sample");

    // cut inside the counts: the count that cannot be met is marked, the rest is the body
    let layout = ByteLayout::of(&bytes[..100]);
    let paths: Vec<_> = layout.fields.iter().map(|x| x.path).collect();
    assert_eq!(
        paths,
        [
            FieldPath::Magic,
            FieldPath::Version,
            FieldPath::NumTensorInfos,
            FieldPath::Body
        ]
    );
    assert_eq!(
        layout.fields[2].findings[0].diagnostic.rule,
        Rule::Truncated
    );
    assert_tiles(&layout, 100, "100 bytes");

    // no bytes at all: an empty body carries the finding
    let layout = ByteLayout::of(&[]);
    assert_eq!(layout.fields.len(), 1);
    let body = &layout.fields[0];
    assert_eq!(
        (body.path, body.offset, body.length),
        (FieldPath::Body, 0, 0)
    );
    assert_eq!(body.findings.len(), 1);
}

#[test]
fn every_valid_corpus_file_is_tiled() {
    let Some(dir) = shared::corpus() else { return };
    let mut n = 0;
    for p in shared::gguf_files(&dir) {
        let bytes = std::fs::read(&p).unwrap();
        let layout = ByteLayout::of(&bytes);
        let what = p.display().to_string();
        if !layout.outline.report.valid() {
            // still mapped: the stop is on a field
            assert!(
                layout.fields.iter().any(|f| !f.findings.is_empty()),
                "{what}"
            );
            continue;
        }
        n += 1;
        assert_tiles(&layout, bytes.len() as u64, &what);
        let g = Gguf::from_bytes(&bytes).unwrap();
        let kvs = layout
            .fields
            .iter()
            .filter(|f| {
                matches!(
                    f.path,
                    FieldPath::Kv {
                        part: KvPart::KeyLength,
                        ..
                    }
                )
            })
            .count();
        assert_eq!(kvs, g.kv_count(), "{what}");
        assert!(layout.tensor_infos_end() <= g.data_offset(), "{what}");
        if g.tensor_count() > 0 {
            assert!(
                g.data_offset() - layout.tensor_infos_end() < u64::from(g.alignment()),
                "{what}"
            );
        }
    }
    assert!(n > 50, "only {n} valid corpus files");
}
