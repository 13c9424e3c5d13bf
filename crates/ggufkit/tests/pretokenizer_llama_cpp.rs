//! Every pre-tokenizer against llama.cpp itself: its `unicode_regex_split` (src/unicode.cpp and
//! src/unicode-data.cpp of the sdist, compiled with g++ beside `oracle/unicode_split.cpp`)
//! splits the same texts with every `LLAMA_VOCAB_PRE_TYPE_*`'s expressions; the words must be
//! identical. SKIPPED when the sdist or g++ is absent.
use ggufkit::tokenizer::pre_type::{PreTokenizer, PreType};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Builds the oracle once per target directory (again when a source is newer than it).
fn oracle() -> Option<PathBuf> {
    let src = ggufkit_testkit::reference::llama_cpp_src()?;
    if Command::new("g++").arg("--version").output().is_err() {
        ggufkit_testkit::skip::skip(
            ggufkit_testkit::skip::Need::LlamaCppSrc,
            "g++ is absent (it builds llama.cpp's unicode.cpp into the oracle)",
        );
        return None;
    }
    let main = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/unicode_split.cpp");
    let files = [
        main.clone(),
        src.join("src/unicode.cpp"),
        src.join("src/unicode-data.cpp"),
    ];
    let bin = Path::new(env!("CARGO_TARGET_TMPDIR")).join("llama_unicode_split");
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let fresh = mtime(&bin).is_some_and(|b| files.iter().all(|f| mtime(f).is_some_and(|m| m <= b)));
    if !fresh {
        let status = Command::new("g++")
            .args(["-std=c++17", "-O2", "-I"])
            .arg(src.join("src"))
            .arg("-o")
            .arg(&bin)
            .args(&files)
            .status()
            .expect("run g++");
        assert!(status.success(), "g++ failed to build the oracle");
    }
    Some(bin)
}

/// llama.cpp's words for each (expressions, text) case, as byte lengths (or an error line).
fn llama_cpp_split(bin: &Path, cases: &[(&[&str], &str)]) -> Vec<String> {
    let mut input = Vec::new();
    let put = |v: &mut Vec<u8>, b: &[u8]| {
        v.extend((b.len() as u32).to_le_bytes());
        v.extend(b);
    };
    input.extend((cases.len() as u32).to_le_bytes());
    for (exprs, text) in cases {
        input.extend((exprs.len() as u32).to_le_bytes());
        for e in *exprs {
            put(&mut input, e.as_bytes());
        }
        put(&mut input, text.as_bytes());
    }
    let mut child = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run the oracle");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "the oracle failed: {:?}", out.status);
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), cases.len());
    lines
}

/// Pieces of text chosen for the pre-tokenizers' edges.
const PIECES: &[&str] = &[
    "a",
    "Z",
    "hello",
    "World",
    "HTTPServer",
    "camelCase",
    "ÉCOLE",
    "straße",
    "ǅ",
    "ﬁ",
    "'",
    "'s",
    "'T",
    "'re",
    "'VE",
    "'m",
    "'ll",
    "'D",
    "'x",
    "’s",
    "0",
    "7",
    "12345",
    "3.14",
    "1,000",
    "١٢٣",
    "四五",
    "²",
    "Ⅻ",
    " ",
    "  ",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\r",
    "\n\n\n",
    " \n ",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{85}",
    "\u{b}",
    "\u{c}",
    "\u{1c}",
    "\u{0}",
    "\u{7f}",
    "\u{200b}",
    "\u{200d}",
    "\u{feff}",
    "!",
    "?",
    ".",
    ",",
    "...",
    "…",
    "—",
    "-",
    "_",
    "$",
    "+",
    "<=>",
    "^",
    "`",
    "|",
    "~",
    "@",
    "#",
    "%",
    "&",
    "*",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "/",
    "\\",
    "\"",
    ":",
    ";",
    "€",
    "©",
    "∑",
    "→",
    "中文",
    "日本語",
    "ひらがな",
    "カタカナ",
    "ｶﾀｶﾅ",
    "한국어",
    "ㄱㄴ",
    "ㄅㄆ",
    "Ελληνικά",
    "русский",
    "עברית",
    "العربية",
    "۔",
    "،",
    "हिन्दी",
    "।",
    "বাংলা",
    "ไทย",
    "ລາວ",
    "ខ្មែរ",
    "မြန်မာ",
    "e\u{301}",
    "a\u{308}\u{304}",
    "\u{301}",
    "😀",
    "👍🏽",
    "👨‍👩‍👧",
    "🇫🇷",
    "𝒳",
    "𐐀",
    "𞤀",
    "\u{e000}",
    "\u{378}",
    "\u{fffd}",
    "\u{ffff}",
    "\u{10ffff}",
    "！",
    "，",
    "。",
    "、",
    "：",
    "＂",
    "Ａｂｃ",
    "︰",
    "IMGIMG",
    "IMGIMGABZ",
    "<sentinel:12>",
    "µ",
    "K",
    "Ω",
    "ǈ",
    "ᾼ",
];

