//! Opening and fully walking headers: every key, every array element (strings as checked `&str`,
//! numbers decoded), every tensor info. Files from `../shared/corpus` when present.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ggufkit::{Gguf, ValueType};
use ggufkit_testkit::header_walk::header_walk;
use ggufkit_testkit::shared;

/// The stress header: 1,000,000 tokens, 1,000,000 merges and 10,000 tensor infos, made by
/// our own writer (tensor data is not needed to walk the header, so the buffer ends after it and
/// is opened permissively).
fn stress_header() -> Vec<u8> {
    use ggufkit::write::{GgufBuilder, OwnedArray, OwnedValue};
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    let tokens: Vec<OwnedValue> = (0..1_000_000u32)
        .map(|i| OwnedValue::String(format!("tok{i:06}\u{2581}")))
        .collect();
    b.set(
        "tokenizer.ggml.tokens",
        OwnedArray::new(ValueType::String, tokens).unwrap(),
    )
    .unwrap();
    let merges: Vec<OwnedValue> = (0..1_000_000u32)
        .map(|i| OwnedValue::String(format!("t{} {}", i % 977, i / 977)))
        .collect();
    b.set(
        "tokenizer.ggml.merges",
        OwnedArray::new(ValueType::String, merges).unwrap(),
    )
    .unwrap();
    for i in 0..10_000 {
        let name = format!("blk.{}.ffn_down.{i}.weight", i / 100);
        b.add_tensor(&name, ggufkit::GgmlType::Q4_K, &[4096, 14336])
            .unwrap();
    }
    b.header().unwrap().0
}

fn bench(c: &mut Criterion) {
    let stress = stress_header();
    let permissive = ggufkit::ReadOptions::permissive();
    let mut group = c.benchmark_group("open_walk_generated");
    group.throughput(Throughput::Bytes(stress.len() as u64));
    group.bench_function("1M tokens + 1M merges + 10k tensors", |b| {
        b.iter(|| {
            let g = Gguf::from_bytes_with(black_box(&stress), &permissive).unwrap();
            black_box(header_walk(&g))
        })
    });
    group.finish();

    let Some(corpus) = shared::corpus() else {
        return;
    };
    let mut files: Vec<PathBuf> = [
        "vocab/ggml-vocab-gemma-4.gguf",
        "vocab/ggml-vocab-command-r.gguf",
        "synthetic/bench_many_tensors.gguf",
        "synthetic/bench_big_string_array.gguf",
    ]
    .iter()
    .map(|f| corpus.join(f))
    .collect();
    if let Ok(extra) = std::env::var("GGUF_BENCH_FILES") {
        files.extend(
            extra
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        );
    }
    let mut group = c.benchmark_group("open_walk");
    for path in files {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let header = Gguf::from_bytes(&bytes)
            .map(|g| g.data_offset())
            .unwrap_or(0);
        group.throughput(Throughput::Bytes(header));
        group.bench_function(format!("slice/{name}"), |b| {
            b.iter(|| {
                let g = Gguf::from_bytes(black_box(&bytes)).unwrap();
                black_box(header_walk(&g))
            })
        });
        group.bench_function(format!("mmap/{name}"), |b| {
            b.iter(|| {
                let g = Gguf::open(black_box(&path)).unwrap();
                black_box(header_walk(&g))
            })
        });
        group.bench_function(format!("open_only/{name}"), |b| {
            b.iter(|| black_box(Gguf::from_bytes(black_box(&bytes)).unwrap().tensor_count()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
