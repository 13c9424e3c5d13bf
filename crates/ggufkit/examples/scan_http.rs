//! The remote figures of `gguf scan` (issue 19): N small generated files (a mix of valid and
//! broken, by our writer) served on loopback by the test kit's server with a delay before every
//! answer, scanned with J files in flight; then the cost per file as the header grows.
//!
//! `cargo run --release -p ggufkit --features remote --example scan_http -- [N] [JOBS] [DELAY_MS]`
//! (defaults 2000, 64, 20). Figures go to BENCHMARKS.md.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ggufkit::scan::{self, Collect, NoScanProgress, ScanOptions, Target};
use ggufkit::Location;
use ggufkit::{GgmlType, GgufBuilder, OwnedValue};
use ggufkit_testkit::server::{Faults, Object, Server};

/// A small model whose vocabulary has `tokens` entries.
fn model(n: usize, tokens: usize) -> Vec<u8> {
    let mut b = GgufBuilder::new();
    b.set("general.architecture", "llama").unwrap();
    b.set("general.name", format!("m{n}").as_str()).unwrap();
    b.set("llama.context_length", 4096u32).unwrap();
    if tokens > 0 {
        let t: Vec<String> = (0..tokens).map(|i| format!("tok{i}")).collect();
        let t: Vec<&str> = t.iter().map(String::as_str).collect();
        b.set("tokenizer.ggml.tokens", OwnedValue::from(t)).unwrap();
    }
    b.add_tensor_with_data("w", GgmlType::F32, &[16, 16], &[0u8; 1024])
        .unwrap();
    b.to_vec().unwrap()
}

fn serve(objects: Vec<(String, Vec<u8>)>, delay: Duration) -> (Server, Vec<Target>) {
    let names: Vec<String> = objects.iter().map(|(n, _)| n.clone()).collect();
    let map: HashMap<String, Object> = objects
        .into_iter()
        .map(|(n, b)| (n, Object::new(b)))
        .collect();
    let srv = Server::start(
        map,
        Faults {
            stall: Some(delay),
            ..Faults::default()
        },
    );
    let locs = names
        .iter()
        .map(|n| Target::File(Location::Url(srv.url(n))))
        .collect();
    (srv, locs)
}

fn run(locs: &[Target], jobs: usize) -> (Duration, Collect) {
    let mut sink = Collect::default();
    let opts = ScanOptions {
        jobs,
        ..ScanOptions::default()
    };
    let t = Instant::now();
    scan::scan(locs, &Default::default(), &opts, &mut sink, &NoScanProgress).unwrap();
    (t.elapsed(), sink)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let n = args.first().copied().unwrap_or(2000);
    let jobs = args.get(1).copied().unwrap_or(64);
    let delay = Duration::from_millis(args.get(2).copied().unwrap_or(20) as u64);

    let objects: Vec<(String, Vec<u8>)> = (0..n)
        .map(|i| {
            let mut b = model(i, 32);
            match i % 10 {
                8 => b.truncate(b.len() / 2),
                9 => b[20] ^= 0xff,
                _ => {}
            }
            (format!("/f{i:06}.gguf"), b)
        })
        .collect();
    let (srv, locs) = serve(objects, delay);
    let (t, sink) = run(&locs, jobs);
    let requests: u64 = sink.rows.iter().map(|r| r.file.requests).sum();
    let bytes: u64 = sink.rows.iter().map(|r| r.file.bytes_fetched).sum();
    let unreadable = sink
        .rows
        .iter()
        .filter(|r| r.file.read_error.is_some())
        .count();
    println!(
        "{n} files, {jobs} in flight, {} ms per answer: {:.2} s, {:.0} files/s, {:.2} requests/file, {:.0} bytes/file, {unreadable} unreadable",
        delay.as_millis(),
        t.as_secs_f64(),
        n as f64 / t.as_secs_f64(),
        requests as f64 / n as f64,
        bytes as f64 / n as f64
    );
    drop(srv);

    println!(
        "\n| vocabulary | header bytes | requests | bytes fetched | ms per file (1 in flight) |"
    );
    println!("|---:|---:|---:|---:|---:|");
    for tokens in [0usize, 1_000, 10_000, 100_000, 262_144] {
        let bytes = model(0, tokens);
        let header = ggufkit::Gguf::from_bytes(&bytes).unwrap().data_offset();
        let objects: Vec<(String, Vec<u8>)> = (0..5)
            .map(|i| (format!("/v{i}.gguf"), bytes.clone()))
            .collect();
        let (srv, locs) = serve(objects, delay);
        let (t, sink) = run(&locs, 1);
        let f = &sink.rows[0].file;
        println!(
            "| {tokens} | {header} | {} | {} | {:.1} |",
            f.requests,
            f.bytes_fetched,
            t.as_secs_f64() * 1000.0 / 5.0
        );
        drop(srv);
    }
    if let Ok(path) = std::env::var("GGUF_GEMMA")
        .or_else(|_| Ok::<_, ()>("/tmp/gemma/gemma-3-270m-q4_k_m.gguf".to_string()))
    {
        if let Ok(bytes) = std::fs::read(&path) {
            let header = ggufkit::Gguf::from_bytes(&bytes).unwrap().data_offset();
            let (srv, locs) = serve(vec![("/gemma.gguf".into(), bytes)], delay);
            let (t, sink) = run(&locs, 1);
            let f = &sink.rows[0].file;
            println!(
                "| Gemma 3 270M (262,144) | {header} | {} | {} | {:.1} |",
                f.requests,
                f.bytes_fetched,
                t.as_secs_f64() * 1000.0
            );
            drop(srv);
        }
    }
}
