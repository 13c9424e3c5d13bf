//! Python's methods on template values, as Jinja2 lets a template call them: the str methods
//! minijinja-contrib's `pycompat` lacks or writes otherwise (`title`, `rsplit`, `swapcase`, `index`, `zfill`, `ljust`,
//! `center`, `partition`, `removeprefix`, `isdigit`, ..., and `startswith`/`endswith` with a
//! start and end), then `pycompat`'s own. The methods that change a list or a dict (`append`,
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
        "index" | "rindex" => (|| {
            let (what,): (&str,) = from_args(args)?;
            let at = if method == "index" {
                s.find(what)
            } else {
                s.rfind(what)
            };
            match at {
                Some(x) => Ok(Value::from(s[..x].chars().count())),
                None => Err(value_error("substring not found")),
            }
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
    }
}
