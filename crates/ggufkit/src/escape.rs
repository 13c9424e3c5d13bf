//! One-line text: a string escaped so that it stays on its line (a tensor name in a hash
//! manifest, a token in `meta get`), and the reverse, so a manifest reads back what was written.
#![forbid(unsafe_code)]

/// Escapes what would break a line: backslash, newline, carriage return, tab (as `\\`, `\n`,
/// `\r`, `\t`) and other control characters (as `\u{HEX}`).
pub fn escape_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Reverses [`escape_line`]. An escape it does not know is kept as it is.
pub fn unescape_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some('u') if it.peek() == Some(&'{') => {
                it.next();
                let hex: String = it.by_ref().take_while(|&c| c != '}').collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&format!("\\u{{{hex}}}")),
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_round_trip() {
        let s = "a\\b\nc\rd\te\u{1}f\u{7f}é";
        let e = escape_line(s);
        assert_eq!(e, "a\\\\b\\nc\\rd\\te\\u{1}f\\u{7f}é");
        assert!(!e.contains('\n'));
        assert_eq!(unescape_line(&e), s);
        // unknown escapes and a trailing backslash stay as they are
        assert_eq!(unescape_line("\\q\\u{zz}\\"), "\\q\\u{zz}\\");
    }
}
