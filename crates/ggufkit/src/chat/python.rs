//! Values printed as Python prints them: Jinja2 writes `{{ x }}` with Python's `str(x)`, so
//! `None`, `True`, `{'a': 1}` and `1e+16` where minijinja would write `none`, `true`,
//! `{"a": 1}` and `10000000000000000.0`. Used by the environment's formatter and its `string`
//! filter.
#![forbid(unsafe_code)]

use std::fmt::Write;
use std::sync::{Arc, Mutex, OnceLock};

use minijinja::value::{Object, ObjectRepr, ValueKind};
use minijinja::{Environment, Value};

use super::globals::{Cycler, Joiner, PyRange};

/// Python's `None` where Jinja2 and minijinja disagree on it: minijinja iterates `none` as an
/// empty list, Jinja2 fails (`'NoneType' object is not iterable`), which templates that loop
/// over `tools` without checking it rely on. transformers passes `tools=None` and
/// `documents=None` when none are given; the render passes this object: false, `is none`,
/// printed `None`, JSON `null`, not iterable, no attributes.
#[derive(Debug)]
pub(crate) struct PyNone;

impl Object for PyNone {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, _key: &Value) -> Option<Value> {
        None
    }

    fn is_true(self: &Arc<Self>) -> bool {
        false
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("none")
    }
}

/// A fresh [`PyNone`].
pub(crate) fn py_none() -> Value {
    Value::from_object(PyNone)
}

/// Whether `v` is Python's `None`: minijinja's none or a [`PyNone`].
pub(crate) fn is_none(v: &Value) -> bool {
    v.is_none() || v.downcast_object_ref::<PyNone>().is_some()
}

/// The Python type of the objects Jinja2 prints with their own `repr` (`range(0, 3)`,
/// `<Namespace {...}>`, `<Macro 'm'>`), which JSON refuses: `None` for plain values.
pub(crate) fn object_type(v: &Value) -> Option<&'static str> {
    let obj = v.as_object()?;
    if v.downcast_object_ref::<PyRange>().is_some() {
        return Some("range");
    }
    if v.downcast_object_ref::<Cycler>().is_some() {
        return Some("Cycler");
    }
    if v.downcast_object_ref::<Joiner>().is_some() {
        return Some("Joiner");
    }
    let (namespace, macro_, function) = builtin_type_names();
    let name = obj.type_name();
    if name == namespace {
        Some("Namespace")
    } else if name == macro_ {
        Some("Macro")
    } else if name == function {
        Some("function")
    } else {
        None
    }
}

