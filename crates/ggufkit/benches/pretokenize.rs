//! The pre-tokenizers (llama.cpp's `unicode_regex_split`) on 1 MB of mixed text: ggufkit's
//! `PreTokenizer::split` beside llama.cpp's own unicode.cpp, compiled with g++ -O2 from the
//! sdist into the same program as `tests/oracle/unicode_split.cpp` (when the sdist and g++ are
//! at hand; `GGUFKIT_LLAMA_CPP_SRC` names the sources). One core each, best of the runs, whole
//! text in one call. Run: `cargo bench -p ggufkit --bench pretokenize`.

use ggufkit::tokenizer::pre_type::{PreTokenizer, PreType};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 5;

/// About 1 MB: this crate's sources (code, English prose in comments) interleaved with lines of
/// other scripts, numbers and emoji.
fn mixed_text() -> String {
    let lines = [
        "中文文本的分词测试，包括标点符号和数字123456。日本語のテキストも含まれています。",
        "한국어 텍스트와 English words mixed together, it's 2024!",
        "Ελληνικά και русский текст, עברית ועברית, العربية والأرقام ١٢٣٤٥",
        "हिन्दी में पाठ, বাংলা লেখা, ไทยภาษา, emoji 😀👍🏽 👨‍👩‍👧 🇫🇷 — “quotes” …",
        "    indented code() { return x+1; }\t// tab\r\n",
    ];
    let mut files = Vec::new();
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("src")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tables.rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut text = String::new();
    let mut k = 0;
    'fill: loop {
        for f in &files {
            for line in std::fs::read_to_string(f).unwrap().lines() {
                text.push_str(line);
                text.push('\n');
                k += 1;
                if k % 7 == 0 {
                    text.push_str(lines[k / 7 % lines.len()]);
                    text.push('\n');
                }
                if text.len() >= 1 << 20 {
                    break 'fill;
                }
            }
        }
    }
    text
}

fn oracle() -> Option<PathBuf> {
    let src = std::env::var_os("GGUFKIT_LLAMA_CPP_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let home = std::env::var_os("HOME")
                .map(PathBuf::from)
                .unwrap_or_default();
            home.join(".cache/ggufkit-reference/src/llama_cpp_python-0.3.36/vendor/llama.cpp")
        });
    if !src.join("src/unicode.cpp").is_file() {
        println!(
            "llama.cpp: sources absent at {} (set GGUFKIT_LLAMA_CPP_SRC)",
            src.display()
        );
        return None;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/bench-oracle");
    std::fs::create_dir_all(&dir).ok()?;
    let bin = dir.join("llama_unicode_split");
    let main = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/unicode_split.cpp");
    let status = Command::new("g++")
        .args(["-std=c++17", "-O2", "-I"])
        .arg(src.join("src"))
        .arg("-o")
        .arg(&bin)
        .arg(&main)
        .arg(src.join("src/unicode.cpp"))
        .arg(src.join("src/unicode-data.cpp"))
        .status();
    match status {
        Ok(s) if s.success() => Some(bin),
        _ => {
            println!("llama.cpp: g++ could not build the oracle");
            None
        }
    }
}

/// llama.cpp's best time in nanoseconds for each type's split of `text`.
fn llama_cpp_times(bin: &Path, types: &[PreType], text: &str) -> Vec<u64> {
    let mut input = Vec::new();
    let put = |v: &mut Vec<u8>, b: &[u8]| {
        v.extend((b.len() as u32).to_le_bytes());
        v.extend(b);
    };
    input.extend((types.len() as u32).to_le_bytes());
    for t in types {
        input.extend((t.regex_exprs().len() as u32).to_le_bytes());
        for e in t.regex_exprs() {
            put(&mut input, e.as_bytes());
        }
        put(&mut input, text.as_bytes());
    }
    let mut child = Command::new(bin)
        .args(["--time", &RUNS.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap_or(0))
        .collect()
}

fn main() {
    let text = mixed_text();
    let mb = text.len() as f64 / 1e6;
    let types = [
        PreType::Llama3,
        PreType::Qwen2,
        PreType::Qwen35,
        PreType::Gpt2,
        PreType::KimiK2,
        PreType::Gemma4,
        PreType::Starcoder,
        PreType::Default,
        PreType::DeepseekLlm,
        PreType::Deepseek3Llm,
        PreType::Tekken,
        PreType::Gpt4o,
        PreType::Jais2,
        PreType::Poro,
    ];
    let reference = oracle().map(|bin| llama_cpp_times(&bin, &types, &text));
    println!("pre-tokenizer split of {mb:.2} MB mixed text, best of {RUNS}, one core");
    println!(
        "{:<14} {:>10} {:>10} {:>12} {:>8}",
        "type", "ggufkit", "MB/s", "llama.cpp", "ratio"
    );
    let mut out = Vec::new();
    for (i, t) in types.iter().enumerate() {
        let pre = PreTokenizer::new(*t).unwrap();
        let mut best = f64::MAX;
        for _ in 0..RUNS {
            out.clear();
            let t0 = Instant::now();
            pre.split(&text, &mut out);
            best = best.min(t0.elapsed().as_secs_f64());
        }
        std::hint::black_box(&out);
        let theirs = reference.as_ref().map(|r| r[i] as f64 / 1e9);
        println!(
            "{:<14} {:>8.2}ms {:>10.1} {:>12} {:>8}",
            format!("{t:?}"),
            best * 1e3,
            mb / best,
            theirs.map_or("-".into(), |s| format!("{:.2}ms", s * 1e3)),
            theirs.map_or("-".into(), |s| format!("{:.1}x", s / best)),
        );
    }
}
