//! Edits, byte-order conversion, split, merge and carving, on generated files and the corpus.

use std::fs;
use std::path::{Path, PathBuf};

use ggufkit::quantize::names::NotQuantized;
use ggufkit::quantize::{convert_file, plan_uniform, SkipReason, UniformOptions};
use ggufkit::shard::{parse_shard_path, shard_path, split, SplitLimit, SplitOptions};
use ggufkit::write::{
    carve_file, convert, edit, ConvertOptions, EditOutcome, EditTarget, GgufBuilder, MetaEdit,
    OwnedValue,
};
use ggufkit::{Endian, Error, GgmlType, Gguf, ShardedModel};
use ggufkit_testkit::shared;

/// A small model with three tensors of distinct bytes and a name whose length can be varied.
fn model(name: &str) -> Vec<u8> {
    let a: Vec<u8> = (0..64u32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let b: Vec<u8> = (0..40u16).flat_map(|i| (i * 3).to_le_bytes()).collect();
    let c: Vec<u8> = (0..34u8).collect();
    let mut g = GgufBuilder::new();
    g.set("general.architecture", "llama").unwrap();
    g.set("general.name", name).unwrap();
    g.set("llama.context_length", 4096u32).unwrap();
    g.set("tokenizer.ggml.tokens", vec!["<s>", "</s>", "hello"])
        .unwrap();
    g.add_tensor_with_data("a", GgmlType::F32, &[8, 8], &a)
        .unwrap();
    g.add_tensor_with_data("b", GgmlType::F16, &[40], &b)
        .unwrap();
    g.add_tensor_with_data("c", GgmlType::Q8_0, &[32], &c)
        .unwrap();
    g.to_vec().unwrap()
}

fn tensor_bytes(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let g = Gguf::from_bytes(bytes).unwrap();
    g.tensors()
        .map(|t| (t.name().into_owned(), t.data().unwrap().to_vec()))
        .collect()
}

fn write_tmp(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    fs::write(&p, bytes).unwrap();
    p
}

/// The file at `p`, opened with the spec's rules.
fn open(p: impl AsRef<Path>) -> Gguf<'static> {
    Gguf::open(p).unwrap()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_edit_that_fits_is_made_in_place() {
    let dir = tempfile::tempdir().unwrap();
    let before = model("tiny");
    let p = write_tmp(dir.path(), "m.gguf", &before);
    let data_offset = Gguf::from_bytes(&before).unwrap().data_offset();
    let out = edit(
        open(&p),
        &[MetaEdit::Set("general.name".into(), "tinz".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert_eq!(out, EditOutcome::InPlace { bytes_written: 1 });
    let after = fs::read(&p).unwrap();
    assert_eq!(after.len(), before.len());
    let g = Gguf::from_bytes(&after).unwrap();
    assert_eq!(g.model_name(), Some("tinz"));
    assert_eq!(g.data_offset(), data_offset);
    assert_eq!(
        &after[data_offset as usize..],
        &before[data_offset as usize..]
    );
    // a shorter value that keeps the same aligned end: still in place, the gap padded with zeros
    let out = edit(
        open(&p),
        &[MetaEdit::Set("general.name".into(), "t".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert!(matches!(out, EditOutcome::InPlace { .. }), "{out:?}");
    let after = fs::read(&p).unwrap();
    let g = Gguf::from_bytes(&after).unwrap();
    assert_eq!(g.model_name(), Some("t"));
    assert_eq!(g.data_offset(), data_offset);
    assert!(g.report().valid() && g.report().warnings.is_empty());
    // the same value again writes nothing
    let out = edit(
        open(&p),
        &[MetaEdit::Set("general.name".into(), "t".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert_eq!(out, EditOutcome::InPlace { bytes_written: 0 });
}

#[test]
fn an_edit_that_does_not_fit_rewrites_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let before = model("tiny");
    let p = write_tmp(dir.path(), "m.gguf", &before);
    let long = "a name long enough to push the header past its alignment block".repeat(3);
    let out = edit(
        open(&p),
        &[
            MetaEdit::Set("general.name".into(), long.as_str().into()),
            MetaEdit::Set("new.key".into(), OwnedValue::from(vec![1.5f64, -2.0])),
        ],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert_eq!(out, EditOutcome::Rewritten);
    let after = fs::read(&p).unwrap();
    let g = Gguf::from_bytes(&after).unwrap();
    assert!(g.report().warnings.is_empty());
    assert_eq!(g.model_name(), Some(long.as_str()));
    assert_eq!(g.get_array("new.key").unwrap().len(), 2);
    assert_eq!(tensor_bytes(&after), tensor_bytes(&before));
    // keys kept their order: the edited key in its place, the new one last
    let keys: Vec<String> = g.metadata().map(|kv| kv.key().into_owned()).collect();
    assert_eq!(
        keys,
        [
            "general.architecture",
            "general.name",
            "llama.context_length",
            "tokenizer.ggml.tokens",
            "new.key"
        ]
    );
    assert_eq!(files_in(dir.path()), ["m.gguf"], "no temporary file left");
    // removing both restores the original bytes exactly
    edit(
        open(&p),
        &[
            MetaEdit::Set("general.name".into(), "tiny".into()),
            MetaEdit::Remove("new.key".into()),
        ],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert_eq!(fs::read(&p).unwrap(), before);
}

#[test]
fn failed_edits_leave_the_file_alone() {
    let dir = tempfile::tempdir().unwrap();
    let before = model("tiny");
    let p = write_tmp(dir.path(), "m.gguf", &before);
    let e = edit(
        open(&p),
        &[MetaEdit::Remove("no.such.key".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap_err();
    assert!(matches!(e, Error::NotFound(_)), "{e}");
    let e = edit(
        open(&p),
        &[MetaEdit::Set(
            "general.alignment".into(),
            OwnedValue::U32(48),
        )],
        EditTarget::InPlace,
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("power of two"), "{e}");
    let e = edit(
        open(&p),
        &[MetaEdit::Set(String::new(), OwnedValue::U8(1))],
        EditTarget::InPlace,
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
    assert_eq!(fs::read(&p).unwrap(), before);
    // an invalid file is not edited
    let mut broken = before.clone();
    broken.truncate(broken.len() - 1);
    let q = write_tmp(dir.path(), "broken.gguf", &broken);
    assert!(Gguf::open(&q).is_err());
    assert_eq!(fs::read(&q).unwrap(), broken);
    assert_eq!(files_in(dir.path()), ["broken.gguf", "m.gguf"]);
}

#[test]
fn changing_the_alignment_rewrites_and_realigns() {
    let dir = tempfile::tempdir().unwrap();
    let before = model("tiny");
    let p = write_tmp(dir.path(), "m.gguf", &before);
    let out = edit(
        open(&p),
        &[MetaEdit::Set(
            "general.alignment".into(),
            OwnedValue::U32(256),
        )],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert_eq!(out, EditOutcome::Rewritten);
    let after = fs::read(&p).unwrap();
    let g = Gguf::from_bytes(&after).unwrap();
    assert_eq!(g.alignment(), 256);
    assert!(g.tensors().all(|t| t.absolute_offset() % 256 == 0));
    assert_eq!(tensor_bytes(&after), tensor_bytes(&before));
}

#[test]
fn edits_to_another_file_refuse_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let before = model("tiny");
    let p = write_tmp(dir.path(), "m.gguf", &before);
    let out = write_tmp(dir.path(), "out.gguf", b"precious");
    let edits = [MetaEdit::Remove("general.name".into())];
    let e = edit(
        open(&p),
        &edits,
        EditTarget::Output {
            path: &out,
            overwrite: false,
        },
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(fs::read(&out).unwrap(), b"precious");
    edit(
        open(&p),
        &edits,
        EditTarget::Output {
            path: &out,
            overwrite: true,
        },
        None,
    )
    .unwrap();
    let written = fs::read(&out).unwrap();
    let g = Gguf::from_bytes(&written).unwrap();
    assert_eq!(g.model_name(), None);
    assert_eq!(fs::read(&p).unwrap(), before, "the source is only read");
}

#[test]
fn tensorless_files_are_edited_in_place_only_at_the_same_length() {
    let dir = tempfile::tempdir().unwrap();
    let mut b = GgufBuilder::new();
    b.set("general.name", "abc").unwrap();
    let before = b.to_vec().unwrap();
    let p = write_tmp(dir.path(), "v.gguf", &before);
    let out = edit(
        open(&p),
        &[MetaEdit::Set("general.name".into(), "xyz".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert!(matches!(out, EditOutcome::InPlace { .. }));
    let out = edit(
        open(&p),
        &[MetaEdit::Set("general.name".into(), "xy".into())],
        EditTarget::InPlace,
        None,
    )
    .unwrap();
    assert_eq!(out, EditOutcome::Rewritten);
    let after = fs::read(&p).unwrap();
    assert_eq!(after.len(), before.len() - 1);
    assert_eq!(Gguf::from_bytes(&after).unwrap().model_name(), Some("xy"));
}

#[test]
fn corpus_edits_keep_every_other_byte() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "models/llama-2-tiny-random.gguf",
        "big-endian/llama-2-tiny-random.BE.gguf",
        "vocab/ggml-vocab-llama-spm.gguf",
        "synthetic/zero_tensors.gguf",
    ] {
        let src = dir.join(name);
        let original = fs::read(&src).unwrap();
        let p = write_tmp(tmp.path(), "x.gguf", &original);
        edit(
            open(&p),
            &[MetaEdit::Set("test.added".into(), "a value".into())],
            EditTarget::InPlace,
            None,
        )
        .unwrap();
        edit(
            open(&p),
            &[MetaEdit::Remove("test.added".into())],
            EditTarget::InPlace,
            None,
        )
        .unwrap();
        assert_eq!(fs::read(&p).unwrap(), original, "{name}");
    }
}

// ---- byte order ------------------------------------------------------------------------------

#[test]
fn big_endian_corpus_files_convert_to_the_little_endian_originals() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for (be, le) in [
        (
            "big-endian/ggml-vocab-llama-spm.BE.gguf",
            "vocab/ggml-vocab-llama-spm.gguf",
        ),
        (
            "big-endian/llama-2-tiny-random.BE.gguf",
            "models/llama-2-tiny-random.gguf",
        ),
        ("big-endian/superpoint.BE.gguf", "models/superpoint.gguf"),
    ] {
        let out = tmp.path().join("le.gguf");
        let opts = ConvertOptions {
            endian: Some(Endian::Little),
            overwrite: true,
        };
        convert(&open(dir.join(be)), &out, opts, None).unwrap();
        assert!(
            fs::read(&out).unwrap() == fs::read(dir.join(le)).unwrap(),
            "{be}"
        );
        let back = tmp.path().join("be.gguf");
        let opts = ConvertOptions {
            endian: Some(Endian::Big),
            overwrite: true,
        };
        convert(&open(&out), &back, opts, None).unwrap();
        assert!(
            fs::read(&back).unwrap() == fs::read(dir.join(be)).unwrap(),
            "{le}"
        );
    }
}

#[test]
fn little_big_little_is_the_identity_for_every_convertible_file() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let mut n = 0;
    for path in shared::gguf_files(&dir) {
        let bytes = fs::read(&path).unwrap();
        let Ok(g) = Gguf::from_bytes(&bytes) else {
            continue;
        };
        if g.tensors()
            .any(|t| !ggufkit::write::endian::can_swap(t.ggml_type().unwrap()))
        {
            continue;
        }
        let there = tmp.path().join("there.gguf");
        let back = tmp.path().join("back.gguf");
        let other = ggufkit::write::other_endian(g.endian());
        let opts = |e| ConvertOptions {
            endian: Some(e),
            overwrite: true,
        };
        convert(&open(&path), &there, opts(other), None).unwrap();
        let t = fs::read(&there).unwrap();
        let tg = Gguf::from_bytes(&t).unwrap();
        assert_eq!(tg.endian(), other);
        assert_eq!(tg.kv_count(), g.kv_count());
        convert(&open(&there), &back, opts(g.endian()), None).unwrap();
        assert!(fs::read(&back).unwrap() == bytes, "{}", path.display());
        n += 1;
    }
    assert!(n >= 40, "only {n} files converted");
}

#[test]
fn quantized_blocks_swap_their_fields_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = model("q");
    let p = write_tmp(dir.path(), "m.gguf", &bytes);
    let be = dir.path().join("be.gguf");
    let back = dir.path().join("back.gguf");
    let opts = |e| ConvertOptions {
        endian: Some(e),
        ..Default::default()
    };
    convert(&open(&p), &be, opts(Endian::Big), None).unwrap();
    let b = fs::read(&be).unwrap();
    let g = Gguf::from_bytes(&b).unwrap();
    // q8_0: the f16 scale is swapped, the 32 int8 quants are not
    let c = g.tensor("c").unwrap().data().unwrap();
    let orig: Vec<u8> = (0..34u8).collect();
    assert_eq!(&c[..2], &[1, 0]);
    assert_eq!(&c[2..], &orig[2..]);
    convert(&open(&be), &back, opts(Endian::Little), None).unwrap();
    assert_eq!(fs::read(&back).unwrap(), bytes);
}

#[test]
fn requantizing_converts_the_weights_and_says_which() {
    let dir = tempfile::tempdir().unwrap();
    let w: Vec<f32> = (0..256).map(|i| (i as f32 * 0.37).sin()).collect();
    let wb: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    let norm: Vec<u8> = (0..64).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let ids: Vec<u8> = (0..32).flat_map(|i: i32| i.to_le_bytes()).collect();
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.add_tensor_with_data("blk.0.attn_q.weight", GgmlType::F32, &[64, 4], &wb)
        .unwrap();
    b.add_tensor_with_data("blk.0.attn_norm.weight", GgmlType::F32, &[64], &norm)
        .unwrap();
    b.add_tensor_with_data("ids", GgmlType::I32, &[32], &ids)
        .unwrap();
    let bytes = b.to_vec().unwrap();
    let p = write_tmp(dir.path(), "m.gguf", &bytes);
    let planned = |ty, all| {
        let opts = UniformOptions {
            ty,
            all,
            endian: None,
        };
        plan_uniform(&open(&p), opts).map(|plan| {
            let names: Vec<String> = plan.converted().map(|t| t.name.clone()).collect();
            let skipped: Vec<(String, SkipReason)> =
                plan.skipped().map(|(t, r)| (t.name.clone(), r)).collect();
            (names, skipped)
        })
    };
    let (names, skipped) = planned(GgmlType::Q8_0, false).unwrap();
    assert_eq!(names, ["blk.0.attn_q.weight"]);
    assert_eq!(
        skipped,
        [
            (
                "blk.0.attn_norm.weight".to_string(),
                SkipReason::NotQuantized(NotQuantized::OneDimensional)
            ),
            ("ids".to_string(), SkipReason::Integer)
        ]
    );
    let (names, _) = planned(GgmlType::Q8_0, true).unwrap();
    assert_eq!(names, ["blk.0.attn_q.weight", "blk.0.attn_norm.weight"]);
    assert!(planned(GgmlType::IQ2_XXS, false).is_err());
    for (e, all) in [(Endian::Little, false), (Endian::Big, true)] {
        let out = dir.path().join(format!("q-{e}.gguf"));
        let opts = UniformOptions {
            ty: GgmlType::Q8_0,
            all,
            endian: Some(e),
        };
        let input = open(&p);
        let plan = plan_uniform(&input, opts).unwrap();
        // progress counts the output's tensor bytes, which the plan knows beforehand
        let done = std::rc::Rc::new(std::cell::Cell::new(0u64));
        let seen = std::rc::Rc::clone(&done);
        let progress: ggufkit::write::ProgressFn = Box::new(move |n| seen.set(seen.get() + n));
        convert_file(&input, &out, &plan, false, Some(progress)).unwrap();
        assert_eq!(done.get(), plan.bytes_out(), "progress of {e} all={all}");
        let qb = fs::read(&out).unwrap();
        let q = Gguf::from_bytes(&qb).unwrap();
        let t = q.tensor("blk.0.attn_q.weight").unwrap();
        assert_eq!(t.ggml_type().unwrap(), GgmlType::Q8_0);
        let mut expect = Vec::new();
        ggufkit::quant::quantize(GgmlType::Q8_0, &w, &mut expect).unwrap();
        if e == Endian::Big {
            ggufkit::quant::byteswap_blocks(GgmlType::Q8_0, &mut expect).unwrap();
        }
        assert_eq!(t.data().unwrap(), &expect[..]);
        let n = q.tensor("blk.0.attn_norm.weight").unwrap();
        let want = if all { GgmlType::Q8_0 } else { GgmlType::F32 };
        assert_eq!(n.ggml_type().unwrap(), want);
        assert_eq!(q.tensor("ids").unwrap().ggml_type().unwrap(), GgmlType::I32);
        assert_eq!(q.kv_count(), 1);
    }
}

#[test]
fn convert_without_a_change_is_a_clean_copy() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = model("plain");
    let p = write_tmp(dir.path(), "m.gguf", &bytes);
    let out = dir.path().join("copy.gguf");
    convert(&open(&p), &out, ConvertOptions::default(), None).unwrap();
    assert_eq!(fs::read(&out).unwrap(), bytes);
    // trailing bytes and a non-zero padding byte are cleaned away
    let mut dirty = bytes.clone();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let pad_at = g.data_offset() as usize - 1;
    drop(g);
    dirty[pad_at] = 0xAA;
    dirty.extend(b"trailing");
    let q = write_tmp(dir.path(), "dirty.gguf", &dirty);
    convert(
        &open(&q),
        &out,
        ConvertOptions {
            overwrite: true,
            ..Default::default()
        },
        None,
    )
    .unwrap();
    assert_eq!(fs::read(&out).unwrap(), bytes);
}

// ---- split and merge -------------------------------------------------------------------------

#[test]
fn split_matches_gguf_split_and_merge_restores_the_model() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let src = dir.join("models/llama-2-tiny-random.gguf");
    let prefix = tmp.path().join("llama-2-tiny-random");
    let opts = SplitOptions {
        limit: SplitLimit::MaxTensors(5),
        no_tensor_first_split: false,
        overwrite: false,
    };
    let plan = split(&open(&src), &prefix, &opts, None).unwrap();
    assert_eq!(plan.len(), 3);
    for (i, shard) in plan.iter().enumerate() {
        let name = shard.path.file_name().unwrap();
        let reference = fs::read(dir.join("split").join(name)).unwrap();
        assert!(fs::read(&shard.path).unwrap() == reference, "shard {i}");
        assert_eq!(shard.size, reference.len() as u64);
    }
    // splitting again refuses to overwrite
    assert!(split(&open(&src), &prefix, &opts, None).is_err());

    // merging llama.cpp's shards gives the original model byte for byte
    let merged = tmp.path().join("merged.gguf");
    let first = dir.join("split/llama-2-tiny-random-00001-of-00003.gguf");
    let m = ShardedModel::open(&first).unwrap();
    m.merge_to(&merged, false, None).unwrap();
    assert_eq!((m.shard_count(), m.tensor_count()), (3, 12));
    assert!(fs::read(&merged).unwrap() == fs::read(&src).unwrap());
}

#[test]
fn a_split_model_opens_as_one() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let m = ShardedModel::open(dir.join("split/llama-2-tiny-random-00001-of-00003.gguf")).unwrap();
    let whole = Gguf::open(dir.join("models/llama-2-tiny-random.gguf")).unwrap();
    assert_eq!(m.tensor_count(), whole.tensor_count());
    assert_eq!(
        m.get("general.architecture").unwrap().as_str(),
        Some("llama")
    );
    for t in whole.tensors() {
        let s = m.tensor(&t.name()).unwrap();
        assert_eq!(s.data(), t.data(), "{}", t.name());
        assert_eq!(s.shape(), t.shape());
    }
    assert_eq!(m.tensor_shard("output.weight"), Some(2));
    assert_eq!(m.tensor_shard("token_embd.weight"), Some(0));
    assert!(m.tensor("nope").is_none());
    let names: Vec<String> = m.tensors().map(|t| t.name().into_owned()).collect();
    let whole_names: Vec<String> = whole.tensors().map(|t| t.name().into_owned()).collect();
    assert_eq!(names, whole_names);
    // a single file opens as a model of one shard
    let one = ShardedModel::open(dir.join("models/superpoint.gguf")).unwrap();
    assert_eq!((one.shard_count(), one.tensor_count()), (1, 24));
}

#[test]
fn gguf_py_shards_merge_too() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("merged.gguf");
    let m = ShardedModel::open(dir.join("synthetic/split-00001-of-00003.gguf")).unwrap();
    m.merge_to(&out, false, None).unwrap();
    assert_eq!(m.tensor_count(), 5);
    let g = Gguf::open(&out).unwrap();
    assert!(g.report().valid());
    assert!(g.metadata().all(|kv| !kv.key().starts_with("split.")));
    for t in g.tensors() {
        assert_eq!(t.data(), m.tensor(&t.name()).unwrap().data());
    }
}

/// Writes a 3-shard split of the test model into `dir` and returns the shard paths.
fn shards(dir: &Path) -> Vec<PathBuf> {
    let src = write_tmp(dir, "m.gguf", &model("split me"));
    let opts = SplitOptions {
        limit: SplitLimit::MaxTensors(1),
        no_tensor_first_split: false,
        overwrite: false,
    };
    split(&open(&src), &dir.join("m"), &opts, None)
        .unwrap()
        .into_iter()
        .map(|p| p.path)
        .collect()
}

#[test]
fn shards_that_do_not_belong_together_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let paths = shards(dir.path());
    assert_eq!(paths.len(), 3);
    assert_eq!(parse_shard_path(&paths[2]).unwrap().1, 2);
    let out = dir.path().join("out.gguf");
    // a good merge first
    let m = ShardedModel::open(&paths[0]).unwrap();
    m.merge_to(&out, false, None).unwrap();
    assert_eq!(m.tensor_count(), 3);
    let merged = fs::read(&out).unwrap();
    assert_eq!(merged, model("split me"));

    // the second shard as first
    let e = ShardedModel::open(&paths[1]).unwrap_err();
    assert!(e.to_string().contains("not the first"), "{e}");
    // a missing shard
    let saved = fs::read(&paths[2]).unwrap();
    fs::remove_file(&paths[2]).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert!(e.to_string().contains("shard 3 of 3 is missing"), "{e}");
    // shard 2's file in shard 3's place: wrong number, duplicated tensor
    fs::copy(&paths[1], &paths[2]).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert!(e.to_string().contains("expected shard 3 of 3"), "{e}");
    let mut b = GgufBuilder::new();
    let g1 = fs::read(&paths[1]).unwrap();
    let g1 = Gguf::from_bytes(&g1).unwrap();
    b.set("split.no", 2u16).unwrap();
    b.set("split.tensors.count", 3i32).unwrap();
    b.set("split.count", 3u16).unwrap();
    let t = g1.tensor_at(0).unwrap();
    b.add_tensor_with_data(
        &t.name(),
        t.ggml_type().unwrap(),
        t.shape(),
        t.data().unwrap(),
    )
    .unwrap();
    fs::write(&paths[2], b.to_vec().unwrap()).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert!(e.to_string().contains("and again in"), "{e}");
    // a shard with no tensors: the count no longer adds up
    b.clear_tensors();
    fs::write(&paths[2], b.to_vec().unwrap()).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert!(e.to_string().contains("split.tensors.count says 3"), "{e}");
    // a shard whose split.tensors.count differs from the first shard's, or is absent
    b.set("split.tensors.count", 4i32).unwrap();
    fs::write(&paths[2], b.to_vec().unwrap()).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    let third = paths[2].display();
    assert_eq!(
        e.to_string(),
        format!("{third}: split.tensors.count is 4, but the first shard says 3")
    );
    assert!(b.remove("split.tensors.count"));
    fs::write(&paths[2], b.to_vec().unwrap()).unwrap();
    let e = ShardedModel::open(&paths[0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{third}: split.tensors.count is absent, but the first shard says 3")
    );
    fs::write(&paths[2], saved).unwrap();
    // a first shard renamed so its name no longer matches its keys
    let renamed = shard_path(&dir.path().join("m"), 0, 4);
    fs::copy(&paths[0], &renamed).unwrap();
    let e = ShardedModel::open(&renamed).unwrap_err();
    assert!(e.to_string().contains("shard 1 of 4"), "{e}");
}

#[test]
fn split_by_size_follows_gguf_split() {
    let dir = tempfile::tempdir().unwrap();
    let src = write_tmp(dir.path(), "m.gguf", &model("by size"));
    let g = Gguf::open(&src).unwrap();
    // tensors of 256, 80 and 34 bytes: padded to 32, 256 + 96 + 64
    let plan = |max| {
        let opts = SplitOptions {
            limit: SplitLimit::MaxSize(max),
            no_tensor_first_split: false,
            overwrite: false,
        };
        ggufkit::shard::plan_split(&g, &dir.path().join("p"), &opts)
            .map(|p| p.into_iter().map(|s| s.tensors).collect::<Vec<_>>())
    };
    assert_eq!(plan(1000).unwrap(), vec![vec![0, 1, 2]]);
    assert_eq!(plan(352).unwrap(), vec![vec![0, 1], vec![2]]);
    assert_eq!(plan(351).unwrap(), vec![vec![0], vec![1, 2]]);
    let e = plan(100).unwrap_err();
    assert!(e.to_string().contains("would hold no tensors"), "{e}");
    let opts = SplitOptions {
        limit: SplitLimit::MaxTensors(2),
        no_tensor_first_split: true,
        overwrite: false,
    };
    let p = ggufkit::shard::plan_split(&g, &dir.path().join("p"), &opts).unwrap();
    let groups: Vec<_> = p.iter().map(|s| s.tensors.clone()).collect();
    assert_eq!(groups, vec![vec![], vec![0, 1], vec![2]]);
}

// ---- carving -----------------------------------------------------------------------------------

#[test]
fn carving_cuts_exactly_the_gguf() {
    let dir = tempfile::tempdir().unwrap();
    let inner = model("carved");
    let mut blob = vec![0x47u8; 1000]; // 'G's
    blob.extend(b"GGUF\x02\x00\x00\x00 a decoy that does not parse");
    let at = blob.len();
    blob.extend(&inner);
    blob.extend(vec![0xEE; 5000]);
    let src = write_tmp(dir.path(), "disk.img", &blob);
    let out = dir.path().join("found.gguf");
    let found = carve_file(&src, &out, false).unwrap();
    assert_eq!(found.offset, at as u64);
    assert_eq!(fs::read(&out).unwrap(), inner);
    // nothing to find
    let none = write_tmp(dir.path(), "none.bin", &[0u8; 100]);
    let e = carve_file(&none, &dir.path().join("x.gguf"), false).unwrap_err();
    assert!(matches!(e, Error::NotFound(_)), "{e}");
    assert!(!dir.path().join("x.gguf").exists());
}

#[test]
fn carving_corpus_files_out_of_junk() {
    let Some(dir) = shared::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    for name in [
        "models/superpoint.gguf",
        "big-endian/llama-2-tiny-random.BE.gguf",
        "vocab/ggml-vocab-phi-3.gguf",
    ] {
        let inner = fs::read(dir.join(name)).unwrap();
        let mut blob = b"GGUF\x03\x00\x00\x00prefix".to_vec();
        blob.extend(&inner);
        blob.extend(b"suffix bytes");
        let src = write_tmp(tmp.path(), "blob.bin", &blob);
        let out = tmp.path().join("out.gguf");
        carve_file(&src, &out, true).unwrap();
        assert!(fs::read(&out).unwrap() == inner, "{name}");
    }
}

#[test]
fn an_opened_file_knows_its_path_and_nothing_else_claims_one() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = model("tiny");
    let p = write_tmp(dir.path(), "m.gguf", &bytes);
    assert_eq!(Gguf::open(&p).unwrap().path(), Some(p.as_path()));
    let permissive = ggufkit::ReadOptions::permissive();
    assert_eq!(
        Gguf::open_with(&p, &permissive).unwrap().path(),
        Some(p.as_path())
    );
    assert_eq!(Gguf::from_bytes(&bytes).unwrap().path(), None);
    assert_eq!(Gguf::read_header(&bytes[..]).unwrap().path(), None);
}
