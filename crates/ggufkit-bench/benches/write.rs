//! Writing with `ggufkit::write`: encoding a whole header again from an opened file (every pair
//! copied bit for bit, every tensor info re-laid), rewriting a file with one metadata change (an
//! atomic copy of all tensor data), and the same change made in place.
//!
//! Files: the largest corpus vocabulary, Gemma 3 270M and the generated stress files, each when
//! present (see `benches/header.rs`); absent files are skipped and said so. Outputs go to
//! `target/ggufkit-bench` and are removed at the end.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ggufkit::write::{edit_file, edit_to, GgufBuilder, MetaEdit};
use ggufkit::{Gguf, OwnedValue};
use ggufkit_bench::files;
use ggufkit_bench::gen::Generated;

fn present(p: PathBuf) -> Option<PathBuf> {
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("SKIP: {} not found", p.display());
        None
    }
}

fn name_edit(v: &str) -> [MetaEdit; 1] {
    [MetaEdit::Set(
        "general.name".into(),
        OwnedValue::String(v.into()),
    )]
}

fn bench(c: &mut Criterion) {
    let gen_dir = files::generated_dir();
    let corpus_vocab =
        files::corpus_dir().and_then(|c| present(c.join("vocab/ggml-vocab-gemma-4.gguf")));
    let gemma = files::gemma_path();
    if gemma.is_none() {
        eprintln!("SKIP: Gemma 3 270M not found (set GGUF_GEMMA)");
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
                let builder = GgufBuilder::from_gguf(black_box(&gguf));
                black_box(builder.header().expect("header").0.len())
            })
        });
    }
    g.finish();

    // 2. a rewrite with one metadata change (temporary file, data copied, sync, rename), and the
    //    same change in place on a copy
    let files: Vec<PathBuf> = gemma.iter().chain(&stress).cloned().collect();
    if files.is_empty() {
        return;
    }
    if std::fs::create_dir_all(&gen_dir).is_err() {
        eprintln!("SKIP: cannot create {}", gen_dir.display());
        return;
    }
    let out = gen_dir.join("write-bench-out.gguf");
    let mut g = c.benchmark_group("rewrite");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
        g.throughput(Throughput::Bytes(len));
        g.bench_function(BenchmarkId::new("atomic_rewrite", &name), |b| {
            b.iter(|| edit_to(path, &out, &name_edit("rewritten"), true, None).expect("rewrite"))
        });
    }
    g.finish();
    let mut g = c.benchmark_group("edit_in_place");
    g.sample_size(20).measurement_time(Duration::from_secs(3));
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if std::fs::copy(path, &out).is_err() {
            eprintln!("SKIP: cannot copy {}", path.display());
            continue;
        }
        let mut flip = false;
        g.bench_function(BenchmarkId::from_parameter(&name), |b| {
            b.iter(|| {
                flip = !flip;
                // same length both ways, so the header fits and the edit stays in place
                let v = if flip {
                    "ggufkit-bench A"
                } else {
                    "ggufkit-bench B"
                };
                edit_file(Path::new(&out), &name_edit(v), None).expect("edit")
            })
        });
    }
    g.finish();
    let _ = std::fs::remove_file(&out);
    eprintln!("SKIP: hashing (not in the library yet: `gguf hash` lives in the CLI)");
}

criterion_group!(benches, bench);
criterion_main!(benches);
