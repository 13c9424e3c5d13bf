//! The globals, filters and tests transformers adds to Jinja2 (`raise_exception`,
//! `strftime_now`, `tojson` with `json.dumps`'s arguments), and the built-ins whose minijinja
//! behaviour differs from Jinja2's (`string` writes Python's `str`; `sequence` and `number` test
//! as Python does). None of them reaches the file system, the environment or the network.
#![forbid(unsafe_code)]

use std::borrow::Cow;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use minijinja::filters as builtin;
use minijinja::value::{
    Enumerator, Kwargs, Object, ObjectExt, ObjectRepr, Rest, ValueKind, ValueOrKwargs,
};
use minijinja::{Environment, Error, ErrorKind, State, Value};

use super::json::{dumps, JsonStyle};
use super::{clock, methods, operators, python};

/// The marker a `raise_exception` error carries, so that a failed render can tell the
/// template's own message from minijinja's errors.
#[derive(Debug)]
pub(crate) struct Raised(pub String);

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Raised {}

/// The instant `strftime_now` writes: [`SYSTEM_CLOCK`] for the system clock, else Unix seconds.
pub(crate) type Clock = Arc<AtomicI64>;

/// The [`Clock`] value that means "now".
pub(crate) const SYSTEM_CLOCK: i64 = i64::MIN;

/// Adds every global, filter and test to `env`.
pub(crate) fn register(env: &mut Environment<'static>, clock: Clock) {
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", move |format: &str| {
        let at = match clock.load(Ordering::Relaxed) {
            SYSTEM_CLOCK => clock::now_unix(),
            fixed => fixed,
        };
        clock::strftime(format, at)
    });
    env.add_filter("tojson", tojson);
    env.add_function("_gguf_add", |a: &Value, b: &Value| operators::add(a, b));
    env.add_function("_gguf_mod", |a: &Value, b: &Value| operators::modulo(a, b));
    env.add_function("_gguf_concat", |a: &Value, b: &Value| {
        operators::concat(a, b)
    });
    env.add_filter("safe", |v: &Value| operators::mark_safe(v));
    env.add_filter("escape", |v: &Value| operators::escape(v));
    env.add_filter("e", |v: &Value| operators::escape(v));
    env.add_filter("forceescape", |v: &Value| operators::force_escape(v));
    env.add_filter("int", int_filter);
    env.add_filter("float", float_filter);
    env.add_filter("center", |v: &Value, width: Option<i64>| {
        let w = width.unwrap_or(80).clamp(0, 1 << 20) as usize;
        methods::center(&python::str(v), w, ' ')
    });
    env.add_filter("truncate", truncate);
    env.add_filter("string", |v: &Value| python::str(v));
    env.add_test("sequence", |v: &Value| {
        matches!(
            v.kind(),
            ValueKind::String | ValueKind::Seq | ValueKind::Map | ValueKind::Undefined
        )
    });
    env.add_filter("select", select);
    env.add_filter("reject", reject);
    env.add_filter("selectattr", selectattr);
    env.add_filter("rejectattr", rejectattr);
    env.add_filter("map", map);
    env.add_test("none", |v: &Value| python::is_none(v));
    env.add_test("number", |v: &Value| {
        matches!(v.kind(), ValueKind::Number | ValueKind::Bool)
    });
}

/// `raise_exception(message)`: fails the render with the template's message.
fn raise_exception(message: Option<Value>) -> Result<Value, Error> {
    let message = message.map(|m| python::str(&m)).unwrap_or_default();
    Err(Error::new(ErrorKind::InvalidOperation, message.clone()).with_source(Raised(message)))
}

