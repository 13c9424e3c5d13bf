//! Python's string escapes that minijinja's lexer reads otherwise. Jinja2 decodes a string
//! literal with Python's `unicode-escape` codec; minijinja knows JSON's escapes and Python's
//! `\x` and octal ones, and keeps any other backslash as it is. Before compiling, inside each
//! string literal of the source, the escapes that differ become ones minijinja reads as Python
//! does: `\N{NAME}` (a Unicode character by name, case-insensitive) and `\U0001F600` become
//! `\u` escapes (a surrogate pair past U+FFFF, which minijinja joins), `\a` and `\v` become
//! `\x07` and `\x0b`, and `\/` (which Python keeps) becomes `\\/`. An unknown name or a short
//! `\U` is a syntax error in Jinja2: it becomes an escape minijinja refuses (`\x` without
//! digits), so the template fails to compile at the same line. Nothing else changes, and no
//! line break is added or removed.
#![forbid(unsafe_code)]

use std::fmt::Write as _;

use minijinja::machinery::{tokenize, Token};
use minijinja::syntax::SyntaxConfig;

/// An escape minijinja refuses: the literal fails to compile, as Python's codec fails.
const REFUSED: &str = "\\x";

/// `source` with the escapes of its string literals made minijinja's (see the module), or
/// `source` itself when none differ or it does not tokenize (minijinja then reports the
/// error on the original text).
pub(crate) fn python_escapes(source: &str, syntax: &SyntaxConfig) -> String {
    if !source.contains('\\') {
        return source.to_string();
    }
    let mut out = String::new();
    let mut at = 0;
    for t in tokenize(source, false, syntax.clone()) {
        let Ok((tok, span)) = t else {
            return source.to_string();
        };
        if !matches!(tok, Token::Str(_) | Token::String(_)) {
            continue;
        }
        let (start, end) = (span.start_offset as usize, span.end_offset as usize);
        let Some(literal) = source.get(start..end) else {
            return source.to_string();
        };
        if !literal.contains('\\') {
            continue;
        }
        out.push_str(&source[at..start]);
        literal_escapes(literal, &mut out);
        at = end;
    }
    if at == 0 {
        return source.to_string();
    }
    out.push_str(&source[at..]);
    out
}

/// One literal (its quotes included) with its escapes rewritten, appended to `out`.
fn literal_escapes(literal: &str, out: &mut String) {
    let mut rest = literal;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let Some(c) = after.chars().next() else {
            out.push('\\');
            rest = after;
            break;
        };
        let (replacement, used) = match c {
            'N' => match named(after) {
                Some((ch, used)) => (utf16_escapes(ch), used),
                None => (REFUSED.to_string(), 0),
            },
            'U' => match long_hex(after) {
                Some(ch) => (utf16_escapes(ch), 9),
                None => (REFUSED.to_string(), 0),
            },
            'a' => ("\\x07".to_string(), 1),
            'v' => ("\\x0b".to_string(), 1),
            '/' => ("\\\\/".to_string(), 1),
            // every other escape (`\\` included) is read alike: kept as it is
            _ => {
                out.push('\\');
                out.push(c);
                rest = &after[c.len_utf8()..];
                continue;
            }
        };
        out.push_str(&replacement);
        rest = &after[used..];
    }
    out.push_str(rest);
}

/// `N{NAME}` at the start of `s`: the character and the bytes used (Python's names: letters,
/// digits, spaces and hyphens, any case; no other spelling of them).
fn named(s: &str) -> Option<(char, usize)> {
    let body = s.strip_prefix("N{")?;
    let close = body.find('}')?;
    let name = &body[..close];
    let valid = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b' ' || b == b'-')
        && !name.starts_with(' ')
        && !name.ends_with(' ')
        && !name.contains("  ");
    if !valid {
        return None;
    }
    let ch = unicode_names2::character(name)?;
    Some((ch, 2 + close + 1))
}

/// `U` and eight hex digits at the start of `s`: the character they name.
fn long_hex(s: &str) -> Option<char> {
    let digits = s.get(1..9)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(digits, 16).ok()?)
}

/// `ch` as minijinja's `\u` escapes: one, or a surrogate pair past U+FFFF.
fn utf16_escapes(ch: char) -> String {
    let mut units = [0u16; 2];
    let mut s = String::new();
    for u in ch.encode_utf16(&mut units) {
        let _ = write!(s, "\\u{u:04x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> String {
        python_escapes(s, &SyntaxConfig::default())
    }

    #[test]
    fn python_escapes_become_minijinjas() {
        assert_eq!(esc("{{ '\\N{BULLET}' }}"), "{{ '\\u2022' }}");
        assert_eq!(esc("{{ \"\\N{bullet}x\" }}"), "{{ \"\\u2022x\" }}");
        assert_eq!(esc("{{ '\\U0001F600' }}"), "{{ '\\ud83d\\ude00' }}");
        assert_eq!(esc("{{ '\\a\\v\\/' }}"), "{{ '\\x07\\x0b\\\\/' }}");
        assert_eq!(
            esc("{{ '\\N{APOSTROPHE}' ~ '\\N{REVERSE SOLIDUS}' }}"),
            "{{ '\\u0027' ~ '\\u005c' }}"
        );
    }

    #[test]
    fn other_text_and_escapes_stay() {
        for s in [
            "no escapes {{ 'x' }}",
            "{{ '\\\\N{BULLET}' }}",
            "\\N{BULLET} {{ x }}",
            "{{ '\\n\\t\\x41\\u00e9\\'' }}",
            "{% raw %}'\\N{BULLET}'{% endraw %}",
            "{{ 'unclosed }}",
        ] {
            assert_eq!(esc(s), s);
        }
    }

    #[test]
    fn unknown_names_fail_as_in_python() {
        assert_eq!(
            esc("{{ '\\N{NO SUCH NAME}' }}"),
            "{{ '\\xN{NO SUCH NAME}' }}"
        );
        assert_eq!(esc("{{ '\\N{BLACK_STAR}' }}"), "{{ '\\xN{BLACK_STAR}' }}");
        assert_eq!(esc("{{ '\\U0001F6' }}"), "{{ '\\xU0001F6' }}");
    }
}
