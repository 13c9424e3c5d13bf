//! The globals Jinja2 gives every template and transformers keeps: `range` (Python's `range`,
//! printed `range(0, 3)`, bounded as the sandbox bounds it), `cycler`, `joiner` and `lipsum`.
//! transformers replaces Jinja2's `dict` and `namespace` (see `functions`); these it leaves as
//! Jinja2 defines them.
#![forbid(unsafe_code)]

use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use minijinja::value::{from_args, Enumerator, Kwargs, Object, ObjectRepr, Rest};
use minijinja::{Environment, Error, ErrorKind, State, Value};

use super::operators::escape_html;

/// The longest range the sandbox makes (Jinja2's `MAX_RANGE`).
pub(crate) const MAX_RANGE: i64 = 100_000;

/// Adds `range`, `cycler`, `joiner` and `lipsum` to `env`.
pub(crate) fn register(env: &mut Environment<'static>) {
    env.add_function("range", range);
    env.add_function("cycler", cycler);
    env.add_function("joiner", joiner);
    env.add_function("lipsum", lipsum);
}

/// Python's `range`: a sequence of integers that prints as `range(start, stop[, step])`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PyRange {
    pub start: i64,
    pub stop: i64,
    pub step: i64,
}

impl PyRange {
    fn len(&self) -> usize {
        let (lo, hi, step) = if self.step > 0 {
            (self.start, self.stop, self.step)
        } else {
            (self.stop, self.start, -self.step)
        };
        if lo >= hi {
            return 0;
        }
        usize::try_from((hi - lo - 1) / step + 1).unwrap_or(usize::MAX)
    }

    /// Python's `repr(range)`.
    pub(crate) fn repr(&self) -> String {
        if self.step == 1 {
            format!("range({}, {})", self.start, self.stop)
        } else {
            format!("range({}, {}, {})", self.start, self.stop, self.step)
        }
    }
}

impl Object for PyRange {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Seq
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        let i = usize::try_from(key.as_i64()?).ok()?;
        (i < self.len()).then(|| Value::from(self.start + i as i64 * self.step))
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        Enumerator::Seq(self.len())
    }

    fn enumerator_len(self: &Arc<Self>) -> Option<usize> {
        Some(self.len())
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&PyRange::repr(self))
    }
}

fn type_error(message: &str) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("TypeError: {message}"))
}

/// An integer argument of `range` (a bool counts, as in Python).
fn int_arg(v: &Value) -> Result<i64, Error> {
    if v.kind() == minijinja::value::ValueKind::Bool {
        return Ok(i64::from(v.is_true()));
    }
    match v.as_i64() {
        Some(n) if v.is_integer() => Ok(n),
        _ => Err(type_error(&format!(
            "'{}' object cannot be interpreted as an integer",
            super::operators::type_name(v)
        ))),
    }
}

/// `range(stop)`, `range(start, stop[, step])`, refused past [`MAX_RANGE`] items as Jinja2's
/// sandbox refuses it.
fn range(args: Rest<Value>) -> Result<Value, Error> {
    let ints = args.iter().map(int_arg).collect::<Result<Vec<_>, _>>()?;
    let r = match ints.as_slice() {
        [stop] => PyRange {
            start: 0,
            stop: *stop,
            step: 1,
        },
        [start, stop] => PyRange {
            start: *start,
            stop: *stop,
            step: 1,
        },
        [start, stop, step] => PyRange {
            start: *start,
            stop: *stop,
            step: *step,
        },
        [] => return Err(type_error("range expected at least 1 argument, got 0")),
        _ => {
            return Err(type_error(&format!(
                "range expected at most 3 arguments, got {}",
                ints.len()
            )))
        }
    };
    if r.step == 0 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "ValueError: range() arg 3 must not be zero",
        ));
    }
    if r.len() as u64 > MAX_RANGE as u64 {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!(
                "OverflowError: Range too big. The sandbox blocks ranges larger than MAX_RANGE ({MAX_RANGE})."
            ),
        ));
    }
    Ok(Value::from_object(r))
}

/// Jinja2's `cycler(*items)`: `next()` gives the items in turn, `current` the one `next()`
/// gives next, `reset()` starts over.
#[derive(Debug)]
pub(crate) struct Cycler {
    items: Vec<Value>,
    pos: AtomicUsize,
}

impl Object for Cycler {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        match key.as_str()? {
            "current" => Some(self.items[self.pos.load(Ordering::Relaxed)].clone()),
            "items" => Some(Value::from(minijinja::value::Tuple::from(
                self.items.clone(),
            ))),
            "pos" => Some(Value::from(self.pos.load(Ordering::Relaxed))),
            _ => None,
        }
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &mut State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let () = from_args(args)?;
        match method {
            "next" => {
                let at = self.pos.load(Ordering::Relaxed);
                self.pos
                    .store((at + 1) % self.items.len(), Ordering::Relaxed);
                Ok(self.items[at].clone())
            }
            "reset" => {
                self.pos.store(0, Ordering::Relaxed);
                Ok(Value::from(()))
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<jinja2.utils.Cycler object>")
    }
}

fn cycler(items: Rest<Value>) -> Result<Value, Error> {
    if items.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "RuntimeError: at least one item has to be provided",
        ));
    }
    Ok(Value::from_object(Cycler {
        items: items.0,
        pos: AtomicUsize::new(0),
    }))
}

