//! Times `Tokenizer::encode` of one text file on one core, the tokenizer built once, and prints
//! the best of N runs and the token count per vocabulary: a quick check of the encoder's speed
//! without criterion (`cargo run --release --example tokenize_speed -- TEXT VOCAB... [-n N]`).

use std::time::Instant;

use ggufkit::tokenizer::Tokenizer;
use ggufkit::Gguf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 5;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    let (text, vocabs) = args.split_first().ok_or("usage: TEXT VOCAB... [-n N]")?;
    let text = std::fs::read_to_string(text)?;
    for path in vocabs {
        let g = Gguf::open(path)?;
        let tok = Tokenizer::from_gguf(&g)?;
        let mut ids = Vec::new();
        let mut best = f64::INFINITY;
        for _ in 0..n {
            let t = Instant::now();
            tok.encode_into(&text, false, false, &mut ids)?;
            best = best.min(t.elapsed().as_secs_f64() * 1e3);
        }
        let sum = ids.iter().fold(0u64, |h, &id| {
            h.wrapping_mul(0x100_0000_01b3).wrapping_add(u64::from(id))
        });
        println!(
            "{path}: {best:.1} ms, {} tokens, ids hash {sum:016x}",
            ids.len()
        );
    }
    Ok(())
}
