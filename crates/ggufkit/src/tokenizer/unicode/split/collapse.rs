//! llama.cpp's "collapsed" form (`unicode_regex_split`): std::regex cannot match Unicode
//! categories, so when an expression names one (`\p{L}`, `\p{N}`, `\p{P}`, `\p{M}`, `\p{S}`,
//! `\p{Lu}`, `\p{Ll}`, `\p{Lt}`, `\p{Lm}`, `\p{Lo}`), every codepoint of the text becomes one
//! byte (ASCII stays, non-ASCII whitespace becomes `\v`, the others a byte per category) and
//! every category in the expression becomes that byte plus its ASCII members. The letter
//! subcategories all collapse to "letter", the rest (separators, controls, undefined) to one
//! fallback byte that no category matches.
#![forbid(unsafe_code)]

use crate::tokenizer::unicode::CodepointFlags;

/// The categories llama.cpp recognizes in an expression, with what each becomes.
const CATEGORIES: [(&str, u16); 10] = [
    ("\\p{N}", CodepointFlags::NUMBER),
    ("\\p{L}", CodepointFlags::LETTER),
    ("\\p{P}", CodepointFlags::PUNCTUATION),
    ("\\p{M}", CodepointFlags::ACCENT_MARK),
    ("\\p{S}", CodepointFlags::SYMBOL),
    ("\\p{Lu}", CodepointFlags::LETTER),
    ("\\p{Ll}", CodepointFlags::LETTER),
    ("\\p{Lt}", CodepointFlags::LETTER),
    ("\\p{Lm}", CodepointFlags::LETTER),
    ("\\p{Lo}", CodepointFlags::LETTER),
];

/// The byte a non-ASCII codepoint of a category becomes, and the ASCII members written beside
/// it in a collapsed expression (as bracket contents).
fn category_byte(flag: u16) -> Option<(u8, &'static str)> {
    Some(match flag {
        CodepointFlags::NUMBER => (0xD1, "0-9"),
        CodepointFlags::LETTER => (0xD2, "A-Za-z"),
        CodepointFlags::PUNCTUATION => (0xD3, "!-#%-*,-/:-;?-@\\[-\\]_\\{\\}"),
        CodepointFlags::ACCENT_MARK => (0xD4, ""),
        CodepointFlags::SYMBOL => (0xD5, "\\$\\+<->^`\\|\\~"),
        _ => return None,
    })
}

/// What a non-ASCII codepoint of no listed category becomes.
const FALLBACK: u8 = 0xD0;

/// Whether llama.cpp runs `expr` on the collapsed text.
pub(super) fn uses_categories(expr: &str) -> bool {
    CATEGORIES.iter().any(|(name, _)| expr.contains(name))
}

/// The collapsed form of `expr`, byte for byte as llama.cpp writes it; `None` when the
/// expression also holds non-ASCII characters (llama.cpp refuses those).
pub(super) fn collapse_expr(expr: &str) -> Option<Vec<u8>> {
    let r = expr.as_bytes();
    if !r.is_ascii() {
        return None;
    }
    let mut out = Vec::with_capacity(r.len() * 2);
    let mut inside = false;
    let mut i = 0;
    while i < r.len() {
        if r[i] == b'[' && (i == 0 || r[i - 1] != b'\\') {
            out.push(b'[');
            inside = true;
            i += 1;
            continue;
        }
        if inside && r[i] == b']' && r[i - 1] != b'\\' {
            out.push(b']');
            inside = false;
            i += 1;
            continue;
        }
        if r[i] == b'\\' && i + 3 < r.len() && r[i + 1] == b'p' && r[i + 2] == b'{' {
            if let Some(close) = r[i + 3..]
                .iter()
                .position(|&b| b == b'}')
                .map(|k| k + i + 3)
            {
                if close <= i + 10 {
                    let name = &expr[i..=close];
                    if let Some(&(_, flag)) = CATEGORIES.iter().find(|(n, _)| *n == name) {
                        if let Some((byte, ascii)) = category_byte(flag) {
                            if !inside {
                                out.push(b'[');
                            }
                            out.push(byte);
                            out.extend_from_slice(ascii.as_bytes());
                            if !inside {
                                out.push(b']');
                            }
                            i = close + 1;
                            continue;
                        }
                    }
                }
            }
        }
        out.push(r[i]);
        i += 1;
    }
    Some(out)
}

/// The collapsed unit of one codepoint.
#[inline]
pub(super) fn collapse_cpt(cp: u32, flags: CodepointFlags) -> u32 {
    if cp < 128 {
        return cp;
    }
    if flags.is_whitespace() {
        return 0x0B;
    }
    match category_byte(flags.category()) {
        Some((byte, _)) => byte as u32,
        None => FALLBACK as u32,
    }
}

/// The unit of one codepoint for std::wregex: itself, but non-ASCII whitespace becomes `\v`
/// (wregex's `\s` knows only ASCII).
#[inline]
pub(super) fn wide_cpt(cp: u32, flags: CodepointFlags) -> u32 {
    if cp > 0x7F && flags.is_whitespace() {
        0x0B
    } else {
        cp
    }
}
