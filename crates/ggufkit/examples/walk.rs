//! Opens and fully walks each file N times and prints the median: a quick check of the reader's
//! speed without criterion (`cargo run --release --example walk -- FILE... [-n N] [--open-only]`).
//! `--open-only` opens and validates without walking (what a profile of the parser wants).

use std::time::Instant;

use ggufkit::Gguf;

#[path = "../benches/common/walk.rs"]
mod walk_fn;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 20;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    let open_only = args.iter().any(|a| a == "--open-only");
    args.retain(|a| a != "--open-only");
    for path in &args {
        let mut times = Vec::new();
        let mut sum = 0u64;
        for _ in 0..n {
            let t = Instant::now();
            let g = Gguf::open(path)?;
            if !open_only {
                sum = sum.wrapping_add(walk_fn::walk(&g));
            }
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{path}: median {:.3} ms, min {:.3} ms (checksum {sum})",
            times[n / 2],
            times[0]
        );
    }
    Ok(())
}