/// Deterministic pseudo-random texts made of [`PIECES`] (xorshift; no dependency).
fn texts() -> Vec<String> {
    let mut out: Vec<String> = vec![
        String::new(),
        "Hello world! It's 2024, isn't it? I'M here; we'LL see.".into(),
        "    four spaces\n\n\ttab then newline \r\n end   ".into(),
        "1234567890 12 123 1234 1,234,567.89 ١٢٣٤٥".into(),
        "中文字符和English混合 日本語のテキスト 한국어 텍스트".into(),
        "emoji 😀👍🏽 family 👨‍👩‍👧 flag 🇫🇷!".into(),
        "x".repeat(300),
        "7".repeat(100),
        " ".repeat(600) + "x",
        "\n".repeat(50),
        // long runs (std::regex recurses per codepoint, so not too long for its stack)
        "1".repeat(3001),
        " ".repeat(3000) + "x",
        " ".repeat(1500) + "\n" + &" ".repeat(1500) + "x",
        "A".repeat(3000) + "a",
        "\u{e9}".repeat(2000) + " 12",
        "\u{301}".repeat(2000),
        "a \u{301}".repeat(1000),
        "\r\n".repeat(1500),
        "\u{3000}".repeat(2000) + "中",
        "!?".repeat(1500),
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..600 {
        let n = (next() % if i % 50 == 0 { 200 } else { 24 }) as usize;
        let mut s = String::new();
        for _ in 0..n {
            s.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
        }
        out.push(s);
    }
    out
}

#[test]
fn every_pre_type_splits_as_llama_cpp() {
    let Some(bin) = oracle() else {
        return;
    };
    let texts = texts();
    // one run per distinct list of expressions
    let mut lists: Vec<(&'static [&'static str], Vec<PreType>)> = Vec::new();
    for t in PreType::ALL {
        match lists.iter_mut().find(|(l, _)| *l == t.regex_exprs()) {
            Some((_, ts)) => ts.push(t),
            None => lists.push((t.regex_exprs(), vec![t])),
        }
    }
    let mut cases: Vec<(&[&str], &str)> = Vec::new();
    // llama.cpp never splits empty text (llama_tokenize makes no fragment of it; the splitters
    // picked by name would throw there), so it is not compared
    let texts: Vec<&str> = texts
        .iter()
        .map(String::as_str)
        .filter(|t| !t.is_empty())
        .collect();
    for (list, _) in &lists {
        for text in &texts {
            cases.push((list, text));
        }
    }
    let expected = llama_cpp_split(&bin, &cases);
    let mut failures = Vec::new();
    let mut out = Vec::new();
    let mut k = 0;
    for (_, types) in &lists {
        let pre = PreTokenizer::new(types[0]).unwrap();
        for text in &texts {
            out.clear();
            pre.split(text, &mut out);
            let ours = out
                .iter()
                .map(|r| r.len().to_string())
                .collect::<Vec<_>>()
                .join(" ");
            if ours != expected[k] {
                failures.push(format!(
                    "{types:?} on {text:?}:\n  llama.cpp {}\n  ggufkit   {ours}",
                    expected[k]
                ));
            }
            k += 1;
        }
    }
    println!(
        "{} distinct expression lists ({} types) x {} texts = {} splits compared",
        lists.len(),
        PreType::ALL.len(),
        texts.len(),
        cases.len()
    );
    let n = failures.len();
    failures.truncate(20);
    assert!(n == 0, "{n} differences:\n{}", failures.join("\n"));
}
