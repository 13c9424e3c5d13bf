//! Python's methods on template values, as Jinja2 lets a template call them: the str methods
//! minijinja-contrib's `pycompat` lacks or writes otherwise (`title`, `rsplit`, `swapcase`,
//! `index`, `zfill`, `ljust`, `center`, `partition`, `removeprefix`, `isdigit`, `istitle`,
//! `casefold`, `expandtabs`, `splitlines` and `strip` at Python's line and space characters,
//! `join` of strings only, `find`/`count` with a start and end, `format_map`, ..., and
//! `startswith`/`endswith` with a start and end), then `pycompat`'s own. Python's `encode`,
//! `translate` and `maketrans` are not given (a template has no use for bytes or tables). The methods that change a list or a dict (`append`,
//! `update`, ...) fail as Jinja2's immutable sandbox makes them fail, with its message.
#![forbid(unsafe_code)]

use minijinja::value::{from_args, Tuple, ValueKind};
use minijinja::{Error, ErrorKind, State, Value};

use super::operators::type_name;

/// Methods that change a list or a dict, which the sandbox refuses.
const MUTATING: [&str; 11] = [
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
    "update",
    "setdefault",
    "popitem",
];

/// Most characters a padding method may add (a template asking more is refused, not obeyed).
const MAX_WIDTH: i64 = 1 << 20;

/// The environment's unknown-method callback.
pub(crate) fn call(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, Error> {
    match value.kind() {
        ValueKind::Seq | ValueKind::Map if MUTATING.contains(&method) => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "SecurityError: access to attribute '{method}' of '{}' object is unsafe.",
                    type_name(value)
                ),
            ));
        }
        ValueKind::String if method == "format_map" => {
            // `s.format_map(m)` is `s.format(**m)`
            let (mapping,): (Value,) = from_args(args)?;
            let mut pairs: Vec<(String, Value)> = Vec::new();
            for k in mapping.try_iter()? {
                let v = mapping.get_item(&k)?;
                pairs.push((k.to_string(), v));
            }
            let kwargs = Value::from(minijinja::value::Kwargs::from_iter(pairs));
            return minijinja_contrib::pycompat::unknown_method_callback(
                state,
                value,
                "format",
                &[kwargs],
            );
        }
        ValueKind::String => {
            if let Some(r) = string_method(value.as_str().unwrap_or_default(), method, args) {
                return r;
            }
        }
        _ => {}
    }
    minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
}

fn value_error(m: &str) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("ValueError: {m}"))
}

/// A width argument, bounded.
fn width(w: i64) -> Result<usize, Error> {
    if w > MAX_WIDTH {
        return Err(value_error("width too large for a chat template"));
    }
    Ok(w.max(0) as usize)
}

/// A one-character fill argument.
fn fill(f: Option<&str>) -> Result<char, Error> {
    let f = f.unwrap_or(" ");
    let mut chars = f.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(Error::new(
            ErrorKind::InvalidOperation,
            "TypeError: The fill character must be exactly one character long",
        )),
    }
}

/// Python's `str.center`: the extra character goes right, unless the width is odd and the
/// margin too.
pub(crate) fn center(s: &str, width: usize, fill: char) -> String {
    let len = s.chars().count();
    if len >= width {
        return s.to_string();
    }
    let marg = width - len;
    let left = marg / 2 + (marg & width & 1);
    let mut out = String::with_capacity(width);
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, marg - left));
    out
}

