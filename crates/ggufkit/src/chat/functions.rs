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
use super::operators::Order;
use super::{clock, globals, methods, operators, python};

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

/// The time `strftime_now` writes: [`SYSTEM_CLOCK`] for the local time now, else a fixed
/// wall-clock time (the Unix seconds at which a UTC clock shows it).
pub(crate) type Clock = Arc<AtomicI64>;

/// The [`Clock`] value that means "now".
pub(crate) const SYSTEM_CLOCK: i64 = i64::MIN;

/// Adds every global, filter and test to `env`.
pub(crate) fn register(env: &mut Environment<'static>, clock: Clock) {
    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", move |format: &str| {
        let at = match clock.load(Ordering::Relaxed) {
            SYSTEM_CLOCK => clock::local_now(),
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
    env.add_function("_gguf_lt", |a: &Value, b: &Value| {
        operators::order(a, b, Order::Lt)
    });
    env.add_function("_gguf_le", |a: &Value, b: &Value| {
        operators::order(a, b, Order::Le)
    });
    env.add_function("_gguf_gt", |a: &Value, b: &Value| {
        operators::order(a, b, Order::Gt)
    });
    env.add_function("_gguf_ge", |a: &Value, b: &Value| {
        operators::order(a, b, Order::Ge)
    });
    env.add_function("_gguf_iter", operators::iterable);
    env.add_function(
        "_gguf_ns_set",
        |value: Value, name: &str, ns: Option<Value>| {
            namespace_name(&Value::from(name))?;
            if let Some(log) = ns.as_ref().and_then(NameOrder::of) {
                log.push(name);
            }
            Ok::<_, Error>(value)
        },
    );
    env.add_function("namespace", namespace);
    globals::register(env);
    env.add_filter("wordcount", wordcount);
    env.add_filter("urlencode", urlencode);
    env.add_filter("groupby", groupby);
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

/// transformers' namespace refuses names starting with `_` (they would reach Python's
/// internals), when made and when assigned.
fn namespace_name(name: &Value) -> Result<(), Error> {
    match name.as_str() {
        Some(n) if n.starts_with('_') => {
            let mut quoted = String::new();
            python::write_repr_str(&mut quoted, n);
            Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "SecurityError: Chat templates cannot store underscore-prefixed attributes on a namespace, but got {quoted}. Please rename the attribute."
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The key under which a namespace keeps the order its names were first set in (minijinja's
/// namespace sorts them; Python's prints them in that order). No template can write it.
pub(crate) const NAME_ORDER_KEY: &str = "\u{1}order";

/// The names of a namespace in the order they were first set.
#[derive(Debug, Default)]
pub(crate) struct NameOrder(std::sync::Mutex<Vec<String>>);

impl Object for NameOrder {}

impl NameOrder {
    /// The log of a namespace, if `ns` is one made by [`namespace`].
    pub(crate) fn of(ns: &Value) -> Option<Arc<NameOrder>> {
        ns.get_attr(NAME_ORDER_KEY)
            .ok()?
            .downcast_object::<NameOrder>()
    }

    fn push(&self, name: &str) {
        if let Ok(mut names) = self.0.lock() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
    }

    /// The names logged, in order.
    pub(crate) fn names(&self) -> Vec<String> {
        self.0.lock().map(|n| n.clone()).unwrap_or_default()
    }
}

/// `namespace(...)`: minijinja's (the only object `{% set ns.x = ... %}` assigns to), with
/// transformers' refusal of names starting with `_`, and the order of its names kept.
fn namespace(defaults: Option<ValueOrKwargs>) -> Result<Value, Error> {
    let order = NameOrder::default();
    let mut pairs: Vec<(Value, Value)> = Vec::new();
    if let Some(d) = &defaults {
        if d.kind() != ValueKind::Map {
            return minijinja::functions::namespace(defaults);
        }
        for key in d.try_iter()? {
            namespace_name(&key)?;
            let v = d.get_item(&key)?;
            if let Some(k) = key.as_str() {
                order.push(k);
            }
            pairs.push((key, v));
        }
    }
    pairs.push((Value::from(NAME_ORDER_KEY), Value::from_object(order)));
    let map = Value::from_pairs(pairs);
    let (defaults,): (Option<ValueOrKwargs>,) = minijinja::value::from_args(&[map])?;
    minijinja::functions::namespace(defaults)
}

/// Jinja2's `wordcount`: the runs of word characters (Python's `\w`: letters, digits, `_`).
fn wordcount(value: &Value) -> usize {
    let s = python::str(value);
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut n = 0;
    let mut in_word = false;
    for c in s.chars() {
        let w = word(c);
        if w && !in_word {
            n += 1;
        }
        in_word = w;
    }
    n
}

/// Python's `urllib.parse.quote` of `str(value)` (safe: letters, digits, `_.-~`, and `/` outside
/// query strings), a space as `+` in query strings: Jinja2's `url_quote`.
fn url_quote(value: &Value, for_qs: bool) -> String {
    let mut out = String::new();
    for b in python::str(value).bytes() {
        match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'.' | b'-' | b'~' => {
                out.push(b as char)
            }
            b'/' if !for_qs => out.push('/'),
            b' ' if for_qs => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Jinja2's `urlencode`: a string (or any value that is not iterable) quoted; a mapping, or
/// an iterable of pairs, as a query string.
fn urlencode(value: &Value) -> Result<String, Error> {
    let pairs: Vec<(Value, Value)> = match value.kind() {
        ValueKind::String
        | ValueKind::Number
        | ValueKind::Bool
        | ValueKind::None
        | ValueKind::Undefined => return Ok(url_quote(value, false)),
        _ if python::is_none(value) => return Ok(url_quote(value, false)),
        ValueKind::Map => value
            .try_iter()?
            .map(|k| {
                let v = value.get_item(&k).unwrap_or_default();
                (k, v)
            })
            .collect(),
        _ => {
            let mut pairs = Vec::new();
            for item in value.try_iter()? {
                let kv: Vec<Value> = item.try_iter()?.collect();
                match kv.as_slice() {
                    [k, v] => pairs.push((k.clone(), v.clone())),
                    _ => {
                        return Err(Error::new(
                            ErrorKind::InvalidOperation,
                            format!("ValueError: expected 2 values to unpack, got {}", kv.len()),
                        ))
                    }
                }
            }
            pairs
        }
    };
    Ok(pairs
        .iter()
        .map(|(k, v)| format!("{}={}", url_quote(k, true), url_quote(v, true)))
        .collect::<Vec<_>>()
        .join("&"))
}

/// One group of Jinja2's `groupby`: a named tuple `(grouper, list)`, printed as a tuple.
#[derive(Debug)]
pub(crate) struct GroupTuple {
    pub grouper: Value,
    pub list: Value,
}

impl Object for GroupTuple {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        match (key.as_str(), key.as_i64()) {
            (Some("grouper"), _) | (_, Some(0)) => Some(self.grouper.clone()),
            (Some("list"), _) | (_, Some(1)) => Some(self.list.clone()),
            _ => None,
        }
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(2)
    }
}

/// `groupby(attribute, default=None, case_sensitive=False)`: minijinja's grouping, each group
/// a [`GroupTuple`].
fn groupby(value: Value, attribute: Option<&str>, kwargs: Kwargs) -> Result<Value, Error> {
    let groups = builtin::groupby(value, attribute, kwargs)?;
    let mut out = Vec::new();
    for g in groups.try_iter()? {
        out.push(Value::from_object(GroupTuple {
            grouper: g.get_attr("grouper")?,
            list: g.get_attr("list")?,
        }));
    }
    Ok(Value::from(out))
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
