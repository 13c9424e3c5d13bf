//! Python's `+`, `%` and `~` as Jinja2 evaluates them, for the calls
//! [`rewrite`](super::rewrite) puts in their place, and markupsafe's `Markup`: the strings
//! `|safe` and `|e` return (minijinja's safe strings here). `Markup + str` and `str + Markup`
//! escape the plain side as HTML and stay `Markup`; `Markup % args` escapes the arguments;
//! `~` writes both sides with `str` and gives a plain string. A failure carries Python's
//! message (`TypeError: can only concatenate str (not "int") to str`).
#![forbid(unsafe_code)]

use std::cmp::Ordering;

use minijinja::value::{Tuple, ValueKind};
use minijinja::{Error, ErrorKind, Value};

use super::{printf, python};

/// markupsafe's `escape` of a text: `&`, `<`, `>`, `'` and `"` as HTML entities.
pub(crate) fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            c => out.push(c),
        }
    }
    out
}

/// `escape(value)`: a `Markup` unchanged, anything else written with `str` and escaped.
pub(crate) fn escape(value: &Value) -> Value {
    if value.is_safe() {
        return value.clone();
    }
    Value::from_safe_string(escape_html(&python::str(value)))
}

/// `|safe`: `Markup(str(value))`.
pub(crate) fn mark_safe(value: &Value) -> Value {
    if value.is_safe() {
        return value.clone();
    }
    Value::from_safe_string(python::str(value))
}

/// `|forceescape`: escaped even when already `Markup`.
pub(crate) fn force_escape(value: &Value) -> Value {
    Value::from_safe_string(escape_html(&python::str(value)))
}

/// The name of a value's Python type, as Python's error messages write it.
pub(crate) fn type_name(v: &Value) -> &'static str {
    if python::is_none(v) {
        return "NoneType";
    }
    if let Some(t) = python::object_type(v) {
        return t;
    }
    match v.kind() {
        ValueKind::Undefined => "Undefined",
        ValueKind::Bool => "bool",
        ValueKind::Number if v.is_integer() => "int",
        ValueKind::Number => "float",
        ValueKind::String if v.is_safe() => "Markup",
        ValueKind::String => "str",
        ValueKind::Bytes => "bytes",
        ValueKind::Seq if v.is_tuple() => "tuple",
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        ValueKind::Iterable => "generator",
        _ => "object",
    }
}

/// A Python exception's message as a render error.
pub(crate) fn type_error(message: String) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("TypeError: {message}"))
}

/// The error of an operation on an undefined value (Jinja2's `UndefinedError`).
fn undefined(op: &str) -> Error {
    Error::new(
        ErrorKind::UndefinedError,
        format!("an undefined value used with `{op}`"),
    )
}

fn unsupported(op: &str, a: &Value, b: &Value) -> Error {
    type_error(format!(
        "unsupported operand type(s) for {op}: '{}' and '{}'",
        type_name(a),
        type_name(b)
    ))
}

/// An integer operand (`bool` counts, as in Python) as `i128`.
fn as_int(v: &Value) -> Option<i128> {
    match v.kind() {
        ValueKind::Bool => Some(i128::from(v.is_true())),
        ValueKind::Number if v.is_integer() => i128::try_from(v.clone()).ok(),
        _ => None,
    }
}

/// A number operand as `f64`.
fn as_float(v: &Value) -> Option<f64> {
    match v.kind() {
        ValueKind::Bool => Some(if v.is_true() { 1.0 } else { 0.0 }),
        ValueKind::Number => f64::try_from(v.clone()).ok(),
        _ => None,
    }
}

fn is_str(v: &Value) -> bool {
    v.kind() == ValueKind::String
}

fn is_list(v: &Value) -> bool {
    v.kind() == ValueKind::Seq && !v.is_tuple() && !python::is_none(v)
}

