//! What building a tokenizer costs: the time of `Tokenizer::from_gguf` on an opened file (best
//! of N), then of the first `encode` (which builds the lazy indexes: merge ranks, the special-
//! token matcher, the pre-tokenizer), and the peak heap bytes of each, beside the bytes of the
//! vocabulary's arrays in the header (`tokenizer.ggml.*`: tokens, scores, types, merges).
//! A counting global allocator measures the heap (`cargo run --release -p ggufkit --example
//! tokenizer_build -- VOCAB... [-n N] [--json]`).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

use ggufkit::tokenizer::Tokenizer;
use ggufkit::Gguf;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = CURRENT.fetch_add(n, Relaxed) + n;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: every call forwards to the system allocator with the caller's arguments unchanged; the
// counters are plain atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is; the caller upholds `alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as is; `ptr` came from this allocator with this layout.
        unsafe { System.dealloc(ptr, layout) };
        CURRENT.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded as is.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // a moving realloc holds both blocks for a moment
            grew(new_size);
            CURRENT.fetch_sub(layout.size(), Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak live heap bytes while `f` runs, above what was live before it.
fn peak_of<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (PEAK.load(Relaxed).saturating_sub(base), r)
}

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
