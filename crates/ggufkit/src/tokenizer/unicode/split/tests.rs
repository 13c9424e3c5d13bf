#![forbid(unsafe_code)]
use super::*;
use crate::tokenizer::pre_type::PreType;

const TEXTS: &[&str] = &[
    "",
    "Hello world",
    "  leading and trailing  ",
    "it's I'M we'Ll 'd",
    "1234567 12 3.14159 ١٢٣ 四",
    "中文字符 日本語のテキスト 한국어",
    "emoji 😀👍🏽 👨‍👩‍👧 flags 🇫🇷",
    "tabs\tand\nnewlines\r\n\n\n  \n",
    "mixed: Ελληνικά, русский, עברית, العربية, हिन्दी",
    "e\u{301}\u{302} combining",
    "\u{3000}\u{a0}\u{2028}x\u{85}",
];

#[test]
fn every_pre_type_compiles_and_covers_the_text() {
    let mut out = Vec::new();
    for t in PreType::ALL {
        let s = RegexSplitter::new(t.regex_exprs()).unwrap_or_else(|e| panic!("{t:?}: {e}"));
        for text in TEXTS {
            out.clear();
            s.split(text, &mut out);
            let mut at = 0;
            for r in &out {
                assert_eq!(r.start, at, "{t:?} on {text:?}: {out:?}");
                assert!(r.end >= r.start && text.is_char_boundary(r.end));
                at = r.end;
            }
            assert_eq!(at, text.len(), "{t:?} on {text:?}");
        }
    }
}

/// ECMAScript facts the engine must keep: the leftmost match, the first alternative that
/// succeeds (not the longest), greedy repeats that give back, lookahead without consuming.
/// The expected pieces are llama.cpp's: its unicode_regex_split gave them (through
/// tests/oracle/unicode_split.cpp) for these expressions and texts.
#[test]
fn ecmascript_matching_order() {
    fn split<'a>(exprs: &[&str], text: &'a str) -> Vec<&'a str> {
        let mut out = Vec::new();
        RegexSplitter::new(exprs).unwrap().split(text, &mut out);
        out.iter().map(|r| &text[r.clone()]).collect()
    }
    assert_eq!(split(&["a|ab"], "abab"), ["a", "b", "a", "b"]);
    assert_eq!(split(&["ab|a"], "abab"), ["ab", "ab"]);
    assert_eq!(split(&["x*y"], "xxxy"), ["xxxy"]);
    assert_eq!(split(&["\\s+(?!\\S)"], "a   b"), ["a", "  ", " b"]);
    assert_eq!(split(&["[0-9]{1,3}"], "12345"), ["123", "45"]);
    assert_eq!(split(&["\\s+$"], "a  "), ["a", "  "]);
    // an empty match is a piece of its own
    assert_eq!(
        split(&["(?=(\\d{3})+(?!\\d))"], "1234567"),
        ["1", "", "234", "", "567"]
    );
}

/// The linear splitters that stand for two of llama.cpp's expressions give the engine's pieces
/// (the same expression wrapped in a group, which the engine runs as std::regex would).
#[test]
fn linear_equivalents_agree_with_the_engine() {
    let pairs = [
        ("\\s+$", "(?:\\s+$)"),
        ("(?=(\\d{3})+(?!\\d))", "(?:(?=(\\d{3})+(?!\\d)))"),
    ];
    let alphabet = [
        "1", "2", "0", " ", "\t", "\n", "\u{3000}", "a", "٣", "x", "  ", "999",
    ];
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    for (fast, engine) in pairs {
        let fast = RegexSplitter::new(&["\\p{N}+", fast]).unwrap();
        let engine = RegexSplitter::new(&["\\p{N}+", engine]).unwrap();
        for _ in 0..2000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let n = (state % 20) as usize;
            let mut text = String::new();
            for k in 0..n {
                text.push_str(alphabet[((state >> (k * 3 % 60)) % alphabet.len() as u64) as usize]);
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            fast.split(&text, &mut a);
            engine.split(&text, &mut b);
            assert_eq!(a, b, "{text:?}");
        }
    }
}

/// Long runs stay linear where std::regex is quadratic: the engine's work (instructions run and
/// units scanned, counted, so no timing) on a run of 16,000 units is at most 4.5 times its work
/// on 4,000 (quadratic work would be 16 times), for every list of expressions and runs of
/// each kind of unit.
#[test]
fn long_runs_are_linear() {
    let mut lists: Vec<(PreType, RegexSplitter)> = Vec::new();
    for t in PreType::ALL {
        if !lists
            .iter()
            .any(|(k, _)| k.regex_exprs() == t.regex_exprs())
        {
            lists.push((t, RegexSplitter::new(t.regex_exprs()).unwrap()));
        }
    }
    let units = [
        " ",
        "7",
        "a",
        "A",
        "\n",
        "\r\n",
        "\u{e9}",
        "\u{4e2d}",
        "!",
        "\u{301}",
        " a",
        "'s",
        "a\u{301} ",
    ];
    let mut out = Vec::new();
    for (pre, s) in &lists {
        for unit in units {
            let mut work = |n: usize| {
                out.clear();
                s.split_counting(&(unit.repeat(n) + "x"), &mut out)
            };
            let (full, quarter) = (work(16_000), work(4_000));
            assert!(
                full * 2 <= quarter * 9 + 64,
                "{pre:?} on runs of {unit:?}: work {full} against {quarter} on a quarter"
            );
        }
    }
}

#[test]
fn pre_tokenizer_is_shared_across_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<crate::tokenizer::pre_type::PreTokenizer>();
    send_sync::<RegexSplitter>();
}