/// `a + b`.
pub(crate) fn add(a: &Value, b: &Value) -> Result<Value, Error> {
    if a.is_undefined() || b.is_undefined() {
        return Err(undefined("+"));
    }
    if is_str(a) && is_str(b) {
        let (x, y) = (
            a.as_str().unwrap_or_default(),
            b.as_str().unwrap_or_default(),
        );
        if a.is_safe() || b.is_safe() {
            let x = if a.is_safe() {
                x.to_string()
            } else {
                escape_html(x)
            };
            let y = if b.is_safe() {
                y.to_string()
            } else {
                escape_html(y)
            };
            return Ok(Value::from_safe_string(x + &y));
        }
        return Ok(Value::from([x, y].concat()));
    }
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        return x.checked_add(y).map(Value::from).ok_or_else(|| {
            Error::new(
                ErrorKind::InvalidOperation,
                "OverflowError: integer too large",
            )
        });
    }
    if let (Some(x), Some(y)) = (as_float(a), as_float(b)) {
        return Ok(Value::from(x + y));
    }
    let same_seq = (is_list(a) && is_list(b)) || (a.is_tuple() && b.is_tuple());
    if same_seq {
        let items: Vec<Value> = a.try_iter()?.chain(b.try_iter()?).collect();
        return Ok(if a.is_tuple() {
            Value::from(Tuple::from(items))
        } else {
            Value::from(items)
        });
    }
    if is_str(a) && !a.is_safe() {
        return Err(type_error(format!(
            "can only concatenate str (not \"{}\") to str",
            type_name(b)
        )));
    }
    if is_list(a) || a.is_tuple() {
        let t = type_name(a);
        return Err(type_error(format!(
            "can only concatenate {t} (not \"{}\") to {t}",
            type_name(b)
        )));
    }
    Err(unsupported("+", a, b))
}

/// `a ~ b`: `str(a) + str(b)` (undefined as nothing), a plain string.
pub(crate) fn concat(a: &Value, b: &Value) -> Value {
    let mut s = python::str(a);
    python::write_str(&mut s, b);
    Value::from(s)
}

/// The comparison operators [`order`] evaluates.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Order {
    Lt,
    Le,
    Gt,
    Ge,
}

impl Order {
    fn symbol(self) -> &'static str {
        match self {
            Order::Lt => "<",
            Order::Le => "<=",
            Order::Gt => ">",
            Order::Ge => ">=",
        }
    }
}

/// `a < b` (`<=`, `>`, `>=`) as Python orders values: numbers with numbers, strings with
/// strings, lists with lists and tuples with tuples item by item; anything else is Python's
/// `TypeError`, and an undefined operand Jinja2's `UndefinedError`.
pub(crate) fn order(a: &Value, b: &Value, op: Order) -> Result<Value, Error> {
    let ord = compare(a, b, op)?;
    Ok(Value::from(match (ord, op) {
        (None, _) => false,
        (Some(o), Order::Lt) => o == Ordering::Less,
        (Some(o), Order::Le) => o != Ordering::Greater,
        (Some(o), Order::Gt) => o == Ordering::Greater,
        (Some(o), Order::Ge) => o != Ordering::Less,
    }))
}

/// How `a` and `b` order (`None`: unordered, a NaN), or why Python refuses to order them.
fn compare(a: &Value, b: &Value, op: Order) -> Result<Option<Ordering>, Error> {
    if a.is_undefined() || b.is_undefined() {
        return Err(undefined(op.symbol()));
    }
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        return Ok(Some(x.cmp(&y)));
    }
    if let (Some(x), Some(y)) = (as_float(a), as_float(b)) {
        return Ok(x.partial_cmp(&y));
    }
    if is_str(a) && is_str(b) {
        return Ok(Some(
            a.as_str()
                .unwrap_or_default()
                .cmp(b.as_str().unwrap_or_default()),
        ));
    }
    if (is_list(a) && is_list(b)) || (a.is_tuple() && b.is_tuple()) {
        let (xs, ys): (Vec<Value>, Vec<Value>) = (a.try_iter()?.collect(), b.try_iter()?.collect());
        for (x, y) in xs.iter().zip(&ys) {
            if x != y {
                return compare(x, y, op);
            }
        }
        return Ok(Some(xs.len().cmp(&ys.len())));
    }
    Err(type_error(format!(
        "'{}' not supported between instances of '{}' and '{}'",
        op.symbol(),
        type_name(a),
        type_name(b)
    )))
}

/// A `for` loop's iterable as Python takes it: `None` is not iterable (minijinja would loop
/// zero times).
pub(crate) fn iterable(v: Value) -> Result<Value, Error> {
    if python::is_none(&v) {
        return Err(type_error("'NoneType' object is not iterable".to_string()));
    }
    Ok(v)
}