/// Jinja2's `joiner(sep=', ')`: a callable that gives nothing the first time, `sep` after.
#[derive(Debug)]
pub(crate) struct Joiner {
    sep: Value,
    used: AtomicBool,
}

impl Object for Joiner {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn call(self: &Arc<Self>, _state: &mut State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let () = from_args(args)?;
        if self.used.swap(true, Ordering::Relaxed) {
            Ok(self.sep.clone())
        } else {
            Ok(Value::from(""))
        }
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<jinja2.utils.Joiner object>")
    }
}

fn joiner(sep: Option<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    let by_name: Option<Value> = kwargs.get("sep")?;
    kwargs.assert_all_used()?;
    Ok(Value::from_object(Joiner {
        sep: sep.or(by_name).unwrap_or_else(|| Value::from(", ")),
        used: AtomicBool::new(false),
    }))
}

/// The words `lipsum` draws from.
const LOREM: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod \
    tempor incididunt ut labore et dolore magna aliqua enim ad minim veniam quis nostrud \
    exercitation ullamco laboris nisi aliquip ex ea commodo consequat duis aute irure in \
    reprehenderit voluptate velit esse cillum eu fugiat nulla pariatur excepteur sint occaecat \
    cupidatat non proident sunt culpa qui officia deserunt mollit anim id est laborum";

/// A small pseudo-random generator seeded from the process's hash keys (`lipsum` is random in
/// Jinja2 too; nothing depends on which words come out).
struct Dice(u64);

impl Dice {
    fn new() -> Self {
        let seed = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        Dice(seed | 1)
    }

    /// A number in `lo..hi` (`lo` when the range is empty).
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let r = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d);
        if hi <= lo {
            return lo;
        }
        lo + (r % (hi - lo) as u64) as i64
    }
}

/// Jinja2's `lipsum(n=5, html=True, min=20, max=100)`: `n` paragraphs of `min` to `max`
/// random words of lorem ipsum, capitalised sentences with commas and full stops, as
/// `<p>` elements (`Markup`) or separated by blank lines.
fn lipsum(args: Rest<Value>, kwargs: Kwargs) -> Result<Value, Error> {
    const NAMES: [&str; 4] = ["n", "html", "min", "max"];
    let mut given: [Option<Value>; 4] = Default::default();
    if args.len() > NAMES.len() {
        return Err(type_error("lipsum takes at most 4 arguments"));
    }
    for (slot, v) in given.iter_mut().zip(args.iter()) {
        *slot = Some(v.clone());
    }
    for (i, name) in NAMES.iter().enumerate() {
        if let Some(v) = kwargs.get::<Option<Value>>(name)? {
            given[i] = Some(v);
        }
    }
    kwargs.assert_all_used()?;
    let int = |v: &Option<Value>, default: i64| v.as_ref().map_or(Ok(default), int_arg);
    let n = int(&given[0], 5)?.clamp(0, 1000);
    let html = given[1].as_ref().is_none_or(Value::is_true);
    let (min, max) = (int(&given[2], 20)?, int(&given[3], 100)?);
    if min >= max {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("ValueError: empty range for randrange() ({min}, {max})"),
        ));
    }
    let max = max.min(min.saturating_add(10_000));
    let words: Vec<&str> = LOREM.split_whitespace().collect();
    let mut dice = Dice::new();
    let mut paragraphs = Vec::new();
    for _ in 0..n {
        let mut p: Vec<String> = Vec::new();
        let (mut capital, mut last_comma, mut last_stop) = (true, 0, 0);
        let mut last = "";
        for idx in 0..dice.range(min, max) {
            let mut word = loop {
                let w = words[dice.range(0, words.len() as i64) as usize];
                if w != last {
                    last = w;
                    break w.to_string();
                }
            };
            if capital {
                word = word[..1].to_uppercase() + &word[1..];
                capital = false;
            }
            if idx - dice.range(3, 8) > last_comma {
                last_comma = idx;
                last_stop += 2;
                word.push(',');
            }
            if idx - dice.range(10, 20) > last_stop {
                last_comma = idx;
                last_stop = idx;
                word.push('.');
                capital = true;
            }
            p.push(word);
        }
        let mut text = p.join(" ");
        if text.ends_with(',') {
            text.pop();
            text.push('.');
        } else if !text.ends_with('.') {
            text.push('.');
        }
        paragraphs.push(text);
    }
    if !html {
        return Ok(Value::from(paragraphs.join("\n\n")));
    }
    let html: Vec<String> = paragraphs
        .iter()
        .map(|p| format!("<p>{}</p>", escape_html(p)))
        .collect();
    Ok(Value::from_safe_string(html.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: i64, stop: i64, step: i64) -> PyRange {
        PyRange { start, stop, step }
    }

    #[test]
    fn ranges_as_python() {
        assert_eq!(r(0, 3, 1).len(), 3);
        assert_eq!(r(1, 10, 3).len(), 3);
        assert_eq!(r(10, 0, -3).len(), 4);
        assert_eq!(r(5, 1, 1).len(), 0);
        assert_eq!(r(0, 3, 1).repr(), "range(0, 3)");
        assert_eq!(r(1, 10, 3).repr(), "range(1, 10, 3)");
        assert!(range(Rest(vec![Value::from(MAX_RANGE + 1)])).is_err());
        assert!(range(Rest(vec![Value::from(1.5)])).is_err());
    }
}
