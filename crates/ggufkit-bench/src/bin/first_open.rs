//! Opening a header once in a fresh process, the way a command-line run or a scan worker meets a
//! file: `Gguf::open` (a map of the page cache) beside `Gguf::read_header` over a plain unbuffered
//! `File` (a stream copied into fresh memory), each open followed by the same full walk.
//!
//! Criterion's loop (`benches/header.rs`) measures a warm process, where the allocator hands back
//! memory it already faulted in; here every run is a new process, so a stream pays for every
//! page of its buffer. Children run alternately, the median of `-n` runs per file is printed.
//!
//! `cargo run --release -p ggufkit-bench --bin first_open -- [-n RUNS] FILE...`

use std::process::Command;
use std::time::Instant;

use ggufkit::Gguf;
use ggufkit_bench::parsers::walk_ggufkit;

fn child(mode: &str, path: &str) -> Result<(), String> {
    let t = Instant::now();
    let g = match mode {
        "open" => Gguf::open(path).map_err(|e| e.to_string())?,
        "read-header" => {
            let f = std::fs::File::open(path).map_err(|e| e.to_string())?;
            Gguf::read_header(f).map_err(|e| e.to_string())?
        }
        other => return Err(format!("unknown mode {other}")),
    };
    std::hint::black_box(walk_ggufkit(&g));
    println!("{}", t.elapsed().as_nanos());
    Ok(())
}

fn run_child(mode: &str, path: &str) -> Result<f64, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = Command::new(exe)
        .args(["--child", mode, path])
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse::<f64>()
        .map(|ns| ns / 1e6)
        .map_err(|e| format!("{e}: {text}"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return match (args.get(1), args.get(2)) {
            (Some(mode), Some(path)) => child(mode, path),
            _ => Err("--child MODE PATH".into()),
        };
    }
    let (runs, files) = match args.first().map(String::as_str) {
        Some("-n") => {
            let n = args
                .get(1)
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or("-n RUNS")?;
            (n.max(1), &args[2..])
        }
        _ => (11, &args[..]),
    };
    println!("| file | open + walk (ms) | read_header(File) + walk (ms) | ratio |");
    println!("|---|---:|---:|---:|");
    for path in files {
        let (mut open, mut read) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            open.push(run_child("open", path)?);
            read.push(run_child("read-header", path)?);
        }
        let (o, r) = (median(open), median(read));
        let name = path.rsplit('/').next().unwrap_or(path);
        println!("| {name} | {o:.2} | {r:.2} | {:.2}x |", r / o);
    }
    Ok(())
}
