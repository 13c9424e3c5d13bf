//! The writer against `std::fs::copy` (which, like `cp`, uses `copy_file_range`): a full rewrite
//! of a real model, an in-place metadata edit of it, byte-order conversion, split and merge.
//!
//! The model is `GGUF_BENCH_MODEL`, else Gemma 3 270M Q4_K_M at /tmp/gemma (assemble it with
//! `bash ../shared/corpus/get-gemma3-270m.sh /tmp/gemma`); without it only the in-memory writer
//! is measured. `scripts/bench_writer.sh` times the same operations through the `gguf` binary
//! against `cp`.

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ggufkit::shard::{split, SplitLimit, SplitOptions};
use ggufkit::write::{convert, edit, ConvertOptions, EditTarget, GgufBuilder, MetaEdit};
use ggufkit::{Endian, GgmlType, Gguf, ShardedModel};

/// The file at `p`, opened with the spec's rules.
fn open(p: &Path) -> Gguf<'static> {
    Gguf::open(p).unwrap()
}

/// `$GGUF_BENCH_MODEL`, else Gemma 3 as the tests find it (or a skip).
fn model() -> Option<PathBuf> {
    match std::env::var_os("GGUF_BENCH_MODEL") {
        Some(p) => Some(PathBuf::from(p)).filter(|p| p.is_file()),
        None => ggufkit_testkit::reference::gemma(),
    }
}

fn in_memory(c: &mut Criterion) {
    // 64 tensors of 1 MiB and a 50k-token vocabulary, written to a buffer
    let data = vec![7u8; 1 << 20];
    let mut b = GgufBuilder::new();
    let tokens: Vec<String> = (0..50_000).map(|i| format!("token{i}")).collect();
    b.set("tokenizer.ggml.tokens", tokens).unwrap();
    for i in 0..64 {
        b.add_tensor_with_data(&format!("t{i}"), GgmlType::I8, &[1 << 20], &data)
            .unwrap();
    }
    let len = b.layout().unwrap().total_len;
    let mut group = c.benchmark_group("write_in_memory");
    group.throughput(Throughput::Bytes(len));
    group.bench_function("64 MiB, 50k tokens", |bench| {
        bench.iter(|| black_box(b.write_to(Vec::with_capacity(len as usize)).unwrap().len()))
    });
    group.finish();
}

fn on_disk(c: &mut Criterion) {
    let Some(src) = model() else {
        return;
    };
    let size = std::fs::metadata(&src).unwrap().len();
    let dir = tempfile::tempdir_in(src.parent().unwrap()).unwrap();
    let out = dir.path().join("out.gguf");

    let mut group = c.benchmark_group("rewrite");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(size));
    group.bench_function("std::fs::copy (cp)", |b| {
        b.iter(|| {
            let _ = std::fs::remove_file(&out);
            std::fs::copy(&src, &out).unwrap()
        })
    });
    group.bench_function("convert (rewrite, bit-identical)", |b| {
        b.iter(|| {
            let _ = std::fs::remove_file(&out);
            convert(&open(&src), &out, ConvertOptions::default(), None).unwrap()
        })
    });
    group.bench_function("convert --endian big", |b| {
        b.iter(|| {
            let _ = std::fs::remove_file(&out);
            let opts = ConvertOptions {
                endian: Some(Endian::Big),
                ..Default::default()
            };
            convert(&open(&src), &out, opts, None).unwrap()
        })
    });
    let prefix = dir.path().join("shard");
    let opts = SplitOptions {
        limit: SplitLimit::MaxSize(100_000_000),
        no_tensor_first_split: false,
        overwrite: true,
    };
    group.bench_function("split --max-size 100M", |b| {
        b.iter(|| split(&open(&src), &prefix, &opts, None).unwrap().len())
    });
    let shards = split(&open(&src), &prefix, &opts, None).unwrap();
    group.bench_function("merge", |b| {
        b.iter(|| {
            let _ = std::fs::remove_file(&out);
            let m = ShardedModel::open(&shards[0].path).unwrap();
            m.merge_to(&out, false, None).unwrap();
            m.tensor_count()
        })
    });
    group.finish();

    // in place: alternate between two names of the same length
    std::fs::copy(&src, &out).unwrap();
    let name = Gguf::open(&out)
        .unwrap()
        .model_name()
        .unwrap_or("model")
        .to_string();
    let mut other = name.clone();
    let last = if name.ends_with('X') { "Y" } else { "X" };
    other.replace_range(other.len() - 1.., last);
    let names = [name, other];
    let mut k = 0;
    let mut group = c.benchmark_group("edit");
    group.bench_function("Gguf::open alone (the parse every edit starts with)", |b| {
        b.iter(|| Gguf::open(&out).unwrap().kv_count())
    });
    group.bench_function("meta set general.name --in-place", |b| {
        b.iter(|| {
            k ^= 1;
            let e = [MetaEdit::Set(
                "general.name".into(),
                names[k].as_str().into(),
            )];
            edit(open(&out), &e, EditTarget::InPlace, None).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, in_memory, on_disk);
criterion_main!(benches);
