//! Python's printf-style string formatting, `'%s: %5.2f' % (name, x)`, as Jinja2 evaluates a
//! template's `%` on a string: the conversions `s r a d i u x X o e E f F g G c %`, the
//! `(key)` of a mapping argument, the flags `- + space # 0`, width and precision, and Python's
//! errors for missing, surplus and mistyped arguments. On a `Markup` format the string
//! arguments are escaped as HTML, as markupsafe does.
#![forbid(unsafe_code)]

use minijinja::value::ValueKind;
use minijinja::{Error, Value};

use super::operators::{escape_html, type_error, type_name};
use super::python;

/// The directive being read: its flags, width and precision.
#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

/// Most characters a width or precision may ask for (Python would allocate them; a template
/// asking for more is refused rather than let grow).
const MAX_WIDTH: usize = 1 << 16;

/// `format % args`.
pub(crate) fn format(format: &str, args: &Value, markup: bool) -> Result<String, Error> {
    let mapping = args.kind() == ValueKind::Map && !python::is_none(args);
    let positional: Vec<Value> = if args.is_tuple() {
        args.try_iter()?.collect()
    } else {
        vec![args.clone()]
    };
    let mut next = 0;
    let mut used_mapping = false;
    let mut out = String::with_capacity(format.len() + 16);
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut key: Option<String> = None;
        if chars.peek() == Some(&'(') {
            chars.next();
            let mut depth = 1;
            let mut k = String::new();
            for c in chars.by_ref() {
                match c {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k.push(c);
            }
            if depth != 0 {
                return Err(value_error("incomplete format key"));
            }
            key = Some(k);
        }
        let mut spec = Spec::default();
        while let Some(&f) = chars.peek() {
            match f {
                '-' => spec.left = true,
                '+' => spec.plus = true,
                ' ' => spec.space = true,
                '#' => spec.alt = true,
                '0' => spec.zero = true,
                _ => break,
            }
            chars.next();
        }
        spec.width = number(&mut chars)?;
        if chars.peek() == Some(&'.') {
            chars.next();
            spec.precision = Some(number(&mut chars)?);
        }
        while matches!(chars.peek(), Some('h' | 'l' | 'L')) {
            chars.next();
        }
        let Some(conv) = chars.next() else {
            return Err(value_error("incomplete format"));
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        let arg = match &key {
            Some(k) => {
                if !mapping {
                    return Err(type_error("format requires a mapping".into()));
                }
                used_mapping = true;
                let v = args.get_item(&Value::from(k.as_str()))?;
                if v.is_undefined() {
                    return Err(Error::new(
                        minijinja::ErrorKind::InvalidOperation,
                        format!("KeyError: '{k}'"),
                    ));
                }
                v
            }
            None => {
                let Some(v) = positional.get(next) else {
                    return Err(type_error("not enough arguments for format string".into()));
                };
                next += 1;
                v.clone()
            }
        };
        let text = convert(conv, &arg, &spec, markup)?;
        pad(
            &mut out,
            &text,
            &spec,
            matches!(
                conv,
                'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'e' | 'E' | 'f' | 'F' | 'g' | 'G'
            ),
        );
    }
    if !used_mapping && !mapping && next < positional.len() {
        return Err(type_error(
            "not all arguments converted during string formatting".into(),
        ));
    }
    Ok(out)
}

fn value_error(m: &str) -> Error {
    Error::new(
        minijinja::ErrorKind::InvalidOperation,
        format!("ValueError: {m}"),
    )
}

fn number(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> Result<usize, Error> {
    if chars.peek() == Some(&'*') {
        return Err(value_error(
            "'*' widths are not supported in chat templates",
        ));
    }
    let mut n = 0usize;
    while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
        n = n.saturating_mul(10).saturating_add(d as usize);
        chars.next();
    }
    if n > MAX_WIDTH {
        return Err(value_error("width or precision too big"));
    }
    Ok(n)
}

/// Pads `text` to the width: left-justified, zero-filled after the sign, or right-justified.
fn pad(out: &mut String, text: &str, spec: &Spec, numeric: bool) {
    let len = text.chars().count();
    if len >= spec.width {
        out.push_str(text);
        return;
    }
    let fill = spec.width - len;
    if spec.left {
        out.push_str(text);
        out.extend(std::iter::repeat_n(' ', fill));
    } else if spec.zero && numeric && !text.ends_with("inf") && !text.ends_with("nan") {
        let sign_len = text
            .find(|c: char| !matches!(c, '-' | '+' | ' '))
            .unwrap_or(0);
        let (sign, rest) = text.split_at(sign_len);
        let (prefix, digits) =
            if rest.starts_with("0x") || rest.starts_with("0X") || rest.starts_with("0o") {
                rest.split_at(2)
            } else {
                ("", rest)
            };
        out.push_str(sign);
        out.push_str(prefix);
        out.extend(std::iter::repeat_n('0', fill));
        out.push_str(digits);
    } else {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(text);
    }
}

fn sign(negative: bool, spec: &Spec) -> &'static str {
    if negative {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    }
}

