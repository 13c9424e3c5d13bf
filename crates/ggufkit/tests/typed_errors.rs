//! What a program sees when writing, editing, converting, splitting, merging, carving or
//! quantizing fails: each failure matched as its typed variant, with the fields a caller acts on,
//! and the message the CLI prints.

use std::fs;
use std::path::{Path, PathBuf};

use ggufkit::error::{Location, Missing, QuantError, ShardError, WriteError};
use ggufkit::quantize::{plan_uniform, UniformOptions};
use ggufkit::shard::{parse_size, shard_path, split, SplitLimit, SplitOptions};
use ggufkit::write::{
    carve_file, convert, edit, ConvertOptions, EditTarget, GgufBuilder, MetaEdit, OwnedArray,
    OwnedValue,
};
use ggufkit::{quant, Endian, Error, GgmlType, Gguf, ReadOptions, ShardedModel, ValueType};
use ggufkit_testkit::Encoder;

/// A model with two f32 tensors and one q8_0 tensor.
fn model() -> Vec<u8> {
    let a: Vec<u8> = (0..16u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let c: Vec<u8> = (0..34u8).collect();
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.add_tensor_with_data("a", GgmlType::F32, &[4, 4], &a)
        .unwrap();
    b.add_tensor_with_data("b", GgmlType::F32, &[4, 4], &a)
        .unwrap();
    b.add_tensor_with_data("c", GgmlType::Q8_0, &[32], &c)
        .unwrap();
    b.to_vec().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

/// The file at `p`, opened with the spec's rules.
fn open(p: impl AsRef<Path>) -> Gguf<'static> {
    Gguf::open(p).unwrap()
}

#[test]
fn the_builder_refuses_what_the_spec_forbids() {
    let mut b = GgufBuilder::new();
    let e = b.version(4).unwrap_err();
    assert!(matches!(
        e,
        Error::Write(WriteError::Version { version: 4 })
    ));
    assert_eq!(
        e.to_string(),
        "version 4 cannot be written, expected 2 or 3"
    );
    let e = b.set("", 1u8).unwrap_err();
    assert!(matches!(e, Error::Write(WriteError::EmptyKey)), "{e}");
    let e = b.set("general.alignment", 48u32).unwrap_err();
    assert!(
        matches!(e, Error::Write(WriteError::AlignmentValue { value: 48 })),
        "{e}"
    );
    let e = b.set("general.alignment", "32").unwrap_err();
    assert!(
        matches!(
            e,
            Error::Write(WriteError::AlignmentType {
                found: ValueType::String
            })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "general.alignment has type string, expected uint32"
    );

    let long = "x".repeat(64);
    let e = b.add_tensor(&long, GgmlType::F32, &[1]).unwrap_err();
    match &e {
        Error::Write(WriteError::TensorNameTooLong { name, len }) => {
            assert_eq!((name.as_str(), *len), (long.as_str(), 64));
        }
        other => panic!("{other:?}"),
    }
    let e = b
        .add_tensor("t", GgmlType::F32, &[1, 1, 1, 1, 1])
        .unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::TooManyDims { name, dims: 5 }) if name == "t"),
        "{e}"
    );
    let e = b.add_tensor("t", GgmlType::Q4_2, &[32]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Write(WriteError::RemovedType {
                ty: GgmlType::Q4_2,
                ..
            })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "tensor 't' has type q4_2, which was removed from ggml in May 2023, before GGUF was introduced"
    );
    let e = b.add_tensor("t", GgmlType::F32, &[1 << 63]).unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::DimTooLarge { dim, .. }) if *dim == 1 << 63),
        "{e}"
    );
    let e = b.add_tensor("t", GgmlType::Q4_K, &[100]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Write(WriteError::PartialBlock {
                ty: GgmlType::Q4_K,
                ne0: 100,
                ..
            })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "tensor 't' of type q4_k has 100 elements in its first dimension, expected a multiple of the block size 256"
    );
    let e = b
        .add_tensor("t", GgmlType::F32, &[1 << 40, 1 << 40])
        .unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::SizeOverflow { shape, .. }) if shape == &[1 << 40, 1 << 40]),
        "{e}"
    );
    let e = b
        .add_tensor_with_data("t", GgmlType::F32, &[2], &[0; 7])
        .unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Write(WriteError::AttachedDataSize {
                expected: 8,
                given: 7,
                ..
            })
        ),
        "{e}"
    );
    b.add_tensor("t", GgmlType::F32, &[2]).unwrap();
    let e = b.add_tensor("t", GgmlType::F32, &[2]).unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::DuplicateTensor { name }) if name == "t"),
        "{e}"
    );
    let e = b.to_vec().unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::NoDataAttached { name }) if name == "t"),
        "{e}"
    );
    let e = b.retype_tensor(7, GgmlType::F16).unwrap_err();
    assert!(
        matches!(e, Error::NotFound(Missing::TensorIndex { index: 7 })),
        "{e}"
    );
    let e = OwnedArray::new(ValueType::U8, vec![OwnedValue::U8(1), OwnedValue::I8(2)]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Write(WriteError::ArrayElementType {
                index: 1,
                found: ValueType::I8,
                expected: ValueType::U8
            })
        ),
        "{e}"
    );
}

