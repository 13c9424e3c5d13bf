//! A quick timing of `ggufkit::audit::audit` without criterion
//! (`cargo run --release -p ggufkit --example audit_time -- [FILE...] [-n N] [--templates DIR]`):
//! the audit of each opened file (the Gemma 3 model by default, found as the tests find it), and
//! with `--templates DIR` the template analysis alone over every `*.jinja` in DIR (llama.cpp's
//! `models/templates`, say). Prints the fastest and the median of N runs; figures go to
//! BENCHMARKS.md.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ggufkit::audit::{audit, audit_template};
use ggufkit::Gguf;

fn summary(mut t: Vec<Duration>) -> String {
    t.sort();
    format!(
        "fastest {:.2} ms, median {:.2} ms",
        t[0].as_secs_f64() * 1e3,
        t[t.len() / 2].as_secs_f64() * 1e3
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut n = 50usize;
    if let Some(i) = args.iter().position(|a| a == "-n") {
        n = args.get(i + 1).ok_or("-n needs a number")?.parse()?;
        args.drain(i..i + 2);
    }
    let mut templates = None;
    if let Some(i) = args.iter().position(|a| a == "--templates") {
        templates = Some(PathBuf::from(
            args.get(i + 1).ok_or("--templates needs a folder")?,
        ));
        args.drain(i..i + 2);
    }
    let mut files: Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    if files.is_empty() && templates.is_none() {
        files.extend(ggufkit_testkit::reference::gemma());
    }
    for path in &files {
        let g = Gguf::open(path)?;
        let findings = audit(&g);
        let times: Vec<Duration> = (0..n)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(audit(&g));
                t.elapsed()
            })
            .collect();
        println!(
            "{}: audit of the opened file ({} findings): {} ({n} runs)",
            path.display(),
            findings.len(),
            summary(times)
        );
    }
    if let Some(dir) = templates {
        let mut all = Vec::new();
        for e in std::fs::read_dir(&dir)?.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "jinja") {
                all.push((p.clone(), std::fs::read_to_string(&p)?));
            }
        }
        all.sort();
        let bytes: usize = all.iter().map(|(_, s)| s.len()).sum();
        // each template's fastest run; the slowest template by it
        let mut fastest = vec![Duration::MAX; all.len()];
        let mut totals = Vec::new();
        for _ in 0..n {
            let t = Instant::now();
            for (k, (_, src)) in all.iter().enumerate() {
                let one = Instant::now();
                std::hint::black_box(audit_template("tokenizer.chat_template", 0, src));
                fastest[k] = fastest[k].min(one.elapsed());
            }
            totals.push(t.elapsed());
        }
        let (slowest, slowest_name) = fastest
            .iter()
            .zip(&all)
            .max_by_key(|(t, _)| **t)
            .map_or((Duration::ZERO, String::new()), |(t, (p, _))| {
                (*t, p.display().to_string())
            });
        println!(
            "{}: {} templates, {bytes} bytes, all audited: {} ({n} runs); slowest single template {:.2} ms ({slowest_name})",
            dir.display(),
            all.len(),
            summary(totals),
            slowest.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