fn convert(conv: char, arg: &Value, spec: &Spec, markup: bool) -> Result<String, Error> {
    let text = match conv {
        's' | 'r' | 'a' => {
            let mut s = if conv == 's' {
                python::str(arg)
            } else {
                let mut s = String::new();
                python::write_repr(&mut s, arg, 0);
                s
            };
            if let Some(p) = spec.precision {
                s = s.chars().take(p).collect();
            }
            if markup && !(conv == 's' && arg.is_safe()) {
                s = escape_html(&s);
            }
            s
        }
        'd' | 'i' | 'u' => {
            let n = integer(arg, conv, true)?;
            let mut digits = n.unsigned_abs().to_string();
            if let Some(p) = spec.precision {
                while digits.len() < p {
                    digits.insert(0, '0');
                }
            }
            format!("{}{digits}", sign(n < 0, spec))
        }
        'x' | 'X' | 'o' => {
            let n = integer(arg, conv, false)?;
            let m = n.unsigned_abs();
            let (digits, prefix) = match conv {
                'x' => (format!("{m:x}"), "0x"),
                'X' => (format!("{m:X}"), "0X"),
                _ => (format!("{m:o}"), "0o"),
            };
            let prefix = if spec.alt { prefix } else { "" };
            format!("{}{prefix}{digits}", sign(n < 0, spec))
        }
        'e' | 'E' | 'f' | 'F' | 'g' | 'G' => {
            let f = float(arg, conv)?;
            let body = float_text(f.abs(), conv, spec.precision.unwrap_or(6), spec.alt);
            let negative = f.is_sign_negative() && !f.is_nan();
            format!("{}{body}", sign(negative, spec))
        }
        'c' => match arg.kind() {
            ValueKind::String if arg.as_str().is_some_and(|s| s.chars().count() == 1) => {
                arg.as_str().unwrap_or_default().to_string()
            }
            ValueKind::Number if arg.is_integer() => {
                let n = i64::try_from(arg.clone()).unwrap_or(-1);
                match u32::try_from(n).ok().and_then(char::from_u32) {
                    Some(c) => c.to_string(),
                    None => {
                        return Err(Error::new(
                            minijinja::ErrorKind::InvalidOperation,
                            "OverflowError: %c arg not in range(0x110000)",
                        ))
                    }
                }
            }
            _ => {
                return Err(type_error(
                    "%c requires an int or a unicode character".into(),
                ))
            }
        },
        other => {
            return Err(value_error(&format!(
                "unsupported format character '{other}' (0x{:x})",
                other as u32
            )))
        }
    };
    Ok(text)
}

/// An integer argument: ints and bools, floats truncated for `%d` (as Python's `int()`).
fn integer(arg: &Value, conv: char, floats: bool) -> Result<i128, Error> {
    match arg.kind() {
        ValueKind::Bool => Ok(i128::from(arg.is_true())),
        ValueKind::Number if arg.is_integer() => i128::try_from(arg.clone()),
        ValueKind::Number if floats => {
            let f = f64::try_from(arg.clone())?;
            if !f.is_finite() {
                return Err(Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    "OverflowError: cannot convert float infinity to integer",
                ));
            }
            Ok(f.trunc() as i128)
        }
        _ if floats => Err(type_error(format!(
            "%{conv} format: a real number is required, not {}",
            type_name(arg)
        ))),
        _ => Err(type_error(format!(
            "%{conv} format: an integer is required, not {}",
            type_name(arg)
        ))),
    }
}