/// The str methods added here, or `None` for `pycompat`'s.
fn string_method(s: &str, method: &str, args: &[Value]) -> Option<Result<Value, Error>> {
    let r = match method {
        "rsplit" => (|| {
            let (sep, maxsplit): (Option<&str>, Option<i64>) = from_args(args)?;
            Ok(Value::from(rsplit(s, sep, maxsplit.unwrap_or(-1))?))
        })(),
        // Python's `str.title()`: a cased character after an uncased one starts a word
        // (`O'Neil`, `3Rd`), where Jinja2's `|title` filter splits at spaces and brackets only
        "title" => (|| {
            let () = from_args(args)?;
            let mut out = String::with_capacity(s.len());
            let mut after_cased = false;
            for c in s.chars() {
                if after_cased {
                    out.extend(c.to_lowercase());
                } else {
                    out.extend(c.to_uppercase());
                }
                after_cased = c.is_lowercase() || c.is_uppercase();
            }
            Ok(Value::from(out))
        })(),
        "swapcase" => (|| {
            let () = from_args(args)?;
            let mut out = String::with_capacity(s.len());
            for c in s.chars() {
                if c.is_lowercase() {
                    out.extend(c.to_uppercase());
                } else if c.is_uppercase() {
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
            }
            Ok(Value::from(out))
        })(),
        "index" | "rindex" | "find" | "rfind" | "count" => (|| {
            let (what, start, end): (&str, Option<Value>, Option<Value>) = from_args(args)?;
            let Some((part, skipped)) = char_slice(s, start.as_ref(), end.as_ref())? else {
                return match method {
                    "count" => Ok(Value::from(0)),
                    "find" | "rfind" => Ok(Value::from(-1)),
                    _ => Err(value_error("substring not found")),
                };
            };
            if method == "count" {
                // Python counts an empty string once per position, end included
                return Ok(Value::from(if what.is_empty() {
                    part.chars().count() + 1
                } else {
                    part.matches(what).count()
                }));
            }
            let at = if method.starts_with('r') {
                part.rfind(what)
            } else {
                part.find(what)
            };
            match at {
                Some(x) => Ok(Value::from(skipped + part[..x].chars().count())),
                None if method.ends_with("find") => Ok(Value::from(-1)),
                None => Err(value_error("substring not found")),
            }
        })(),
        // Python's `str.istitle()`: an upper or title case character only after an uncased
        // one, a lower case character only after a cased one, at least one cased character
        "istitle" => (|| {
            let () = from_args(args)?;
            let (mut cased, mut after_cased) = (false, false);
            for c in s.chars() {
                if c.is_uppercase() || is_titlecase(c) {
                    if after_cased {
                        return Ok(Value::from(false));
                    }
                    (cased, after_cased) = (true, true);
                } else if c.is_lowercase() {
                    if !after_cased {
                        return Ok(Value::from(false));
                    }
                    (cased, after_cased) = (true, true);
                } else {
                    after_cased = false;
                }
            }
            Ok(Value::from(cased))
        })(),
        "isalpha" | "isalnum" => (|| {
            let () = from_args(args)?;
            let ok = |c: char| c.is_alphabetic() || (method == "isalnum" && c.is_numeric());
            Ok(Value::from(!s.is_empty() && s.chars().all(ok)))
        })(),
        "isspace" => (|| {
            let () = from_args(args)?;
            Ok(Value::from(!s.is_empty() && s.chars().all(is_space)))
        })(),
        "isprintable" => (|| {
            let () = from_args(args)?;
            Ok(Value::from(s.chars().all(super::python::printable)))
        })(),
        // an identifier: a letter or `_`, then letters, digits and `_`
        "isidentifier" => (|| {
            let () = from_args(args)?;
            let mut chars = s.chars();
            let first = chars.next().is_some_and(|c| c == '_' || c.is_alphabetic());
            Ok(Value::from(
                first && chars.all(|c| c == '_' || c.is_alphanumeric()),
            ))
        })(),
        "casefold" => (|| {
            let () = from_args(args)?;
            Ok(Value::from(casefold(s)))
        })(),
        "expandtabs" => (|| {
            let (size,): (Option<i64>,) = from_args(args)?;
            let size = width(size.unwrap_or(8))?;
            let mut out = String::with_capacity(s.len());
            let mut column = 0usize;
            for c in s.chars() {
                match c {
                    '\t' => {
                        if size > 0 {
                            let n = size - column % size;
                            if out.len() + n > MAX_WIDTH as usize {
                                return Err(value_error("result too large for a chat template"));
                            }
                            out.extend(std::iter::repeat_n(' ', n));
                            column += n;
                        }
                    }
                    '\n' | '\r' => {
                        out.push(c);
                        column = 0;
                    }
                    c => {
                        out.push(c);
                        column += 1;
                    }
                }
            }
            Ok(Value::from(out))
        })(),
        "splitlines" => (|| {
            let (keepends,): (Option<bool>,) = from_args(args)?;
            Ok(Value::from(splitlines(s, keepends.unwrap_or(false))))
        })(),
        "strip" | "lstrip" | "rstrip" => (|| {
            let (chars,): (Option<Value>,) = from_args(args)?;
            let set: Option<Vec<char>> = match &chars {
                Some(v) if v.kind() == ValueKind::String => {
                    Some(v.as_str().unwrap_or_default().chars().collect())
                }
                Some(v) if !super::python::is_none(v) && !v.is_undefined() => {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!("TypeError: {method} arg must be None or str",),
                    ))
                }
                _ => None,
            };
            let strip = |c: char| match &set {
                Some(set) => set.contains(&c),
                None => is_space(c),
            };
            Ok(Value::from(match method {
                "strip" => s.trim_matches(strip),
                "lstrip" => s.trim_start_matches(strip),
                _ => s.trim_end_matches(strip),
            }))
        })(),
        "join" => (|| {
            let (items,): (Value,) = from_args(args)?;
            let mut out = String::new();
            for (i, item) in items.try_iter()?.enumerate() {
                let Some(text) = item.as_str() else {
                    return Err(Error::new(
                        ErrorKind::InvalidOperation,
                        format!(
                            "TypeError: sequence item {i}: expected str instance, {} found",
                            type_name(&item)
                        ),
                    ));
                };
                if i > 0 {
                    out.push_str(s);
                }
                out.push_str(text);
                if out.len() > 1 << 28 {
                    return Err(value_error("result too large for a chat template"));
                }
            }
            Ok(Value::from(out))
        })(),
        "isdigit" | "isdecimal" | "isnumeric" => (|| {
            let () = from_args(args)?;
            let digit = |c: char| {
                if method == "isnumeric" {
                    c.is_numeric()
                } else {
                    c.is_ascii_digit() || (c.is_numeric() && method == "isdigit")
                }
            };
            Ok(Value::from(!s.is_empty() && s.chars().all(digit)))
        })(),
        "zfill" => (|| {
            let (w,): (i64,) = from_args(args)?;
            let w = width(w)?;
            let len = s.chars().count();
            if len >= w {
                return Ok(Value::from(s));
            }
            let (sign, rest) = match s.chars().next() {
                Some(c @ ('+' | '-')) => (c.to_string(), &s[1..]),
                _ => (String::new(), s),
            };
            Ok(Value::from(format!("{sign}{}{rest}", "0".repeat(w - len))))
        })(),
        "ljust" | "rjust" | "center" => (|| {
            let (w, f): (i64, Option<&str>) = from_args(args)?;
            let (w, f) = (width(w)?, fill(f)?);
            let len = s.chars().count();
            if len >= w {
                return Ok(Value::from(s));
            }
            let pad: String = std::iter::repeat_n(f, w - len).collect();
            Ok(Value::from(match method {
                "ljust" => format!("{s}{pad}"),
                "rjust" => format!("{pad}{s}"),
                _ => center(s, w, f),
            }))
        })(),
        "partition" | "rpartition" => (|| {
            let (sep,): (&str,) = from_args(args)?;
            if sep.is_empty() {
                return Err(value_error("empty separator"));
            }
            let found = if method == "partition" {
                s.find(sep)
            } else {
                s.rfind(sep)
            };
            let parts: [&str; 3] = match found {
                Some(i) => [&s[..i], sep, &s[i + sep.len()..]],
                None if method == "partition" => [s, "", ""],
                None => ["", "", s],
            };
            Ok(Value::from(Tuple::from(parts.map(Value::from).to_vec())))
        })(),
        "removeprefix" | "removesuffix" => (|| {
            let (affix,): (&str,) = from_args(args)?;
            let out = if method == "removeprefix" {
                s.strip_prefix(affix)
            } else {
                s.strip_suffix(affix)
            };
            Ok(Value::from(out.unwrap_or(s)))
        })(),
        "startswith" | "endswith" if args.len() > 1 => (|| {
            let (affix, start, end): (Value, Option<i64>, Option<i64>) = from_args(args)?;
            let chars: Vec<char> = s.chars().collect();
            let n = chars.len() as i64;
            let clamp = |i: i64| if i < 0 { (i + n).max(0) } else { i.min(n) } as usize;
            let (a, b) = (clamp(start.unwrap_or(0)), clamp(end.unwrap_or(n)));
            let part: String = if a <= b {
                chars[a..b].iter().collect()
            } else {
                return Ok(Value::from(false));
            };
            let affixes: Vec<Value> = if affix.kind() == ValueKind::String {
                vec![affix]
            } else {
                affix.try_iter()?.collect()
            };
            Ok(Value::from(affixes.iter().any(|x| {
                let x = x.as_str().unwrap_or("\u{0}\u{0}never");
                if method == "startswith" {
                    part.starts_with(x)
                } else {
                    part.ends_with(x)
                }
            })))
        })(),
        _ => return None,
    };
    Some(r)
}

