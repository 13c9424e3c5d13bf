//! What a template expression can be worth without running it: the few strings, integers and
//! lists that constants give through concatenation, repetition, `%` and `format`, `join`,
//! `replace` and the like. This is how a name spelled `'_' ~ '_class_' ~ '_'` or
//! `'%c%c'|format(95, 95)` is recognised. Bounded: a few alternatives, short strings, anything
//! else unknown.
#![forbid(unsafe_code)]

/// One value an expression can have.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Val {
    Str(String),
    Int(i64),
    List(Vec<Val>),
}

/// The values an expression can have; empty when unknown.
pub(super) type Vals = Vec<Val>;

/// Most alternatives kept for one expression (an `if` expression or a loop variable gives more
/// than one).
const MAX_ALTERNATIVES: usize = 16;

/// Longest string or list kept; names that reach Python internals are short.
const MAX_LEN: usize = 1024;

impl Val {
    /// The text `~`, `%s` and `{}` give of a value (`None` for a list).
    fn text(&self) -> Option<String> {
        match self {
            Val::Str(s) => Some(s.clone()),
            Val::Int(i) => Some(i.to_string()),
            Val::List(_) => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The bytes the value holds (at least 1), what computing it cost.
    pub(super) fn size(&self) -> usize {
        match self {
            Val::Str(s) => s.len().max(1),
            Val::Int(_) => 1,
            Val::List(l) => l.iter().map(Val::size).sum::<usize>().max(1),
        }
    }

    /// Whether the value is a string that names something behind two underscores.
    pub(super) fn has_dunder(&self) -> bool {
        matches!(self, Val::Str(s) if s.contains("__"))
    }
}

/// The strings among `vals`.
pub(super) fn strings(vals: &Vals) -> impl Iterator<Item = &str> {
    vals.iter().filter_map(Val::as_str)
}

/// A constant of the syntax tree as a value, `None` for other kinds (none, booleans, floats).
pub(super) fn constant(v: &minijinja::Value) -> Option<Val> {
    if let Some(s) = v.as_str() {
        return (s.len() <= MAX_LEN).then(|| Val::Str(python_escapes(s)));
    }
    if v.is_number() {
        return v.as_i64().map(Val::Int);
    }
    None
}

/// The escapes Python's Jinja decodes in a string literal and minijinja's lexer leaves as they
/// are: `\UXXXXXXXX` and `\N{LOW LINE}` (the one character name that matters here).
fn python_escapes(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let long = rest
            .get(2..10)
            .filter(|_| rest.as_bytes().get(1) == Some(&b'U'))
            .and_then(|h| u32::from_str_radix(h, 16).ok())
            .and_then(char::from_u32);
        if let Some(c) = long {
            out.push(c);
            rest = &rest[10..];
        } else if rest
            .get(..12)
            .is_some_and(|n| n.eq_ignore_ascii_case("\\N{LOW LINE}"))
        {
            out.push('_');
            rest = &rest[12..];
        } else {
            out.push('\\');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    out
}

fn keep(v: Val) -> Option<Val> {
    let len = match &v {
        Val::Str(s) => s.len(),
        Val::List(l) => l.len(),
        Val::Int(_) => 0,
    };
    (len <= MAX_LEN).then_some(v)
}

/// Every combination of the alternatives of `args` (one value per argument), `None` when there
/// would be too many or one argument is unknown.
fn combinations(args: &[&Vals]) -> Option<Vec<Vec<Val>>> {
    let mut out: Vec<Vec<Val>> = vec![Vec::new()];
    for a in args {
        if a.is_empty() || out.len() * a.len() > MAX_ALTERNATIVES {
            return None;
        }
        out = out
            .iter()
            .flat_map(|prefix| {
                a.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(v.clone());
                    p
                })
            })
            .collect();
    }
    Some(out)
}

/// `f` over every combination of the alternatives of `args`; unknown when there are too many.
pub(super) fn map_n(args: &[&Vals], f: impl Fn(&[Val]) -> Option<Val>) -> Vals {
    combinations(args)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| f(c).and_then(keep))
        .collect()
}