/// `x | tojson(ensure_ascii=False, indent=None, separators=None, sort_keys=False)`, with the
/// arguments positional or by name, as transformers' filter takes them.
fn tojson(
    _state: &State,
    value: &Value,
    args: Rest<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    const NAMES: [&str; 4] = ["ensure_ascii", "indent", "separators", "sort_keys"];
    if args.len() > NAMES.len() {
        return Err(Error::new(
            ErrorKind::TooManyArguments,
            "tojson takes at most 4 arguments",
        ));
    }
    let mut given: [Option<Value>; 4] = Default::default();
    for (slot, v) in given.iter_mut().zip(args.iter()) {
        *slot = Some(v.clone());
    }
    for (i, name) in NAMES.iter().enumerate() {
        if let Some(v) = kwargs.get::<Option<Value>>(name)? {
            if given[i].is_some() {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!("tojson got multiple values for argument '{name}'"),
                ));
            }
            given[i] = Some(v);
        }
    }
    kwargs.assert_all_used()?;
    let [ensure_ascii, indent, separators, sort_keys] = given;
    let style = JsonStyle {
        ensure_ascii: ensure_ascii.is_some_and(|v| v.is_true()),
        indent: indent.and_then(indent_text),
        separators: separators.map(separator_pair).transpose()?,
        sort_keys: sort_keys.is_some_and(|v| v.is_true()),
    };
    dumps(value, &style)
        .map(Value::from)
        .map_err(|m| Error::new(ErrorKind::InvalidOperation, m))
}

/// `indent` as `json.dumps` reads it: none for one line, a number of spaces, or a string.
fn indent_text(v: Value) -> Option<String> {
    match v.kind() {
        ValueKind::None | ValueKind::Undefined => None,
        ValueKind::String => Some(v.as_str().unwrap_or_default().to_string()),
        _ => {
            let n = i64::try_from(v).unwrap_or(0).clamp(0, 256) as usize;
            Some(" ".repeat(n))
        }
    }
}

/// `separators` as `json.dumps` reads it: an (item, key) pair of strings.
fn separator_pair(v: Value) -> Result<(String, String), Error> {
    let bad = || {
        Error::new(
            ErrorKind::InvalidOperation,
            "tojson: separators must be a pair of strings",
        )
    };
    let items: Vec<Value> = v.try_iter().map_err(|_| bad())?.collect();
    match items.as_slice() {
        [a, b] if a.as_str().is_some() && b.as_str().is_some() => Ok((
            a.as_str().unwrap_or_default().to_string(),
            b.as_str().unwrap_or_default().to_string(),
        )),
        _ => Err(bad()),
    }
}

/// What Jinja2's `select`, `reject`, `selectattr`, `rejectattr` and `map` return: a generator.
/// It is true even when empty, has no length, and `tojson` refuses it; `list`, `first`,
/// `join` and loops take its items. Their input when false (none, empty) gives nothing, as
/// Jinja2's `if value:` before iterating does.
#[derive(Debug)]
pub(crate) struct Generator(Vec<Value>);

impl Object for Generator {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Iterable
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        self.mapped_enumerator(|this| Box::new(this.0.iter().cloned()))
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        None
    }

    fn is_true(self: &Arc<Self>) -> bool {
        true
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<generator object>")
    }
}

fn generator(items: Result<Vec<Value>, Error>) -> Result<Value, Error> {
    items.map(|v| Value::from_object(Generator(v)))
}

fn select(
    state: &mut State,
    value: Value,
    test: Option<Cow<'_, str>>,
    args: Rest<ValueOrKwargs>,
) -> Result<Value, Error> {
    if !value.is_true() {
        return generator(Ok(Vec::new()));
    }
    generator(builtin::select(state, value, test, args))
}

fn reject(
    state: &mut State,
    value: Value,
    test: Option<Cow<'_, str>>,
    args: Rest<ValueOrKwargs>,
) -> Result<Value, Error> {
    if !value.is_true() {
        return generator(Ok(Vec::new()));
    }
    generator(builtin::reject(state, value, test, args))
}

fn selectattr(
    state: &mut State,
    value: Value,
    attr: Cow<'_, str>,
    test: Option<Cow<'_, str>>,
    args: Rest<ValueOrKwargs>,
) -> Result<Value, Error> {
    if !value.is_true() {
        return generator(Ok(Vec::new()));
    }
    generator(builtin::selectattr(state, value, attr, test, args))
}

