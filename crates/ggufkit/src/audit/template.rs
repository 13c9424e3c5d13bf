//! Chat templates read as Jinja source, never rendered: the tags are tokenized (identifiers,
//! string literals with their escapes decoded, operators) and the token stream is matched
//! against the shapes of known attacks.
#![forbid(unsafe_code)]

use super::{hidden_char, Finding, Severity};

/// Templates above this many bytes are noted as absurd (real ones are a few tens of KiB).
const MAX_TEMPLATE: usize = 1 << 20;

/// Globals of Jinja whose attributes lead to Python internals.
const ESCAPE_GLOBALS: &[&str] = &[
    "cycler",
    "joiner",
    "namespace",
    "lipsum",
    "self",
    "range",
    "config",
    "request",
];

/// Statements that open a block closed by `end<name>`: Jinja's, and `generation`, the block
/// Hugging Face's chat templates use to mark the assistant's tokens.
const BLOCKS: &[&str] = &[
    "if",
    "for",
    "macro",
    "call",
    "filter",
    "block",
    "raw",
    "with",
    "autoescape",
    "trans",
    "generation",
];

/// Names whose call or attribute runs code or reaches the interpreter.
const EXEC_NAMES: &[&str] = &[
    "os",
    "popen",
    "eval",
    "exec",
    "subprocess",
    "system",
    "import_module",
    "getattr",
    "globals",
    "builtins",
    "compile",
    "mro",
    "__import__",
];

#[derive(Debug, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Op(char),
}

struct Lexed {
    tok: Tok,
    pos: (u32, u32),
}

/// Every finding of one template held by `key` (pair at `offset`).
pub fn audit_template(key: &str, offset: u64, src: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut push = |rule, severity, message: String, pos: Option<(u32, u32)>| {
        let mut f = Finding::new(rule, severity, key, offset, message);
        f.position = pos;
        out.push(f);
    };
    if src.len() > MAX_TEMPLATE {
        push(
            "template.size",
            Severity::Warning,
            format!(
                "the template is {} bytes (more than {MAX_TEMPLATE})",
                src.len()
            ),
            None,
        );
    }
    let positions = Positions::new(src);
    for (i, c) in src.char_indices() {
        if let Some(what) = hidden_char(c) {
            push(
                "template.hidden-char",
                Severity::Error,
                format!("a {what} character U+{:04X}", c as u32),
                Some(positions.at(i)),
            );
            break;
        }
    }
    let parts = match split(src) {
        Ok(p) => p,
        Err((at, msg)) => {
            push(
                "template.parse",
                Severity::Error,
                msg,
                Some(positions.at(at)),
            );
            return out;
        }
    };
    let mut depth: i64 = 0;
    for (n, part) in parts.iter().enumerate() {
        let Part::Tag { start, body, stmt } = part else {
            continue;
        };
        let toks = match lex(body, *start, &positions) {
            Ok(t) => t,
            Err((at, msg)) => {
                push(
                    "template.parse",
                    Severity::Error,
                    msg,
                    Some(positions.at(at)),
                );
                return out;
            }
        };
        if *stmt {
            if let Some(Lexed {
                tok: Tok::Ident(w), ..
            }) = toks.first()
            {
                match w.as_str() {
                    w if BLOCKS.contains(&w) => depth += 1,
                    "set" if !toks.iter().any(|t| t.tok == Tok::Op('=')) => depth += 1,
                    w if w.starts_with("end") => depth -= 1,
                    _ => {}
                }
                if depth < 0 {
                    push(
                        "template.parse",
                        Severity::Error,
                        format!("`{w}` closes a block that was never opened"),
                        Some(positions.at(*start)),
                    );
                    return out;
                }
                if w == "if" || w == "elif" {
                    if let Some(text) = backdoor(&toks, parts.get(n + 1)) {
                        push(
                            "template.backdoor",
                            Severity::Warning,
                            format!("a branch on the message content matching a literal emits fixed text {text:?}"),
                            Some(toks[0].pos),
                        );
                    }
                }
            }
        }
        scan(&toks, &mut push);
    }
    if depth > 0 {
        push(
            "template.parse",
            Severity::Error,
            "a block is never closed".into(),
            None,
        );
    }
    out
}

