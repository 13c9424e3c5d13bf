//! `gguf tokenize --jsonl` streams: on a million short lines its peak memory stays near what it
//! is on ten thousand, far below the input's or the output's size (the issue's "a million lines
//! in bounded memory"). The child's peak resident set (`VmHWM` of `/proc/PID/status`, Linux) is
//! read once all the input has been written and before standard input is closed: by then the
//! child has answered all but the last chunk. No timing is asserted.
//!
//! Its own test binary: nothing else runs beside it, so the figures are the child's alone.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// The repository's sample model (a small SentencePiece vocabulary): no ../shared needed.
fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../samples/tiny-llama.gguf")
}

/// `i` written with the letters the sample's vocabulary can tokenize (its SentencePiece merges
/// make no other words).
fn letters(mut i: usize) -> String {
    let mut s = String::new();
    loop {
        s.push(['g', 'u', 'f', 's'][i % 4]);
        i /= 4;
        if i == 0 {
            return s;
        }
    }
}

/// One line of input: short text, the per-line flags sometimes given.
fn request(i: usize) -> String {
    let w = letters(i);
    match i % 3 {
        0 => format!("{{\"text\": \"gguf, g{w}!\"}}\n"),
        1 => format!("{{\"text\": \"g{w}. g{w}\", \"add_special\": false}}\n"),
        _ => format!("{{\"text\": \"<s>g{w}</s>\", \"parse_special\": true}}\n"),
    }
}

/// `VmHWM` of `pid`, in KiB.
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/PID/status")
}

/// Runs `gguf tokenize SAMPLE --jsonl` on `lines` requests; (input bytes, answers, peak KiB).
fn run(lines: usize) -> (usize, usize, u64) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("gguf"))
        .arg("tokenize")
        .arg(sample())
        .arg("--jsonl")
        // each worker keeps a session with bounded caches: a fixed pool keeps the bound fixed
        .env("RAYON_NUM_THREADS", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("run gguf");
    let stdout = child.stdout.take().expect("stdout");
    // the answers are drained as they come, and checked for being answers
    let reader = std::thread::spawn(move || {
        let mut n = 0usize;
        let mut line = Vec::new();
        let mut r = BufReader::new(stdout);
        while r.read_until(b'\n', &mut line).expect("read answers") > 0 {
            assert!(line.starts_with(b"{\"ids\":["), "answer {n}: {line:?}");
            n += 1;
            line.clear();
        }
        n
    });
    let mut stdin = child.stdin.take().expect("stdin");
    let mut written = 0;
    let mut block = String::new();
    for i in 0..lines {
        block.push_str(&request(i));
        if block.len() > 1 << 16 || i + 1 == lines {
            stdin.write_all(block.as_bytes()).expect("write requests");
            written += block.len();
            block.clear();
        }
    }
    stdin.flush().expect("flush requests");
    let peak = peak_kib(child.id());
    drop(stdin);
    let answers = reader.join().expect("the answer reader");
    let status = child.wait().expect("wait for gguf");
    assert!(status.success(), "gguf tokenize --jsonl: {status}");
    (written, answers, peak)
}

#[test]
fn a_million_lines_in_bounded_memory() {
    let (_, small_answers, small) = run(10_000);
    assert_eq!(small_answers, 10_000);
    let (input, answers, large) = run(1_000_000);
    assert_eq!(answers, 1_000_000);
    let growth = large.saturating_sub(small);
    println!(
        "gguf tokenize --jsonl: peak {small} KiB on 10,000 lines, {large} KiB on 1,000,000 \
         ({input} bytes of input)"
    );
    // a chunk of lines and its answers at a time, and two sessions' bounded caches: the input
    // (about 47 MB) or the answers are never all in memory
    assert!(
        growth * 1024 < input as u64 / 2,
        "peak memory grew by {growth} KiB from 10,000 to 1,000,000 lines ({input} input bytes)"
    );
}
