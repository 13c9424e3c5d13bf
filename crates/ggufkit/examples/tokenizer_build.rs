//! What building a tokenizer costs: the time of `Tokenizer::from_gguf` on an opened file (best
//! of N), then of the first `encode` (which builds the lazy indexes: merge ranks, the special-
//! token matcher, the pre-tokenizer), and the peak heap bytes of each, beside the bytes of the
//! vocabulary's arrays in the header (`tokenizer.ggml.*`: tokens, scores, types, merges).
//! A counting global allocator measures the heap (`cargo run --release -p ggufkit --example
//! tokenizer_build -- VOCAB... [-n N] [--json]`).

use std::time::Instant;

use ggufkit::tokenizer::Tokenizer;
use ggufkit::Gguf;
use ggufkit_testkit::heap::{peak_of, Counting};

#[global_allocator]
static ALLOC: Counting = Counting;

/// The bytes of the vocabulary's arrays in the header.
fn vocab_bytes(g: &Gguf<'_>) -> usize {
    g.metadata()
        .filter(|kv| kv.key().starts_with("tokenizer.ggml."))
        .filter_map(|kv| g.get_array(&kv.key()))
        .map(|a| a.raw_bytes().len())
        .sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 11;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    let json = args.iter().any(|a| a == "--json");
    args.retain(|a| a != "--json");
    if args.is_empty() {
        return Err("usage: VOCAB... [-n N] [--json]".into());
    }
    for path in &args {
        let g = Gguf::open(path)?;
        let vocab = vocab_bytes(&g);
        let (mut build, mut first) = (f64::INFINITY, f64::INFINITY);
        let (mut build_heap, mut total_heap) = (0, 0);
        for _ in 0..n {
            let t = Instant::now();
            let (heap, tok) = peak_of(|| Tokenizer::from_gguf(&g));
            let tok = tok?;
            build = build.min(t.elapsed().as_secs_f64() * 1e3);
            build_heap = heap;
            let t = Instant::now();
            let (heap, ids) = peak_of(|| tok.encode("Hello world, 123 <b>\n", true, true));
            ids?;
            first = first.min(t.elapsed().as_secs_f64() * 1e3);
            total_heap = build_heap + heap;
        }
        if json {
            println!(
                "{{\"path\": {path:?}, \"build_ms\": {build:.3}, \"first_encode_ms\": {first:.3}, \
                 \"build_heap\": {build_heap}, \"heap_with_first_encode\": {total_heap}, \
                 \"vocab_bytes\": {vocab}}}"
            );
        } else {
            println!(
                "{path}: build {build:.2} ms (heap {:.1} MB), first encode {first:.2} ms (heap with it \
                 {:.1} MB); vocabulary arrays {:.1} MB: {:.2}x",
                build_heap as f64 / 1e6,
                total_heap as f64 / 1e6,
                vocab as f64 / 1e6,
                total_heap as f64 / vocab as f64
            );
        }
    }
    Ok(())
}