/// `a ~ b`.
pub(super) fn concat(a: &Val, b: &Val) -> Option<Val> {
    Some(Val::Str(a.text()? + &b.text()?))
}

/// `a + b`: strings and lists join, integers add.
pub(super) fn add(a: &Val, b: &Val) -> Option<Val> {
    match (a, b) {
        (Val::Str(x), Val::Str(y)) => Some(Val::Str(format!("{x}{y}"))),
        (Val::Int(x), Val::Int(y)) => x.checked_add(*y).map(Val::Int),
        (Val::List(x), Val::List(y)) => Some(Val::List(x.iter().chain(y).cloned().collect())),
        _ => None,
    }
}

/// `a * b`: a string or list repeated.
pub(super) fn mul(a: &Val, b: &Val) -> Option<Val> {
    let (s, n) = match (a, b) {
        (Val::Str(s), Val::Int(n)) | (Val::Int(n), Val::Str(s)) => (s, *n),
        (Val::Int(x), Val::Int(y)) => return x.checked_mul(*y).map(Val::Int),
        _ => return None,
    };
    let n = usize::try_from(n).unwrap_or(0);
    (s.len().saturating_mul(n) <= MAX_LEN).then(|| Val::Str(s.repeat(n)))
}

/// Python's `fmt % args` (and Jinja's `fmt|format(args)`): `%s`, `%d`, `%i`, `%c` and `%%`.
pub(super) fn percent(fmt: &Val, args: &[Val]) -> Option<Val> {
    let fmt = fmt.as_str()?;
    let args: &[Val] = match args {
        [Val::List(l)] => l,
        a => a,
    };
    let mut next = args.iter();
    let mut out = String::new();
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        while it
            .peek()
            .is_some_and(|d| matches!(d, '-' | '+' | ' ' | '#' | '.' | '0'..='9'))
        {
            it.next();
        }
        match it.next()? {
            '%' => out.push('%'),
            'c' => match next.next()? {
                Val::Int(i) => out.push(char::from_u32(u32::try_from(*i).ok()?)?),
                v => out.push_str(&v.text()?),
            },
            's' | 'd' | 'i' => out.push_str(&next.next()?.text()?),
            _ => return None,
        }
        if out.len() > MAX_LEN {
            return None;
        }
    }
    Some(Val::Str(out))
}

/// Python's `fmt.format(args, **kwargs)`: `{}`, `{0}`, `{name}`, the `c` spec, `{{` and `}}`.
pub(super) fn brace_format(fmt: &Val, args: &[Val], kwargs: &[(&str, Val)]) -> Option<Val> {
    let fmt = fmt.as_str()?;
    let mut out = String::new();
    let mut auto = 0;
    let mut it = fmt.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '{' if it.peek() == Some(&'{') => {
                it.next();
                out.push('{');
            }
            '}' if it.peek() == Some(&'}') => {
                it.next();
                out.push('}');
            }
            '{' => {
                let field: String = it.by_ref().take_while(|&d| d != '}').collect();
                let (name, spec) = field.split_once(':').unwrap_or((&field, ""));
                let v = if name.is_empty() {
                    auto += 1;
                    args.get(auto - 1)?
                } else if let Ok(i) = name.parse::<usize>() {
                    args.get(i)?
                } else {
                    &kwargs.iter().find(|(k, _)| *k == name)?.1
                };
                match (spec, v) {
                    ("c", Val::Int(i)) => out.push(char::from_u32(u32::try_from(*i).ok()?)?),
                    _ => out.push_str(&v.text()?),
                }
            }
            c => out.push(c),
        }
        if out.len() > MAX_LEN {
            return None;
        }
    }
    Some(Val::Str(out))
}

/// `list|join(sep)` and `sep.join(list)`.
pub(super) fn join(list: &Val, sep: &Val) -> Option<Val> {
    let Val::List(items) = list else { return None };
    let sep = sep.as_str()?;
    let parts: Option<Vec<String>> = items.iter().map(Val::text).collect();
    Some(Val::Str(parts?.join(sep)))
}

