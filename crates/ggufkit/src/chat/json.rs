//! Python's `json.dumps`, which transformers' `tojson` filter calls with `ensure_ascii=False`
//! by default (Jinja2's own `tojson` would escape `<`, `>`, `&`, `'` for HTML): its separators,
//! indentation, key sorting, float spelling and string escapes, byte for byte.
#![forbid(unsafe_code)]

use std::fmt::Write;

use minijinja::value::ValueKind;
use minijinja::Value;

use super::python;

/// How deep values may nest before `json.dumps` gives up (Python's recursion limit, roughly).
const MAX_DEPTH: usize = 512;

/// The arguments of `json.dumps` that transformers' `tojson` passes on.
#[derive(Clone, Debug, Default)]
pub(crate) struct JsonStyle {
    /// Escape every character outside printable ASCII as `\uXXXX`.
    pub ensure_ascii: bool,
    /// `None`: one line; `Some(s)`: one item per line, each level indented by `s`.
    pub indent: Option<String>,
    /// The item and key separators; `None`: `", "`/`": "` on one line, `","`/`": "` indented.
    pub separators: Option<(String, String)>,
    /// Write mappings' keys in sorted order.
    pub sort_keys: bool,
}

/// `json.dumps(value, ...)`, or Python's `TypeError` message for what JSON cannot hold.
pub(crate) fn dumps(value: &Value, style: &JsonStyle) -> Result<String, String> {
    let (item_sep, key_sep) = match &style.separators {
        Some((i, k)) => (i.as_str(), k.as_str()),
        None if style.indent.is_some() => (",", ": "),
        None => (", ", ": "),
    };
    let mut w = Writer {
        out: String::new(),
        style,
        item_sep,
        key_sep,
    };
    w.value(value, 0)?;
    Ok(w.out)
}

struct Writer<'a> {
    out: String,
    style: &'a JsonStyle,
    item_sep: &'a str,
    key_sep: &'a str,
}

impl Writer<'_> {
    fn value(&mut self, value: &Value, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(
                "RecursionError: maximum recursion depth exceeded while encoding a JSON object"
                    .into(),
            );
        }
        if python::is_none(value) {
            self.out.push_str("null");
            return Ok(());
        }
        if let Some(t) = python::object_type(value) {
            return Err(format!(
                "TypeError: Object of type {t} is not JSON serializable"
            ));
        }
        match value.kind() {
            ValueKind::None => self.out.push_str("null"),
            ValueKind::Bool => self
                .out
                .push_str(if value.is_true() { "true" } else { "false" }),
            ValueKind::Number => {
                if value.is_integer() {
                    let _ = write!(self.out, "{value}");
                } else {
                    let f = f64::try_from(value.clone()).unwrap_or(f64::NAN);
                    python::write_float(&mut self.out, f, "NaN", "Infinity");
                }
            }
            ValueKind::String => self.string(value.as_str().unwrap_or_default()),
            ValueKind::Seq => {
                let items: Vec<Value> = value.try_iter().map_err(|e| e.to_string())?.collect();
                self.open('[', items.is_empty(), depth);
                for (i, item) in items.iter().enumerate() {
                    self.separator(i, depth);
                    self.value(item, depth + 1)?;
                }
                self.close(']', items.is_empty(), depth);
            }
            ValueKind::Map => {
                let mut pairs = Vec::new();
                for key in value.try_iter().map_err(|e| e.to_string())? {
                    let item = value.get_item(&key).unwrap_or_default();
                    pairs.push((key_text(&key)?, item));
                }
                if self.style.sort_keys {
                    pairs.sort_by(|a, b| a.0.cmp(&b.0));
                }
                self.open('{', pairs.is_empty(), depth);
                for (i, (key, item)) in pairs.iter().enumerate() {
                    self.separator(i, depth);
                    self.string(key);
                    self.out.push_str(self.key_sep);
                    self.value(item, depth + 1)?;
                }
                self.close('}', pairs.is_empty(), depth);
            }
            ValueKind::Undefined => {
                return Err("TypeError: Object of type Undefined is not JSON serializable".into())
            }
            other => {
                return Err(format!(
                    "TypeError: Object of type {} is not JSON serializable",
                    python_type(other)
                ))
            }
        }
        Ok(())
    }

    fn open(&mut self, c: char, empty: bool, depth: usize) {
        self.out.push(c);
        if !empty {
            self.newline(depth + 1);
        }
    }

    fn close(&mut self, c: char, empty: bool, depth: usize) {
        if !empty {
            self.newline(depth);
        }
        self.out.push(c);
    }

    fn separator(&mut self, i: usize, depth: usize) {
        if i > 0 {
            self.out.push_str(self.item_sep);
            self.newline(depth + 1);
        }
    }

    fn newline(&mut self, level: usize) {
        if let Some(indent) = &self.style.indent {
            self.out.push('\n');
            for _ in 0..level {
                self.out.push_str(indent);
            }
        }
    }

    fn string(&mut self, s: &str) {
        let ascii = self.style.ensure_ascii;
        self.out.push('"');
        for c in s.chars() {
            match c {
                '"' => self.out.push_str("\\\""),
                '\\' => self.out.push_str("\\\\"),
                '\n' => self.out.push_str("\\n"),
                '\r' => self.out.push_str("\\r"),
                '\t' => self.out.push_str("\\t"),
                '\u{8}' => self.out.push_str("\\b"),
                '\u{c}' => self.out.push_str("\\f"),
                c if (c as u32) < 0x20 || (ascii && !(' '..='~').contains(&c)) => {
                    let mut units = [0u16; 2];
                    for u in c.encode_utf16(&mut units) {
                        let _ = write!(self.out, "\\u{u:04x}");
                    }
                }
                c => self.out.push(c),
            }
        }
        self.out.push('"');
    }
}