/// The Rust type names of minijinja's namespace, macro and function objects (its own types,
/// which it does not export): learned once from one of each.
fn builtin_type_names() -> (&'static str, &'static str, &'static str) {
    static NAMES: OnceLock<(&'static str, &'static str, &'static str)> = OnceLock::new();
    *NAMES.get_or_init(|| {
        let namespace = minijinja::functions::namespace(None)
            .ok()
            .and_then(|v| v.as_object().map(|o| o.type_name()))
            .unwrap_or("\0namespace");
        let seen: Arc<Mutex<&'static str>> = Arc::new(Mutex::new("\0macro"));
        let mut env = Environment::new();
        let probe = Arc::clone(&seen);
        env.add_function("probe", move |v: Value| {
            if let (Some(o), Ok(mut s)) = (v.as_object(), probe.lock()) {
                *s = o.type_name();
            }
        });
        let _ = env.render_str("{% macro m() %}{% endmacro %}{{ probe(m) }}", ());
        let macro_ = seen.lock().map(|s| *s).unwrap_or("\0macro");
        let function = Value::from_function(|| ())
            .as_object()
            .map_or("\0function", |o| o.type_name());
        (namespace, macro_, function)
    })
}

/// Containers nested deeper than this print as `...` (Python would hit its recursion limit;
/// values from JSON are never this deep).
const MAX_DEPTH: usize = 512;

/// Python's `str(value)`: a string as itself, undefined as nothing, anything else as [`repr`].
pub(crate) fn str(value: &Value) -> String {
    let mut out = String::new();
    write_str(&mut out, value);
    out
}

/// Appends Python's `str(value)` to `out`.
pub(crate) fn write_str(out: &mut String, value: &Value) {
    match value.kind() {
        ValueKind::String => out.push_str(value.as_str().unwrap_or_default()),
        ValueKind::Undefined => {}
        _ => write_repr(out, value, 0),
    }
}

/// Appends Python's `repr(value)` to `out`.
pub(crate) fn write_repr(out: &mut String, value: &Value, depth: usize) {
    if depth > MAX_DEPTH {
        out.push_str("...");
        return;
    }
    if is_none(value) {
        out.push_str("None");
        return;
    }
    match object_type(value) {
        Some("range") => {
            if let Some(r) = value.downcast_object_ref::<PyRange>() {
                out.push_str(&r.repr());
            }
            return;
        }
        Some("Namespace") => {
            out.push_str("<Namespace {");
            let hidden = super::functions::NAME_ORDER_KEY;
            let mut names = super::functions::NameOrder::of(value)
                .map(|o| o.names())
                .unwrap_or_default();
            if let Ok(keys) = value.try_iter() {
                for k in keys {
                    let k = k.to_string();
                    if k != hidden && !names.contains(&k) {
                        names.push(k);
                    }
                }
            }
            for (i, name) in names.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_repr_str(out, name);
                out.push_str(": ");
                let item = value.get_attr(name).unwrap_or_default();
                write_repr(out, &item, depth + 1);
            }
            out.push_str("}>");
            return;
        }
        Some("Macro") => {
            out.push_str("<Macro ");
            // `caller` is an anonymous macro in Jinja2
            match value.get_attr("name").ok().as_ref().and_then(Value::as_str) {
                Some(n) if n != "caller" => write_repr_str(out, n),
                _ => out.push_str("anonymous"),
            }
            out.push('>');
            return;
        }
        Some("function") => {
            // Python adds the function's address; its name is the last part of the Rust path
            let path = value.to_string();
            let name = path.rsplit("::").find(|p| !p.contains('{')).unwrap_or("");
            let _ = write!(out, "<function {name}>");
            return;
        }
        Some(t) => {
            let _ = write!(out, "<jinja2.utils.{t} object>");
            return;
        }
        None => {}
    }
    match value.kind() {
        ValueKind::Undefined => {}
        ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number => write_number(out, value),
        ValueKind::String => write_repr_str(out, value.as_str().unwrap_or_default()),
        ValueKind::Seq => {
            let tuple = value.is_tuple()
                || value
                    .downcast_object_ref::<super::functions::GroupTuple>()
                    .is_some();
            let (open, close) = if tuple { ('(', ')') } else { ('[', ']') };
            out.push(open);
            let mut n = 0;
            if let Ok(items) = value.try_iter() {
                for (i, item) in items.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_repr(out, &item, depth + 1);
                    n += 1;
                }
            }
            if tuple && n == 1 {
                out.push(',');
            }
            out.push(close);
        }
        ValueKind::Map => write_map(out, value, depth),
        _ => {
            let _ = write!(out, "{value}");
        }
    }
}

/// Python's `repr(dict)` of a mapping.
fn write_map(out: &mut String, value: &Value, depth: usize) {
    out.push('{');
    if let Ok(keys) = value.try_iter() {
        for (i, key) in keys.enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_repr(out, &key, depth + 1);
            out.push_str(": ");
            let item = value.get_item(&key).unwrap_or_default();
            write_repr(out, &item, depth + 1);
        }
    }
    out.push('}');
}

/// An integer in decimal, a float as Python's `repr(float)`.
pub(crate) fn write_number(out: &mut String, value: &Value) {
    if value.is_integer() {
        let _ = write!(out, "{value}");
    } else if let Ok(f) = f64::try_from(value.clone()) {
        write_float(out, f, "nan", "inf");
    } else {
        let _ = write!(out, "{value}");
    }
}

