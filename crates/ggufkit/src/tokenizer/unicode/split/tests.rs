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