/// A mapping key as `json.dumps` writes it: strings as themselves; numbers, booleans and None
/// as their JSON text.
fn key_text(key: &Value) -> Result<String, String> {
    match key.kind() {
        ValueKind::String => Ok(key.as_str().unwrap_or_default().to_string()),
        ValueKind::None => Ok("null".into()),
        ValueKind::Bool => Ok(if key.is_true() { "true" } else { "false" }.into()),
        ValueKind::Number => {
            let mut s = String::new();
            if key.is_integer() {
                let _ = write!(s, "{key}");
            } else {
                let f = f64::try_from(key.clone()).unwrap_or(f64::NAN);
                python::write_float(&mut s, f, "NaN", "Infinity");
            }
            Ok(s)
        }
        other => Err(format!(
            "TypeError: keys must be str, int, float, bool or None, not {}",
            python_type(other)
        )),
    }
}

/// The Python type name the error messages of `json.dumps` use for a kind of value.
fn python_type(kind: ValueKind) -> &'static str {
    match kind {
        ValueKind::Seq => "list",
        ValueKind::Map => "dict",
        ValueKind::Iterable => "generator",
        ValueKind::Bytes => "bytes",
        ValueKind::Undefined => "Undefined",
        _ => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Value {
        Value::from_pairs([
            ("b", Value::from(vec![Value::from(1), Value::from(2.5)])),
            ("a", Value::from("é\"\n<")),
            ("c", Value::from_pairs(Vec::<(&str, Value)>::new())),
            ("d", Value::from(())),
        ])
    }

    #[test]
    fn default_is_one_line_with_spaces_and_raw_unicode() {
        assert_eq!(
            dumps(&sample(), &JsonStyle::default()).unwrap(),
            r#"{"b": [1, 2.5], "a": "é\"\n<", "c": {}, "d": null}"#
        );
    }

    #[test]
    fn indent_sort_keys_ensure_ascii_separators() {
        let style = JsonStyle {
            ensure_ascii: true,
            indent: Some("  ".into()),
            separators: None,
            sort_keys: true,
        };
        assert_eq!(
            dumps(&sample(), &style).unwrap(),
            "{\n  \"a\": \"\\u00e9\\\"\\n<\",\n  \"b\": [\n    1,\n    2.5\n  ],\n  \"c\": {},\n  \"d\": null\n}"
        );
        let style = JsonStyle {
            separators: Some((",".into(), ":".into())),
            ..JsonStyle::default()
        };
        assert_eq!(
            dumps(&Value::from(vec![Value::from("\u{1f600}")]), &style).unwrap(),
            "[\"\u{1f600}\"]"
        );
        let style = JsonStyle {
            ensure_ascii: true,
            ..JsonStyle::default()
        };
        assert_eq!(
            dumps(&Value::from("\u{1f600}\u{7f}"), &style).unwrap(),
            "\"\\ud83d\\ude00\\u007f\""
        );
    }

    #[test]
    fn floats_and_undefined() {
        let v = Value::from(vec![
            Value::from(1e16),
            Value::from(f64::INFINITY),
            Value::from(0.5),
        ]);
        assert_eq!(
            dumps(&v, &JsonStyle::default()).unwrap(),
            "[1e+16, Infinity, 0.5]"
        );
        assert_eq!(
            dumps(&Value::UNDEFINED, &JsonStyle::default()).unwrap_err(),
            "TypeError: Object of type Undefined is not JSON serializable"
        );
    }
}