fn rejectattr(
    state: &mut State,
    value: Value,
    attr: Cow<'_, str>,
    test: Option<Cow<'_, str>>,
    args: Rest<ValueOrKwargs>,
) -> Result<Value, Error> {
    if !value.is_true() {
        return generator(Ok(Vec::new()));
    }
    generator(builtin::rejectattr(state, value, attr, test, args))
}

fn map(state: &mut State, value: Value, args: Rest<ValueOrKwargs>) -> Result<Value, Error> {
    if !value.is_true() {
        return generator(Ok(Vec::new()));
    }
    generator(builtin::map(state, value, args))
}

/// A string as Python's `float()` reads it (surrounding whitespace, `inf`, `nan`, `1e3`).
fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim().replace('_', "");
    match t.to_ascii_lowercase().trim_start_matches(['+', '-']) {
        "inf" | "infinity" | "nan" => {}
        x if x.is_empty() || !x.starts_with(|c: char| c.is_ascii_digit() || c == '.') => {
            return None
        }
        _ => {}
    }
    t.parse::<f64>().ok()
}

/// Jinja2's `int(default=0, base=10)`: Python's `int()`, else `int(float())`, else the default.
fn int_filter(value: &Value, default: Option<Value>, base: Option<u32>) -> Value {
    let default = default.unwrap_or(Value::from(0));
    match value.kind() {
        ValueKind::Bool => Value::from(i64::from(value.is_true())),
        ValueKind::Number if value.is_integer() => value.clone(),
        ValueKind::Number => match f64::try_from(value.clone()) {
            Ok(f) if f.is_finite() => Value::from(f.trunc() as i128),
            _ => default,
        },
        ValueKind::String => {
            let s = value.as_str().unwrap_or_default().trim().replace('_', "");
            let base = base.unwrap_or(10);
            let digits = match base {
                16 => s.trim_start_matches("0x").trim_start_matches("0X"),
                8 => s.trim_start_matches("0o").trim_start_matches("0O"),
                2 => s.trim_start_matches("0b").trim_start_matches("0B"),
                _ => &s,
            };
            if (2..=36).contains(&base) {
                if let Ok(n) = i128::from_str_radix(digits, base) {
                    return Value::from(n);
                }
            }
            match parse_float(&s) {
                Some(f) if f.is_finite() => Value::from(f.trunc() as i128),
                _ => default,
            }
        }
        _ => default,
    }
}

/// Jinja2's `float(default=0.0)`: Python's `float()`, else the default.
fn float_filter(value: &Value, default: Option<Value>) -> Value {
    let default = default.unwrap_or(Value::from(0.0));
    match value.kind() {
        ValueKind::Bool => Value::from(if value.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(value.clone()).map_or(default, Value::from),
        ValueKind::String => {
            parse_float(value.as_str().unwrap_or_default()).map_or(default, Value::from)
        }
        _ => default,
    }
}

/// Jinja2's `truncate(length=255, killwords=False, end='...', leeway=5)`: text longer than
/// length + leeway is cut to length with `end`, at a space unless `killwords`.
fn truncate(
    value: &Value,
    length: Option<usize>,
    killwords: Option<bool>,
    end: Option<String>,
    leeway: Option<usize>,
) -> Result<String, Error> {
    let s = python::str(value);
    let length = length.unwrap_or(255);
    let end = end.unwrap_or_else(|| "...".to_string());
    let end_len = end.chars().count();
    if length < end_len {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("expected length >= {end_len}, got {length}"),
        ));
    }
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= length + leeway.unwrap_or(5) {
        return Ok(s);
    }
    let head: String = chars[..length - end_len].iter().collect();
    if killwords == Some(true) {
        return Ok(head + &end);
    }
    let cut = match head.rfind(' ') {
        Some(i) => head[..i].to_string(),
        None => head,
    };
    Ok(cut + &end)
}