#[test]
fn a_key_repeated_in_a_permissive_read_is_not_written_twice() {
    let bytes = Encoder::header(3, 0, 2)
        .kv_u32("k", 1)
        .kv_u32("k", 2)
        .build();
    let g = Gguf::from_bytes_with(&bytes, &ReadOptions::permissive()).unwrap();
    let e = GgufBuilder::from_gguf(&g).unwrap().to_vec().unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::DuplicateKey { key }) if key == "k"),
        "{e}"
    );
    assert_eq!(e.to_string(), "key 'k' appears twice, expected unique keys");
}

#[test]
fn the_data_writer_counts_every_byte() {
    let mut b = GgufBuilder::new();
    b.add_tensor("w", GgmlType::F32, &[4]).unwrap();
    let mut dw = b.write_header(Vec::new()).unwrap();
    let e = dw.write_tensor(&[0; 15]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Write(WriteError::TensorDataSize { name, expected: 16, given: 15 }) if name == "w"
        ),
        "{e}"
    );
    let e = dw.copy_tensor(&[0u8; 10][..]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Write(WriteError::TensorDataEnded {
                got: 10,
                expected: 16,
                ..
            })
        ),
        "{e}"
    );
    let mut b = GgufBuilder::new();
    b.add_tensor("w", GgmlType::F32, &[4]).unwrap();
    b.add_tensor("v", GgmlType::F32, &[4]).unwrap();
    let mut dw = b.write_header(Vec::new()).unwrap();
    dw.write_part(&[0; 4]).unwrap();
    let e = dw.finish().unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Write(WriteError::Incomplete { name, missing: 12, tensors_left: 2 }) if name == "w"
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "the file is incomplete: tensor 'w' still needs 12 bytes (2 tensors left)"
    );
    let mut dw = GgufBuilder::new().write_header(Vec::new()).unwrap();
    let e = dw.write_tensor(&[]).unwrap_err();
    assert!(matches!(e, Error::Write(WriteError::NoMoreTensors)), "{e}");
}

#[test]
fn edits_name_the_key_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.gguf", &model());
    let e = edit(
        open(&p),
        &[MetaEdit::Remove("no.such.key".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::NotFound(Missing::Key { key }) if key == "no.such.key"),
        "{e}"
    );
    assert_eq!(e.to_string(), "no key 'no.such.key' in the metadata");
    let out = write(dir.path(), "out.gguf", b"taken");
    let e = edit(
        open(&p),
        &[],
        EditTarget::Output {
            path: &out,
            overwrite: false,
        },
        None,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::OutputExists { path }) if path == &out),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{} already exists (use --force to overwrite it)",
            out.display()
        )
    );
    let gone = dir.path().join("gone.gguf");
    let e = Gguf::open(&gone).unwrap_err();
    match &e {
        Error::Io {
            location: Some(Location::Path(path)),
            source,
            ..
        } => {
            assert_eq!(path, &gone);
            assert_eq!(source.kind(), std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
    assert!(
        e.to_string()
            .starts_with(&format!("opening {}: ", gone.display())),
        "{e}"
    );
}

#[test]
fn conversions_name_the_tensor_and_the_type() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.gguf", &model());
    let opts = UniformOptions {
        ty: GgmlType::IQ2_XXS,
        all: false,
        endian: None,
    };
    let e = plan_uniform(&open(&p), opts).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Write(WriteError::NoReferenceQuantizer {
                ty: GgmlType::IQ2_XXS
            })
        ),
        "{e}"
    );
    let e = quant::quantize(GgmlType::Q8_0, &[0.0; 31], &mut Vec::new()).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Quant(QuantError::PartialBlockElements {
                ty: GgmlType::Q8_0,
                elements: 31
            })
        ),
        "{e}"
    );
    let e = quant::byteswap_blocks(GgmlType::Q4_K, &mut [0; 143]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Quant(QuantError::PartialBlock {
                ty: GgmlType::Q4_K,
                bytes: 143
            })
        ),
        "{e}"
    );
    let e = quant::dequantize(GgmlType::Q4_0_4_4, &[], Endian::Little, &mut []).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Quant(QuantError::RemovedType {
                ty: GgmlType::Q4_0_4_4
            })
        ),
        "{e}"
    );
}

