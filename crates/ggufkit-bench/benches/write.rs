//! Writing and hashing: encoding a whole header again from an opened file with `ggufkit::write`
//! (every pair copied bit for bit, every tensor info laid out again), and hashing a file with the
//! `gguf hash` command (xxh64 and sha256; the whole command over `ggufkit::hash`).
//!
//! Rewrites, in-place edits, byte-order conversion, split and merge of a real model are measured
//! by the library's own `crates/ggufkit/benches/write.rs` (against `std::fs::copy`), not again
//! here.
//!
//! Files: the largest corpus vocabulary, Gemma 3 270M and the generated stress files, each when
//! present (see `benches/header.rs`); absent files, and a missing `gguf` binary, are skipped and
//! said so.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use ggufkit::write::GgufBuilder;
use ggufkit::Gguf;
use ggufkit_bench::files;
use ggufkit_bench::gen::Generated;
use ggufkit_testkit::skip::{skip, Need};

fn present(p: PathBuf) -> Option<PathBuf> {
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("SKIP: {} not found", p.display());
        None
    }
}

fn bench(c: &mut Criterion) {
    let gen_dir = files::generated_dir();
    let corpus_vocab =
        files::corpus_dir().and_then(|c| present(c.join("vocab/ggml-vocab-gemma-4.gguf")));
    let gemma = files::gemma_path();
    if gemma.is_none() {
        skip(Need::Gemma, "Gemma 3 270M not found (set GGUF_GEMMA)");
    }
    let stress: Vec<PathBuf> = Generated::STRESS
        .iter()
        .filter_map(|g| present(gen_dir.join(g.file_name())))
        .collect();

    // 1. a whole header encoded again
    let mut g = c.benchmark_group("write_header");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    for path in corpus_vocab.iter().chain(&gemma).chain(&stress) {
        let Ok(gguf) = Gguf::open(path) else {
            eprintln!("SKIP: ggufkit rejects {}", path.display());
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        g.throughput(Throughput::Bytes(gguf.data_offset()));
        g.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| {
                let builder = GgufBuilder::from_gguf(black_box(&gguf)).expect("builder");
                black_box(builder.header().expect("header").0.len())
            })
        });
    }
    g.finish();

    // 2. hashing, through the `gguf hash` command (the whole command over `ggufkit::hash`)
    let Some(gguf) = gguf_binary() else {
        eprintln!(
            "SKIP: hashing (no gguf binary: `cargo build --release -p gguf-cli` or set GGUF_BIN)"
        );
        return;
    };
    let mut g = c.benchmark_group("hash");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for path in gemma.iter().chain(&stress) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        g.throughput(Throughput::Bytes(len));
        for algo in ["xxh64", "sha256"] {
            g.bench_function(
                BenchmarkId::new(format!("gguf hash --algo {algo}"), &name),
                |b| {
                    b.iter(|| {
                        let out = Command::new(&gguf)
                            .args(["hash", "--algo", algo])
                            .arg(path)
                            .output()
                            .expect("running gguf hash");
                        assert!(out.status.success(), "gguf hash failed");
                        black_box(out.stdout.len())
                    })
                },
            );
        }
    }
    g.finish();
}

/// The `gguf` binary: `$GGUF_BIN`, else the workspace's release build.
fn gguf_binary() -> Option<PathBuf> {
    let p = std::env::var_os("GGUF_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/release/gguf"));
    p.is_file().then_some(p)
}

criterion_group!(benches, bench);
criterion_main!(benches);
