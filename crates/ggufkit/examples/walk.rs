//! Opens and fully walks each file N times and prints the median: a quick check of the reader's
//! speed without criterion
//! (`cargo run --release --example walk -- FILE... [-n N] [--open-only] [--interleave]`).
//! `--open-only` opens and validates without walking (what a profile of the parser wants);
//! `--interleave` takes each file in turn at every repetition, as the `compare` runner does, so
//! that no run finds the caches and branch predictors trained by the same file just before.

use std::time::Instant;

use ggufkit::Gguf;
use ggufkit_testkit::header_walk::header_walk;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 20;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    let flag = |args: &mut Vec<String>, name: &str| {
        let on = args.iter().any(|a| a == name);
        args.retain(|a| a != name);
        on
    };
    let open_only = flag(&mut args, "--open-only");
    let interleave = flag(&mut args, "--interleave");
    let mut times = vec![Vec::new(); args.len()];
    let mut sums = vec![0u64; args.len()];
    let mut run = |k: usize| -> Result<(), Box<dyn std::error::Error>> {
        let t = Instant::now();
        let g = Gguf::open(&args[k])?;
        if !open_only {
            sums[k] = sums[k].wrapping_add(header_walk(&g));
        }
        drop(g);
        times[k].push(t.elapsed().as_secs_f64() * 1e3);
        Ok(())
    };
    if interleave {
        for _ in 0..n {
            for k in 0..args.len() {
                run(k)?;
            }
        }
    } else {
        for k in 0..args.len() {
            for _ in 0..n {
                run(k)?;
            }
        }
    }
    for (k, path) in args.iter().enumerate() {
        let t = &mut times[k];
        t.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{path}: median {:.3} ms, min {:.3} ms (checksum {})",
            t[n / 2],
            t[0],
            sums[k]
        );
    }
    Ok(())
}