/// `s|replace(a, b)` and `s.replace(a, b)`.
pub(super) fn replace(s: &Val, a: &Val, b: &Val) -> Option<Val> {
    let (s, a, b) = (s.as_str()?, a.as_str()?, b.as_str()?);
    if a.is_empty() {
        return None;
    }
    let grows = b.len().saturating_sub(a.len());
    (s.len() + grows.saturating_mul(s.matches(a).count()) <= MAX_LEN)
        .then(|| Val::Str(s.replace(a, b)))
}

/// The filters and methods of one string argument-free transformation: `lower`, `upper`,
/// `reverse`, `trim`/`strip`, `string`, `first`, `last`, `list`.
pub(super) fn transform(name: &str, v: &Val) -> Option<Val> {
    let s = match v {
        Val::List(l) => {
            return match name {
                "first" => l.first().cloned(),
                "last" => l.last().cloned(),
                "reverse" => Some(Val::List(l.iter().rev().cloned().collect())),
                "list" => Some(v.clone()),
                _ => None,
            }
        }
        Val::Int(i) => return (name == "string").then(|| Val::Str(i.to_string())),
        Val::Str(s) => s,
    };
    let out = match name {
        "lower" => s.to_lowercase(),
        "upper" => s.to_uppercase(),
        "reverse" => s.chars().rev().collect(),
        "trim" | "strip" => s.trim().to_string(),
        "string" => s.clone(),
        "first" => s.chars().next()?.to_string(),
        "last" => s.chars().last()?.to_string(),
        "list" => return Some(Val::List(s.chars().map(|c| Val::Str(c.into())).collect())),
        _ => return None,
    };
    Some(Val::Str(out))
}

/// `v[i]` of a string or list, Python's negative indices included.
pub(super) fn index(v: &Val, i: &Val) -> Option<Val> {
    let Val::Int(i) = i else { return None };
    match v {
        Val::Str(s) => {
            let chars: Vec<char> = s.chars().collect();
            at(chars.len(), *i).map(|k| Val::Str(chars[k].into()))
        }
        Val::List(l) => at(l.len(), *i).map(|k| l[k].clone()),
        Val::Int(_) => None,
    }
}

fn at(len: usize, i: i64) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let k = if i < 0 { len + i } else { i };
    (0..len).contains(&k).then_some(k as usize)
}

/// `s[start:stop:step]` of a string, Python's rules for omitted and negative bounds.
pub(super) fn slice(
    v: &Val,
    start: Option<&Val>,
    stop: Option<&Val>,
    step: Option<&Val>,
) -> Option<Val> {
    let s = v.as_str()?;
    let int = |x: Option<&Val>| match x {
        None => Some(None),
        Some(Val::Int(i)) => Some(Some(*i)),
        Some(_) => None,
    };
    let chars: Vec<char> = s.chars().collect();
    let len = i64::try_from(chars.len()).ok()?;
    let step = int(step)?.unwrap_or(1);
    if step == 0 {
        return None;
    }
    let norm = |b: i64, lo: i64, hi: i64| (if b < 0 { b + len } else { b }).clamp(lo, hi);
    let mut out = String::new();
    if step > 0 {
        let (mut i, stop) = (
            int(start)?.map_or(0, |b| norm(b, 0, len)),
            int(stop)?.map_or(len, |b| norm(b, 0, len)),
        );
        while i < stop {
            out.push(chars[i as usize]);
            i = i.saturating_add(step);
        }
    } else {
        let (mut i, stop) = (
            int(start)?.map_or(len - 1, |b| norm(b, -1, len - 1)),
            int(stop)?.map_or(-1, |b| norm(b, -1, len - 1)),
        );
        while i > stop {
            out.push(chars[i as usize]);
            i = i.saturating_add(step);
        }
    }
    Some(Val::Str(out))
}