/// Python's `str.isspace` for one character: Unicode whitespace and the separators
/// `\x1c`..`\x1f`.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// A title case character (`ǅ`): neither upper nor lower case, yet with case mappings.
fn is_titlecase(c: char) -> bool {
    !c.is_uppercase()
        && !c.is_lowercase()
        && (c.to_lowercase().ne(std::iter::once(c)) || c.to_uppercase().ne(std::iter::once(c)))
}

/// Python's `str.casefold`: lower case, with the full case foldings that change a
/// character's length or differ from lower case (`ß` is `ss`, `ς` is `σ`, ligatures split).
fn casefold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            'ß' | 'ẞ' => out.push_str("ss"),
            'ς' => out.push('σ'),
            'ŉ' => out.push_str("ʼn"),
            'ﬀ' => out.push_str("ff"),
            'ﬁ' => out.push_str("fi"),
            'ﬂ' => out.push_str("fl"),
            'ﬃ' => out.push_str("ffi"),
            'ﬄ' => out.push_str("ffl"),
            'ﬅ' | 'ﬆ' => out.push_str("st"),
            'µ' => out.push('μ'),
            'ſ' => out.push('s'),
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

/// Python's `str.splitlines(keepends)`: lines end at `\n`, `\r`, `\r\n`, `\v`, `\f`,
/// `\x1c`..`\x1e`, `\x85`, U+2028 and U+2029.
fn splitlines(s: &str, keepends: bool) -> Vec<String> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let mut end = i + c.len_utf8();
        match c {
            '\r' => {
                if let Some((j, '\n')) = chars.peek().copied() {
                    chars.next();
                    end = j + 1;
                }
            }
            '\n' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => {}
            _ => continue,
        }
        lines.push(
            if keepends {
                &s[start..end]
            } else {
                &s[start..i]
            }
            .to_string(),
        );
        start = end;
    }
    if start < s.len() {
        lines.push(s[start..].to_string());
    }
    lines
}

