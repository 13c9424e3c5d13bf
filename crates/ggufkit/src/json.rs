//! A small streaming JSON writer with the contract's number rules: integers exact, floats as the
//! shortest decimal that reads back to the same float32 (or float64), NaN and infinities as
//! strings, text that is not UTF-8 as `{"hex": "..."}`. The library writes metadata values with
//! it (the safetensors export) and the CLI its `--json` output, so both spell a value one way.
//!
//! Written by hand instead of through `serde_json::Value` because that stores every float as an
//! `f64`, which would print a float32 like 0.1 as 0.10000000149011612.
#![forbid(unsafe_code)]

use crate::tensor_type::TensorType;
use crate::value::{ArrayView, Value};

/// Appends JSON text to a `String`.
#[derive(Default)]
pub struct Json {
    /// The text written so far.
    pub out: String,
}

impl Json {
    /// An empty writer. It allocates nothing until written to: a renderer may keep a short value
    /// of every key of a hostile header, and a reserved start each would multiply their size.
    pub fn new() -> Self {
        Json { out: String::new() }
    }

    /// Appends `s` as it is (punctuation, or JSON text written elsewhere).
    pub fn raw(&mut self, s: &str) -> &mut Self {
        self.out.push_str(s);
        self
    }

    /// An object key and its colon.
    pub fn key(&mut self, k: &str) -> &mut Self {
        self.str(k);
        self.out.push(':');
        self
    }

    /// A tensor's type as every JSON output gives it: `"type":"q4_k"`; a type ggml does not read
    /// adds its id, `"type":"iq2_kt","type_id":153` (the name `unknown` when no table has it).
    pub fn tensor_type(&mut self, t: TensorType) -> &mut Self {
        self.key("type").str(t.name());
        if let TensorType::Other(id) = t {
            self.raw(",").key("type_id").u64(u64::from(id));
        }
        self
    }

    /// An unsigned integer, exactly.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.out.push_str(itoa::Buffer::new().format(v));
        self
    }

    /// A signed integer, exactly.
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.out.push_str(itoa::Buffer::new().format(v));
        self
    }

    /// `true` or `false`.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.out.push_str(if v { "true" } else { "false" });
        self
    }

    /// A float32 as the shortest decimal that reads back to it; NaN and infinities as strings.
    pub fn f32(&mut self, v: f32) -> &mut Self {
        if v.is_finite() {
            self.out.push_str(ryu::Buffer::new().format_finite(v));
        } else {
            self.non_finite(v.is_nan(), v > 0.0);
        }
        self
    }

    /// A float64 as the shortest decimal that reads back to it; NaN and infinities as strings.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        if v.is_finite() {
            self.out.push_str(ryu::Buffer::new().format_finite(v));
        } else {
            self.non_finite(v.is_nan(), v > 0.0);
        }
        self
    }

    fn non_finite(&mut self, nan: bool, positive: bool) {
        self.out.push_str(match (nan, positive) {
            (true, _) => "\"nan\"",
            (false, true) => "\"inf\"",
            (false, false) => "\"-inf\"",
        });
    }

    /// A JSON string with every required escape.
    pub fn str(&mut self, s: &str) -> &mut Self {
        self.out.push('"');
        let bytes = s.as_bytes();
        let mut start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            let esc: Option<&str> = match b {
                b'"' => Some("\\\""),
                b'\\' => Some("\\\\"),
                b'\n' => Some("\\n"),
                b'\r' => Some("\\r"),
                b'\t' => Some("\\t"),
                0..=0x1f => None,
                _ => continue,
            };
            self.out.push_str(&s[start..i]);
            match esc {
                Some(e) => self.out.push_str(e),
                None => {
                    use std::fmt::Write;
                    let _ = write!(self.out, "\\u{:04x}", b);
                }
            }
            start = i + 1;
        }
        self.out.push_str(&s[start..]);
        self.out.push('"');
        self
    }

    /// Bytes that should be text: a JSON string when UTF-8, `{"hex": "..."}` otherwise.
    pub fn text(&mut self, b: &[u8]) -> &mut Self {
        match std::str::from_utf8(b) {
            Ok(s) => self.str(s),
            Err(_) => {
                self.out.push_str("{\"hex\":\"");
                for byte in b {
                    use std::fmt::Write;
                    let _ = write!(self.out, "{byte:02x}");
                }
                self.out.push_str("\"}");
                self
            }
        }
    }

    /// A metadata value (arrays complete, never shortened).
    pub fn value(&mut self, v: &Value<'_>) -> &mut Self {
        match *v {
            Value::U8(x) => self.u64(x.into()),
            Value::I8(x) => self.i64(x.into()),
            Value::U16(x) => self.u64(x.into()),
            Value::I16(x) => self.i64(x.into()),
            Value::U32(x) => self.u64(x.into()),
            Value::I32(x) => self.i64(x.into()),
            Value::U64(x) => self.u64(x),
            Value::I64(x) => self.i64(x),
            Value::F32(x) => self.f32(x),
            Value::F64(x) => self.f64(x),
            Value::Bool(b) => self.bool(b != 0),
            Value::String(s) => self.text(s.as_bytes()),
            Value::Array(a) => self.array(&a),
        }
    }

    /// The elements of an array; nested arrays as `{"element_type": ..., "value": [...]}`.
    ///
    /// Iterative: a file can nest arrays as deep as its bytes allow (12 bytes a level), far
    /// deeper than any stack.
    pub fn array(&mut self, a: &ArrayView<'_>) -> &mut Self {
        self.out.push('[');
        if self.strings(a) {
            self.out.push(']');
            return self;
        }
        // each frame: the elements left to write, and whether one was written already
        let mut stack = vec![(a.iter(), false)];
        while let Some((elems, wrote)) = stack.last_mut() {
            let Some(e) = elems.next() else {
                stack.pop();
                self.out.push(']');
                if !stack.is_empty() {
                    self.out.push('}');
                }
                continue;
            };
            if std::mem::replace(wrote, true) {
                self.out.push(',');
            }
            match e {
                Value::Array(inner) => {
                    self.raw("{\"element_type\":")
                        .str(inner.element_type().name())
                        .raw(",\"value\":[");
                    if self.strings(&inner) {
                        self.out.push_str("]}");
                    } else {
                        stack.push((inner.iter(), false));
                    }
                }
                other => {
                    self.value(&other);
                }
            }
        }
        self
    }

    /// Writes the elements of a string array (without brackets); false for other arrays.
    fn strings(&mut self, a: &ArrayView<'_>) -> bool {
        let Some(strings) = a.strings() else {
            return false;
        };
        for (i, s) in strings.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.text(s.as_bytes());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_are_shortest_for_their_width() {
        let mut j = Json::new();
        j.f32(0.1)
            .raw(" ")
            .f64(0.1)
            .raw(" ")
            .f32(f32::NAN)
            .raw(" ")
            .f32(f32::NEG_INFINITY);
        assert_eq!(j.out, "0.1 0.1 \"nan\" \"-inf\"");
        let mut j = Json::new();
        j.f32(3.4028235e38).raw(" ").f32(-0.0);
        assert_eq!(j.out, "3.4028235e38 -0.0");
    }

    #[test]
    fn strings_are_escaped_and_bytes_hex() {
        let mut j = Json::new();
        j.str("a\"b\\\n\u{1}").raw(" ").text(&[0xff, 0x41]);
        assert_eq!(j.out, "\"a\\\"b\\\\\\n\\u0001\" {\"hex\":\"ff41\"}");
    }
}
