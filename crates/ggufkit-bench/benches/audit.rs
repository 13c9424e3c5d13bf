//! The audit (`ggufkit::audit::audit`) of Gemma 3 270M (262,144 tokens, 236 tensors; the target
//! is under 50 ms) and of the corpus's largest vocabularies, which carry real chat templates:
//! the audit of an opened file, and opening plus auditing. Then what the audit adds to a scan:
//! `scan` of the whole corpus on one thread, without the audit, with its default depth (the
//! target is under 20% more) and with every rule. Absent files are skipped and said so.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ggufkit::audit::Depth;
use ggufkit::scan::{self, FileRows, NoScanProgress, ScanOptions, Sink};
use ggufkit::Gguf;
use ggufkit_bench::files;
use ggufkit_testkit::skip::{skip, Need};

fn bench_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    match files::gemma_path() {
        Some(p) => v.push(p),
        None => skip(Need::Gemma, "Gemma 3 270M not found (set GGUF_GEMMA)"),
    }
    match files::corpus_dir() {
        Some(c) => {
            for f in [
                "vocab/ggml-vocab-gemma-4.gguf",
                "vocab/ggml-vocab-command-r.gguf",
                "vocab/ggml-vocab-llama-spm.gguf",
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
    v
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("audit");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    for path in bench_files() {
        let name = path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let g = match Gguf::open(&path) {
            Ok(g) => g,
            Err(e) => {
                eprintln!("SKIP: {}: {e}", path.display());
                continue;
            }
        };
        group.bench_with_input(BenchmarkId::new("audit", &name), &g, |b, g| {
            b.iter(|| black_box(ggufkit::audit::audit(g)))
        });
        group.bench_with_input(BenchmarkId::new("audit_header", &name), &g, |b, g| {
            b.iter(|| black_box(ggufkit::audit::audit_with(g, Depth::Header)))
        });
        group.bench_with_input(BenchmarkId::new("open_audit", &name), &path, |b, p| {
            b.iter(|| {
                let g = Gguf::open(p).expect("opened once already");
                black_box(ggufkit::audit::audit(&g))
            })
        });
        group.bench_with_input(BenchmarkId::new("open", &name), &path, |b, p| {
            b.iter(|| black_box(Gguf::open(p).expect("opened once already").tensor_count()))
        });
    }
    group.finish();
}

/// A sink that drops the rows: the scan's cost without an output's.
struct Discard;

impl Sink for Discard {
    fn write(&mut self, rows: FileRows) -> ggufkit::Result<()> {
        black_box(rows);
        Ok(())
    }

    fn finish(&mut self) -> ggufkit::Result<()> {
        Ok(())
    }
}

fn bench_scan(c: &mut Criterion) {
    let Some(corpus) = files::corpus_dir() else {
        skip(
            Need::Shared,
            "the shared corpus (../shared/corpus or $GGUF_CORPUS) not found",
        );
        return;
    };
    let locations = scan::expand(&[corpus.to_string_lossy().as_ref()]);
    let mut group = c.benchmark_group("scan_corpus");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6));
    // one after the other in one run: repeat the run on a shared machine
    for (name, audit) in [
        ("without_audit", None),
        ("with_audit", Some(Depth::Header)),
        ("with_full_audit", Some(Depth::Full)),
    ] {
        let options = ScanOptions {
            jobs: 1,
            audit,
            ..ScanOptions::default()
        };
        group.bench_function(name, |b| {
            b.iter(|| {
                scan::scan(
                    &locations,
                    &Default::default(),
                    &options,
                    &mut Discard,
                    &NoScanProgress,
                )
                .expect("a sink that cannot fail")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_scan);
criterion_main!(benches);