/// Python's `repr(float)`: the shortest digits that read back to `f`, positional when the
/// exponent is in -4..16, else `d.ddde+XX`. `nan` and `inf` are spelled by the caller (`repr`
/// says `nan`/`inf`, `json.dumps` says `NaN`/`Infinity`).
pub(crate) fn write_float(out: &mut String, f: f64, nan: &str, inf: &str) {
    if f.is_nan() {
        out.push_str(nan);
        return;
    }
    if f.is_infinite() {
        if f < 0.0 {
            out.push('-');
        }
        out.push_str(inf);
        return;
    }
    // `{:e}` gives the shortest round-trip digits: "-1.2345e-7", "1e16"
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    out.push_str(sign);
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            for _ in 0..(-exp - 1) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let int_len = exp as usize + 1;
            if digits.len() <= int_len {
                out.push_str(&digits);
                for _ in digits.len()..int_len {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..int_len]);
                out.push('.');
                out.push_str(&digits[int_len..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    }
}

/// Python's `repr(str)`: single quotes unless the text has one and no double quote, the
/// backslash escapes of `\\`, `\t`, `\n`, `\r`, and `\x`/`\u`/`\U` for characters Python does
/// not print.
pub(crate) fn write_repr_str(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !printable(c) => {
                let n = c as u32;
                let _ = if n <= 0xff {
                    write!(out, "\\x{n:02x}")
                } else if n <= 0xffff {
                    write!(out, "\\u{n:04x}")
                } else {
                    write!(out, "\\U{n:08x}")
                };
            }
            c => out.push(c),
        }
    }
    out.push(quote);
}

/// Python's `str.isprintable` for one character, for the characters text carries: not a
/// control (Cc), a separator other than the space (Zs, Zl, Zp), a format character (Cf) or a
/// private-use one (Co).
pub(crate) fn printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32,
        0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e | 0x200b..=0x200f
        | 0x202a..=0x202e | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff | 0xfff9..=0xfffb
        | 0x110bd | 0x1d173..=0x1d17a | 0xe0001 | 0xe0020..=0xe007f
        | 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(v: Value) -> String {
        let mut s = String::new();
        write_repr(&mut s, &v, 0);
        s
    }

    #[test]
    fn scalars_print_as_python() {
        assert_eq!(str(&Value::from(())), "None");
        assert_eq!(str(&Value::from(true)), "True");
        assert_eq!(str(&Value::from(false)), "False");
        assert_eq!(str(&Value::UNDEFINED), "");
        assert_eq!(str(&Value::from(-3)), "-3");
        assert_eq!(str(&Value::from("it's")), "it's");
    }

    #[test]
    fn floats_print_as_python_repr() {
        let cases = [
            (1.0, "1.0"),
            (1.5, "1.5"),
            (-0.0, "-0.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (123456789012345.6, "123456789012345.6"),
            (1.2345e300, "1.2345e+300"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ];
        for (f, want) in cases {
            let mut s = String::new();
            write_float(&mut s, f, "nan", "inf");
            assert_eq!(s, want, "{f}");
        }
    }

    #[test]
    fn containers_print_as_python_repr() {
        let v = Value::from_pairs([
            ("a", Value::from(1)),
            ("b", Value::from(vec![Value::from(()), Value::from(true)])),
            ("c", Value::from("x'y")),
        ]);
        assert_eq!(repr(v), "{'a': 1, 'b': [None, True], 'c': \"x'y\"}");
        assert_eq!(repr(Value::from("a\nb\\'\"")), "'a\\nb\\\\\\'\"'");
        assert_eq!(
            repr(Value::from("\u{a0}é\u{200b}\u{1f600}")),
            "'\\xa0é\\u200b\u{1f600}'"
        );
        let t = Value::from(minijinja::value::Tuple::from([Value::from("k")]));
        assert_eq!(repr(t), "('k',)");
    }
}