/// The part of `s` between Python's `start` and `end` indexes (negative from the end,
/// clamped), and how many characters come before it; `None` when `start` is past `end`
/// (where not even the empty string is found).
fn char_slice<'s>(
    s: &'s str,
    start: Option<&Value>,
    end: Option<&Value>,
) -> Result<Option<(&'s str, usize)>, Error> {
    let n = s.chars().count() as i64;
    let index = |v: Option<&Value>, default: i64| -> Result<usize, Error> {
        let i = match v {
            None => default,
            Some(v) if super::python::is_none(v) => default,
            Some(v) => v.as_i64().ok_or_else(|| {
                Error::new(
                    ErrorKind::InvalidOperation,
                    "TypeError: slice indices must be integers or None",
                )
            })?,
        };
        Ok(if i < 0 { (i + n).max(0) } else { i.min(n) } as usize)
    };
    let raw_start = match start {
        Some(v) if !super::python::is_none(v) => v.as_i64().unwrap_or(0),
        _ => 0,
    };
    let (a, b) = (index(start, 0)?, index(end, n)?);
    if a > b || raw_start > n {
        return Ok(None);
    }
    let byte = |k: usize| s.char_indices().nth(k).map_or(s.len(), |(i, _)| i);
    Ok(Some((&s[byte(a)..byte(b)], a)))
}