#[test]
fn splits_and_split_models_name_the_shard() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "m.gguf", &model());
    let prefix = dir.path().join("s");
    let e = parse_size("12X").unwrap_err();
    assert!(
        matches!(&e, Error::Shard(ShardError::Size { text }) if text == "12X"),
        "{e}"
    );
    let opts = |limit| SplitOptions {
        limit,
        no_tensor_first_split: false,
        overwrite: false,
    };
    let e = split(&open(&p), &prefix, &opts(SplitLimit::MaxTensors(0)), None).unwrap_err();
    assert!(matches!(e, Error::Shard(ShardError::ZeroMaxTensors)), "{e}");
    let e = split(&open(&p), &prefix, &opts(SplitLimit::MaxSize(32)), None).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Shard(ShardError::EmptyShard { shard: 1, tensor, size: 64 }) if tensor == "a"
        ),
        "{e}"
    );
    let shards = split(&open(&p), &prefix, &opts(SplitLimit::MaxTensors(1)), None).unwrap();
    let paths: Vec<PathBuf> = shards.iter().map(|s| s.path.clone()).collect();
    // splitting again refuses to replace the shards
    let e = split(&open(&p), &prefix, &opts(SplitLimit::MaxTensors(1)), None).unwrap_err();
    assert!(
        matches!(&e, Error::Write(WriteError::OutputExists { path }) if path == &paths[0]),
        "{e}"
    );
    // the second shard is not a first one
    let e = ShardedModel::open(&paths[1]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Shard(ShardError::NotFirst { file: Location::Path(f), no: 1 }) if f == &paths[1]
        ),
        "{e}"
    );
    // a first shard whose name says another count
    let renamed = shard_path(&prefix, 0, 4);
    fs::copy(&paths[0], &renamed).unwrap();
    let e = ShardedModel::open(&renamed).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Shard(ShardError::NameMismatch {
                name_no: 0,
                name_count: 4,
                count: 3,
                ..
            })
        ),
        "{e}"
    );
    let mut b = GgufBuilder::new();
    b.set("split.count", "three").unwrap();
    let odd = write(dir.path(), "odd.gguf", &b.to_vec().unwrap());
    let e = ShardedModel::open(&odd).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Shard(ShardError::SplitKeyType {
                key: "split.count",
                offset: 24,
                ..
            })
        ),
        "{e}"
    );
    let loose = write(dir.path(), "loose.gguf", &fs::read(&paths[0]).unwrap());
    let e = ShardedModel::open(&loose).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Shard(ShardError::FirstShardName { count: 3, .. })
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{} is not named like a first shard (PREFIX-00001-of-00003.gguf)",
            loose.display()
        )
    );
    // the third shard in the second's place
    let second = fs::read(&paths[1]).unwrap();
    fs::copy(&paths[2], &paths[1]).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::Shard(ShardError::Numbering {
                no: Some(2),
                count: Some(3),
                expected_no: 1,
                expected_count: 3,
                ..
            })
        ),
        "{e}"
    );
    fs::write(&paths[1], second).unwrap();
    // a missing shard
    fs::remove_file(&paths[2]).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert!(
        matches!(
            &e,
            Error::NotFound(Missing::Shard { shard: 3, count: 3, path }) if path == &paths[2]
        ),
        "{e}"
    );
}

#[test]
fn carving_says_what_it_found() {
    let dir = tempfile::tempdir().unwrap();
    let junk = write(dir.path(), "junk.bin", &[7u8; 100]);
    let e = carve_file(&junk, &dir.path().join("x.gguf"), false).unwrap_err();
    assert!(matches!(e, Error::NotFound(Missing::Gguf)), "{e}");
    let mut cut = vec![0u8; 10];
    cut.extend(&model()[..60]);
    let cut = write(dir.path(), "cut.bin", &cut);
    let e = carve_file(&cut, &dir.path().join("x.gguf"), false).unwrap_err();
    match &e {
        Error::NotFound(Missing::ValidGguf {
            candidates: 1,
            first_offset: 10,
            first_error,
        }) => assert!(first_error.rule().is_some(), "{first_error}"),
        other => panic!("{other:?}"),
    }
    assert!(Gguf::from_bytes(&model()).is_ok());
}

#[test]
fn writers_need_the_file_an_input_was_opened_from() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = model();
    let out = dir.path().join("out.gguf");
    let not_from_file = |e: Error| matches!(e, Error::Write(WriteError::NotFromFile));
    let g = Gguf::from_bytes(&bytes).unwrap();
    assert!(not_from_file(
        convert(&g, &out, ConvertOptions::default(), None).unwrap_err()
    ));
    let opts = SplitOptions {
        limit: SplitLimit::MaxTensors(1),
        no_tensor_first_split: false,
        overwrite: false,
    };
    assert!(not_from_file(
        split(&g, &dir.path().join("s"), &opts, None).unwrap_err()
    ));
    let header = Gguf::read_header(&bytes[..]).unwrap();
    assert!(not_from_file(
        edit(header, &[], EditTarget::InPlace, None).unwrap_err()
    ));
    let target = EditTarget::Output {
        path: &out,
        overwrite: false,
    };
    assert!(not_from_file(edit(g, &[], target, None).unwrap_err()));
    assert!(!out.exists());
    // the same file opened from its path
    let p = write(dir.path(), "m.gguf", &bytes);
    assert_eq!(
        edit(open(&p), &[], target, None).unwrap(),
        ggufkit::write::EditOutcome::Written
    );
    assert_eq!(fs::read(&out).unwrap(), bytes);
}