fn float(arg: &Value, _conv: char) -> Result<f64, Error> {
    match arg.kind() {
        ValueKind::Bool => Ok(if arg.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(arg.clone()),
        _ => Err(type_error(format!(
            "must be real number, not {}",
            type_name(arg)
        ))),
    }
}

/// A non-negative float in `%e`, `%f` or `%g` form with the precision.
fn float_text(f: f64, conv: char, precision: usize, alt: bool) -> String {
    let upper = conv.is_ascii_uppercase();
    if !f.is_finite() {
        let s = if f.is_nan() { "nan" } else { "inf" };
        return if upper {
            s.to_uppercase()
        } else {
            s.to_string()
        };
    }
    let s = match conv.to_ascii_lowercase() {
        'f' => format!("{f:.precision$}"),
        'e' => exponent(f, precision),
        _ => {
            let p = precision.max(1);
            let x = if f == 0.0 {
                0
            } else {
                let e = format!("{f:.*e}", p - 1);
                e.split_once('e')
                    .and_then(|(_, x)| x.parse::<i32>().ok())
                    .unwrap_or(0)
            };
            let mut s = if (-4..p as i32).contains(&x) {
                format!("{f:.*}", (p as i32 - 1 - x).max(0) as usize)
            } else {
                exponent(f, p - 1)
            };
            if !alt {
                let (mantissa, exp) = match s.find('e') {
                    Some(i) => (s[..i].to_string(), s[i..].to_string()),
                    None => (s.clone(), String::new()),
                };
                let mantissa = if mantissa.contains('.') {
                    mantissa
                        .trim_end_matches('0')
                        .trim_end_matches('.')
                        .to_string()
                } else {
                    mantissa
                };
                s = mantissa + &exp;
            }
            s
        }
    };
    if upper {
        s.to_uppercase()
    } else {
        s
    }
}

/// `%e`: `d.dddde+XX`.
fn exponent(f: f64, precision: usize) -> String {
    let e = format!("{f:.precision$e}");
    let (mantissa, x) = e.split_once('e').unwrap_or((&e, "0"));
    let x: i32 = x.parse().unwrap_or(0);
    format!("{mantissa}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::value::Tuple;

    fn fmt(f: &str, args: Vec<Value>) -> String {
        format(f, &Value::from(Tuple::from(args)), false).unwrap()
    }

    #[test]
    fn conversions_as_python_writes_them() {
        assert_eq!(
            fmt(
                "%s-%d-%5.2f-%r",
                vec!["a".into(), 3.into(), 2.5.into(), "x".into()]
            ),
            "a-3- 2.50-'x'"
        );
        assert_eq!(
            fmt(
                "%03d|%x|%o|%e|%g|%%",
                vec![
                    7.into(),
                    255.into(),
                    8.into(),
                    12345.678.into(),
                    0.00001.into()
                ]
            ),
            "007|ff|10|1.234568e+04|1e-05|%"
        );
        assert_eq!(
            fmt("%-5s|%5s", vec!["ab".into(), "cd".into()]),
            "ab   |   cd"
        );
        assert_eq!(
            fmt(
                "%g|%g|%.3g|%#x|%+d",
                vec![
                    100000.0.into(),
                    1e6.into(),
                    1.23456.into(),
                    255.into(),
                    5.into()
                ]
            ),
            "100000|1e+06|1.23|0xff|+5"
        );
        let m = Value::from_pairs([("a", Value::from(1)), ("b", Value::from(2))]);
        assert_eq!(format("%(a)s+%(b)d", &m, false).unwrap(), "1+2");
        assert_eq!(
            format("%s", &Value::from(vec![1, 2]), false).unwrap(),
            "[1, 2]"
        );
        assert!(format("%s %s", &Value::from("a"), false).is_err());
        assert!(format("x", &Value::from("a"), false).is_err());
        assert_eq!(
            format("<%s>", &Value::from("<b>"), true).unwrap(),
            "<&lt;b&gt;>"
        );
    }
}