/// Dunder access, escape routes and exec-like names in one tag's tokens.
fn scan(toks: &[Lexed], push: &mut impl FnMut(&'static str, Severity, String, Option<(u32, u32)>)) {
    for (i, t) in toks.iter().enumerate() {
        let next = toks.get(i + 1).map(|t| &t.tok);
        match &t.tok {
            Tok::Ident(w) if w.starts_with("__") || w == "mro" && next == Some(&Tok::Op('(')) => {
                push(
                    "template.dunder",
                    Severity::Error,
                    format!("access to `{w}`"),
                    Some(t.pos),
                )
            }
            Tok::Ident(w)
                if ESCAPE_GLOBALS.contains(&w.as_str())
                    && matches!(
                        next,
                        Some(Tok::Op('.')) | Some(Tok::Op('[')) | Some(Tok::Op('|'))
                    )
                    && !(i > 0 && toks[i - 1].tok == Tok::Op('.')) =>
            {
                push(
                    "template.escape-global",
                    Severity::Error,
                    format!("attribute access on the global `{w}`"),
                    Some(t.pos),
                )
            }
            Tok::Ident(w)
                if EXEC_NAMES.contains(&w.as_str())
                    && matches!(next, Some(Tok::Op('(')) | Some(Tok::Op('.'))) =>
            {
                push(
                    "template.exec",
                    Severity::Error,
                    format!("use of `{w}`"),
                    Some(t.pos),
                )
            }
            Tok::Str(s) if s.contains("__") => push(
                "template.dunder",
                Severity::Error,
                format!("a string naming `{s}`"),
                Some(t.pos),
            ),
            Tok::Str(s) => {
                // Names built by concatenation: 'a' ~ 'b' or 'a' + 'b'.
                let mut joined = s.clone();
                let mut j = i + 1;
                while let (Some(Tok::Op('~' | '+')), Some(Tok::Str(n))) =
                    (toks.get(j).map(|t| &t.tok), toks.get(j + 1).map(|t| &t.tok))
                {
                    joined.push_str(n);
                    j += 2;
                }
                if j > i + 1 && joined.contains("__") {
                    push(
                        "template.dunder",
                        Severity::Error,
                        format!("a name built by concatenation: `{joined}`"),
                        Some(t.pos),
                    )
                }
                // A placeholder beside an underscore: '%s_class__'|format('_').
                if s.contains("%s") || s.contains("{}") {
                    if let (Some(Tok::Op('|' | '.')), Some(Tok::Ident(f))) =
                        (next, toks.get(i + 2).map(|t| &t.tok))
                    {
                        if f == "format" && s.replace("%s", "_").replace("{}", "_").contains("__") {
                            push(
                                "template.dunder",
                                Severity::Error,
                                format!("a name built by format: `{s}`"),
                                Some(t.pos),
                            )
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The fixed text a branch emits when the tag is `if 'literal' in ...content...` (or `==`) and
/// the text right after it is a sentence rather than markup; `None` otherwise.
fn backdoor(toks: &[Lexed], after: Option<&Part<'_>>) -> Option<String> {
    let has_content = toks
        .iter()
        .any(|t| matches!(&t.tok, Tok::Ident(w) | Tok::Str(w) if w == "content"));
    let literal_test = toks.windows(2).any(|w| {
        matches!((&w[0].tok, &w[1].tok), (Tok::Str(_), Tok::Ident(k)) if k == "in")
            || matches!((&w[0].tok, &w[1].tok), (Tok::Op('='), Tok::Str(_)))
    });
    if !has_content || !literal_test {
        return None;
    }
    let Some(Part::Text(text)) = after else {
        return None;
    };
    let t = text.trim();
    let words = t.split_whitespace().count();
    (words >= 4 && !t.starts_with('<')).then(|| t.chars().take(60).collect())
}

enum Part<'a> {
    Text(&'a str),
    Tag {
        start: usize,
        body: &'a str,
        stmt: bool,
    },
}

/// The template cut into text and tags (`{{ }}`, `{% %}`; comments dropped).
fn split(src: &str) -> Result<Vec<Part<'_>>, (usize, String)> {
    let mut parts = Vec::new();
    let mut i = 0;
    while let Some(rel) = src[i..].find('{') {
        let at = i + rel;
        let close = match src.as_bytes().get(at + 1) {
            Some(b'{') => "}}",
            Some(b'%') => "%}",
            Some(b'#') => "#}",
            _ => {
                parts.push(Part::Text(&src[i..at + 1]));
                i = at + 1;
                continue;
            }
        };
        parts.push(Part::Text(&src[i..at]));
        let body_start = at + 2;
        let end = find_close(src, body_start, close)
            .ok_or((at, format!("`{}` is never closed", &src[at..at + 2])))?;
        if close != "#}" {
            parts.push(Part::Tag {
                start: body_start,
                body: &src[body_start..end],
                stmt: close == "%}",
            });
        }
        i = end + 2;
    }
    parts.push(Part::Text(&src[i..]));
    Ok(parts)
}

/// The end of a tag, skipping string literals inside it.
fn find_close(src: &str, from: usize, close: &str) -> Option<usize> {
    let b = src.as_bytes();
    let mut i = from;
    let mut quote = None;
    while i + 1 < b.len() {
        match quote {
            Some(_) if b[i] == b'\\' => i += 1,
            Some(q) if b[i] == q => quote = None,
            Some(_) => {}
            None if close != "#}" && (b[i] == b'\'' || b[i] == b'"') => quote = Some(b[i]),
            None if &b[i..i + 2] == close.as_bytes() => return Some(i),
            None => {}
        }
        i += 1;
    }
    None
}

/// The tokens of one tag body starting at byte `base` of the template.
fn lex(body: &str, base: usize, pos: &Positions<'_>) -> Result<Vec<Lexed>, (usize, String)> {
    let mut out = Vec::new();
    let mut it = body.char_indices().peekable();
    while let Some((i, c)) = it.next() {
        if c.is_whitespace() || c == '-' && out.is_empty() {
            continue;
        }
        let at = pos.at(base + i);
        if c.is_alphabetic() || c == '_' {
            let mut w = String::from(c);
            while let Some(&(_, d)) = it.peek() {
                if d.is_alphanumeric() || d == '_' {
                    w.push(d);
                    it.next();
                } else {
                    break;
                }
            }
            out.push(Lexed {
                tok: Tok::Ident(w),
                pos: at,
            });
        } else if c == '\'' || c == '"' {
            let mut s = String::new();
            loop {
                let Some((_, d)) = it.next() else {
                    return Err((base + i, "a string that is never closed".into()));
                };
                if d == c {
                    break;
                }
                if d != '\\' {
                    s.push(d);
                    continue;
                }
                match it.next().map(|x| x.1) {
                    Some('x') => s.push(hex(&mut it, 2)),
                    Some('u') => s.push(hex(&mut it, 4)),
                    Some('U') => s.push(hex(&mut it, 8)),
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some(o @ '0'..='7') => {
                        let mut v = o.to_digit(8).unwrap_or(0);
                        for _ in 0..2 {
                            match it.peek().and_then(|x| x.1.to_digit(8)) {
                                Some(d) => {
                                    v = v * 8 + d;
                                    it.next();
                                }
                                None => break,
                            }
                        }
                        s.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
                    }
                    Some(other) => s.push(other),
                    None => return Err((base + i, "a string that is never closed".into())),
                }
            }
            out.push(Lexed {
                tok: Tok::Str(s),
                pos: at,
            });
        } else {
            out.push(Lexed {
                tok: Tok::Op(c),
                pos: at,
            });
        }
    }
    Ok(out)
}

fn hex(it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, n: usize) -> char {
    let mut v = 0u32;
    for _ in 0..n {
        match it.peek().and_then(|x| x.1.to_digit(16)) {
            Some(d) => {
                v = v * 16 + d;
                it.next();
            }
            None => break,
        }
    }
    char::from_u32(v).unwrap_or('\u{FFFD}')
}

/// Byte offset → 1-based line and column (in characters). Queries come mostly in increasing
/// order, so the last answer is kept and the next column counted on from it: a template of one
/// long line costs a pass, not a pass per token.
struct Positions<'a> {
    line_starts: Vec<usize>,
    src: &'a str,
    /// The last query: its byte offset and 0-based column.
    last: std::cell::Cell<(usize, usize)>,
}

impl<'a> Positions<'a> {
    fn new(src: &'a str) -> Positions<'a> {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Positions {
            line_starts,
            src,
            last: std::cell::Cell::new((0, 0)),
        }
    }

    fn at(&self, byte: usize) -> (u32, u32) {
        let byte = byte.min(self.src.len());
        let line = self.line_starts.partition_point(|&s| s <= byte);
        let start = self.line_starts[line.saturating_sub(1)];
        let (last_byte, last_col) = self.last.get();
        let (from, base) = if last_byte >= start && last_byte <= byte {
            (last_byte, last_col)
        } else {
            (start, 0)
        };
        let col = base
            + self
                .src
                .get(from..byte)
                .map_or(byte - from, |s| s.chars().count());
        self.last.set((byte, col));
        (line as u32, col as u32 + 1)
    }
}
