//! Times `Tokenizer::encode` of one text file on one core (the tokenizer built once, outside the
//! timing) and `Tokenizer::encode_batch` of its lines on rayon's pool, best of N each, and prints
//! the token counts per vocabulary: the ggufkit side of `python/bench/bench_tokenize.py`
//! (`cargo run --release -p ggufkit --example tokenize_speed -- TEXT VOCAB... [-n N] [--json]
//! [--ids-dir DIR]`; `--ids-dir` writes each vocabulary's ids of the whole text as little-endian
//! u32 to `DIR/NAME.ids` for comparing with other tokenizers).

use std::time::Instant;

use ggufkit::tokenizer::Tokenizer;
use ggufkit::Gguf;

fn best<R>(n: usize, mut f: impl FnMut() -> R) -> (f64, R) {
    let mut t_best = f64::INFINITY;
    let mut out = None;
    for _ in 0..n.max(1) {
        let t = Instant::now();
        let r = f();
        t_best = t_best.min(t.elapsed().as_secs_f64() * 1e3);
        out = Some(r);
    }
    (t_best, out.expect("one run at least"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 5;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    let mut ids_dir = None;
    if let Some(i) = args.iter().position(|a| a == "--ids-dir") {
        ids_dir = Some(std::path::PathBuf::from(
            args.get(i + 1).ok_or("--ids-dir needs a directory")?,
        ));
        args.drain(i..i + 2);
    }
    let json = args.iter().any(|a| a == "--json");
    args.retain(|a| a != "--json");
    let (text, vocabs) = args
        .split_first()
        .ok_or("usage: TEXT VOCAB... [-n N] [--json] [--ids-dir DIR]")?;
    let text = std::fs::read_to_string(text)?;
    let lines: Vec<&str> = text.split('\n').collect();
    let threads = rayon::current_num_threads();
    for path in vocabs {
        let g = Gguf::open(path)?;
        let tok = Tokenizer::from_gguf(&g)?;
        tok.encode("warm up", false, false)?;
        let mut ids = Vec::new();
        let (whole, r) = best(n, || tok.encode_into(&text, false, false, &mut ids));
        r?;
        let (batch, all) = best(n, || tok.encode_batch(&lines, false, false));
        let batch_tokens: usize = all?.iter().map(Vec::len).sum();
        let sum = ids.iter().fold(0u64, |h, &id| {
            h.wrapping_mul(0x100_0000_01b3).wrapping_add(u64::from(id))
        });
        if let Some(dir) = &ids_dir {
            let name = std::path::Path::new(path)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let bytes: Vec<u8> = ids.iter().flat_map(|id| id.to_le_bytes()).collect();
            std::fs::write(dir.join(format!("{name}.ids")), bytes)?;
        }
        if json {
            println!(
                "{{\"path\": {path:?}, \"whole_ms\": {whole:.3}, \"tokens\": {}, \
                 \"batch_ms\": {batch:.3}, \"batch_tokens\": {batch_tokens}, \"lines\": {}, \
                 \"threads\": {threads}, \"ids_hash\": \"{sum:016x}\"}}",
                ids.len(),
                lines.len()
            );
        } else {
            println!(
                "{path}: {whole:.1} ms, {} tokens, ids hash {sum:016x}; encode_batch of {} \
                 lines on {threads} threads: {batch:.1} ms ({:.2}x), {batch_tokens} tokens",
                ids.len(),
                lines.len(),
                whole / batch
            );
        }
    }
    Ok(())
}