/// Python's `str.rsplit(sep, maxsplit)`.
fn rsplit(s: &str, sep: Option<&str>, maxsplit: i64) -> Result<Vec<String>, Error> {
    let limit = if maxsplit < 0 {
        usize::MAX
    } else {
        maxsplit as usize
    };
    match sep {
        Some("") => Err(value_error("empty separator")),
        Some(sep) => {
            let mut parts: Vec<String> = if limit == usize::MAX {
                s.rsplit(sep).map(str::to_string).collect()
            } else {
                s.rsplitn(limit.saturating_add(1), sep)
                    .map(str::to_string)
                    .collect()
            };
            parts.reverse();
            Ok(parts)
        }
        None => {
            // words from the right; what is left after `limit` of them keeps its leading
            // whitespace
            let mut parts = Vec::new();
            let mut rest = s.trim_end();
            while !rest.is_empty() {
                if parts.len() == limit {
                    parts.push(rest.to_string());
                    break;
                }
                let start = rest
                    .char_indices()
                    .rev()
                    .find(|(_, c)| c.is_whitespace())
                    .map_or(0, |(i, c)| i + c.len_utf8());
                parts.push(rest[start..].to_string());
                rest = rest[..start].trim_end();
            }
            parts.reverse();
            Ok(parts)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(s: &str, method: &str, args: &[Value]) -> String {
        let v = string_method(s, method, args).unwrap().unwrap();
        super::super::python::str(&v)
    }

    #[test]
    fn string_methods_as_python() {
        assert_eq!(
            m("héllo world", "rsplit", &["l".into(), 1.into()]),
            "['héllo wor', 'd']"
        );
        assert_eq!(
            m("  a b c ", "rsplit", &[Value::from(()), 1.into()]),
            "['  a b', 'c']"
        );
        assert_eq!(m("a b", "rsplit", &[]), "['a', 'b']");
        assert_eq!(m("aBc", "swapcase", &[]), "AbC");
        assert_eq!(m("hello o'neil-x 3rd", "title", &[]), "Hello O'Neil-X 3Rd");
        assert_eq!(m("héllo", "index", &["l".into()]), "2");
        assert_eq!(m("-7", "zfill", &[4.into()]), "-007");
        assert_eq!(m("a", "ljust", &[3.into(), ".".into()]), "a..");
        assert_eq!(m("x", "center", &[5.into(), "*".into()]), "**x**");
        assert_eq!(m("ab", "center", &[5.into()]), "  ab ");
        assert_eq!(m("a-b-c", "rpartition", &["-".into()]), "('a-b', '-', 'c')");
        assert_eq!(m("hello", "startswith", &["l".into(), 2.into()]), "True");
        assert_eq!(m("12", "isdigit", &[]), "True");
        assert!(string_method("x", "index", &["y".into()]).unwrap().is_err());
        assert!(string_method("x", "upper", &[]).is_none());
        assert_eq!(m("Ab Cd", "istitle", &[]), "True");
        assert_eq!(m("Ab cd", "istitle", &[]), "False");
        assert_eq!(m("AB", "istitle", &[]), "False");
        assert_eq!(m("ǅungla", "istitle", &[]), "True");
        assert_eq!(m("1", "istitle", &[]), "False");
        assert_eq!(m("a\tb\ncd\te", "expandtabs", &[4.into()]), "a   b\ncd  e");
        assert_eq!(m("Straße", "casefold", &[]), "strasse");
        assert_eq!(m("hello", "find", &["l".into(), 3.into()]), "3");
        assert_eq!(m("hello", "find", &["".into(), 9.into()]), "-1");
        assert_eq!(m("hello", "count", &["".into()]), "6");
        assert_eq!(
            m("hello", "rfind", &["l".into(), 0.into(), (-2).into()]),
            "2"
        );
        assert_eq!(
            m("a\rb\r\nc\u{2028}d\n", "splitlines", &[]),
            "['a', 'b', 'c', 'd']"
        );
        assert_eq!(
            m("a\r\nb", "splitlines", &[true.into()]),
            "['a\\r\\n', 'b']"
        );
        assert_eq!(m("\x1c a \u{a0}", "strip", &[]), "a");
        assert_eq!(m(", ", "join", &[Value::from(vec!["a", "b"])]), "a, b");
        assert!(string_method(",", "join", &[Value::from(vec![1])])
            .unwrap()
            .is_err());
    }
}
