//! Opening and fully walking headers with ggufkit (every key, every array element, every tensor
//! info), from a memory map, from a plain unbuffered `File` through `Gguf::read_header`, and from
//! a slice, and opening alone; and the map floor (mapping the
//! file and touching every header byte once) for the ratio.
//!
//! Files: the corpus's largest vocabularies and bench files, Gemma 3 270M when present, and the
//! generated stress files when present in `target/ggufkit-bench` (made by
//! `cargo run --release -p ggufkit-bench --bin compare -- --generate target/ggufkit-bench`, or
//! here when `GGUF_BENCH_GENERATE=1`). Absent files are skipped and said so.
//! `GGUF_BENCH_PEERS=1` adds the peers (candle, ggus, gguf-rs-lib) to the same group;
//! `GGUF_BENCH_FILES=a.gguf:b.gguf` adds files.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ggufkit::Gguf;
use ggufkit_bench::gen::Generated;
use ggufkit_bench::parsers::{header_len, walk_ggufkit};
use ggufkit_bench::{files, Parser};
use ggufkit_testkit::skip::{skip, Need};

fn bench_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    match files::corpus_dir() {
        Some(c) => {
            for f in [
                "vocab/ggml-vocab-gemma-4.gguf",
                "vocab/ggml-vocab-command-r.gguf",
                "vocab/ggml-vocab-llama-spm.gguf",
                "synthetic/bench_many_tensors.gguf",
                "synthetic/bench_big_string_array.gguf",
            ] {
                let p = c.join(f);
                if p.is_file() {
                    v.push(p);
                } else {
                    eprintln!("SKIP: {} not found", p.display());
                }
            }
        }
        None => skip(
            Need::Shared,
            "the shared corpus (../shared/corpus or $GGUF_CORPUS) not found",
        ),
    }
    match files::gemma_path() {
        Some(p) => v.push(p),
        None => skip(Need::Gemma, "Gemma 3 270M not found (set GGUF_GEMMA)"),
    }
    let dir = files::generated_dir();
    let generate = std::env::var("GGUF_BENCH_GENERATE").is_ok_and(|v| v == "1");
    for g in Generated::STRESS {
        let p = dir.join(g.file_name());
        if generate && !p.exists() {
            if let Err(e) = g.ensure(&dir) {
                eprintln!("SKIP: generating {}: {e}", p.display());
            }
        }
        if p.is_file() {
            v.push(p);
        } else {
            eprintln!(
                "SKIP: {} not generated (GGUF_BENCH_GENERATE=1 makes it)",
                p.display()
            );
        }
    }
    if let Ok(extra) = std::env::var("GGUF_BENCH_FILES") {
        v.extend(
            extra
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from),
        );
    }
    v
}

fn bench(c: &mut Criterion) {
    let peers = std::env::var("GGUF_BENCH_PEERS").is_ok_and(|v| v == "1");
    let mut group = c.benchmark_group("open_walk");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for path in bench_files() {
        let Ok(bytes) = std::fs::read(&path) else {
            eprintln!("SKIP: cannot read {}", path.display());
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let hlen = header_len(&path);
        if Gguf::from_bytes(&bytes).is_err() {
            eprintln!("SKIP: ggufkit rejects {name}");
            continue;
        }
        group.throughput(Throughput::Bytes(hlen));
        group.bench_function(BenchmarkId::new("ggufkit-mmap", &name), |b| {
            b.iter(|| {
                let g = Gguf::open(black_box(&path)).unwrap();
                black_box(walk_ggufkit(&g))
            })
        });
        // the stream reader over a plain unbuffered File: read_header reads in chunks itself
        group.bench_function(BenchmarkId::new("ggufkit-read-header", &name), |b| {
            b.iter(|| {
                let f = std::fs::File::open(black_box(&path)).unwrap();
                let g = Gguf::read_header(f).unwrap();
                black_box(walk_ggufkit(&g))
            })
        });
        group.bench_function(BenchmarkId::new("ggufkit-slice", &name), |b| {
            b.iter(|| {
                let g = Gguf::from_bytes(black_box(&bytes)).unwrap();
                black_box(walk_ggufkit(&g))
            })
        });
        group.bench_function(BenchmarkId::new("ggufkit-open-only", &name), |b| {
            b.iter(|| black_box(Gguf::from_bytes(black_box(&bytes)).unwrap().tensor_count()))
        });
        // the floor: mapping the file and touching every header byte once
        group.bench_function(BenchmarkId::new("floor-map", &name), |b| {
            b.iter(|| black_box(Parser::FloorMap.run(black_box(&path), hlen).unwrap()))
        });
        if peers {
            for p in [Parser::Ggus, Parser::Candle, Parser::GgufRsLib] {
                if p.run_catching(&path, hlen).is_err() {
                    eprintln!("SKIP: {} fails on {name}", p.name());
                    continue;
                }
                group.bench_function(BenchmarkId::new(p.name(), &name), |b| {
                    b.iter(|| black_box(p.run(black_box(&path), hlen).unwrap()))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
