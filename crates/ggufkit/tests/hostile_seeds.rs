//! The fuzzers' own seed files (`fuzz/seeds/`): small GGUFs our test encoder makes, one of each
//! shape the fuzzers should start from. This test checks that the committed files are exactly
//! what the encoder makes now and that each one reads as expected;
//! `GGUFKIT_WRITE_SEEDS=1 cargo test -p ggufkit --test hostile_seeds` rewrites them.

use ggufkit::{Endian, GgmlType, Gguf};
use ggufkit_testkit::{Model, T, V};

/// Three levels of arrays of arrays with siblings after each, around numbers and strings.
fn nested_tree() -> V {
    let leaf = V::Arr(4, vec![V::U32(7), V::U32(8)]);
    let strings = V::Arr(8, vec![V::str("x"), V::str("yz")]);
    let mut v = V::Arr(9, vec![leaf.clone(), strings]);
    for _ in 0..3 {
        v = V::Arr(9, vec![v.clone(), V::Arr(9, vec![]), v, leaf.clone()]);
    }
    v
}

fn seeds() -> Vec<(&'static str, Vec<u8>, bool)> {
    let kvs = vec![
        (b"general.architecture".to_vec(), V::str("llama")),
        (b"llama.block_count".to_vec(), V::U32(2)),
        (b"f".to_vec(), V::F32(-0.5)),
        (b"b".to_vec(), V::Bool(1)),
        (b"i".to_vec(), V::I64(-7)),
        (
            b"toks".to_vec(),
            V::Arr(8, vec![V::str("<s>"), V::str("a")]),
        ),
        (
            b"scores".to_vec(),
            V::Arr(6, vec![V::F32(0.0), V::F32(-1.5)]),
        ),
        (
            b"nested".to_vec(),
            V::Arr(9, vec![V::Arr(1, vec![V::I8(-1)]), V::Arr(12, vec![])]),
        ),
    ];
    let few: Vec<T> = [GgmlType::F32, GgmlType::F16, GgmlType::Q8_0, GgmlType::Q4_K]
        .into_iter()
        .map(|ty| T::new(&format!("t.{}", ty.name()), &[ty.block_size(), 2], ty))
        .collect();
    let all: Vec<T> = GgmlType::supported()
        .map(|ty| T::new(&format!("t.{}", ty.name()), &[ty.block_size()], ty))
        .collect();
    let mut out = vec![
        ("empty", Model::default().encode(), true),
        (
            "kvs",
            Model {
                kvs: kvs.clone(),
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            "model",
            Model {
                kvs: kvs.clone(),
                tensors: few.clone(),
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            "model-be",
            Model {
                endian: Endian::Big,
                kvs: kvs.clone(),
                tensors: few.clone(),
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            "align-1",
            Model {
                alignment: 1,
                kvs: vec![(b"general.alignment".to_vec(), V::U32(1))],
                tensors: few.clone(),
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            "all-types",
            Model {
                tensors: all,
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            "v2-scalar",
            Model {
                version: 2,
                tensors: vec![T::new("s", &[], GgmlType::F32)],
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            // arrays of arrays before their last sibling: the ends the parser records
            "nested-tree",
            Model {
                kvs: vec![(b"tree".to_vec(), nested_tree())],
                ..Model::default()
            }
            .encode(),
            true,
        ),
        (
            // a vocabulary's shape: enough strings for the parser to keep their lengths, some
            // of 255 bytes and more, some with length fields that are not ASCII
            "vocab",
            Model {
                kvs: vec![(
                    b"tokenizer.ggml.tokens".to_vec(),
                    V::Arr(
                        8,
                        (0..80usize)
                            .map(|i| V::str(&"ab\u{e9}".repeat([1, 0, 90, 43][i % 4])))
                            .collect(),
                    ),
                )],
                ..Model::default()
            }
            .encode(),
            true,
        ),
    ];
    // invalid ones, one defect each
    let mut dup = Model {
        kvs: kvs.clone(),
        tensors: few.clone(),
        ..Model::default()
    };
    dup.tensors[1].name = dup.tensors[0].name.clone();
    out.push(("dup-tensor", dup.encode(), false));
    let bad_bool = Model {
        kvs: vec![(b"b".to_vec(), V::Bool(2))],
        ..Model::default()
    };
    out.push(("bool-2", bad_bool.encode(), false));
    let model = out[2].1.clone();
    out.push(("cut", model[..model.len() - 40].to_vec(), false));
    out
}

#[test]
fn fuzz_seeds_are_current() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds");
    let write = std::env::var_os("GGUFKIT_WRITE_SEEDS").is_some();
    for (name, bytes, valid) in seeds() {
        assert_eq!(Gguf::from_bytes(&bytes).is_ok(), valid, "{name}");
        assert_eq!(ggufkit::validate_bytes(&bytes).valid(), valid, "{name}");
        let path = dir.join(format!("{name}.gguf"));
        if write {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else {
            let on_disk = std::fs::read(&path).unwrap_or_else(|e| {
                panic!(
                    "{}: {e} (GGUFKIT_WRITE_SEEDS=1 cargo test -p ggufkit --test hostile_seeds)",
                    path.display()
                )
            });
            assert!(on_disk == bytes, "{} is stale", path.display());
        }
    }
}