/// `a % b`: printf formatting of a string, Python's modulo of numbers.
pub(crate) fn modulo(a: &Value, b: &Value) -> Result<Value, Error> {
    if a.is_undefined() || b.is_undefined() {
        return Err(undefined("%"));
    }
    if is_str(a) {
        let text = printf::format(a.as_str().unwrap_or_default(), b, a.is_safe())?;
        return Ok(if a.is_safe() {
            Value::from_safe_string(text)
        } else {
            Value::from(text)
        });
    }
    if let (Some(x), Some(y)) = (as_int(a), as_int(b)) {
        if y == 0 {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "ZeroDivisionError: integer modulo by zero",
            ));
        }
        let r = x % y;
        return Ok(Value::from(if r != 0 && (r < 0) != (y < 0) {
            r + y
        } else {
            r
        }));
    }
    if let (Some(x), Some(y)) = (as_float(a), as_float(b)) {
        if y == 0.0 {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                "ZeroDivisionError: float modulo",
            ));
        }
        let mut r = x % y;
        if r != 0.0 && (r < 0.0) != (y < 0.0) {
            r += y;
        }
        return Ok(Value::from(r));
    }
    Err(unsupported("%", a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_escapes_the_plain_side() {
        let safe = Value::from_safe_string("<a>".into());
        let plain = Value::from("\"q\" & 'x'");
        let r = add(&safe, &plain).unwrap();
        assert!(r.is_safe());
        assert_eq!(r.as_str(), Some("<a>&#34;q&#34; &amp; &#39;x&#39;"));
        let r = add(&plain, &safe).unwrap();
        assert_eq!(r.as_str(), Some("&#34;q&#34; &amp; &#39;x&#39;<a>"));
        assert_eq!(
            add(&Value::from("a"), &Value::from("<")).unwrap().as_str(),
            Some("a<")
        );
        assert!(!concat(&safe, &plain).is_safe());
        assert_eq!(escape(&escape(&Value::from("<"))).as_str(), Some("&lt;"));
        assert_eq!(force_escape(&safe).as_str(), Some("&lt;a&gt;"));
    }

    #[test]
    fn ordering_as_python() {
        let lt = |a: Value, b: Value| order(&a, &b, Order::Lt);
        assert_eq!(lt(1.into(), 1.5.into()).unwrap(), Value::from(true));
        assert_eq!(lt(true.into(), 2.into()).unwrap(), Value::from(true));
        assert_eq!(lt("B".into(), "a".into()).unwrap(), Value::from(true));
        assert_eq!(
            lt(Value::from(vec![1, 2]), Value::from(vec![1, 3])).unwrap(),
            Value::from(true)
        );
        assert_eq!(
            lt(Value::from(vec![1, 2]), Value::from(vec![1])).unwrap(),
            Value::from(false)
        );
        assert_eq!(
            order(&f64::NAN.into(), &1.into(), Order::Ge).unwrap(),
            Value::from(false)
        );
        assert_eq!(
            lt("a".into(), 1.into()).unwrap_err().detail(),
            Some("TypeError: '<' not supported between instances of 'str' and 'int'")
        );
        assert_eq!(
            order(&Value::from(()), &1.into(), Order::Ge)
                .unwrap_err()
                .detail(),
            Some("TypeError: '>=' not supported between instances of 'NoneType' and 'int'")
        );
        assert_eq!(
            lt(Value::UNDEFINED, 1.into()).unwrap_err().kind(),
            ErrorKind::UndefinedError
        );
        assert!(iterable(Value::from(())).is_err());
        assert!(iterable(Value::from(vec![1])).is_ok());
    }

    #[test]
    fn python_arithmetic_and_messages() {
        assert_eq!(
            add(&Value::from(true), &Value::from(1)).unwrap(),
            Value::from(2)
        );
        assert_eq!(
            add(&Value::from(1), &Value::from(1.5)).unwrap(),
            Value::from(2.5)
        );
        assert_eq!(
            modulo(&Value::from(-7), &Value::from(3)).unwrap(),
            Value::from(2)
        );
        assert_eq!(
            modulo(&Value::from(7), &Value::from(-3)).unwrap(),
            Value::from(-2)
        );
        assert_eq!(
            modulo(&Value::from(7.5), &Value::from(2)).unwrap(),
            Value::from(1.5)
        );
        assert_eq!(
            add(&Value::from("a"), &Value::from(1))
                .unwrap_err()
                .detail(),
            Some("TypeError: can only concatenate str (not \"int\") to str")
        );
        assert_eq!(
            add(&Value::from(1), &Value::from("a"))
                .unwrap_err()
                .detail(),
            Some("TypeError: unsupported operand type(s) for +: 'int' and 'str'")
        );
        assert_eq!(
            add(&Value::from(vec![1]), &Value::from(vec![2])).unwrap(),
            Value::from(vec![1, 2])
        );
        assert_eq!(
            concat(&Value::from(1e20), &Value::from(())).as_str(),
            Some("1e+20None")
        );
    }
}
